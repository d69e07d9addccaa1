// HelperThread: both halves of every job run exactly once, whichever thread takes the second, and an
// exception from either half reaches the caller without stopping later jobs.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "HelperThread.h"

using namespace qgpu;

TEST(HelperThread, EveryJobRunsBothHalvesOnce) {
    HelperThread helper;
    std::atomic<int> first{0}, second{0};
    for (int i = 0; i < 20000; ++i)
        helper.split([&](int part) { (part == 0 ? first : second).fetch_add(1, std::memory_order_relaxed); });
    EXPECT_EQ(first.load(), 20000);
    EXPECT_EQ(second.load(), 20000);
}

TEST(HelperThread, AnExceptionInEitherHalfReachesTheCaller) {
    HelperThread helper;
    for (int throwing : {0, 1}) {
        for (int i = 0; i < 100; ++i)
            EXPECT_THROW(helper.split([&](int part) {
                if (part == throwing) throw std::runtime_error("half " + std::to_string(part));
            }),
                         std::runtime_error);
        std::atomic<int> ran{0};
        helper.split([&](int) { ran.fetch_add(1); });
        EXPECT_EQ(ran.load(), 2) << "the helper still takes jobs after half " << throwing << " threw";
    }
}
