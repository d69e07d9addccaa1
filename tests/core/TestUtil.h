// Shared helpers for the core tests: assemble + launch + link + run a kernel, read results back.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "qgpu/core/Assembler.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineState.h"
#include "qgpu/core/Trace.h"

namespace qgpu::test {

// The sessions' kernel: two warps, a barrier, per-lane loop trip counts, atomics, shared memory and a shuffle.
inline constexpr const char* kSessionKernel = R"(
.shared 8
entry:                      ; 0
    sreg r1, tid.x
    ld.global r2, [r1 + $in]
    st.shared [r1], r2
    bar loop
loop:                       ; 1
    add r3, r3, 1
    atom.global r4, [r0 + $ctr], r3
    setlt r5, r3, r1        ; max(tid, 1) iterations
    br r5, loop, fin
fin:                        ; 2
    xor r6, r1, 1
    ld.shared r7, [r6]
    shfl.bfly r8, r7, 1, 4
    st.global [r1 + $out], r8
    exit
)";
inline constexpr const char* kSessionLaunch = R"({"block": 8, "args": [{"name":"in","array":[5,6,7,8,9,10,11,12]},
                                              {"name":"ctr","zeros":1}, {"name":"out","zeros":8}]})";

// A kernel loaded into a fresh reference interpreter, plus every event it has produced so far.
struct Kernel {
    Program program;  // linked
    LaunchSpec launch;
    MemoryMap map;
    std::unique_ptr<Interpreter> interp;
    std::vector<StepEvent> events;

    const MachineState& state() const { return interp->state(); }

    StepEvent step() {
        StepEvent ev = interp->step();
        events.push_back(ev);
        return ev;
    }

    // Steps until the machine stops (finished or faulted); fails the test on a runaway kernel.
    Kernel& runAll(int maxSteps = 10000) {
        for (int n = 0; !interp->done(); ++n) {
            if (n >= maxSteps) {
                ADD_FAILURE() << "kernel did not finish within " << maxSteps << " steps";
                break;
            }
            step();
        }
        return *this;
    }

    std::vector<int64_t> array(const std::string& name) const {
        const ArrayPlacement* p = map.find(name);
        if (!p) {
            ADD_FAILURE() << "no array named " << name;
            return {};
        }
        return readArray(state(), *p);
    }

    uint32_t reg(int thread, int r) const { return state().threads.at(size_t(thread)).regs.at(size_t(r)); }

    std::vector<std::string> allWarnings() const {
        std::vector<std::string> out;
        for (const auto& ev : events)
            for (const StepWarning& w : ev.warnings) out.push_back(w.describe());
        return out;
    }
};

inline Kernel load(std::string_view source, const std::string& launchJson,
                   const MachineSpec& spec = MachineSpec::standard()) {
    Kernel k;
    Program p = assemble(source, "test.qasm", spec);
    k.launch = parseLaunchSpec(launchJson);
    LinkedLaunch linked = linkLaunch(p, k.launch, spec);
    k.map = linked.map;
    k.program = linked.program;
    k.interp = std::make_unique<Interpreter>(k.program, k.launch, spec);
    return k;
}

inline Kernel run(std::string_view source, const std::string& launchJson) {
    Kernel k = load(source, launchJson);
    k.runAll();
    EXPECT_EQ(k.state().run, RunState::Finished) << k.state().fault;
    return k;
}

// The what() of the DiagnosticError `f` throws, or "" (and a test failure) when it throws nothing.
template <typename F>
std::string diagnosticOf(F&& f) {
    try {
        f();
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a DiagnosticError";
    return "";
}

// Architectural state equality (registers, pcs, lane status, memory, step count, run state).
inline ::testing::AssertionResult sameState(const MachineState& a, const MachineState& b) {
    if (a.threads.size() != b.threads.size()) return ::testing::AssertionFailure() << "thread count differs";
    for (size_t i = 0; i < a.threads.size(); ++i) {
        const ThreadState &x = a.threads[i], &y = b.threads[i];
        if (x.regs != y.regs) return ::testing::AssertionFailure() << "registers of thread " << i << " differ";
        if (x.pc != y.pc) return ::testing::AssertionFailure() << "pc of thread " << i << " differs";
        if (x.status != y.status) return ::testing::AssertionFailure() << "status of thread " << i << " differs";
    }
    if (a.global != b.global) return ::testing::AssertionFailure() << "global memory differs";
    if (a.shared != b.shared) return ::testing::AssertionFailure() << "shared memory differs";
    if (a.steps != b.steps) return ::testing::AssertionFailure() << "steps " << a.steps << " vs " << b.steps;
    if (a.run != b.run) return ::testing::AssertionFailure() << "run state differs";
    return ::testing::AssertionSuccess();
}

// (block, maskBefore) of every event, for checking scheduling sequences.
inline std::vector<std::pair<int, int>> blockMasks(const std::vector<StepEvent>& events) {
    std::vector<std::pair<int, int>> out;
    for (const auto& ev : events) out.push_back({ev.block, ev.maskBefore});
    return out;
}

}  // namespace qgpu::test
