// linkLaunch guards the interpreter against programs that did not come from the assembler.
#include <gtest/gtest.h>

#include "qgpu/core/Assembler.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Launch.h"

using namespace qgpu;

namespace {

std::string linkError(const Program& p) {
    LaunchSpec l = parseLaunchSpec(R"({"block": 4})");
    try {
        linkLaunch(p, l);
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Link, RejectsTerminatorInsideABody) {
    Program p = assemble("entry:\n    exit\n");
    p.blocks[0].body.push_back(p.blocks[0].terminator);
    EXPECT_NE(linkError(p).find("terminator"), std::string::npos);
}

TEST(Link, RejectsRegistersPastTheFile) {
    Program p = assemble("entry:\n    add r1, r2, r3\n    exit\n");
    p.blocks[0].body[0].rs2 = 16;
    EXPECT_NE(linkError(p).find("register r16 does not exist"), std::string::npos) << linkError(p);
}

TEST(Link, RejectsShuffleWiderThanTheWarp) {
    Program p = assemble("entry:\n    shfl.idx r1, r2, 0, 4\n    exit\n");
    p.blocks[0].body[0].aux = 3;
    EXPECT_NE(linkError(p).find("shuffle width"), std::string::npos);
}

TEST(Link, MalformedSharedDirectiveIsAnError) {
    for (const char* src :
         {".shared\nentry:\n exit\n", ".shared 12abc\nentry:\n exit\n", ".shared 4 5\nentry:\n exit\n"})
        EXPECT_THROW(assemble(src), DiagnosticError) << src;
    EXPECT_EQ(assemble(".shared 12\nentry:\n exit\n").sharedWords, 12);
}

TEST(Link, ArgumentsMustCarryTheKernelsParameterNamesInOrder) {
    Program p = assemble("entry:\n    exit\n", "kernel.qasm");
    p.params = {{"in", true}, {"n", false}};
    auto errorFor = [&](const std::string& json) {
        LaunchSpec l = parseLaunchSpec(json, "launch.json");
        try {
            linkLaunch(p, l);
        } catch (const DiagnosticError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(errorFor(R"({"block": 4, "args": [{"name": "in", "array": [1]}, {"name": "n", "scalar": 1}]})"), "");
    std::string swapped =
        errorFor(R"({"block": 4, "args": [{"name": "n", "scalar": 1}, {"name": "in", "array": [1]}]})");
    EXPECT_NE(swapped.find("launch.json: error: argument 0 is named \"n\" but the kernel's parameter 0 is 'in'"),
              std::string::npos)
        << swapped;
    std::string renamed =
        errorFor(R"({"block": 4, "args": [{"name": "in", "array": [1]}, {"name": "count", "scalar": 1}]})");
    EXPECT_NE(renamed.find("argument 1 is named \"count\" but the kernel's parameter 1 is 'n'"), std::string::npos)
        << renamed;
    std::string missing = errorFor(R"({"block": 4, "args": [{"name": "in", "array": [1]}]})");
    EXPECT_NE(missing.find("launch.json: error: the kernel takes 2 parameters"), std::string::npos) << missing;
}

TEST(Link, ArgumentsMustHoldTheParametersElementType) {
    Program p = assemble("entry:\n    exit\n", "kernel.qasm");
    p.params = {{"mask", true, ElementType::Bool}, {"x", true, ElementType::U32}, {"c", false, ElementType::I8}};
    auto errorFor = [&](const std::string& types) {
        LaunchSpec l = parseLaunchSpec(R"({"block": 4, "args": [{"name": "mask", )" + types + "]}", "launch.json");
        try {
            linkLaunch(p, l);
        } catch (const DiagnosticError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    // An int array serves unsigned*, a u8 array bool*: the same storage.
    EXPECT_EQ(
        errorFor(
            R"("type": "u8", "array": [1]}, {"name": "x", "array": [1]}, {"name": "c", "type": "i8", "scalar": 1})"),
        "");
    std::string words =
        errorFor(R"("array": [1]}, {"name": "x", "array": [1]}, {"name": "c", "type": "i8", "scalar": 1})");
    EXPECT_NE(words.find("argument 0 (\"mask\") holds int values but the kernel's parameter 'mask' is a pointer to "
                         "bool: give it \"type\": \"bool\""),
              std::string::npos)
        << words;
    std::string floats = errorFor(
        R"("type": "bool", "array": [1]}, {"name": "x", "type": "float", "array": [1]}, {"name": "c", "type": "i8", "scalar": 1})");
    EXPECT_NE(floats.find("holds float values but the kernel's parameter 'x' is a pointer to unsigned"),
              std::string::npos)
        << floats;
    std::string scalar =
        errorFor(R"("type": "bool", "array": [1]}, {"name": "x", "array": [1]}, {"name": "c", "scalar": 1})");
    EXPECT_NE(scalar.find("parameter 'c' is signed char: give it \"type\": \"i8\""), std::string::npos) << scalar;
}

TEST(Link, ProgramErrorsNameTheProgramsFile) {
    Program p = assemble("entry:\n    add r1, r2, r3\n    exit\n", "kernel.qasm");
    p.blocks[0].body[0].rs2 = 16;
    EXPECT_NE(linkError(p).find("kernel.qasm:"), std::string::npos) << linkError(p);
}
