// The compiled GPU as a Qwen3.5 model (issue 6, step (a)): built from code, fed the program and launch as
// tokens, and left to write the launch itself by greedy decoding. The host compiles, feeds tokens back
// and reads the register file out of the recurrent state; it computes nothing.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "qgpu/compiler/gpu/Machine.h"
#include "qgpu/runtime/Qwen35Model.h"

namespace qgpu {

struct GpuLaunch {
    std::vector<gpu::Token> fed;      // program image and launch
    std::vector<gpu::Token> written;  // what the model wrote, END included when it ended
    bool ended = false;
    std::vector<std::array<uint32_t, 16>> registers;  // per live lane, decoded from the recurrent state
    double seconds = 0;                               // prefill and decode
};

class GpuModel {
public:
    // Builds the machine's weights in memory (no checkpoint file).
    static std::unique_ptr<GpuModel> build(const circuit::Geometry& geometry = gpu::defaultMachineGeometry());
    // Writes the model as a stock checkpoint with its layout file (the directory must exist).
    void save(const std::string& dir, DType dtype = DType::F32) const;

    // Runs a linked program on one warp of `lanes` threads; stops at END or after `maxTokens`.
    GpuLaunch run(const Program& program, int lanes, int maxTokens = 2048) const;
    // Lane `lane`'s registers as the register file in `state` holds them.
    std::array<uint32_t, 16> registers(const ModelState& state, int lane) const;
    // Feeds a whole stream in one prefill and returns the model's argmax after every position.
    std::vector<int> teacherForced(const std::vector<gpu::Token>& stream) const;

    const gpu::Machine& machine() const { return m_machine; }
    const Qwen35Model& model() const { return *m_model; }

private:
    GpuModel(gpu::Machine machine, std::unique_ptr<Qwen35Model> model);
    gpu::Machine m_machine;
    std::unique_ptr<Qwen35Model> m_model;
    int m_registerLayer = -1, m_registerHead = -1;
};

}  // namespace qgpu
