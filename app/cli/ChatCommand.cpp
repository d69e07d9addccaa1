#include "ChatCommand.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <cstdio>
#include <iostream>
#include <memory>

#include "GpuCommands.h"
#include "HostCommands.h"
#include "qgpu/runtime/HostSplice.h"
#include "qgpu/runtime/ModelKernelRunner.h"
#include "qgpu/runtime/TorchSetup.h"

namespace qgpu::cli {

namespace {

// Ctrl-C during a reply cancels it; at the prompt it ends the program as usual.
std::atomic<bool> gGenerating{false}, gCancel{false};

void onInterrupt(int) {
    if (gGenerating) {
        gCancel = true;
    } else {
        std::signal(SIGINT, SIG_DFL);
        std::raise(SIGINT);
    }
}

// The GPU model, made when Qwen first calls it: from a combined checkpoint's own GPU layers (`qgpu build
// --host`), else built from code (about 0.3 s). Each tool call has ModelKernelRunner's budget (RunBudget's
// defaults); loading the model does not count against it.
class LazyModelRunner : public BudgetedRunner {
public:
    LazyModelRunner(OpKernelLibrary& kernels, std::string host) : BudgetedRunner(kernels), m_host(std::move(host)) {}
    expr::KernelOutcome run(const expr::KernelLaunch& k) override { return runner().run(k); }
    expr::KernelOutcome runLinked(const Program& program, const LaunchSpec& launch) override {
        return runner().runLinked(program, launch);
    }
    void startCall() override {
        if (m_runner) m_runner->startCall();  // a runner made later opens its first call itself
    }

private:
    ModelKernelRunner& runner() {
        if (!m_runner) {
            bool combined = std::filesystem::exists(std::filesystem::path(m_host) / kSpliceFile);
            m_model = openWithProgress(combined ? m_host : "");
            m_runner = std::make_unique<ModelKernelRunner>(*m_model, kernels());
        }
        return *m_runner;
    }

    std::string m_host;
    std::unique_ptr<GpuModel> m_model;
    std::unique_ptr<ModelKernelRunner> m_runner;
};

void printStats(const ChatReply& r) {
    const GenerationResult& g = r.generation;
    std::fprintf(stderr, "[%d prompt tokens in %.2f s; %zu tokens, %.1f tokens/s; %.2f GiB resident%s]\n",
                 r.promptTokens(), g.prefillSeconds, g.tokens.size(), g.decodeTokensPerSecond(), residentMemoryGiB(),
                 g.reason == GenerationResult::Cancelled   ? "; cancelled"
                 : g.reason == GenerationResult::MaxTokens ? "; stopped at --max-tokens"
                                                           : "");
}

void printTool(const ToolRun& t) {
    size_t tokens = 0;
    double seconds = 0;
    for (const auto& l : t.launches) {
        tokens += l.outcome.tokens;
        seconds += l.outcome.seconds;
    }
    std::cerr << "[" << t.call.name << (t.ok ? "" : " failed") << ": " << t.launches.size() << " launch"
              << (t.launches.size() == 1 ? "" : "es") << " in the GPU model, " << tokens << " tokens in " << seconds
              << " s]\n[tool response] " << t.response << "\n";
}

}  // namespace

int chat(const ChatCommandOptions& o, const std::string& resourceDir) {
    initTorch();
    ChatHost host = loadHostWithProgress(o.host, o.hostOptions);
    ChatSessionOptions sessionOptions = o.session;
    sessionOptions.generation.cancel = &gCancel;
    ChatSession session(*host.model, host.tokenizer, sessionOptions);
    OpKernelLibrary kernels(resourceDir + "/kernels");
    LazyModelRunner runner(kernels, o.host);
    std::unique_ptr<GpuChat> gpuChat;
    GpuChatOptions chatOptions;
    chatOptions.mode = o.mode;
    if (o.gpu) {
        gpuChat = std::make_unique<GpuChat>(session, runner, chatOptions);
    }
    std::signal(SIGINT, onInterrupt);

    auto stream = [](int, const std::string& piece) {
        std::cout << piece << std::flush;
        return true;
    };
    auto answer = [&](const std::string& message) {
        gCancel = false;
        gGenerating = true;
        if (gpuChat) {
            GpuChatTurn turn = gpuChat->send(
                message,
                [&](int token, const std::string& piece) {
                    gGenerating = true;
                    return stream(token, piece);
                },
                [](const ToolRun& t) {
                    std::cout << "\n" << std::flush;
                    printTool(t);
                });
            for (const ChatReply& r : turn.replies) printStats(r);
            if (turn.gaveUp)
                std::cerr << "[gave up: Qwen still called a tool after " << chatOptions.maxToolRounds << " rounds]\n";
        } else {
            printStats(session.send(message, stream));
        }
        gGenerating = false;
        std::cout << "\n" << std::flush;
    };
    if (!o.prompt.empty()) {
        answer(o.prompt);
        return 0;
    }
    bool interactive = isatty(STDIN_FILENO);
    for (std::string line;;) {
        if (interactive) std::cerr << "> " << std::flush;
        if (!std::getline(std::cin, line) || line.empty()) break;
        answer(line);
    }
    return 0;
}

}  // namespace qgpu::cli
