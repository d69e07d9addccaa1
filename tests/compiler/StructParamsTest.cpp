// Structs and vectors passed to a kernel by value: the launch gives their fields ("fields"), which live in
// global memory as the struct's bytes, read at every optimization level, through the parameter's address
// too; and the launch's mistakes about them, named.
#include <gtest/gtest.h>

#include <bit>

#include "KernelRun.h"
#include "qgpu/core/Diagnostic.h"

using namespace qgpu;

namespace {

using qgpu::tests::runToEnd;

std::vector<int64_t> floatBits(std::vector<float> values) {
    std::vector<int64_t> out;
    for (float f : values) out.push_back(std::bit_cast<int32_t>(f));
    return out;
}

const char* kParams =
    "struct Params { int n; float scale; short tag; };\n"
    "__global__ void k(Params p, float* out) {\n"
    "    int i = threadIdx.x;\n"
    "    if (i < p.n) out[i] = p.scale * i + p.tag;\n"
    "}\n";
const char* kParamsLaunch = R"({"block": 4, "args": [
    {"name": "p", "fields": [{"i32": 3}, {"float": 0.5}, {"i16": -2}]}, {"name": "out", "type": "float", "zeros": 4}]})";

TEST(StructParams, AStructsFieldsAreReadAtEveryOptimizationLevel) {
    for (int opt : {0, 1, 2, 3}) {
        auto r = runToEnd(kParams, kParamsLaunch, opt);
        EXPECT_EQ(r["out"], floatBits({-2.0f, -1.5f, -1.0f, 0.0f})) << "-O" << opt;
        EXPECT_EQ(r["p"].size(), 12u);  // int, float, short and two bytes of padding
    }
}

TEST(StructParams, AVectorByValueAndAStructIndexedAtRunTime) {
    auto v = runToEnd(
        "__global__ void k(float4 v, float* out) {\n"
        "    out[threadIdx.x] = v.x * v.y + v.z - v.w;\n}\n",
        R"({"block": 1, "args": [{"name": "v", "fields": [{"float": 2}, {"float": 3}, {"float": 1},
                          {"float": 0.5}]}, {"name": "out", "type": "float", "zeros": 1}]})");
    EXPECT_EQ(v["out"], floatBits({6.5f}));
    auto t = runToEnd(
        "struct Table { unsigned char code[6]; int scale; };\n"
        "__global__ void k(Table t, int* out) {\n"
        "    out[threadIdx.x] = t.code[threadIdx.x % 6] * t.scale;\n}\n",
        R"({"block": 8, "args": [{"name": "t", "fields": [{"u8": 1}, {"u8": 2}, {"u8": 3}, {"u8": 4},
                          {"u8": 5}, {"u8": 250}, {"i32": -3}]}, {"name": "out", "zeros": 8}]})");
    EXPECT_EQ(t["out"], (std::vector<int64_t>{-3, -6, -9, -12, -15, -750, -3, -6}));
}

std::string launchError(const std::string& source, const std::string& launch) {
    try {
        runToEnd(source, launch);
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    return "";
}

TEST(StructParams, TheLaunchMustGiveTheStructsBytesAndFieldsOnlyForAStruct) {
    EXPECT_NE(launchError(kParams, R"({"block": 4, "args": [{"name": "p", "fields": [{"i32": 3}, {"float": 0.5}]},
                                       {"name": "out", "type": "float", "zeros": 4}]})")
                  .find("argument 0 (\"p\") must give the 12 bytes of the struct 'p' that the kernel takes by value "
                        "(it gives 8): list its fields in order with their types"),
              std::string::npos);
    EXPECT_NE(launchError(kParams, R"({"block": 4, "args": [{"name": "p", "scalar": 3},
                                       {"name": "out", "type": "float", "zeros": 4}]})")
                  .find("must give the 12 bytes of the struct 'p'"),
              std::string::npos);
    EXPECT_NE(
        launchError("__global__ void k(int n, int* out) { out[0] = n; }\n",
                    R"({"block": 1, "args": [{"name": "n", "fields": [{"i32": 3}]}, {"name": "out", "zeros": 1}]})")
            .find("gives \"fields\" but the kernel's parameter 'n' is not a struct passed by value"),
        std::string::npos);
}

TEST(StructParams, FieldsAreLaidOutAsCAndWrittenBackAsRead) {
    LaunchSpec spec = parseLaunchSpec(
        R"({"block": 1, "args": [{"name": "p", "fields": [{"u8": 1}, {"i32": -1}, {"i16": 2}, {"i64": 5}]}]})");
    const KernelArg& p = spec.args[0];
    EXPECT_EQ(p.values,
              (std::vector<int64_t>{1, 0, 0, 0, 255, 255, 255, 255, 2, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0}));
    for (JsonLayout layout : {JsonLayout::Compact, JsonLayout::Readable}) {
        LaunchSpec back = parseLaunchSpec(launchSpecToJson(spec, layout));
        ASSERT_EQ(back.args.size(), 1u);
        EXPECT_EQ(back.args[0].values, p.values);
        EXPECT_EQ(back.args[0].fields.size(), 4u);
    }
    EXPECT_THROW(parseLaunchSpec(R"({"block": 1, "args": [{"name": "p", "type": "u8", "fields": [{"u8": 1}]}]})"),
                 DiagnosticError);
    EXPECT_THROW(parseLaunchSpec(R"({"block": 1, "args": [{"name": "p", "fields": [{"u8": 1, "i32": 2}]}]})"),
                 DiagnosticError);
    EXPECT_THROW(parseLaunchSpec(R"({"block": 1, "args": [{"name": "p", "fields": [{"u8": 300}]}]})"), DiagnosticError);
}

}  // namespace
