// Launch specs: JSON parsing, validation against the machine's limits, and the memory map.
#include <gtest/gtest.h>

#include "TestUtil.h"

using namespace qgpu;
using namespace qgpu::test;

namespace {

// The message parseLaunchSpec throws for `json` (a test failure if it accepts it).
std::string parseError(const std::string& json) {
    return diagnosticOf([&] { parseLaunchSpec(json, "bad.json"); });
}

// The message validateLaunch throws for a spec that parses.
std::string validateError(const std::string& json) {
    LaunchSpec l = parseLaunchSpec(json);
    return diagnosticOf([&] { validateLaunch(l, MachineSpec::standard()); });
}

void expectParseError(const std::string& json, const std::string& part) {
    std::string msg = parseError(json);
    EXPECT_NE(msg.find(part), std::string::npos) << "spec: " << json << "\nmessage: " << msg;
    EXPECT_NE(msg.find("bad.json"), std::string::npos) << "the file is named: " << msg;
}

void expectValidateError(const std::string& json, const std::string& part) {
    std::string msg = validateError(json);
    EXPECT_NE(msg.find(part), std::string::npos) << "spec: " << json << "\nmessage: " << msg;
}

void expectValid(const std::string& json) {
    LaunchSpec l = parseLaunchSpec(json);
    EXPECT_NO_THROW(validateLaunch(l, MachineSpec::standard())) << json;
}

std::string zerosArg(int n) { return R"({"name":"z","zeros":)" + std::to_string(n) + "}"; }

}  // namespace

TEST(Launch, ParsesShapesAndArguments) {
    LaunchSpec l = parseLaunchSpec(R"({"grid": [2, 3], "block": [4, 1, 2],
        "args": [{"name":"a","array":[1,-2,4294967295]}, {"name":"n","scalar":-7}, {"name":"z","zeros":3}],
        "expect": {"a": [1, -2, -1]}})");
    EXPECT_EQ(l.grid, (Dim3{2, 3, 1}));
    EXPECT_EQ(l.block, (Dim3{4, 1, 2}));
    EXPECT_EQ(l.threadsPerBlock(), 8);
    EXPECT_EQ(l.totalThreads(), 48);
    EXPECT_EQ(l.warpsPerBlock(MachineSpec::standard()), 2);
    ASSERT_EQ(l.args.size(), 3u);
    EXPECT_TRUE(l.args[0].isArray);
    EXPECT_EQ(l.args[0].values, (std::vector<int64_t>{1, -2, -1}));
    EXPECT_FALSE(l.args[1].isArray);
    EXPECT_EQ(l.args[1].values, std::vector<int64_t>{-7});
    EXPECT_TRUE(l.args[2].isArray);
    EXPECT_EQ(l.args[2].values, std::vector<int64_t>(3, 0));
    ASSERT_EQ(l.expect.size(), 1u);
    EXPECT_EQ(l.expect[0].first, "a");
    EXPECT_EQ(l.expect[0].second, (std::vector<int64_t>{1, -2, -1}));
    EXPECT_EQ(l.arg("n"), &l.args[1]);
    EXPECT_EQ(l.arg("missing"), nullptr);
}

TEST(Launch, GridDefaultsToOneAndScalarsMeanX) {
    LaunchSpec l = parseLaunchSpec(R"({"block": 5})");
    EXPECT_EQ(l.grid, (Dim3{1, 1, 1}));
    EXPECT_EQ(l.block, (Dim3{5, 1, 1}));
    EXPECT_TRUE(l.args.empty());
    EXPECT_EQ(l.warpsPerBlock(MachineSpec::standard()), 2);
}

TEST(Launch, JsonRoundTrip) {
    LaunchSpec l = parseLaunchSpec(R"({"grid": [2, 2, 1], "block": 4,
        "args": [{"name":"a","array":[3,1]}, {"name":"s","scalar":9}], "expect": {"a": [1, 3]}})");
    LaunchSpec again = parseLaunchSpec(launchSpecToJson(l));
    EXPECT_EQ(again.grid, l.grid);
    EXPECT_EQ(again.block, l.block);
    ASSERT_EQ(again.args.size(), 2u);
    EXPECT_EQ(again.args[0].values, l.args[0].values);
    EXPECT_EQ(again.args[1].isArray, false);
    EXPECT_EQ(again.args[1].values, l.args[1].values);
    EXPECT_EQ(again.expect, l.expect);
}

TEST(Launch, ExpectedPrintfTextsAreReadAndWrittenBack) {
    LaunchSpec l = parseLaunchSpec(R"({"block": 2, "args": [{"name":"a","zeros":1}],
        "expect": {"a": [0], "printf": ["t1: \"x\"\n", "t0\n"]}})");
    EXPECT_EQ(l.expectPrintf, (std::vector<std::string>{"t1: \"x\"\n", "t0\n"}));
    for (JsonLayout layout : {JsonLayout::Compact, JsonLayout::Readable}) {
        LaunchSpec again = parseLaunchSpec(launchSpecToJson(l, layout));
        EXPECT_EQ(again.expectPrintf, l.expectPrintf);
        EXPECT_EQ(again.expect, l.expect);
    }
    LaunchSpec printfOnly = parseLaunchSpec(R"({"block": 1, "expect": {"printf": ["hi\n"]}})");
    EXPECT_TRUE(printfOnly.hasExpectations());
    EXPECT_EQ(parseLaunchSpec(launchSpecToJson(printfOnly, JsonLayout::Readable)).expectPrintf,
              printfOnly.expectPrintf);
    expectParseError(R"({"block": 1, "expect": {"printf": "hi"}})", "\"expect\".\"printf\" must be an array");
    expectParseError(R"({"block": 1, "expect": {"printf": ["a", 3]}})", "\"printf\"[1] must be a string");
}

TEST(Launch, MalformedJson) {
    expectParseError(R"({"block": 4,)", "malformed JSON");
    expectParseError("", "malformed JSON");
    expectParseError("[1, 2]", "JSON object");
}

TEST(Launch, UnknownFields) {
    expectParseError(R"({"block": 4, "threads": 4})", "unknown field \"threads\"");
    expectParseError(R"({"block": 4, "args": [{"name":"a","array":[1],"kind":"int"}]})", "unknown field \"kind\"");
}

TEST(Launch, FloatArgumentsReadNumbersAndSpecialValues) {
    LaunchSpec spec = parseLaunchSpec(
        R"({"block": 4, "args": [{"name":"x","type":"float","array":[1.5, -0.0, "nan", "-inf", 0.1]},
                                 {"name":"s","type":"float","scalar":3}]})");
    ASSERT_EQ(spec.args.size(), 2u);
    EXPECT_TRUE(spec.args[0].isFloat());
    EXPECT_EQ(spec.args[0].values,
              (std::vector<int64_t>{0x3fc00000, int32_t(0x80000000), 0x7fffffff, int32_t(0xff800000), 0x3dcccccd}));
    EXPECT_EQ(spec.args[1].values, std::vector<int64_t>{0x40400000});
    EXPECT_EQ(formatWord(0x3dcccccd, true), "0.1");
    EXPECT_EQ(formatWord(int32_t(0x80000000), true), "-0");
    EXPECT_EQ(formatWord(0x7fc00000, true), "nan(0x7fc00000)");
    LaunchSpec again = parseLaunchSpec(launchSpecToJson(spec));
    EXPECT_EQ(again.args[0].values, spec.args[0].values);  // written as floats, read back to the same bits
    expectParseError(R"({"block": 4, "args": [{"name":"x","type":"float","array":["one"]}]})", "\"nan\"");
    expectParseError(R"({"block": 4, "args": [{"name":"x","type":"float","array":[1e39]}]})", "largest float");
    expectParseError(R"({"block": 4, "args": [{"name":"x","type":"double","array":[1]}]})", "\"float\"");
}

TEST(Launch, MissingBlock) {
    expectParseError(R"({"grid": 2})", "missing \"block\"");
    expectParseError(R"({})", "missing \"block\"");
}

TEST(Launch, ZeroOrNegativeDimensions) {
    expectParseError(R"({"block": 0})", "\"block\" must be a whole number from 1 to 65535, found 0");
    expectParseError(R"({"block": [4, 0]})", "\"block[1]\" must be a whole number from 1 to 65535, found 0");
    expectParseError(R"({"grid": [1, 1, 0], "block": 4})", "from 1 to 65535");
    expectParseError(R"({"grid": -2, "block": 4})", "\"grid\" must be a whole number from 1 to 65535, found -2");
    expectParseError(R"({"block": []})", "\"block\" must be");
    expectParseError(R"({"block": [1, 1, 1, 1]})", "\"block\" must be");
}

TEST(Launch, NonIntegers) {
    expectParseError(R"({"block": 2.5})", "block");
    expectParseError(R"({"block": "4"})", "block");
    expectParseError(R"({"block": [4, 1.5]})", "\"block[1]\" must be a whole number from 1 to 65535, found 1.5");
    expectParseError(R"({"block": true})", "block");
    expectParseError(R"({"block": 4, "args": [{"name":"a","array":[1, 2.5]}]})", "array[1] must be an integer");
    expectParseError(R"({"block": 4, "args": [{"name":"a","array":[1, "x"]}]})", "array[1] must be an integer");
    expectParseError(R"({"block": 4, "args": [{"name":"s","scalar":1.0e3}]})", "scalar must be an integer");
    expectParseError(R"({"block": 4, "args": [{"name":"z","zeros":"3"}]})", "zeros must be an integer");
    expectParseError(R"({"block": 4, "args": [{"name":"a","array":[4294967296]}]})", "does not fit in 32 bits");
    expectParseError(R"({"block": 4, "args": [{"name":"a","array":[-2147483649]}]})", "does not fit in 32 bits");
}

TEST(Launch, BadArguments) {
    expectParseError(R"({"block": 4, "args": [{"name":"a","array":[1]}, {"name":"a","scalar":2}]})",
                     "\"a\" is given twice");
    expectParseError(R"({"block": 4, "args": {"a": 1}})", "\"args\" must be an array");
    expectParseError(R"({"block": 4, "args": [{"array":[1]}]})", "\"name\"");
    expectParseError(R"({"block": 4, "args": [{"name":"a"}]})", "exactly one of");
    expectParseError(R"({"block": 4, "args": [{"name":"a","array":[1],"scalar":1}]})", "exactly one of");
    expectParseError(R"({"block": 4, "args": [{"name":"a","array":[]}]})", "non-empty array");
    expectParseError(R"({"block": 4, "args": [{"name":"a","zeros":0}]})", "at least 1");
    expectParseError(R"({"block": 4, "args": [{"name":"2a","zeros":1}]})", "identifier");
    expectParseError(R"({"block": 4, "args": [{"name":"a-b","zeros":1}]})", "identifier");
}

TEST(Launch, BadExpect) {
    expectParseError(R"({"block": 4, "args": [{"name":"a","zeros":2}], "expect": {"b": [1, 2]}})",
                     "not an array argument");
    expectParseError(R"({"block": 4, "args": [{"name":"s","scalar":2}], "expect": {"s": [2]}})",
                     "not an array argument");
    expectParseError(R"({"block": 4, "args": [{"name":"a","zeros":2}], "expect": {"a": [1]}})",
                     "must have 2 int values");
    expectParseError(R"({"block": 4, "args": [{"name":"a","zeros":2}], "expect": [1, 2]})", "\"expect\" must map");
    expectParseError(R"({"block": 4, "args": [{"name":"a","zeros":2}], "expect": {"a": [1, 0.5]}})",
                     "must be an integer");
}

TEST(Launch, ThreadsPerBlockLimit) {
    expectValid(R"({"block": 32})");
    expectValid(R"({"block": [4, 4, 2]})");
    expectValidateError(R"({"block": 33})", "a thread block of 33 threads exceeds the machine's 32");
    expectValidateError(R"({"block": [3, 3, 4]})", "36 threads");
}

TEST(Launch, BlockCountLimit) {
    expectValid(R"({"grid": 32, "block": 4})");
    expectValid(R"({"grid": [4, 4, 2], "block": 1})");
    expectValidateError(R"({"grid": 33, "block": 1})", "a grid of 33 blocks exceeds the machine's 32");
    expectValidateError(R"({"grid": [3, 3, 4], "block": 1})", "36 blocks");
}

TEST(Launch, TotalThreadsLimitCountsWholeWarps) {
    expectValid(R"({"grid": 4, "block": 32})");  // 128 threads
    expectValid(R"({"grid": 32, "block": 4})");  // 128 threads
    expectValidateError(R"({"grid": 5, "block": 32})", "at most 128 threads");
    // 25 blocks of 5 threads = 125 threads, but each block needs 2 warps: 50 warps = 200 lanes
    expectValidateError(R"({"grid": 25, "block": 5})", "50 warps");
    expectValid(R"({"grid": 16, "block": 5})");  // 32 warps = 128 lanes
    expectValidateError(R"({"grid": 17, "block": 5})", "at most 128 threads");
}

TEST(Launch, GlobalMemoryLimit) {
    // word 0 is null, so 1023 of the 1024 words hold arrays
    expectValid(R"({"block": 1, "args": [)" + zerosArg(1023) + "]}");
    expectValidateError(R"({"block": 1, "args": [)" + zerosArg(1024) + "]}", "1024 words");
    expectValidateError(R"({"block": 1, "args": [{"name":"a","zeros":1000}, {"name":"b","zeros":25}]})",
                        "the arrays need 1025 words of global memory but the machine has 1023 for them (word 0 is "
                        "null)");
    // scalars take no memory
    expectValid(R"({"block": 1, "args": [{"name":"a","zeros":1023}, {"name":"s","scalar":5}]})");
}

TEST(Launch, HugeDimensionsAreRejectedNotOverflowed) {
    // 65536 * 65536 does not fit in an int; the product must not wrap to a small, accepted count.
    // 65535 * 65535 = 4294836225 wraps to -131071 in 32-bit int arithmetic.
    for (const char* json :
         {R"({"block": [65536, 65536]})", R"({"grid": [65536, 65536], "block": 1})", R"({"block": [2147483647, 2, 2]})",
          R"({"block": [65535, 65535]})", R"({"grid": [65535, 65535], "block": 1})",
          R"({"grid": [65535, 65535, 65535], "block": 1})", R"({"grid": 2, "block": [65535, 65535, 65535]})"}) {
        LaunchSpec l;
        try {
            l = parseLaunchSpec(json);
        } catch (const DiagnosticError&) {
            continue;  // rejecting it while parsing is fine too
        }
        EXPECT_THROW(validateLaunch(l, MachineSpec::standard()), DiagnosticError) << json;
    }
}

TEST(Launch, DimensionsPastTheBoundAreNamedAsGivenNotWrappedToNegative) {
    // 2^31 and 2^32 - 1 fit a 32-bit word, and read as int they would be negative: the message must show the
    // number the file holds and the range.
    expectParseError(R"({"grid": 2147483648, "block": 4})",
                     "\"grid\" must be a whole number from 1 to 65535, found 2147483648");
    expectParseError(R"({"grid": [1, 4294967295], "block": 4})", "\"grid[1]\" must be a whole number from 1 to 65535");
    expectParseError(R"({"block": 18446744073709551615})", "found 18446744073709551615");
    EXPECT_EQ(parseError(R"({"grid": 2147483648, "block": 4})").find("-2147483648"), std::string::npos);
}

TEST(Launch, MemoryMapPlacesArraysInOrder) {
    LaunchSpec l = parseLaunchSpec(R"({"block": 1, "args": [{"name":"x","zeros":10}, {"name":"k","scalar":3},
                                                           {"name":"y","array":[1,2]}, {"name":"w","zeros":1}]})");
    MemoryMap m = validateLaunch(l, MachineSpec::standard());
    ASSERT_EQ(m.arrays.size(), 3u);
    EXPECT_EQ(m.arrays[0].name, "x");
    EXPECT_EQ(m.arrays[0].base, 1);  // word 0 is null
    EXPECT_EQ(m.arrays[0].size, 10);
    EXPECT_EQ(m.arrays[1].name, "y");
    EXPECT_EQ(m.arrays[1].base, 11);
    EXPECT_EQ(m.arrays[2].name, "w");
    EXPECT_EQ(m.arrays[2].base, 13);
    EXPECT_EQ(m.usedWords, 14);
    EXPECT_EQ(m.find("k"), nullptr);
}

TEST(Launch, NarrowArraysArePackedLittleEndianFromAWord) {
    LaunchSpec l = parseLaunchSpec(R"({"block": 1, "args": [
        {"name":"b","type":"u8","array":[1,2,3,4,255]}, {"name":"m","type":"bool","array":[true,false,1]},
        {"name":"h","type":"i16","array":[-1,2,-32768]}, {"name":"c","type":"i8","scalar":-5}, {"name":"w","zeros":1}]})");
    MemoryMap m = validateLaunch(l, MachineSpec::standard());
    ASSERT_EQ(m.arrays.size(), 4u);
    EXPECT_EQ(m.arrays[0].size, 2);  // five bytes in two words
    EXPECT_EQ(m.arrays[0].count, 5);
    EXPECT_EQ(m.arrays[1].base, 3);
    EXPECT_EQ(m.arrays[2].base, 4);
    EXPECT_EQ(m.arrays[2].size, 2);  // three halfwords
    EXPECT_EQ(m.arrays[3].base, 6);
    EXPECT_EQ(packElements(l.args[0].values, ElementType::U8), (std::vector<int32_t>{0x04030201, 0xff}));
    EXPECT_EQ(packElements(l.args[1].values, ElementType::Bool), (std::vector<int32_t>{0x00000001 | 1 << 16}));
    EXPECT_EQ(packElements(l.args[2].values, ElementType::I16), (std::vector<int32_t>{int32_t(0x0002ffff), 0x8000}));
    EXPECT_EQ(unpackElements({int32_t(0x0002ffff), 0x8000}, ElementType::I16, 3), l.args[2].values);
    EXPECT_EQ(l.args[3].values, std::vector<int64_t>{-5});
    std::string json = launchSpecToJson(l, JsonLayout::Readable);
    EXPECT_NE(json.find(R"({"name": "m", "type": "bool", "array": [true, false, true]})"), std::string::npos) << json;
    LaunchSpec back = parseLaunchSpec(json);
    for (size_t i = 0; i < l.args.size(); ++i) {
        EXPECT_EQ(back.args[i].values, l.args[i].values) << i;
        EXPECT_EQ(back.args[i].type, l.args[i].type) << i;
    }
}

TEST(Launch, NarrowValuesMustFitTheirType) {
    expectParseError(R"({"block": 1, "args": [{"name":"b","type":"u8","array":[256]}]})",
                     "args[0] (\"b\").array[0] = 256 is not a whole number from 0 to 255 (the argument's type is u8)");
    expectParseError(R"({"block": 1, "args": [{"name":"b","type":"i8","scalar":-129}]})", "from -128 to 127");
    expectParseError(R"({"block": 1, "args": [{"name":"b","type":"u16","array":[-1]}]})", "from 0 to 65535");
    expectParseError(R"({"block": 1, "args": [{"name":"b","type":"bool","array":[2]}]})", "is not true, false, 0 or 1");
    expectParseError(R"({"block": 1, "args": [{"name":"b","type":"i64","array":[9223372036854775808]}]})",
                     "from -9223372036854775808 to 9223372036854775807");
    expectParseError(R"({"block": 1, "args": [{"name":"b","type":"u64","scalar":-1}]})",
                     "from 0 to 18446744073709551615");
    expectParseError(R"({"block": 1, "args": [{"name":"b","type":"f64","array":[2]}]})", "32-bit float");
    expectParseError(R"({"block": 1, "args": [{"name":"b","type":"byte","array":[2]}]})",
                     "must be one of \"i32\" (or \"int\")");
    expectParseError(R"({"block": 1, "args": [{"name":"b","type":"u8","zeros":2}], "expect": {"b": [1, 300]}})",
                     "expect.b[1] = 300 is not a whole number from 0 to 255");
}
