// The studio's chat engine: Qwen3.5 (a host checkpoint, when given) with the GPU inside the model as its
// tool; without a host, the expressions the user types run on that GPU directly.
#pragma once

// The runtime's headers come before Qt's (Qt's `emit` macro).
#include "qgpu/runtime/ChatSession.h"
#include "qgpu/runtime/GpuChat.h"
#include "qgpu/runtime/GpuModel.h"
#include "qgpu/runtime/ModelKernelRunner.h"

#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "qgpu/ui/ChatPanel.h"

namespace qgpu::studio {

// The GPU model, made once on first use on a worker thread, shared by the model backend and the chat: from
// a combined checkpoint's own GPU layers when the host is one (`qgpu build --host`), else built from code
// (about 0.3 s).
class ModelHolder {
public:
    explicit ModelHolder(std::string hostDir = {}) : m_hostDir(std::move(hostDir)) {}
    std::shared_future<std::shared_ptr<GpuModel>> get();
    bool fromCheckpoint() const;

private:
    std::string m_hostDir;
    std::mutex m_mutex;
    std::optional<std::shared_future<std::shared_ptr<GpuModel>>> m_model;
};

class StudioChat : public ChatEngine {
public:
    // `hostDir` empty: no host. The host loads in load() (the panel's worker thread), as `hostOptions`
    // says; a host that fails to load is reported by hostStatus().
    StudioChat(ModelHolder& model, std::string resourceDir, std::string hostDir, ChatHostOptions hostOptions = {});
    bool needsLoading() const override { return !m_hostDir.empty(); }
    void load(const std::function<void(int done, int total)>& progress) override;
    std::string hostStatus() const override;
    std::string figures() const override;
    std::string send(const std::string& message, bool advanced, const Callbacks& callbacks) override;

private:
    ChatCard card(const ToolRun& run) const;

    ModelHolder& m_model;
    std::string m_resources;
    std::string m_hostDir;
    ChatHostOptions m_hostOptions;
    std::optional<ChatHost> m_host;
    double m_loadSeconds = 0;
    double m_lastTokensPerSecond = 0;  // the last reply's decode speed; 0 before the first
    std::string m_hostError;
    OpKernelLibrary m_kernels;
    std::unique_ptr<ModelKernelRunner> m_runner;
    std::unique_ptr<ChatSession> m_session;  // the conversation, in m_mode
    std::unique_ptr<GpuChat> m_chat;
    bool m_advanced = false;
    int m_kernelFiles = 0;  // Qwen's kernels saved for the debugger
};

}  // namespace qgpu::studio
