#include "StudioChat.h"

#include <QDir>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/ProcessMemory.h"
#include "qgpu/runtime/HostSplice.h"
#include "qgpu/runtime/TorchSetup.h"

namespace qgpu::studio {

bool ModelHolder::fromCheckpoint() const {
    return !m_hostDir.empty() && std::filesystem::exists(std::filesystem::path(m_hostDir) / kSpliceFile);
}

std::shared_future<std::shared_ptr<GpuModel>> ModelHolder::get() {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_model)
        m_model = std::async(std::launch::async, [dir = fromCheckpoint() ? m_hostDir : std::string()] {
                      return std::shared_ptr<GpuModel>(GpuModel::open(dir));
                  }).share();
    return *m_model;
}

StudioChat::StudioChat(ModelHolder& model, std::string resourceDir, std::string hostDir, ChatHostOptions hostOptions)
    : m_model(model),
      m_resources(std::move(resourceDir)),
      m_hostDir(std::move(hostDir)),
      m_hostOptions(std::move(hostOptions)),
      m_kernels(m_resources + "/kernels") {}

void StudioChat::load(const std::function<void(int done, int total)>& progress) {
    if (m_hostDir.empty()) return;
    auto start = std::chrono::steady_clock::now();
    try {
        initTorch();
        ChatHostOptions options = m_hostOptions;
        options.progress = progress;
        m_host.emplace(loadChatHost(m_hostDir, options));
    } catch (const std::exception& e) {
        m_hostError = e.what();
    }
    m_loadSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string StudioChat::figures() const {
    if (!m_host) return {};
    char text[200];
    std::snprintf(text, sizeof text, "Host: %s weights on %s, loaded in %.1f s; %.2f GiB resident",
                  weightFormatName(m_host->model->weightFormat()), deviceName(m_host->model->device()), m_loadSeconds,
                  residentMemoryGiB());
    std::string out = text;
    if (m_lastTokensPerSecond > 0) {
        std::snprintf(text, sizeof text, "; last reply %.1f tokens/s", m_lastTokensPerSecond);
        out += text;
    }
    return out + ".";
}

std::string StudioChat::hostStatus() const {
    if (m_host) return {};
    std::string how =
        "To chat with Qwen, start qgpu-studio --host DIR with a Qwen3.5 checkpoint directory (config.json, its "
        "safetensors, tokenizer.json). Until then, type expressions such as [1, 2, 3] @ [4, 5, 6] or "
        "sum([[1, 2], [3, 4]] @ [5, 6]): each operation runs as a launch on the GPU inside the model.";
    return m_hostError.empty() ? "No host checkpoint is loaded. " + how
                               : "The host checkpoint did not load: " + m_hostError + "\n" + how;
}

ChatCard StudioChat::card(const ToolRun& run) const {
    ChatCard c;
    auto expression = run.call.arguments.find("expression");
    c.title = run.call.name + ": " +
              (expression != run.call.arguments.end() && expression->is_string() ? expression->get<std::string>()
                                                                                 : std::string("a kernel Qwen wrote"));
    c.response = run.response;
    c.ok = run.ok;
    std::ostringstream details;
    for (const auto& l : run.launches)
        details << l.launch.kernel << " grid " << l.launch.launch.grid.count() << " x block "
                << l.launch.launch.block.count() << ": " << l.outcome.tokens << " tokens in " << l.outcome.seconds
                << " s" << (l.result.values.empty() ? "" : " -> " + expr::formatValue(l.result)) << "\n";
    c.details = details.str();
    if (run.launches.empty()) return c;
    // The launch that gave the answer: the last one.
    const expr::LaunchRecord& last = run.launches.back();
    c.launchJson = launchSpecToJson(last.launch.launch, JsonLayout::Readable);
    if (!run.kernelSource.empty()) {  // Qwen's own kernel: saved so the debugger can open it
        std::string path = QDir::temp().filePath(QString("qgpu-chat-kernel-%1.cu").arg(m_kernelFiles)).toStdString();
        std::ofstream(path) << run.kernelSource;
        c.kernelPath = path;
    } else {
        c.kernelPath = m_resources + "/kernels/" + last.launch.kernel + ".cu";
    }
    return c;
}

std::string StudioChat::send(const std::string& message, bool advanced, const Callbacks& callbacks) {
    if (!m_runner) m_runner = std::make_unique<ModelKernelRunner>(*m_model.get().get(), m_kernels);
    if (!m_host) {  // the message is an expression
        ToolRun run = runTool(text::ToolCall{"gpu_eval", {{"expression", message}}}, *m_runner);
        callbacks.card(card(run));
        if (run.ok) callbacks.text("= " + run.response);
        return run.ok ? "" : "the expression did not run: see its card";
    }
    if (!m_chat || advanced != m_advanced) {  // a new conversation in the chosen mode
        m_advanced = advanced;
        m_chat.reset();
        m_session = std::make_unique<ChatSession>(*m_host->model, m_host->tokenizer);
        GpuChatOptions options;
        options.mode = advanced ? ChatMode::Advanced : ChatMode::Normal;
        m_chat = std::make_unique<GpuChat>(*m_session, *m_runner, options);
    }
    GpuChatTurn turn = m_chat->send(
        message,
        [&](int, const std::string& piece) {
            callbacks.text(piece);
            return true;
        },
        [&](const ToolRun& run) {
            ++m_kernelFiles;
            callbacks.card(card(run));
        });
    if (!turn.replies.empty()) m_lastTokensPerSecond = turn.replies.back().generation.decodeTokensPerSecond();
    return turn.gaveUp ? "Qwen still called the GPU after the last allowed tool round; it stopped there." : "";
}

}  // namespace qgpu::studio
