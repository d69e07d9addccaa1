#include "qgpu/runtime/GpuModel.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <stdexcept>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/CircuitCheckpoint.h"

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

std::unique_ptr<GpuModel> GpuModel::build(const std::vector<Engine>& engines, const circuit::Geometry& geometry,
                                          DType weights) {
    std::unique_ptr<GpuModel> m(new GpuModel(gpu::buildMachine(geometry)));
    const circuit::Circuit& circuit = m->m_machine.circuit;
    m->m_global.resize(8);
    m->m_registers.resize(16);
    m->m_shared.resize(16);
    for (int l = 0; l < circuit.layerCount(); ++l)
        for (const auto& port : circuit.layer(l).ports) {
            for (int h = 0; h < 16; ++h) {
                if (port.name == gpu::kRegisterFile + std::to_string(h)) m->m_registers[size_t(h)] = {l, port.head};
                if (port.name == gpu::kSharedMemory + std::to_string(h)) m->m_shared[size_t(h)] = {l, port.head};
            }
            for (int h = 0; h < 8; ++h)
                if (port.name == gpu::kGlobalMemory + std::to_string(h)) m->m_global[size_t(h)] = {l, port.head};
        }
    std::map<std::string, circuit::NamedTensor> tensors;
    for (auto& t : circuit.emit(m->m_machine.embeddings)) {
        if (weights != DType::F32) {  // the values a checkpoint in `weights` holds
            TensorData stored = TensorData::fromFloat(t.name, t.shape, t.values, weights);
            t.values = TensorView{t.name, weights, t.shape, stored.bytes.data(), stored.bytes.size()}.toFloat();
        }
        tensors[t.name] = std::move(t);
    }
    m->m_machine.embeddings.clear();  // now inside embed_tokens
    Qwen35Config config = circuitConfig(circuit, gpu::vocabularySize());
    auto lookup = [&](const std::string& name, const std::vector<int64_t>& shape) -> circuit::NamedTensor& {
        auto it = tensors.find(name);
        if (it == tensors.end() || it->second.shape != shape)
            throw std::logic_error("the machine emitted no tensor " + name + " of the model's shape");
        return it->second;
    };
    bool dense = std::count(engines.begin(), engines.end(), Engine::Dense) > 0;
    if (std::count(engines.begin(), engines.end(), Engine::Sparse))
        m->m_sparse = SparseModel::fromTensors(config, [&](const std::string& name, const std::vector<int64_t>& shape) {
            return dense ? lookup(name, shape).values : std::move(lookup(name, shape).values);
        });
    if (dense)
        m->m_dense = Qwen35Model::fromTensors(config, [&](const std::string& name, const std::vector<int64_t>& shape) {
            return std::move(lookup(name, shape).values);
        });
    return m;
}

const Qwen35Model& GpuModel::dense() const {
    if (!m_dense) throw std::logic_error("this GPU model was built without the dense engine");
    return *m_dense;
}

const SparseModel& GpuModel::sparse() const {
    if (!m_sparse) throw std::logic_error("this GPU model was built without the sparse engine");
    return *m_sparse;
}

void GpuModel::save(const std::string& dir, DType dtype) const {
    namespace fs = std::filesystem;
    fs::path out(dir), partial = out;
    partial += ".partial";
    if (fs::exists(out))
        throw DiagnosticError(Diagnostic{dir, 0, 0, "already exists; give a new directory (nothing was written)"});
    fs::remove_all(partial);
    fs::create_directories(partial);
    dense().save(partial.string(), dtype);
    std::ofstream(partial / kCircuitLayoutFile) << m_machine.circuit.layoutJson();
    fs::rename(partial, out);  // only a complete checkpoint ever carries the name
}

uint32_t GpuModel::row(const std::vector<float>& state, int head, int r) const {
    const auto& g = m_machine.circuit.geometry();
    size_t dk = size_t(g.linearKeyHeadDim), dv = size_t(g.linearValueHeadDim);
    const float* values = state.data() + (size_t(head) * dk + size_t(r)) * dv;
    uint32_t word = 0;
    for (int i = 0; i < 32; ++i) word |= uint32_t(values[2 * i] > values[2 * i + 1]) << i;
    return word;
}

GpuLaunch GpuModel::run(const Program& program, const Dim3& grid, const Dim3& block,
                        const std::vector<uint32_t>& global, int maxTokens, Engine engine) const {
    auto start = std::chrono::steady_clock::now();
    GpuLaunch launch;
    launch.fed = gpu::loadTokens(program, grid, block, global);
    size_t vocab = size_t(gpu::vocabularySize());
    // One engine-neutral loop: feed tokens, take the argmax, stop at END.
    std::vector<float> logits;
    auto decode = [&](const auto& readLayer) {  // registers and memory out of the final state
        std::map<int, std::vector<float>> layers;
        auto layerState = [&](int layer) -> const std::vector<float>& {
            auto it = layers.find(layer);
            return it != layers.end() ? it->second : layers.emplace(layer, readLayer(layer)).first->second;
        };
        // Warp g's lane l keeps register r in row (g mod 8) * 16 + r of bank l * 4 + g / 8.
        for (int slot : gpu::threadSlots(grid, block)) {
            int g = slot / gpu::kLanes, lane = slot % gpu::kLanes;
            const Place& bank = m_registers[size_t(lane * 4 + g / 8)];
            const std::vector<float>& registerFile = layerState(bank.layer);
            std::array<uint32_t, 16> regs{};
            for (int r = 0; r < 16; ++r) regs[size_t(r)] = row(registerFile, bank.head, g % 8 * 16 + r);
            launch.registers.push_back(regs);
        }
        for (const Place& p : m_global) {
            const std::vector<float>& words = layerState(p.layer);
            for (int r = 0; r < 128; ++r) launch.global.push_back(row(words, p.head, r));
        }
        for (int cta = 0; cta < grid.count(); ++cta) {
            const Place& bank = m_shared[size_t(cta / 2)];
            const std::vector<float>& words = layerState(bank.layer);
            launch.shared.emplace_back();
            for (int a = 0; a < 64; ++a) launch.shared.back().push_back(row(words, bank.head, cta % 2 * 64 + a));
        }
    };
    if (engine == Engine::Dense) {
        ModelState state = dense().newState();
        logits = dense().forward(ids(launch.fed), state);
        while (int(launch.written.size()) < maxTokens) {
            launch.written.push_back(gpu::Token::fromId(argmax(logits, 0, vocab)));
            if (launch.written.back().kind == gpu::Kind::End) break;
            logits = dense().forward({launch.written.back().id()}, state);
        }
        decode([&](int layer) { return state.recurrentState(layer); });
    } else {
        SparseModel::State state = sparse().newState();
        for (const gpu::Token& t : launch.fed) logits = sparse().forward(t.id(), state);
        while (int(launch.written.size()) < maxTokens) {
            launch.written.push_back(gpu::Token::fromId(argmax(logits, 0, vocab)));
            if (launch.written.back().kind == gpu::Kind::End) break;
            logits = sparse().forward(launch.written.back().id(), state);
        }
        decode([&](int layer) { return state.recurrent[size_t(layer)]; });
    }
    launch.ended = !launch.written.empty() && launch.written.back().kind == gpu::Kind::End;
    launch.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return launch;
}

std::vector<int> GpuModel::teacherForced(const std::vector<gpu::Token>& stream, Engine engine) const {
    size_t vocab = size_t(gpu::vocabularySize());
    std::vector<int> out;
    if (engine == Engine::Dense) {
        ModelState state = dense().newState();
        std::vector<float> logits = dense().forward(ids(stream), state, true);
        for (size_t t = 0; t < stream.size(); ++t) out.push_back(argmax(logits, t * vocab, vocab));
    } else {
        SparseModel::State state = sparse().newState();
        for (const gpu::Token& t : stream) out.push_back(argmax(sparse().forward(t.id(), state), 0, vocab));
    }
    return out;
}

}  // namespace qgpu
