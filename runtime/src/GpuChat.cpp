#include "qgpu/runtime/GpuChat.h"

#include <stdexcept>

#include "QgpuCudaReference.h"  // generated from docs/qgpu-cuda.md: kQgpuCudaReference
#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/DevicePrintf.h"
#include "qgpu/core/Trace.h"
#include "qgpu/runtime/ModelKernelRunner.h"

namespace qgpu {

namespace {

constexpr const char* kEvalTool = "gpu_eval";
constexpr const char* kKernelTool = "run_cuda_kernel";

using Json = nlohmann::ordered_json;

Json tool(const std::string& name, const std::string& description, Json properties) {
    Json required = Json::array();
    for (const auto& [key, value] : properties.items()) required.push_back(key);
    return {{"type", "function"},
            {"function",
             {{"name", name},
              {"description", description},
              {"parameters", {{"type", "object"}, {"properties", properties}, {"required", required}}}}}};
}

// A string argument, or the reason it is missing.
const Json* argument(const text::ToolCall& call, const char* key, Json::value_t type, ToolRun& run,
                     const std::string& example) {
    auto it = call.arguments.find(key);
    if (it != call.arguments.end() && it->type() == type) return &*it;
    run.response = std::string("error: ") + call.name + " needs a \"" + key + "\" argument, e.g. " + example;
    return nullptr;
}

// ```cuda ... ``` fences around the kernel, as a chat model likes to write them, are not CUDA.
std::string withoutFences(std::string s) {
    size_t open = s.find("```");
    if (open == std::string::npos) return s;
    size_t body = s.find('\n', open);
    size_t close = s.rfind("```");
    if (body == std::string::npos || close <= body) return s;
    return s.substr(body + 1, close - body - 1);
}

void runExpression(ToolRun& run, ProgramRunner& runner) {
    const Json* text = argument(run.call, "expression", Json::value_t::string, run, "\"[1, 2, 3] @ [4, 5, 6]\"");
    if (!text) return;
    std::string source = text->get<std::string>();
    std::unique_ptr<expr::Node> root;
    try {
        root = expr::parse(source);
    } catch (const DiagnosticError& e) {
        run.response = std::string(e.what()) + "\n" + expr::pointAt(source, e.diagnostics().front().column);
        return;
    }
    expr::Evaluation e = expr::evaluate(*root, runner);
    run.launches = std::move(e.launches);
    run.response = expr::formatValue(e.value);
    run.ok = true;
}

// What the kernel's printf calls printed, after the arrays, and a failed assertion (the launch failed).
std::string printedText(const DevicePrintfOutput& printed) {
    std::string out = printed.records.empty() ? "" : "\nprintf printed:\n" + printed.text();
    if (printed.failedAssertion()) out += "error: a device assertion failed (above), so the launch failed";
    return out;
}

void runKernel(ToolRun& run, ProgramRunner& runner) {
    const Json* source =
        argument(run.call, "source", Json::value_t::string, run, "\"__global__ void k(int* out) {...}\"");
    if (!source) return;
    auto launchArg = run.call.arguments.find("launch");
    if (launchArg == run.call.arguments.end() || !(launchArg->is_object() || launchArg->is_string())) {
        run.response =
            "error: run_cuda_kernel needs a \"launch\" argument, e.g. "
            "{\"grid\": 1, \"block\": 4, \"args\": [{\"name\": \"out\", \"zeros\": 4}]}";
        return;
    }
    run.kernelSource = withoutFences(source->get<std::string>());
    MachineSpec spec = MachineSpec::standard();
    CompiledKernel compiled;
    try {
        compiled = compileKernel(run.kernelSource, "kernel.cu", spec);
    } catch (const DiagnosticError& e) {
        run.response =
            std::string("the kernel did not compile:\n") + e.what() + "\nFix it and call " + kKernelTool + " again.";
        return;
    }
    std::string launchJson = launchArg->is_string() ? launchArg->get<std::string>() : launchArg->dump();
    LaunchSpec launch = parseLaunchSpec(launchJson, "launch");
    LinkedLaunch linked = linkLaunch(compiled.kernel.program, launch, spec);
    expr::KernelOutcome outcome = runner.runLinked(linked.program, launch);
    MachineState end;
    end.global = outcome.global;
    Json arrays = Json::object();
    for (const ArrayPlacement& a : linked.map.arrays)
        if (!isInternalArray(a)) arrays[a.name] = readArray(end, a);
    run.launches.push_back({"kernel", expr::KernelLaunch{"kernel", launch, ""}, std::move(outcome), {}});
    DevicePrintfOutput printed = readDevicePrintf(end.global, linked.map);
    run.response = arrays.dump() + printedText(printed);
    run.ok = printed.failedAssertion() == nullptr;
}

}  // namespace

Json gpuTools(ChatMode mode) {
    if (mode == ChatMode::Normal)
        return Json::array({tool(
            kEvalTool,
            "Evaluates an integer or float array expression on the GPU inside your own layers and "
            "returns its value.",
            {{"expression",
              {{"type", "string"},
               {"description", "e.g. [1, 2, 3] @ [4, 5, 6], sum([[1, 2], [3, 4]] @ [5, 6]) or [0.5, 1.25] * 3.0"}}}})});
    return Json::array(
        {tool(kKernelTool,
              "Compiles a CUDA kernel and runs one launch of it on the GPU inside your own layers; returns every "
              "array argument's final contents, or the compiler's errors.",
              {{"source", {{"type", "string"}, {"description", "the .cu file: exactly one __global__ void function"}}},
               {"launch",
                {{"type", "object"},
                 {"description",
                  "grid and block (a number or [x, y, z]) and args in the kernel's parameter order: "
                  "{\"name\": .., \"array\": [..]} or {\"name\": .., \"zeros\": n} for pointers, "
                  "{\"name\": .., \"scalar\": v} for scalars; add \"type\": \"float\" for float arguments"}}}})});
}

std::string gpuSystemPrompt(ChatMode mode) {
    if (mode == ChatMode::Normal)
        return "A GPU runs inside your own layers. For arithmetic on numbers, vectors and matrices, call gpu_eval "
               "with an expression and answer with the value it returns; do not compute it yourself.\n"
               "Expressions: numbers (7, -3, 2.5, 1e-3), vectors [1, 2, 3], matrices as rows [[1, 2], [3, 4]]; + - * "
               "elementwise (a scalar on one side applies to every element); @ for dot, matrix-vector and "
               "matrix-matrix products; dot(a, b), sum(x), max(x), transpose(m) or m.T; parentheses. Values are "
               "32-bit integers, or 32-bit floats when written with a '.' or an exponent (then whole numbers "
               "beside them are floats too); no division.";
    return std::string(
               "A GPU runs inside your own layers. To compute something, write a CUDA kernel and call "
               "run_cuda_kernel with its source and launch; answer from the arrays it returns. If it "
               "reports errors, fix the kernel and call it again.\n\n") +
           kQgpuCudaReference;
}

ToolRun runTool(const text::ToolCall& call, ProgramRunner& runner) {
    ToolRun run;
    run.call = call;
    if (auto* budgeted = dynamic_cast<BudgetedRunner*>(&runner)) budgeted->startCall();  // one budget per call
    try {
        if (call.name == kEvalTool)
            runExpression(run, runner);
        else if (call.name == kKernelTool)
            runKernel(run, runner);
        else
            run.response =
                "error: there is no tool '" + call.name + "'; the GPU's tools are " + kEvalTool + " and " + kKernelTool;
    } catch (const DiagnosticError& e) {
        run.ok = false;
        run.response = std::string("error: ") + e.what();
    }
    return run;
}

GpuChat::GpuChat(ChatSession& session, ProgramRunner& runner, GpuChatOptions options)
    : m_session(session), m_runner(runner), m_options(std::move(options)) {
    if (!m_session.messages().empty()) throw std::invalid_argument("GpuChat needs a session without messages");
    m_session.options().tools = gpuTools(m_options.mode);
    m_session.append(text::ChatMessage{"system", gpuSystemPrompt(m_options.mode), {}, {}});
}

ChatReply GpuChat::reply(const TokenCallback& onToken) {
    if (m_options.beforeReply) m_options.beforeReply(m_session);
    return m_session.reply(onToken);
}

GpuChatTurn GpuChat::send(const std::string& user, const TokenCallback& onToken, const ToolCallback& onTool) {
    GpuChatTurn turn;
    m_session.append(text::ChatMessage{"user", user, {}, {}});
    for (int round = 0;; ++round) {
        turn.replies.push_back(reply(onToken));
        const ChatReply& r = turn.replies.back();
        if (r.toolCalls.empty() && r.toolCallError.empty()) break;
        if (round == m_options.maxToolRounds) {
            turn.gaveUp = true;
            break;
        }
        if (!r.toolCallError.empty())
            m_session.append(
                text::ChatMessage{"tool", "error: the tool call did not parse: " + r.toolCallError, {}, {}});
        for (const text::ToolCall& call : r.toolCalls) {
            turn.tools.push_back(runTool(call, m_runner));
            if (onTool) onTool(turn.tools.back());
            m_session.append(text::ChatMessage{"tool", turn.tools.back().response, {}, {}});
        }
    }
    return turn;
}

}  // namespace qgpu
