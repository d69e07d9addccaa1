// Chat with the GPU as a tool, through the real generation path of a tiny host model whose replies are
// teacher-forced: tool calls are parsed from what the model "wrote", dispatched, their results read back
// by the model as tool responses; errors go back to it; the tool rounds are bounded.
#include <gtest/gtest.h>

#include "../text/TextTestUtil.h"
#include "GpuTestSupport.h"
#include "TinyConfig.h"
#include "qgpu/runtime/GpuChat.h"
#include "qgpu/runtime/ModelKernelRunner.h"

using namespace qgpu;

namespace {

constexpr int kImStartId = 256, kImEndId = 257, kEndOfTextId = 258;

const text::Tokenizer& tokenizer() {
    static const text::Tokenizer tok = [] {
        text::testing::TokenizerSpec spec;
        spec.added = {
            {kImStartId, "<|im_start|>", true}, {kImEndId, "<|im_end|>", true}, {kEndOfTextId, "<|endoftext|>", true}};
        return text::Tokenizer::fromJson(text::testing::tokenizerJson(spec).dump());
    }();
    return tok;
}

const Qwen35Model& host() {
    static const auto m = Qwen35Model::random(
        qgpu::testing::tinyConfig({LayerType::LinearAttention, LayerType::FullAttention}, false, 259), 5);
    return *m;
}

OpKernelLibrary& library() {
    static OpKernelLibrary lib(QGPU_RESOURCE_DIR "/kernels");
    return lib;
}

std::string evalCall(const std::string& expression) {
    return "<tool_call>\n<function=gpu_eval>\n<parameter=expression>\n" + expression +
           "\n</parameter>\n</function>\n</tool_call>";
}

std::string kernelCall(const std::string& source, const std::string& launch) {
    return "<tool_call>\n<function=run_cuda_kernel>\n<parameter=source>\n" + source +
           "\n</parameter>\n<parameter=launch>\n" + launch + "\n</parameter>\n</function>\n</tool_call>";
}

// A chat whose assistant turns are the scripted texts, in order, each ended by <|im_end|>.
struct ScriptedChat {
    ScriptedChat(ProgramRunner& runner, ChatMode mode, std::vector<std::string> replies, int maxToolRounds = 3)
        : script(std::move(replies)), session(host(), tokenizer()) {
        GpuChatOptions options;
        options.mode = mode;
        options.maxToolRounds = maxToolRounds;
        options.beforeReply = [this](ChatSession& s) {
            ASSERT_LT(next, script.size()) << "the chat asked for more replies than the script has";
            s.options().generation.forced = tokenizer().encode(script[next++]);
            s.options().generation.forced.push_back(kImEndId);
            s.options().generation.maxNewTokens = int(s.options().generation.forced.size());
        };
        chat = std::make_unique<GpuChat>(session, runner, options);
    }
    std::vector<std::string> script;
    size_t next = 0;
    ChatSession session;
    std::unique_ptr<GpuChat> chat;
};

const char* kDotKernel = R"(__global__ void dot(const int* a, const int* b, int* out, int n) {
    int i = threadIdx.x;
    if (i < n) atomicAdd(&out[0], a[i] * b[i]);
})";
const char* kDotLaunch =
    R"({"grid": 1, "block": 4, "args": [{"name": "a", "array": [1, 2, 3]}, {"name": "b", "array": [4, 5, 6]},
 {"name": "out", "zeros": 1}, {"name": "n", "scalar": 3}]})";

}  // namespace

TEST(GpuChat, NormalModeEvaluatesTheExpressionQwenWrites) {
    ReferenceKernelRunner runner(library());
    ScriptedChat s(runner, ChatMode::Normal, {evalCall("[1, 2, 3] @ [4, 5, 6]"), "The dot product is 32."});
    std::vector<std::string> seen;
    GpuChatTurn turn =
        s.chat->send("What is [1, 2, 3] dot [4, 5, 6]?", {}, [&](const ToolRun& t) { seen.push_back(t.response); });
    ASSERT_EQ(turn.tools.size(), 1u);
    EXPECT_TRUE(turn.tools[0].ok);
    EXPECT_EQ(turn.tools[0].call.arguments["expression"], "[1, 2, 3] @ [4, 5, 6]");
    EXPECT_EQ(turn.tools[0].response, "32");
    EXPECT_EQ(turn.tools[0].launches.at(0).launch.kernel, "op_dot_small");
    EXPECT_EQ(seen, std::vector<std::string>{"32"});
    ASSERT_EQ(turn.replies.size(), 2u);
    EXPECT_EQ(turn.replies[1].text, "The dot product is 32.");
    EXPECT_FALSE(turn.gaveUp);
    // The system prompt and tool schema, the call, and the response the model read as a tool turn.
    const auto& m = s.session.messages();
    ASSERT_EQ(m.size(), 5u);
    EXPECT_EQ(m[0].role, "system");
    EXPECT_NE(m[0].content.find("gpu_eval"), std::string::npos);
    EXPECT_EQ(m[3].role, "tool");
    EXPECT_EQ(m[3].content, "32");
    EXPECT_FALSE(turn.replies[1].fromScratch);  // the second reply continued the state: it read only new tokens
}

TEST(GpuChat, ExpressionErrorsGoBackToQwenWithTheirColumn) {
    ReferenceKernelRunner runner(library());
    ScriptedChat s(runner, ChatMode::Normal,
                   {evalCall("[1, 2, 3] @ [4, 5]"), evalCall("[1, 2, 3] @ [4, 5, 6]"), "It is 32."});
    GpuChatTurn turn = s.chat->send("dot of 1 2 3 and 4 5 6?");
    ASSERT_EQ(turn.tools.size(), 2u);
    EXPECT_FALSE(turn.tools[0].ok);
    EXPECT_NE(turn.tools[0].response.find("<expression>:1:11: error: shape mismatch"), std::string::npos)
        << turn.tools[0].response;
    EXPECT_NE(turn.tools[0].response.find("\n  [1, 2, 3] @ [4, 5]\n            ^"), std::string::npos)
        << turn.tools[0].response;
    EXPECT_EQ(turn.tools[1].response, "32");
    EXPECT_EQ(turn.replies.back().text, "It is 32.");
}

TEST(GpuChat, ToolRoundsAreBoundedAndMalformedCallsExplained) {
    ReferenceKernelRunner runner(library());
    ScriptedChat bad(runner, ChatMode::Normal, {evalCall("[1] +"), evalCall("[1] +"), evalCall("[1] +")}, 2);
    GpuChatTurn turn = bad.chat->send("add");
    EXPECT_TRUE(turn.gaveUp);
    EXPECT_EQ(turn.tools.size(), 2u);
    EXPECT_EQ(turn.replies.size(), 3u);

    ScriptedChat malformed(runner, ChatMode::Normal,
                           {"<tool_call>\n<function=gpu_eval>\n<parameter=expression>\n[1] + [2]", "Sorry."});
    turn = malformed.chat->send("add");
    EXPECT_FALSE(turn.replies[0].toolCallError.empty());
    EXPECT_TRUE(turn.tools.empty());
    EXPECT_NE(malformed.session.messages()[3].content.find("the tool call did not parse"), std::string::npos);
    EXPECT_EQ(turn.replies.back().text, "Sorry.");

    text::ToolCall wrong{"gpu_eval", {{"expr", "1"}}};
    EXPECT_NE(runTool(wrong, runner).response.find("needs a \"expression\" argument"), std::string::npos);
    text::ToolCall unknown{"python", {}};
    EXPECT_NE(runTool(unknown, runner).response.find("there is no tool 'python'"), std::string::npos);
}

TEST(GpuChat, AdvancedModeCompilesQwensKernelAndRunsItInTheModel) {
    // The first kernel does not compile; the error goes back with its line; the second runs inside the
    // GPU model, exactly as the interpreter runs it.
    ModelKernelRunner runner(qgpu::testing::gpuModel(Engine::Sparse), library());
    std::string broken = "__global__ void dot(const int* a, const int* b, int* out, int n) {\n    oops;\n}";
    ScriptedChat s(runner, ChatMode::Advanced,
                   {kernelCall(broken, kDotLaunch), kernelCall(kDotKernel, kDotLaunch), "The answer is 32."});
    GpuChatTurn turn = s.chat->send("Compute [1, 2, 3] . [4, 5, 6] with a kernel.");
    EXPECT_NE(s.session.messages()[0].content.find("warpSize` is **4**"), std::string::npos);  // docs/qgpu-cuda.md
    ASSERT_EQ(turn.tools.size(), 2u);
    EXPECT_FALSE(turn.tools[0].ok);
    EXPECT_NE(turn.tools[0].response.find("kernel.cu:2:"), std::string::npos) << turn.tools[0].response;
    EXPECT_TRUE(turn.tools[1].ok) << turn.tools[1].response;
    EXPECT_EQ(turn.tools[1].response, R"({"a":[1,2,3],"b":[4,5,6],"out":[32]})");
    EXPECT_GT(turn.tools[1].launches.at(0).outcome.tokens, 0u);
    gpu::ReferenceLaunch ref = gpu::referenceLaunch(
        linkLaunch(compileKernel(kDotKernel, "kernel.cu").kernel.program, parseLaunchSpec(kDotLaunch)).program,
        parseLaunchSpec(kDotLaunch));
    EXPECT_EQ(gpu::firstMismatch(runner.last().written, ref.stream), -1);
    EXPECT_EQ(turn.replies.back().text, "The answer is 32.");
}

TEST(GpuChat, AKernelWhoseBarrierPartOfAWarpReachesIsAnErrorAtItsLine) {
    // The model itself ends the launch with FAULT; the tool's answer is the error at the barrier's line.
    ModelKernelRunner runner(qgpu::testing::gpuModel(Engine::Sparse), library());
    std::string partial =
        "__global__ void dot(const int* a, const int* b, int* out, int n) {\n    int t = threadIdx.x;\n"
        "    if (t < 1)\n        __syncthreads();\n    out[0] = a[t] * b[t];\n}";
    ScriptedChat s(runner, ChatMode::Advanced, {kernelCall(partial, kDotLaunch), "It faulted."});
    GpuChatTurn turn = s.chat->send("Run my kernel.");
    ASSERT_EQ(turn.tools.size(), 1u);
    EXPECT_FALSE(turn.tools[0].ok);
    EXPECT_NE(turn.tools[0].response.find("kernel.cu:4"), std::string::npos) << turn.tools[0].response;
    EXPECT_NE(turn.tools[0].response.find("divergent barrier"), std::string::npos) << turn.tools[0].response;
    ASSERT_FALSE(runner.last().written.empty());
    EXPECT_EQ(runner.last().written.back().kind, gpu::Kind::Fault);
}
