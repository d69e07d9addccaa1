// The host model's side of the CLI: loading a chat host with a progress line, and `qgpu bench-host`.
#pragma once

#include <string>
#include <vector>

#include "qgpu/runtime/ChatSession.h"

namespace qgpu::cli {

// loadChatHost with a progress line on stderr, then one line of what was loaded: weights, device, width,
// layers, seconds and resident memory.
ChatHost loadHostWithProgress(const std::string& dir, ChatHostOptions options);

struct BenchHostOptions {
    std::string dir;  // where the random-weight checkpoints are written once and reused
    std::vector<WeightFormat> formats = {WeightFormat::F32, WeightFormat::BF16, WeightFormat::Q8};
    ComputeDevice device = ComputeDevice::Auto;
    int runs = 3, prefill = 512, decode = 128;
    std::string llamaDir;  // llama.cpp's source directory (scripts/build-llama-cpp.sh): adds its rows when set
};

// Writes DIR/qwen3.5-2b-random (a random-weight Qwen3.5-2B in bf16 with a byte-level tokenizer) and
// DIR/qwen3.5-2b-random-combined (the GPU spliced in front of it) unless they are there.
void prepareBenchHost(const std::string& dir);

// `qgpu bench-host`: a random-weight Qwen3.5-2B (bf16) and its combined checkpoint, each format measured in
// a process of its own (so that its peak memory is its own): load time, peak RSS, prefill and decode tokens/s;
// then llama-bench on the same weights as GGUF (bf16 and Q8_0, when beside them) and the ratios.
int benchHost(const BenchHostOptions& options, const std::string& self);

// One measurement, in the child process: prints one line "load_s prefill_tps decode_tps peak_gib"; for a
// combined checkpoint it then loads the GPU's layers too, as chat does at the first tool call.
int measureHost(const std::string& dir, WeightFormat format, ComputeDevice device, int runs, int prefill, int decode);

}  // namespace qgpu::cli
