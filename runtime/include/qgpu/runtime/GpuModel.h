// The compiled GPU as a Qwen3.5 model: built from code, fed the program and launch as
// tokens, and left to write the launch itself by greedy decoding. The host compiles, feeds tokens back
// and reads the register file out of the recurrent state; it computes nothing.
#pragma once

#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "qgpu/compiler/gpu/Machine.h"
#include "qgpu/core/MachineState.h"
#include "qgpu/runtime/Safetensors.h"
#include "qgpu/runtime/SparseModel.h"

namespace qgpu {

struct GpuLaunch {
    std::vector<gpu::Token> fed;      // program image and launch
    std::vector<gpu::Token> written;  // what the model wrote, END (or FAULT) included when it ended
    bool ended = false;
    std::string fault;     // when the model ended the launch with FAULT: the fault (faultMessage)
    int faultBlock = -1;   // and the ROM block whose barrier it is
    bool stopped = false;  // the progress callback stopped the run (Ctrl-C)
    std::vector<std::array<uint32_t, 16>> registers;  // per thread in slot order, decoded from the recurrent state
    std::vector<uint32_t> global;                     // global memory, decoded from the recurrent state
    std::vector<std::vector<uint32_t>> shared;        // each thread block's shared memory, decoded likewise
    double seconds = 0;                               // prefill and decode
};

// Called every kRunProgressPeriod records during a run with the records written so far and the seconds
// since it started; returning false stops the run there (GpuLaunch::stopped).
using RunProgress = std::function<bool(size_t written, double seconds)>;
inline constexpr size_t kRunProgressPeriod = 64;

// Sparse: the fast path (SparseModel, the default). Dense: the LibTorch Qwen35Model, the reference.
enum class Engine { Sparse, Dense };

class GpuStepper;

// The dense engine as GpuModel drives it: LibTorch's Qwen35Model behind an interface, so that this header
// and the engine library need no Torch. qgpu_host makes one (GpuModelDense.h: makeDenseGpu).
class DenseGpu {
public:
    virtual ~DenseGpu() = default;
    class Sequence {  // one sequence's state (a ModelState)
    public:
        virtual ~Sequence() = default;
        // Feeds `tokens` after what the sequence has seen; logits [tokens x vocab], or the last row only.
        virtual std::vector<float> forward(const std::vector<int>& tokens, bool allPositions = false) = 0;
        virtual std::vector<float> recurrentState(int layer) const = 0;  // ModelState::recurrentState
    };
    virtual std::unique_ptr<Sequence> start() const = 0;
    virtual void save(const std::string& dir, DType dtype) const = 0;  // Qwen35Model::save
};
// Makes the dense engine from the machine's tensors.
using DenseGpuFactory = std::function<std::unique_ptr<DenseGpu>(const Qwen35Config&, const TensorSource&)>;

// A FAULT record's message in the interpreter's words (divergentBarrierFault): `exec` is the faulting
// step's EXEC, `after` the machine decoded after it (the pcs of the lanes that did not arrive).
std::string faultMessage(const gpu::Token& exec, const gpu::Token& fault, const MachineState& after);

class GpuModel {
public:
    // Builds the machine's weights in memory (no checkpoint file) for the given engines; with `weights`
    // BF16 every weight is rounded to bf16 first, as a bf16 checkpoint holds it.
    static std::unique_ptr<GpuModel> build(const std::vector<Engine>& engines = {Engine::Sparse},
                                           const circuit::Geometry& geometry = gpu::defaultMachineGeometry(),
                                           DType weights = DType::F32, const DenseGpuFactory& dense = {});
    // The sparse engine from a checkpoint's own weights: one `qgpu build-gpu` wrote, or the GPU's layers of
    // a combined checkpoint from `qgpu build --host` (its chip tokens' rows; the host's layers, which add
    // exact zeros on chip tokens, and text rows are left out). The checkpoint's circuit-layout.json must be
    // this build's machine at its width, else DiagnosticError says to rebuild it.
    static std::unique_ptr<GpuModel> load(const std::string& dir);
    // The one door every tool takes to the GPU model: the GPU layers of the checkpoint in `dir` (load; the
    // sparse engine only) when `dir` is given, else the machine built from code (build).
    static std::unique_ptr<GpuModel> open(const std::string& dir, const std::vector<Engine>& engines = {Engine::Sparse},
                                          DType weights = DType::F32, const DenseGpuFactory& dense = {});
    // Writes the model as a stock checkpoint with its layout file into the new directory `dir` (via
    // DIR.partial, renamed when complete). Needs the dense engine.
    void save(const std::string& dir, DType dtype = DType::F32) const;
    // The same files into the existing directory `dir` (an OutputDirectory's partial()).
    void saveInto(const std::filesystem::path& dir, DType dtype = DType::F32) const;

    // Runs a linked program on a grid of thread blocks with global memory starting as `global`; stops at
    // END, after `maxTokens`, or when `progress` says so.
    GpuLaunch run(const Program& program, const Dim3& grid, const Dim3& block, const std::vector<uint32_t>& global = {},
                  int maxTokens = 4096, Engine engine = Engine::Sparse, const RunProgress& progress = {}) const;
    // Feeds a whole stream (dense: in one prefill) and returns the model's argmax after every position.
    std::vector<int> teacherForced(const std::vector<gpu::Token>& stream, Engine engine = Engine::Sparse) const;

    const gpu::Machine& machine() const { return m_machine; }
    // The memory of the layout that a layer's head holds ("" when the machine leaves the head unused).
    std::string memoryAt(int layer, int head) const;
    bool has(Engine engine) const { return engine == Engine::Sparse ? bool(m_sparse) : bool(m_dense); }
    int sparseThreads() const { return m_sparse ? m_sparse->threads() : 0; }      // SparseModel::threads
    size_t sparseWeights() const { return m_sparse ? m_sparse->nonZeros() : 0; }  // SparseModel::nonZeros
    void profileSparse(SparseModel::Profile* profile) const {                     // SparseModel::setProfile
        if (m_sparse) m_sparse->setProfile(profile);
    }

private:
    friend class GpuStepper;
    explicit GpuModel(gpu::Machine machine);
    // Reads 32-bit rows out of a layer's recurrent state (dual rails: column 2i holds 1024 when bit i is set).
    uint32_t row(std::span<const float> layerState, int head, int row) const;
    struct Place {
        int layer = -1, head = -1;
    };
    Place memory(const std::string& name) const;  // where a memory of the layout lives
    // A layer's recurrent state, valid while the reader lives (asked again for each row it decodes).
    using LayerReader = std::function<std::span<const float>(int layer)>;
    using RowReader = std::function<uint32_t(const std::string& memory, int row)>;
    RowReader rowReader(LayerReader readLayer) const;
    // The machine as the recurrent state holds it: every thread's registers, pc and status, global and shared
    // memory (the state decoder; docs/tokens.md has the layout). Given the machine `before` and the heads
    // (layer, head) with a row changed since, only what those heads hold is decoded again.
    MachineState decodeState(const LayerReader& readLayer, const Dim3& grid, const Dim3& block,
                             const MachineState* before = nullptr,
                             const std::set<std::pair<int, int>>* changed = nullptr) const;
    std::vector<std::array<uint64_t, 5>> decodeRom(const LayerReader& readLayer) const;
    const DenseGpu& dense() const;
    const SparseModel& sparse() const;

    gpu::Machine m_machine;
    std::unique_ptr<DenseGpu> m_dense;
    std::unique_ptr<SparseModel> m_sparse;
    std::map<std::string, Place> m_memories;  // every memory of the layout by name
};

// A memory row's word: bit i is set when column 2i holds more than column 2i + 1 (dual rails).
uint32_t dualRailWord(const float* row);

// A launch on the sparse engine, one token at a time: the debugger's model backend. The host feeds back
// only what the model chose; the machine's state is decoded out of the recurrent state whenever asked.
class GpuStepper {
public:
    // Feeds the program image and the launch. Throws DiagnosticError as GpuModel::run does.
    GpuStepper(const GpuModel& model, const Program& program, const Dim3& grid, const Dim3& block,
               const std::vector<uint32_t>& global = {});

    const gpu::Token& next() const { return m_next; }  // the model's choice of the next token
    gpu::Token advance();                              // writes next() and feeds it; returns it
    const std::vector<gpu::Token>& fed() const { return m_fed; }
    const std::vector<gpu::Token>& written() const { return m_written; }

    // Every thread's registers, pc and status (exited, waiting at a barrier), global and shared memory.
    MachineState decode() const;
    MachineState decode(const SparseModel::State& state) const;  // the same from a replayed state
    // The machine now, from the one `before` it and the heads (layer, head) whose rows changed since: what
    // other heads hold is taken from `before` (the debugger decodes after every step).
    MachineState decodeChanged(const MachineState& before, const std::set<std::pair<int, int>>& heads) const;

    // The model's state once the fed tokens and the first `written` tokens it wrote have gone in
    // (written <= written().size()): the stepper's own state, or its history replayed. `from`, when given,
    // holds the state after the first `fromWritten` (<= written) and is replayed onwards instead.
    const SparseModel::State& state() const { return m_state; }
    SparseModel::State replayed(size_t written, const SparseModel::State* from = nullptr, size_t fromWritten = 0) const;
    // What the model does, layer by layer, with the token that goes in after the first `written` tokens
    // it wrote (written()[written], or next()); `state` holds the model at that point (replayed()).
    TokenTrace trace(size_t written, SparseModel::State state) const;
    // The raw recurrent state: per layer [heads, key dim, value dim].
    const std::vector<StateRows>& recurrent() const { return m_state.recurrent; }
    // From now on, the recurrent rows each token writes are logged (SparseModel::State::logRows); take
    // hands over those logged so far and starts the log again.
    void logRows() { m_state.logRows = true; }
    std::vector<SparseModel::StateRow> takeRowsWritten() { return std::exchange(m_state.rowsWritten, {}); }
    // SparseModel::convStateUsed.
    std::vector<std::vector<size_t>> convStateUsed() const;
    // The ROM: per block, its four body words and the terminator (with the writes mask in bits 7..10,
    // gpu::kWritesMaskShift).
    std::vector<std::array<uint64_t, 5>> decodeRom() const;

private:
    const GpuModel& m_model;
    Dim3 m_grid, m_block;
    SparseModel::State m_state;
    std::vector<gpu::Token> m_fed, m_written;
    gpu::Token m_next;
};

}  // namespace qgpu
