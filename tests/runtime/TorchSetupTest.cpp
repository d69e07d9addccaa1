#include <gtest/gtest.h>

#include "qgpu/runtime/TorchSetup.h"

using namespace qgpu;

TEST(TorchSetup, SetsThreadsOnceAndDescribesTheBuild) {
    initTorch(2);
    EXPECT_EQ(torchThreads(), 2);
    initTorch(1);  // later calls keep the first setting
    EXPECT_EQ(torchThreads(), 2);
    std::string d = torchDescription();
    EXPECT_NE(d.find("LibTorch "), std::string::npos) << d;
    EXPECT_NE(d.find(cudaAvailable() ? "CUDA" : "CPU"), std::string::npos) << d;
}
