// Chat's normal mode on the GPU inside the model: every operation of an expression is a launch the model
// writes itself, with the interpreter's records, and the value read out of the model's recurrent state.
#include "GpuTestSupport.h"

#include "qgpu/compiler/OpKernels.h"
#include "qgpu/core/Expression.h"
#include "qgpu/runtime/ModelKernelRunner.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

OpKernelLibrary& library() {
    static OpKernelLibrary lib(QGPU_RESOURCE_DIR "/kernels");
    return lib;
}

// Runs each launch in the model and checks it against the interpreter before handing the outcome back.
class ReplayCheckedRunner : public expr::KernelRunner {
public:
    ReplayCheckedRunner() : m_model(gpuModel(Engine::Sparse), library()) {}
    expr::KernelOutcome run(const expr::KernelLaunch& k) override {
        expr::KernelOutcome out = m_model.run(k);
        gpu::ReferenceLaunch ref = gpu::referenceLaunch(library().link(k), k.launch);
        EXPECT_EQ(gpu::firstMismatch(m_model.last().written, ref.stream), -1) << k.kernel;
        EXPECT_EQ(m_model.last().global, ref.global) << k.kernel;
        return out;
    }

private:
    ModelKernelRunner m_model;
};

}  // namespace

// One test: each test process builds the model (about 12 s).
TEST(GpuExpression, ExpressionsRunInTheModelExactly) {
    ReplayCheckedRunner onModel;
    expr::Evaluation dot = expr::evaluate("[1, 2, 3] @ [4, 5, 6]", onModel);
    EXPECT_EQ(dot.value, (expr::Value{{}, {32}}));
    ASSERT_EQ(dot.launches.size(), 1u);
    // A block of three threads, one product each: chat's dot product costs what the hand-written example does.
    EXPECT_LE(dot.launches[0].outcome.tokens, 60u);
    EXPECT_GT(dot.launches[0].outcome.steps, 0u);

    // [[1, 2], [3, 4]]^T = [[1, 3], [2, 4]]; @ [[1, -1], [2, 0]] = [[7, -1], [10, -2]]; - 1 = [[6, -2], [9, -3]].
    const std::string nested = "[[1, 2], [3, 4]].T @ [[1, -1], [2, 0]] - 1";
    expr::Evaluation e = expr::evaluate(nested, onModel);
    EXPECT_EQ(e.value, (expr::Value{{2, 2}, {6, -2, 9, -3}}));
    EXPECT_EQ(e.launches.size(), 3u);
    ReferenceKernelRunner onInterpreter(library());
    EXPECT_EQ(expr::evaluate(nested, onInterpreter).value, e.value);

    // Floats in fp32 on the GPU: three products added by atomicAdd in lane order, each rounded.
    expr::Evaluation f = expr::evaluate("[0.5, 1.5, 2.25] @ [4, 0.1, 3]", onModel);
    EXPECT_EQ(expr::formatValue(f.value), "8.9");
    EXPECT_EQ(f.value, expr::evaluate("[0.5, 1.5, 2.25] @ [4, 0.1, 3]", onInterpreter).value);
    std::printf("float dot product of 3: %zu tokens\n", f.launches.at(0).outcome.tokens);
}
