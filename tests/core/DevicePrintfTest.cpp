// The host's half of device printf: formatting a record's arguments by its format, and walking the buffer.
#include <gtest/gtest.h>

#include <bit>

#include "qgpu/core/DevicePrintf.h"

using namespace qgpu;

namespace {

PrintfArgument i32(int32_t v) { return {1, uint32_t(v)}; }
PrintfArgument f32(float v) { return {3, std::bit_cast<uint32_t>(v)}; }

// Global memory holding `text` from byte address 4 (word 1).
std::vector<uint32_t> memoryWithString(const std::string& text) {
    std::vector<uint32_t> global(2 + text.size() / 4 + 1, 0);
    for (size_t i = 0; i < text.size(); ++i) global[1 + i / 4] |= uint32_t(uint8_t(text[i])) << (8 * (i % 4));
    return global;
}

}  // namespace

TEST(DevicePrintfFormat, WidthsAndPrecisionsFromArgumentsAndNegativeOnes) {
    std::vector<uint32_t> none;
    EXPECT_EQ(formatDevicePrintf("[%*d][%-*d][%.*f]", {i32(4), i32(7), i32(-3), i32(7), i32(-1), f32(0.5f)}, none),
              "[   7][7  ][0.500000]");
}

TEST(DevicePrintfFormat, StringsAreReadFromGlobalMemoryAndNullIsNamed) {
    std::vector<uint32_t> global = memoryWithString("hello, world");
    EXPECT_EQ(formatDevicePrintf("%s|%.5s|%8.2s|%s", {{5, 4}, {5, 4}, {5, 4}, {5, 0}}, global),
              "hello, world|hello|      he|(null)");
    EXPECT_EQ(readGlobalString(global, 11), "world");
    EXPECT_EQ(readGlobalString(global, 4000), "");  // past the end of memory
}

TEST(DevicePrintfFormat, ConversionsWithoutArgumentsAndUnknownOnesStayAsWritten) {
    std::vector<uint32_t> none;
    EXPECT_EQ(formatDevicePrintf("%d and %d, 100%% %y %", {i32(1)}, none), "1 and %d, 100% %y %");
    EXPECT_EQ(formatDevicePrintf("%n%d", {i32(1), i32(2)}, none), "2");  // %n writes nothing
}

TEST(DevicePrintfFormat, HugeWidthsAreCapped) {
    std::vector<uint32_t> none;
    EXPECT_EQ(formatDevicePrintf("%999999999d", {i32(1)}, none).size(), 1024u);
    EXPECT_EQ(formatDevicePrintf("%*d", {i32(-2000000000), i32(1)}, none).size(), 1024u);
}

TEST(DevicePrintfBuffer, RecordsAreWalkedInOrderAndADamagedOneEndsTheWalk) {
    // The buffer at word 4: the words asked for, then records of 3 and 2 words, then one of kind 7.
    std::vector<uint32_t> global = memoryWithString("%d!");
    global.resize(16, 0);
    uint32_t records[] = {10, 4, 1, 42, 4, 0, 4, 7, 0, 0, 0};
    std::copy(std::begin(records), std::end(records), global.begin() + 4);
    MemoryMap map;
    map.arrays.push_back({kPrintfBufferName, 4, 11, ElementType::U32, 11});
    DevicePrintfOutput out = readDevicePrintf(global, map);
    ASSERT_EQ(out.records.size(), 2u);
    EXPECT_EQ(out.records[0].word, 5);
    EXPECT_EQ(out.text(), "42!%d!");
    EXPECT_EQ(out.bufferWords, 10);
    EXPECT_EQ(out.droppedWords, 5);  // the damaged record and what follows it
}
