// Chat with the GPU as Qwen's tool. Normal mode offers `gpu_eval`: Qwen writes an expression of
// the expression language (docs/expressions.md). Advanced mode offers `run_cuda_kernel`: Qwen writes the
// CUDA kernel and its launch (docs/qgpu-cuda.md is in its system prompt). Every call runs on a
// ProgramRunner (the GPU inside the model in the app and the CLI), its result or error goes back to Qwen as
// the tool response, and Qwen answers; a bounded number of tool rounds per message.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "qgpu/compiler/OpKernels.h"
#include "qgpu/core/Expression.h"
#include "qgpu/runtime/ChatSession.h"

namespace qgpu {

enum class ChatMode { Normal, Advanced };

// The mode's tool schema (an array of one) and system prompt.
nlohmann::ordered_json gpuTools(ChatMode mode);
std::string gpuSystemPrompt(ChatMode mode);

struct ToolRun {
    text::ToolCall call;
    bool ok = false;
    std::string response;                      // what goes back to Qwen: the result, or the error and what to fix
    std::vector<expr::LaunchRecord> launches;  // the launches it ran (a kernel of advanced mode: one, named "kernel")
    std::string kernelSource;                  // advanced mode: the kernel as Qwen wrote it
};

// Runs one tool call of either mode on `runner`. Bad arguments, expressions or kernels are not thrown: they
// become the response, so that Qwen can try again. A BudgetedRunner (ModelKernelRunner) opens a new call
// first: every launch of the call shares its RunBudget, and a launch past it is refused with a response that
// names the limit and what to do (a kernel that does less work per launch, a smaller expression). The
// response is read by Qwen as ordinary text, whatever it quotes (ChatSession::reply).
ToolRun runTool(const text::ToolCall& call, ProgramRunner& runner);

struct GpuChatOptions {
    ChatMode mode = ChatMode::Normal;
    int maxToolRounds = 3;  // assistant turns with tool calls per user message; then the chat gives up
    // Called before each assistant turn is generated (e.g. to set the session's teacher-forced tokens).
    std::function<void(ChatSession&)> beforeReply;
};

struct GpuChatTurn {
    std::vector<ChatReply> replies;  // every assistant turn of this message; the last one is the answer
    std::vector<ToolRun> tools;      // in the order they ran
    bool gaveUp = false;             // the last reply still called a tool after maxToolRounds rounds
};

class GpuChat {
public:
    // Gives the session the mode's tool and system prompt; the session must hold no messages yet.
    GpuChat(ChatSession& session, ProgramRunner& runner, GpuChatOptions options = {});

    using ToolCallback = std::function<void(const ToolRun&)>;
    GpuChatTurn send(const std::string& user, const TokenCallback& onToken = {}, const ToolCallback& onTool = {});

private:
    ChatReply reply(const TokenCallback& onToken);

    ChatSession& m_session;
    ProgramRunner& m_runner;
    GpuChatOptions m_options;
};

}  // namespace qgpu
