// A memory port on a Gated DeltaNet head at Qwen3.5-2B head dimensions (128 x 128): random writes and
// reads through Qwen35Model, compared with a plain C++ memory, bit for bit; with plain one-hot rows, and
// with rows as two factors (4 x 2) whose keys and queries are also gated by a select bit; and writing the
// token's own data or the previous token's (the conv's previous tap).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <numeric>
#include <random>

#include "qgpu/compiler/circuit/Circuit.h"
#include "qgpu/runtime/CircuitCheckpoint.h"
#include "qgpu/runtime/Qwen35Model.h"

using namespace qgpu;
using circuit::Circuit;
namespace fs = std::filesystem;

namespace {

struct Port {
    Circuit c;
    circuit::MemoryPort port;
};

Port buildPort(bool factored = false, int dataTap = 0) {
    circuit::Geometry g;
    g.hiddenSize = 192;
    g.linearNumKeyHeads = g.linearNumValueHeads = 1;
    g.linearKeyHeadDim = g.linearValueHeadDim = 128;
    Port p{Circuit(g), {}};
    p.port.name = "mem";
    p.port.dataTap = dataTap;
    int high = factored ? 4 : 8;
    for (int r = 0; r < high; ++r) p.port.writeRows.push_back(p.c.addFeature("w" + std::to_string(r)));
    for (int r = 0; r < high; ++r) p.port.readRows.push_back(p.c.addFeature("r" + std::to_string(r)));
    if (factored) {
        for (int r = 0; r < 2; ++r) p.port.writeRowsLow.push_back(p.c.addFeature("wl" + std::to_string(r)));
        for (int r = 0; r < 2; ++r) p.port.readRowsLow.push_back(p.c.addFeature("rl" + std::to_string(r)));
        p.port.writeSelect = p.c.addFeature("ws");
        p.port.readSelect = p.c.addFeature("rs");
    }
    for (int i = 0; i < 32; ++i) p.port.dataBits.push_back(p.c.addFeature("d" + std::to_string(i)));
    for (int i = 0; i < 32; ++i) p.port.outBits.push_back(p.c.addReadBit("o" + std::to_string(i)));
    p.c.memoryPort(p.c.addLayer(), p.port);
    return p;
}

struct Op {
    bool text = false;  // a text token: zero on every circuit dimension
    int writeRow = -1;  // -1: no write
    uint32_t value = 0;
    int readRow = -1;  // -1: no read
};

}  // namespace

// The bits a token sets to address row r (factored: its high and low factor, and the select).
std::vector<int> rowBits(const circuit::MemoryPort& port, bool write, int r) {
    const auto& high = write ? port.writeRows : port.readRows;
    const auto& low = write ? port.writeRowsLow : port.readRowsLow;
    if (low.empty()) return {high[size_t(r)]};
    return {high[size_t(r) / low.size()], low[size_t(r) % low.size()], write ? port.writeSelect : port.readSelect};
}

class MemoryPortDtype : public ::testing::TestWithParam<std::tuple<DType, bool, int>> {};

TEST_P(MemoryPortDtype, RandomWritesAndReadsAreExact) {
    auto [dtype, factored, tap] = GetParam();
    Port p = buildPort(factored, tap);
    std::mt19937 rng(42);
    std::vector<Op> ops;
    std::vector<std::vector<float>> rows;
    for (int t = 0; t < 80; ++t) {
        Op op;
        if (rng() % 5 == 0) {  // text between circuit tokens: must not disturb the memory
            op.text = true;
            std::vector<float> text(size_t(p.c.geometry().hiddenSize), 0.f);
            for (size_t d = size_t(p.c.dimsUsed()); d < text.size(); ++d)
                text[d] = float(int(rng() % 200) - 100) / 8.f;  // bf16-exact
            ops.push_back(op);
            rows.push_back(text);
            continue;
        }
        op.writeRow = int(rng() % 10) - 2;  // some tokens do not write
        op.value = rng();
        op.readRow = int(rng() % 10) - 2;
        if (op.writeRow < 0) op.writeRow = -1;
        if (op.readRow < 0) op.readRow = -1;
        std::vector<int> trueDims;
        if (op.writeRow >= 0)
            for (int bit : rowBits(p.port, true, op.writeRow)) trueDims.push_back(bit);
        if (op.writeRow >= 0 || tap == 1)  // with the previous tap, the next token may write this token's data
            for (int i = 0; i < 32; ++i)
                if (op.value >> i & 1) trueDims.push_back(p.port.dataBits[size_t(i)]);
        if (op.readRow >= 0)
            for (int bit : rowBits(p.port, false, op.readRow)) trueDims.push_back(bit);
        if (factored && op.writeRow < 0 && rng() % 2) {  // a row without its select: no write
            trueDims.push_back(p.port.writeRows[0]);
            trueDims.push_back(p.port.writeRowsLow[1]);
        }
        ops.push_back(op);
        rows.push_back(p.c.tokenEmbedding(trueDims));
    }
    fs::path dir = fs::temp_directory_path() / ("qgpu-port-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    writeCircuitCheckpoint(dir.string(), p.c, rows, dtype);
    auto model = Qwen35Model::load(dir.string());
    fs::remove_all(dir);

    std::map<int, uint32_t> memory;  // the reference: rows never written read as 0
    ModelState state = model->newState();
    int reads = 0;
    std::vector<float> decoded;  // every token's final residual, token by token
    for (int t = 0; t < int(ops.size()); ++t) {
        const Op& op = ops[size_t(t)];
        // The read sees this token's write: of its own data, or of the previous token's (0 before a text
        // token or the first, whose data rails are both 0).
        uint32_t previous = t > 0 && !ops[size_t(t - 1)].text ? ops[size_t(t - 1)].value : 0;
        if (op.writeRow >= 0) memory[op.writeRow] = tap == 1 ? previous : op.value;
        std::vector<float> stored = state.recurrentState(0);
        std::vector<float> out = model->hiddenStates({t}, state);
        decoded.insert(decoded.end(), out.begin(), out.end());
        if (op.text) {
            ASSERT_EQ(out, rows[size_t(t)]) << "text token " << t << " leaves the layers bit-identical";
            ASSERT_EQ(state.recurrentState(0), stored) << "text token " << t << " leaves every stored row as it was";
            continue;
        }
        for (int i = 0; i < 32; ++i) {
            float v = out[size_t(p.port.outBits[size_t(i)])];
            bool expected = op.readRow >= 0 && (memory[op.readRow] >> i & 1);
            ASSERT_EQ(v, expected ? 62.f : 64.f)
                << std::hexfloat << v << " token " << t << " read row " << op.readRow << " bit " << i;
        }
        reads += op.readRow >= 0;
    }
    EXPECT_GT(reads, 25);

    // The same tokens in one prefill, through the chunked delta rule (64-token chunks): bit-identical.
    std::vector<int> all(ops.size());
    std::iota(all.begin(), all.end(), 0);
    ModelState fresh = model->newState();
    EXPECT_EQ(model->hiddenStates(all, fresh), decoded);
    EXPECT_EQ(fresh.recurrentState(0), state.recurrentState(0));
}

INSTANTIATE_TEST_SUITE_P(Weights, MemoryPortDtype,
                         ::testing::Combine(::testing::Values(DType::F32, DType::BF16), ::testing::Bool(),
                                            ::testing::Values(0, 1)),
                         [](const auto& info) {
                             return std::string(dtypeName(std::get<0>(info.param))) +
                                    (std::get<1>(info.param) ? "_factored" : "_one_hot") +
                                    (std::get<2>(info.param) ? "_previous_tap" : "");
                         });

TEST(MemoryPort, RejectsRowsThatDoNotFitTheHead) {
    Port p = buildPort();
    circuit::MemoryPort bad = p.port;
    bad.head = 0;
    bad.dataBits.pop_back();
    bad.outBits.pop_back();
    int l = p.c.addLayer();
    EXPECT_THROW(p.c.memoryPort(l, bad), std::invalid_argument);
}
