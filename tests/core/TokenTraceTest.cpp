// Decoding a layer trace through the residual's layout: fields grouped by name, bits read where the value is
// final (a dim handed to a new owner is read before the new owner writes it), words, single bits, integers.
#include <gtest/gtest.h>

#include "qgpu/core/TokenTrace.h"

using namespace qgpu;

namespace {

using E = ResidualField::Encoding;

// Three layers of a five-dim residual; `values[l]` is the residual after layer l (after its mixer: `mixer[l]`).
TokenTrace traceOf(const std::vector<std::vector<float>>& mixer, const std::vector<std::vector<float>>& values) {
    TokenTrace t;
    for (size_t l = 0; l < values.size(); ++l) t.layers.push_back({mixer[l], values[l], {}, {}});
    return t;
}

const LayerField& field(const std::vector<LayerField>& fields, const std::string& name) {
    for (const LayerField& f : fields)
        if (f.name == name) return f;
    ADD_FAILURE() << "no field " << name;
    static LayerField none;
    return none;
}

}  // namespace

TEST(TokenTrace, FieldsDecodeWhereTheirValueIsFinal) {
    std::vector<ResidualField> layout = {
        {"x0", 1, E::Bit, 1, 0, 0},          {"x1", 2, E::Bit, 1, 0, 0},      // an input word, read in layer 0
        {"alu.0", 3, E::Bit, 1, 1, -1},      {"alu.1", 4, E::Bit, 1, 1, -1},  // a word to the end
        {"t_exec", 1, E::Bit, 1, 1, 2},                                       // reuses x0's dim from layer 1
        {"regs.0", 2, E::ReadBit, 64, 2, 2}, {"count", 5, E::Integer, 0, 0, -1},
    };
    std::vector<std::vector<float>> mixer = {{0, -1, 1, 1, 1, 7}, {0, -1, 1, 1, 1, 7}, {0, 1, 62, -1, 1, 7}};
    std::vector<std::vector<float>> after = {{0, -1, 1, 1, 1, 7}, {0, 1, 1, -1, -1, 7}, {0, -1, 62, -1, -1, 9}};
    std::vector<LayerField> fields = decodeFields(layout, traceOf(mixer, after));
    ASSERT_EQ(fields.size(), 5u);
    EXPECT_EQ(fields[0].born, 0);  // by the layer that writes them, inputs first
    EXPECT_TRUE(fields[0].input);

    const LayerField& x = field(fields, "x");
    EXPECT_EQ(x.index, (std::vector<int>{0, 1}));
    EXPECT_EQ(x.readAt, (std::vector<int>{0, 0}));
    EXPECT_EQ(x.readAfterMixer, (std::vector<bool>{false, false}));
    EXPECT_EQ(x.value, "0x00000001 = 1 (only bit 0)");  // dim 1 holds -1: true; dim 2 holds 1: false

    const LayerField& exec = field(fields, "t_exec");  // read in layer 2: after its MLP, dim 1 is -1
    EXPECT_EQ(exec.readAt, std::vector<int>{2});
    EXPECT_EQ(exec.value, "1");

    const LayerField& alu = field(fields, "alu");
    EXPECT_EQ(alu.readAt, (std::vector<int>{2, 2}));
    EXPECT_EQ(alu.value, "0x00000003 = 3");

    const LayerField& read = field(fields, "regs");  // read bits: 64 false, 62 true
    EXPECT_EQ(read.value, "1");
    EXPECT_TRUE(read.clean);

    EXPECT_EQ(field(fields, "count").value, "9");
}

TEST(TokenTrace, ADimThatIsNotABitSaysSoAndShowsItsValues) {
    std::vector<ResidualField> layout = {{"flag", 0, E::Bit, 1, 0, -1}};
    std::vector<LayerField> fields = decodeFields(layout, traceOf({{0.5f}}, {{0.5f}}));
    ASSERT_EQ(fields.size(), 1u);
    EXPECT_FALSE(fields[0].clean);
    EXPECT_EQ(fields[0].value, "not bits: 0.5");
}

TEST(TokenTrace, AReadBitWhoseSlotTheNextReadBitClearsIsReadAfterTheMixer) {
    // "a" is read last in layer 1; "b" lands in layer 2's mixer, so layer 1's MLP clears the dim to 64.
    std::vector<ResidualField> layout = {{"a", 0, E::ReadBit, 64, 0, 1}, {"b", 0, E::ReadBit, 64, 2, -1}};
    std::vector<LayerField> fields = decodeFields(layout, traceOf({{62}, {62}, {62}}, {{62}, {64}, {64}}));
    const LayerField& a = field(fields, "a");
    EXPECT_EQ(a.readAfterMixer, std::vector<bool>{true});
    EXPECT_EQ(a.value, "1");
    EXPECT_EQ(field(fields, "b").value, "0");
}

TEST(TokenTrace, EachBitOfAFieldIsReadWhereItsOwnValueIsFinal) {
    // w.0 is read last in layer 0 and its dim goes to z in layer 1; w.1 lives on to layer 1.
    std::vector<ResidualField> layout = {
        {"w.0", 0, E::Bit, 1, 0, 0}, {"w.1", 1, E::Bit, 1, 0, 1}, {"z", 0, E::Bit, 1, 1, -1}};
    std::vector<LayerField> fields = decodeFields(layout, traceOf({{-1, -1}, {-1, -1}}, {{-1, -1}, {1, -1}}));
    const LayerField& w = field(fields, "w");
    EXPECT_EQ(w.readAt, (std::vector<int>{0, 1}));
    EXPECT_EQ(w.value, "0x00000003 = 3");
    EXPECT_EQ(field(fields, "z").value, "0");
}
