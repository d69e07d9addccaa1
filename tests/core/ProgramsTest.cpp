// Runs every example kernel in resources/examples against the "expect" of its launch spec.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "TestUtil.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/Session.h"

using namespace qgpu;
using namespace qgpu::test;
namespace fs = std::filesystem;

namespace {

const fs::path kExamples = fs::path(QGPU_SOURCE_DIR) / "resources" / "examples";

std::vector<fs::path> exampleKernels() {
    std::vector<fs::path> out;
    if (!fs::is_directory(kExamples)) return out;
    for (const auto& e : fs::directory_iterator(kExamples))
        if (e.is_regular_file() && e.path().extension() == ".qasm") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

struct Example {
    std::string name;
    Program program;  // not linked
    LaunchSpec launch;
};

Example loadExample(const fs::path& qasm) {
    fs::path json = qasm;
    json.replace_extension(".json");
    Example ex;
    ex.name = qasm.stem().string();
    ex.program = assemble(readFile(qasm), qasm.filename().string());
    ex.launch = parseLaunchSpec(readFile(json), json.filename().string());
    return ex;
}

}  // namespace

TEST(Programs, RequiredExamplesExistWithLaunchSpecs) {
    std::vector<fs::path> kernels = exampleKernels();
    std::vector<std::string> names;
    for (const auto& k : kernels) names.push_back(k.stem().string());
    for (const char* required : {"dot_product", "vector_add", "reverse", "tree_reduce", "loop_sum", "prefix_scan"})
        EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required << ".qasm is missing";
    for (const auto& k : kernels) {
        fs::path json = k;
        json.replace_extension(".json");
        EXPECT_TRUE(fs::exists(json)) << json << " is missing";
    }
}

TEST(Programs, EveryExampleProducesItsExpectedArrays) {
    std::vector<fs::path> kernels = exampleKernels();
    ASSERT_FALSE(kernels.empty()) << "no examples in " << kExamples;
    for (const auto& path : kernels) {
        SCOPED_TRACE(path.filename().string());
        Example ex;
        try {
            ex = loadExample(path);
        } catch (const DiagnosticError& e) {
            ADD_FAILURE() << e.what();
            continue;
        }
        EXPECT_FALSE(ex.launch.expect.empty()) << "the launch spec has no \"expect\"";
        const MachineSpec spec = MachineSpec::standard();
        LinkedLaunch linked = linkLaunch(ex.program, ex.launch, spec);
        const MemoryMap& map = linked.map;
        Interpreter interp(linked.program, ex.launch, spec);
        std::vector<std::string> warnings;
        int steps = 0;
        while (!interp.done() && steps++ < 100000) {
            StepEvent ev = interp.step();
            for (const StepWarning& w : ev.warnings) warnings.push_back(w.describe());
        }
        ASSERT_EQ(interp.state().run, RunState::Finished) << interp.state().fault;
        EXPECT_TRUE(warnings.empty()) << "first warning: " << warnings.front();
        for (const auto& [name, expected] : ex.launch.expect) {
            const ArrayPlacement* p = map.find(name);
            ASSERT_NE(p, nullptr) << name;
            EXPECT_EQ(readArray(interp.state(), *p), expected) << "array " << name;
        }
    }
}

TEST(Programs, EveryExampleRewindsToItsInitialState) {
    for (const auto& path : exampleKernels()) {
        SCOPED_TRACE(path.filename().string());
        Example ex = loadExample(path);
        auto s = makeReferenceSession();
        s->load(ex.program, ex.launch);
        MachineState initial = s->snapshot();
        ASSERT_EQ(s->run(), StopReason::Finished);
        MachineState finished = s->snapshot();
        EXPECT_EQ(s->runBack(), StopReason::AtStart);
        EXPECT_TRUE(sameState(s->snapshot(), initial));
        EXPECT_EQ(s->run(), StopReason::Finished);
        EXPECT_TRUE(sameState(s->snapshot(), finished));
    }
}

TEST(Programs, DisassemblyOfEveryExampleReassemblesToTheSameCode) {
    for (const auto& path : exampleKernels()) {
        SCOPED_TRACE(path.filename().string());
        Example ex = loadExample(path);
        Program again = assemble(disassemble(ex.program));
        ASSERT_EQ(again.blocks.size(), ex.program.blocks.size());
        EXPECT_EQ(again.sharedWords, ex.program.sharedWords);
        for (size_t i = 0; i < again.blocks.size(); ++i) {
            EXPECT_EQ(again.blocks[i].label, ex.program.blocks[i].label);
            EXPECT_EQ(again.blocks[i].body, ex.program.blocks[i].body);
            EXPECT_EQ(again.blocks[i].terminator, ex.program.blocks[i].terminator);
        }
    }
}
