// `qgpu chat`: Qwen3.5 with the GPU inside the model as its tool, in normal or advanced mode.
#pragma once

#include <string>

#include "qgpu/runtime/ChatSession.h"
#include "qgpu/runtime/GpuChat.h"

namespace qgpu::cli {

struct ChatCommandOptions {
    std::string host;
    std::string prompt;  // empty: one message per stdin line
    bool gpu = true;     // false: text only (--mode text)
    ChatMode mode = ChatMode::Normal;
    ChatSessionOptions session;   // generation, sampling, thinking
    ChatHostOptions hostOptions;  // weights and device
};

int chat(const ChatCommandOptions& options, const std::string& resourceDir);

}  // namespace qgpu::cli
