#include "FuzzTarget.h"
#include "qgpu/runtime/Qwen35Config.h"

void fuzzOne(const std::string& input) {
    qgpu::Qwen35Config config = qgpu::Qwen35Config::parse(input, "config.json");
    qgpu::Qwen35Config::parse(config.toJson(), "again.json");
}
