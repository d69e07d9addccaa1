// The compiled GPU as a Qwen3.5 model (issue 6): built from code, fed the program and launch as
// tokens, and left to write the launch itself by greedy decoding. The host compiles, feeds tokens back
// and reads the register file out of the recurrent state; it computes nothing.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "qgpu/compiler/gpu/Machine.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "qgpu/runtime/SparseModel.h"

namespace qgpu {

struct GpuLaunch {
    std::vector<gpu::Token> fed;      // program image and launch
    std::vector<gpu::Token> written;  // what the model wrote, END included when it ended
    bool ended = false;
    std::vector<std::array<uint32_t, 16>> registers;  // per thread in slot order, decoded from the recurrent state
    std::vector<uint32_t> global;                     // global memory, decoded from the recurrent state
    std::vector<std::vector<uint32_t>> shared;        // each thread block's shared memory, decoded likewise
    double seconds = 0;                               // prefill and decode
};

// Sparse: the fast path (SparseModel, the default). Dense: the LibTorch Qwen35Model, the reference.
enum class Engine { Sparse, Dense };

class GpuModel {
public:
    // Builds the machine's weights in memory (no checkpoint file) for the given engines; with `weights`
    // BF16 every weight is rounded to bf16 first, as a bf16 checkpoint holds it.
    static std::unique_ptr<GpuModel> build(const std::vector<Engine>& engines = {Engine::Sparse},
                                           const circuit::Geometry& geometry = gpu::defaultMachineGeometry(),
                                           DType weights = DType::F32);
    // Writes the model as a stock checkpoint with its layout file into the new directory `dir` (via
    // DIR.partial, renamed when complete). Needs the dense engine.
    void save(const std::string& dir, DType dtype = DType::F32) const;

    // Runs a linked program on a grid of thread blocks with global memory starting as `global`; stops at
    // END or after `maxTokens`.
    GpuLaunch run(const Program& program, const Dim3& grid, const Dim3& block, const std::vector<uint32_t>& global = {},
                  int maxTokens = 4096, Engine engine = Engine::Sparse) const;
    // Feeds a whole stream (dense: in one prefill) and returns the model's argmax after every position.
    std::vector<int> teacherForced(const std::vector<gpu::Token>& stream, Engine engine = Engine::Sparse) const;

    const gpu::Machine& machine() const { return m_machine; }
    bool has(Engine engine) const { return engine == Engine::Sparse ? bool(m_sparse) : bool(m_dense); }

private:
    explicit GpuModel(gpu::Machine machine) : m_machine(std::move(machine)) {}
    // Reads 32-bit rows out of a layer's recurrent state (dual rails: column 2i holds 1024 when bit i is set).
    uint32_t row(const std::vector<float>& layerState, int head, int row) const;
    struct Place {
        int layer = -1, head = -1;
    };
    const Qwen35Model& dense() const;
    const SparseModel& sparse() const;

    gpu::Machine m_machine;
    std::unique_ptr<Qwen35Model> m_dense;
    std::unique_ptr<SparseModel> m_sparse;
    std::vector<Place> m_registers;  // the 16 banks of the register file
    std::vector<Place> m_global;     // the eight heads of global memory
    std::vector<Place> m_shared;     // the 16 heads of shared memory
};

}  // namespace qgpu
