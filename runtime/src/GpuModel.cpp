#include "qgpu/runtime/GpuModel.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/JsonDocument.h"
#include "qgpu/runtime/CircuitCheckpoint.h"
#include "qgpu/runtime/HostSplice.h"
#include "qgpu/runtime/Safetensors.h"

namespace qgpu {

namespace {

int argmax(const std::vector<float>& logits, size_t offset, size_t count) {
    auto first = logits.begin() + long(offset);
    return int(std::max_element(first, first + long(count)) - first);
}

std::vector<int> ids(const std::vector<gpu::Token>& tokens) {
    std::vector<int> out;
    for (const auto& t : tokens) out.push_back(t.id());
    return out;
}

}  // namespace

GpuModel::GpuModel(gpu::Machine machine) : m_machine(std::move(machine)) {
    const circuit::Circuit& circuit = m_machine.circuit;
    for (int l = 0; l < circuit.layerCount(); ++l)
        for (const auto& port : circuit.layer(l).ports) m_memories[port.name] = {l, port.head};
}

namespace {

// The machine a GPU checkpoint holds, checked against its files before any weight is read: a plain Qwen
// checkpoint, an edited config.json or layout, or a layer count that disagrees each get a message.
gpu::Machine checkpointMachine(const std::string& dir, const Qwen35Config& config, int expectedHostLayers) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(fs::path(dir) / kCircuitLayoutFile, ec)))
        failAt(dir, std::string("has no ") + kCircuitLayoutFile +
                        ": it is not a checkpoint with the GPU's layers (a plain Qwen3.5 checkpoint goes to --host); "
                        "write one with `qgpu build-gpu --out DIR` or `qgpu build --host HOST --out DIR`");
    fs::path layoutPath = checkpointFile(dir, kCircuitLayoutFile, "");
    std::string layout = readFile(layoutPath);
    nlohmann::json j = parseJsonDocument(layout, layoutPath.string());
    if (!j.is_object() || !j.contains("hidden_size"))
        failAt(layoutPath.string(), "is not a qgpu circuit layout; write the checkpoint again");
    int layoutWidth = jsonGet<int>(j["hidden_size"], "hidden_size", layoutPath.string());
    if (layoutWidth != config.hiddenSize)
        failAt(dir, "config.json's hidden_size " + std::to_string(config.hiddenSize) + " is not the " +
                        std::to_string(layoutWidth) + " of " + kCircuitLayoutFile +
                        ": the config was edited; write the checkpoint again");
    auto build = [&]() -> gpu::Machine {
        try {
            return gpu::buildMachine(circuitGeometry(config));
        } catch (const std::exception& e) {  // the residual or a head is too small for the machine
            failAt(dir, std::string("config.json's geometry cannot hold this qgpu's machine (") + e.what() +
                            "): the config was edited or the checkpoint is another model's; write it again");
        }
    };
    gpu::Machine machine = build();
    if (layout != machine.circuit.layoutJson())
        failAt(layoutPath.string(),
               "describes another machine than this qgpu builds; write the checkpoint again with this qgpu "
               "(build-gpu or build --host)");
    int expected = machine.circuit.layerCount() + std::max(expectedHostLayers, 1);  // build-gpu's ends with one
    if (config.numLayers != expected)
        failAt(dir, "config.json's num_hidden_layers is " + std::to_string(config.numLayers) + " but the GPU's " +
                        std::to_string(machine.circuit.layerCount()) + " layers and the " +
                        (expectedHostLayers > 0 ? "host's " + std::to_string(expectedHostLayers)
                                                : std::string("closing attention layer's 1")) +
                        " make " + std::to_string(expected) + "; the config was edited: write the checkpoint again");
    return machine;
}

// Rows [first, first + count) of a matrix as BaseRows, read a block at a time (`read` is told of each): the
// chip tokens' embeddings of a combined checkpoint are 197,227 rows as wide as the combined residual.
BaseRows readBaseRows(const TensorView& matrix, int64_t first, int64_t count, const ChunkRead& read) {
    constexpr int64_t kBlockRows = 1024;
    BaseRows rows;
    size_t width = size_t(matrix.shape[1]);
    for (int64_t r = 0; r < count; r += kBlockRows) {
        int64_t n = std::min(kBlockRows, count - r);
        TensorView part = matrix.rows(first + r, n);
        std::vector<float> block = part.toFloat();
        read(part.data, part.bytes);
        for (int64_t i = 0; i < n; ++i)
            rows.addRow(std::vector<float>(block.begin() + i * width, block.begin() + (i + 1) * width));
    }
    return rows;
}

}  // namespace

std::unique_ptr<GpuModel> GpuModel::open(const std::string& dir, const std::vector<Engine>& engines, DType weights,
                                         const DenseGpuFactory& dense) {
    if (dir.empty()) return build(engines, gpu::defaultMachineGeometry(), weights, dense);
    if (std::find(engines.begin(), engines.end(), Engine::Dense) != engines.end())
        throw DiagnosticError(Diagnostic{dir, 0, 0, "a checkpoint's GPU layers run on the sparse engine only"});
    return load(dir);
}

std::unique_ptr<GpuModel> GpuModel::load(const std::string& dir) {
    namespace fs = std::filesystem;
    Qwen35Config config = Qwen35Config::load(dir);
    std::optional<SpliceLayout> splice;
    if (fs::exists(fs::path(dir) / kSpliceFile)) splice = SpliceLayout::load(dir);
    gpu::Machine machine = checkpointMachine(dir, config, splice ? splice->hostLayers : 0);
    if (splice && splice->circuitLayers != machine.circuit.layerCount())
        failAt(dir, std::string(kSpliceFile) + " puts " + std::to_string(splice->circuitLayers) +
                        " GPU layers in front of the host, this qgpu's machine has " +
                        std::to_string(machine.circuit.layerCount()) + "; write the checkpoint again");
    TensorChecksums checksums = TensorChecksums::load(dir);
    std::unique_ptr<GpuModel> m(new GpuModel(std::move(machine)));
    m->m_machine.embeddings = {};  // the checkpoint's rows are used
    Checkpoint checkpoint(dir);
    Qwen35Config gpuConfig = circuitConfig(m->m_machine.circuit, gpu::vocabularySize());
    gpuConfig.rmsNormEps = config.rmsNormEps;
    int64_t h = config.hiddenSize, firstChipRow = splice ? splice->hostVocab : 0;
    int64_t chipTokens = gpuConfig.vocabSize;
    const TensorView& embed = checkpoint.require("embed_tokens.weight", {config.vocabSize, h});
    if (firstChipRow + chipTokens != config.vocabSize)
        failAt(dir, "the vocabulary is not the host's and the GPU's: config.json's vocab_size is " +
                        std::to_string(config.vocabSize) + ", the chip tokens need " +
                        std::to_string(firstChipRow + chipTokens));
    // Every tensor's file pages are released as soon as they are read: a combined checkpoint's embedding
    // and GPU tensors are gigabytes of which the sparse engine keeps a small part.
    auto release = [&](const uint8_t* data, size_t bytes) {
        checkpoint.releasePages(TensorView{"", DType::F32, {}, data, bytes});
    };
    checksums.verify("embed_tokens.weight", embed, release);
    checkpoint.releasePages(embed);
    BaseRows chipRows = readBaseRows(embed, firstChipRow, chipTokens, release);
    auto tensor = [&](const std::string& name, const std::vector<int64_t>& shape) {
        const TensorView& t = checkpoint.require(name, shape);
        checksums.verify(name, t, release);
        std::vector<float> values = t.toFloat();
        checkpoint.releasePages(t);
        return values;
    };
    m->m_sparse = SparseModel::fromTensors(
        gpuConfig, tensor, [](const std::string&) { return std::nullopt; }, std::move(chipRows));
    return m;
}

std::unique_ptr<GpuModel> GpuModel::build(const std::vector<Engine>& engines, const circuit::Geometry& geometry,
                                          DType weights, const DenseGpuFactory& denseFactory) {
    std::unique_ptr<GpuModel> m(new GpuModel(gpu::buildMachine(geometry)));
    const circuit::Circuit& circuit = m->m_machine.circuit;
    bool dense = std::count(engines.begin(), engines.end(), Engine::Dense) > 0;
    if (dense && !denseFactory) throw std::logic_error("the dense engine needs qgpu_host's makeDenseGpu");
    auto round = [&](const std::string& name, std::vector<float>& values) {  // to what a checkpoint in `weights` holds
        if (weights == DType::F32) return;
        std::vector<int64_t> shape{int64_t(values.size())};
        TensorData stored = TensorData::fromFloat(name, shape, values, weights);
        values = TensorView{name, weights, shape, stored.bytes.data(), stored.bytes.size()}.toFloat();
    };
    // The sparse engine alone takes the large matrices as their entries and the embeddings as changes to a
    // base row: no gigabytes of zeros to make and scan. The dense engine gets embed_tokens whole.
    BaseRows embeddings = std::move(m->m_machine.embeddings);
    m->m_machine.embeddings = {};
    std::map<std::string, circuit::NamedTensor> tensors;
    for (auto& t : circuit.emit(dense ? embeddings.dense() : std::vector<std::vector<float>>{}, !dense)) {
        if (!t.sparse) {
            round(t.name, t.values);
        } else if (weights != DType::F32) {
            std::vector<float> values;
            for (const auto& e : t.entries) values.push_back(e.second);
            round(t.name, values);
            for (size_t i = 0; i < t.entries.size(); ++i) t.entries[i].second = values[i];
            std::erase_if(t.entries, [](const auto& e) { return e.second == 0; });  // as the dense scan drops them
        }
        tensors[t.name] = std::move(t);
    }
    if (weights != DType::F32) {  // the embeddings too: the base and every change
        std::vector<float> base = embeddings.base(), values;
        round("embed_tokens.weight", base);
        for (size_t r = 0; r < embeddings.size(); ++r)
            for (const auto& change : embeddings.changes(r)) values.push_back(change.second);
        round("embed_tokens.weight", values);
        BaseRows rounded(std::move(base));
        size_t i = 0;
        for (size_t r = 0; r < embeddings.size(); ++r) {
            std::vector<BaseRows::Change> changes = embeddings.changes(r);
            for (auto& change : changes) change.second = values[i++];
            rounded.add(std::move(changes));
        }
        embeddings = std::move(rounded);
    }
    Qwen35Config config = circuitConfig(circuit, gpu::vocabularySize());
    auto lookup = [&](const std::string& name, const std::vector<int64_t>& shape) -> circuit::NamedTensor& {
        auto it = tensors.find(name);
        if (it == tensors.end() || it->second.shape != shape || it->second.sparse)
            throw std::logic_error("the machine emitted no dense tensor " + name + " of the model's shape");
        return it->second;
    };
    if (std::count(engines.begin(), engines.end(), Engine::Sparse))
        m->m_sparse = SparseModel::fromTensors(
            config,
            [&](const std::string& name, const std::vector<int64_t>& shape) {
                return dense ? lookup(name, shape).values : std::move(lookup(name, shape).values);
            },
            [&](const std::string& name) -> std::optional<SparseModel::Entries> {
                auto it = tensors.find(name);
                if (it == tensors.end() || !it->second.sparse) return std::nullopt;
                return std::move(it->second.entries);
            },
            std::move(embeddings));
    if (dense)
        m->m_dense = denseFactory(config, [&](const std::string& name, const std::vector<int64_t>& shape) {
            return std::move(lookup(name, shape).values);
        });
    return m;
}

const DenseGpu& GpuModel::dense() const {
    if (!m_dense) throw std::logic_error("this GPU model was built without the dense engine");
    return *m_dense;
}

const SparseModel& GpuModel::sparse() const {
    if (!m_sparse) throw std::logic_error("this GPU model was built without the sparse engine");
    return *m_sparse;
}

void GpuModel::save(const std::string& dir, DType dtype) const {
    OutputDirectory out(dir);
    saveInto(out.partial(), dtype);
    out.commit();
}

void GpuModel::saveInto(const std::filesystem::path& dir, DType dtype) const {
    dense().save(dir.string(), dtype);
    addPassthroughAttention(dir.string(), dtype);
    writeTextFile(dir / kCircuitLayoutFile, m_machine.circuit.layoutJson());
    writeTensorChecksums(dir.string());
}

uint32_t dualRailWord(const float* row) {
    uint32_t word = 0;
    for (int i = 0; i < 32; ++i) word |= uint32_t(row[2 * i] > row[2 * i + 1]) << i;
    return word;
}

uint32_t GpuModel::row(std::span<const float> state, int head, int r) const {
    const auto& g = m_machine.circuit.geometry();
    size_t dk = size_t(g.linearKeyHeadDim), dv = size_t(g.linearValueHeadDim);
    return dualRailWord(state.data() + (size_t(head) * dk + size_t(r)) * dv);
}

std::string GpuModel::memoryAt(int layer, int head) const {
    for (const auto& [name, place] : m_memories)
        if (place.layer == layer && place.head == head) return name;
    return {};
}

GpuModel::Place GpuModel::memory(const std::string& name) const {
    auto it = m_memories.find(name);
    if (it == m_memories.end()) throw std::logic_error("the machine has no memory " + name);
    return it->second;
}

GpuModel::RowReader GpuModel::rowReader(LayerReader readLayer) const {
    return [this, readLayer = std::move(readLayer)](const std::string& name, int r) {
        Place p = memory(name);
        return row(readLayer(p.layer), p.head, r);
    };
}

MachineState GpuModel::decodeState(const LayerReader& readLayer, const Dim3& grid, const Dim3& block,
                                   const MachineState* before, const std::set<std::pair<int, int>>* changed) const {
    // Each memory's place is looked up once (the debugger decodes after every step): `banks(prefix)` gives
    // bank i of the memories named prefix0, prefix1, ...
    struct Rows {
        std::span<const float> layer;
        Place place;
    };
    auto banks = [&](const std::string& prefix) {
        return [this, &readLayer, prefix, made = std::vector<Rows>()](int i) mutable -> Rows {
            if (size_t(i) >= made.size()) made.resize(size_t(i) + 1);
            if (made[size_t(i)].place.head < 0) {
                Place p = memory(prefix + std::to_string(i));
                made[size_t(i)] = {readLayer(p.layer), p};
            }
            return made[size_t(i)];
        };
    };
    // Decoded again: every memory when there is no machine before, else those with a changed row.
    auto stale = [&](Place p) { return !before || changed->count({p.layer, p.head}) > 0; };
    auto read = [this](const Rows& m, int r) { return row(m.layer, m.place.head, r); };
    auto registers = banks(gpu::kRegisterFile), lanes = banks("lane"), global = banks(gpu::kGlobalMemory),
         shared = banks(gpu::kSharedMemory);
    MachineState s = before ? *before : MachineState{};
    s.lanesPerWarp = gpu::kLanes;
    s.warpsPerBlock = (block.count() + gpu::kLanes - 1) / gpu::kLanes;
    s.threads.resize(size_t(grid.count() * s.warpsPerBlock * gpu::kLanes));
    Place e = memory("epoch");
    uint32_t epoch = row(readLayer(e.layer), e.head, 0) & 1;
    bool epochChanged = stale(e);  // every waiting lane's status reads it
    // Warp g's lane l: register r in row (g mod 8) * 16 + r of bank l * 4 + g / 8; its state in row g of
    // lane<l> (gpu::LaneStateField).
    for (int slot : gpu::threadSlots(grid, block)) {
        int g = slot / gpu::kLanes, lane = slot % gpu::kLanes;
        ThreadState& t = s.threads[size_t(slot)];
        Rows bank = registers(lane * 4 + g / 8);
        if (stale(bank.place))
            for (int r = 0; r < 16; ++r) t.regs[size_t(r)] = read(bank, g % 8 * 16 + r);
        Rows laneRows = lanes(lane);
        if (!epochChanged && !stale(laneRows.place)) continue;
        uint32_t state = read(laneRows, g);
        t.pc = int(state & (gpu::kBlocks - 1));
        bool exited = state >> gpu::kLaneExited & 1,
             waiting = (state >> gpu::kLaneWaiting & 1) && (state >> gpu::kLaneEpoch & 1) == epoch;
        t.status = exited ? LaneStatus::Exited : waiting ? LaneStatus::AtBarrier : LaneStatus::Live;
    }
    s.global.resize(1024);
    for (int a = 0; a < 1024; a += 128)
        if (Rows bank = global(a / 128); stale(bank.place))
            for (int r = 0; r < 128; ++r) s.global[size_t(a + r)] = read(bank, r);
    s.shared.resize(size_t(grid.count()), std::vector<uint32_t>(64));
    for (int cta = 0; cta < grid.count(); ++cta)
        if (Rows bank = shared(cta / 2); stale(bank.place))
            for (int a = 0; a < 64; ++a) s.shared[size_t(cta)][size_t(a)] = read(bank, cta % 2 * 64 + a);
    return s;
}

std::vector<std::array<uint64_t, 5>> GpuModel::decodeRom(const LayerReader& readLayer) const {
    RowReader row32 = rowReader(readLayer);
    auto read = [&](const std::string& name, int r) { return uint64_t(row32(name, r)); };
    std::vector<std::array<uint64_t, 5>> rom(gpu::kBlocks);
    for (int b = 0; b < gpu::kBlocks; ++b) {
        std::string bank = std::to_string(b / gpu::kRomBankBlocks);
        for (int slot = 0; slot < gpu::kSlots; ++slot) {
            int r = b % gpu::kRomBankBlocks * gpu::kSlots + slot;
            rom[size_t(b)][size_t(slot)] = read("rom_fields_next" + bank, r) | read("rom_imm_next" + bank, r) << 32;
        }
        rom[size_t(b)][4] = read("rom_term_fields", b) | read("rom_term_imm", b) << 32;
    }
    return rom;
}

namespace {

// The launch result: the state's registers of the launch's threads, its global and shared memory, and
// the fault that ended it.
void fillResult(GpuLaunch& launch, MachineState state, const Dim3& grid, const Dim3& block) {
    if (!launch.written.empty() && launch.written.back().kind == gpu::Kind::Fault) {
        auto exec = std::find_if(launch.written.rbegin(), launch.written.rend(),
                                 [](const gpu::Token& t) { return t.kind == gpu::Kind::Exec && t.mask; });
        if (exec != launch.written.rend()) {
            launch.fault = faultMessage(*exec, launch.written.back(), state);
            launch.faultBlock = exec->block;
        }
    }
    for (int slot : gpu::threadSlots(grid, block)) launch.registers.push_back(state.threads[size_t(slot)].regs);
    launch.global = std::move(state.global);
    launch.shared = std::move(state.shared);
}

}  // namespace

std::string faultMessage(const gpu::Token& exec, const gpu::Token& fault, const MachineState& after) {
    std::vector<std::pair<int, int>> elsewhere;
    for (int l = 0; l < after.lanesPerWarp; ++l)
        if (fault.mask >> l & 1) elsewhere.push_back({l, after.threads[size_t(exec.warp * after.lanesPerWarp + l)].pc});
    return divergentBarrierFault(exec.warp, exec.warp / after.warpsPerBlock, exec.block, uint8_t(exec.mask), elsewhere);
}

GpuLaunch GpuModel::run(const Program& program, const Dim3& grid, const Dim3& block,
                        const std::vector<uint32_t>& global, int maxTokens, Engine engine,
                        const RunProgress& progress) const {
    auto start = std::chrono::steady_clock::now();
    GpuLaunch launch;
    auto goOn = [&](size_t written) {
        if (!progress || written == 0 || written % kRunProgressPeriod != 0) return true;
        launch.stopped =
            !progress(written, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return !launch.stopped;
    };
    if (engine == Engine::Dense) {  // the prompt in one prefill, then one decode step per token
        launch.fed = gpu::loadTokens(program, grid, block, global);
        size_t vocab = size_t(gpu::vocabularySize());
        std::unique_ptr<DenseGpu::Sequence> state = dense().start();
        std::vector<float> logits = state->forward(ids(launch.fed));
        while (int(launch.written.size()) < maxTokens && goOn(launch.written.size())) {
            launch.written.push_back(gpu::Token::fromId(argmax(logits, 0, vocab)));
            if (launch.written.back().endsLaunch()) break;
            logits = state->forward({launch.written.back().id()});
        }
        std::map<int, std::vector<float>> layers;  // each layer copied out of the dense state once
        auto readLayer = [&](int layer) -> std::span<const float> {
            auto it = layers.find(layer);
            if (it == layers.end()) it = layers.emplace(layer, state->recurrentState(layer)).first;
            return it->second;
        };
        fillResult(launch, decodeState(readLayer, grid, block), grid, block);
    } else {
        GpuStepper stepper(*this, program, grid, block, global);
        launch.fed = stepper.fed();
        while (int(stepper.written().size()) < maxTokens && !stepper.next().endsLaunch() &&
               goOn(stepper.written().size()))
            stepper.advance();
        launch.written = stepper.written();
        if (!launch.stopped && stepper.next().endsLaunch() && int(launch.written.size()) < maxTokens)
            launch.written.push_back(stepper.next());
        fillResult(launch, stepper.decode(), grid, block);
    }
    launch.ended = !launch.written.empty() && launch.written.back().endsLaunch();
    launch.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return launch;
}

GpuStepper::GpuStepper(const GpuModel& model, const Program& program, const Dim3& grid, const Dim3& block,
                       const std::vector<uint32_t>& global)
    : m_model(model), m_grid(grid), m_block(block), m_state(model.sparse().newState()) {
    m_fed = gpu::loadTokens(program, grid, block, global);
    for (size_t i = 0; i + 1 < m_fed.size(); ++i) m_model.sparse().feed(m_fed[i].id(), m_state);
    m_next = gpu::Token::fromId(m_model.sparse().greedy(m_fed.back().id(), m_state));
}

SparseModel::State GpuStepper::replayed(size_t written, const SparseModel::State* from, size_t fromWritten) const {
    if (written == m_written.size()) return m_state;
    SparseModel::State state;
    if (from && fromWritten <= written) {
        state = *from;
    } else {  // from the start: every fed token again
        state = m_model.sparse().newState();
        for (const gpu::Token& t : m_fed) m_model.sparse().feed(t.id(), state);
        fromWritten = 0;
    }
    for (size_t i = fromWritten; i < written && i < m_written.size(); ++i)
        m_model.sparse().feed(m_written[i].id(), state);
    return state;
}

TokenTrace GpuStepper::trace(size_t written, SparseModel::State state) const {
    TokenTrace out;
    gpu::Token in = written < m_written.size() ? m_written[written] : m_next;
    out.token = in.text();
    out.writtenBefore = written;
    int next = 0;
    out.layers = m_model.sparse().trace(in.id(), state, &next);
    out.next = gpu::Token::fromId(next).text();
    return out;
}

gpu::Token GpuStepper::advance() {
    gpu::Token t = m_next;
    m_written.push_back(t);
    m_next = gpu::Token::fromId(m_model.sparse().greedy(t.id(), m_state));
    return t;
}

MachineState GpuStepper::decode() const { return decode(m_state); }

std::vector<std::vector<size_t>> GpuStepper::convStateUsed() const { return m_model.sparse().convStateUsed(); }

MachineState GpuStepper::decode(const SparseModel::State& state) const {
    return m_model.decodeState([&](int layer) { return std::span<const float>(state.recurrent[size_t(layer)]); },
                               m_grid, m_block);
}

MachineState GpuStepper::decodeChanged(const MachineState& before, const std::set<std::pair<int, int>>& heads) const {
    return m_model.decodeState([&](int layer) { return std::span<const float>(m_state.recurrent[size_t(layer)]); },
                               m_grid, m_block, &before, &heads);
}

std::vector<std::array<uint64_t, 5>> GpuStepper::decodeRom() const {
    return m_model.decodeRom([&](int layer) { return std::span<const float>(m_state.recurrent[size_t(layer)]); });
}

std::vector<int> GpuModel::teacherForced(const std::vector<gpu::Token>& stream, Engine engine) const {
    size_t vocab = size_t(gpu::vocabularySize());
    std::vector<int> out;
    if (engine == Engine::Dense) {
        std::vector<float> logits = dense().start()->forward(ids(stream), true);
        for (size_t t = 0; t < stream.size(); ++t) out.push_back(argmax(logits, t * vocab, vocab));
    } else {
        SparseModel::State state = sparse().newState();
        for (const gpu::Token& t : stream) out.push_back(sparse().greedy(t.id(), state));
    }
    return out;
}

}  // namespace qgpu
