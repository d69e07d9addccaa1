#include "qgpu/runtime/GpuModel.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

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

GpuModel::GpuModel(gpu::Machine machine, std::unique_ptr<Qwen35Model> model)
    : m_machine(std::move(machine)), m_model(std::move(model)) {
    for (int l = 0; l < m_machine.circuit.layerCount(); ++l)
        for (const auto& port : m_machine.circuit.layer(l).ports)
            if (port.name == gpu::kRegisterFile) m_registerLayer = l, m_registerHead = port.head;
    if (m_registerLayer < 0) throw std::logic_error("the machine has no register file");
}

std::unique_ptr<GpuModel> GpuModel::build(const circuit::Geometry& geometry) {
    gpu::Machine machine = gpu::buildMachine(geometry);
    std::map<std::string, circuit::NamedTensor> tensors;
    for (auto& t : machine.circuit.emit(machine.embeddings)) tensors[t.name] = std::move(t);
    machine.embeddings.clear();  // now inside embed_tokens
    Qwen35Config config = circuitConfig(machine.circuit, gpu::vocabularySize());
    auto model = Qwen35Model::fromTensors(config, [&](const std::string& name, const std::vector<int64_t>& shape) {
        auto it = tensors.find(name);
        if (it == tensors.end() || it->second.shape != shape)
            throw std::logic_error("the machine emitted no tensor " + name + " of the model's shape");
        std::vector<float> v = std::move(it->second.values);
        tensors.erase(it);
        return v;
    });
    return std::unique_ptr<GpuModel>(new GpuModel(std::move(machine), std::move(model)));
}

void GpuModel::save(const std::string& dir, DType dtype) const { m_model->save(dir, dtype); }

std::array<uint32_t, 16> GpuModel::registers(const ModelState& state, int lane) const {
    const auto& g = m_machine.circuit.geometry();
    std::vector<float> s = state.recurrentState(m_registerLayer);
    size_t dk = size_t(g.linearKeyHeadDim), dv = size_t(g.linearValueHeadDim);
    std::array<uint32_t, 16> regs{};
    for (int r = 0; r < 16; ++r) {
        const float* row = s.data() + (size_t(m_registerHead) * dk + size_t(lane * 16 + r)) * dv;
        for (int i = 0; i < 32; ++i) regs[size_t(r)] |= uint32_t(row[2 * i] > row[2 * i + 1]) << i;  // dual rails
    }
    return regs;
}

GpuLaunch GpuModel::run(const Program& program, int lanes, int maxTokens) const {
    auto start = std::chrono::steady_clock::now();
    GpuLaunch launch;
    launch.fed = gpu::loadTokens(program, lanes);
    ModelState state = m_model->newState();
    size_t vocab = size_t(gpu::vocabularySize());
    std::vector<float> logits = m_model->forward(ids(launch.fed), state);
    while (int(launch.written.size()) < maxTokens) {
        gpu::Token next = gpu::Token::fromId(argmax(logits, 0, vocab));
        launch.written.push_back(next);
        if (next.kind == gpu::Kind::End) {
            launch.ended = true;
            break;
        }
        logits = m_model->forward({next.id()}, state);
    }
    for (int lane = 0; lane < lanes; ++lane) launch.registers.push_back(registers(state, lane));
    launch.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return launch;
}

std::vector<int> GpuModel::teacherForced(const std::vector<gpu::Token>& stream) const {
    ModelState state = m_model->newState();
    std::vector<float> logits = m_model->forward(ids(stream), state, true);
    size_t vocab = size_t(gpu::vocabularySize());
    std::vector<int> out;
    for (size_t t = 0; t < stream.size(); ++t) out.push_back(argmax(logits, t * vocab, vocab));
    return out;
}

}  // namespace qgpu
