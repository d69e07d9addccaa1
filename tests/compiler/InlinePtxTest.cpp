// Inline PTX (`asm volatile`) is input like any other: an instruction with too few operands or one of the wrong
// kind, a label defined twice, braces that do not balance and a statement without its ';' are each an error
// at the asm statement's line of the .cu file -- never a crash, an internal error or a kernel that runs wrong.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "KernelRun.h"
#include "SequenceHarness.h"
#include "qgpu/compiler/Frontend.h"
#include "qgpu/compiler/Ptx.h"

using namespace qgpu;

namespace {

// A kernel whose line 4 is `asm volatile("ASM" : "+r"(y) : "r"(x), "l"(a));`: %0 is y, %1 is x, %2 is the
// pointer a. `text` is written into the string literal as it is (\n, \t escapes and all).
std::string kernelWith(const std::string& text) {
    return "__global__ void k(int* a) {\n"
           "  int x = a[threadIdx.x];\n"
           "  int y = 0;\n"
           "  asm volatile(\"" +
           text +
           "\" : \"+r\"(y) : \"r\"(x), \"l\"(a));\n"
           "  a[threadIdx.x] = y;\n"
           "}\n";
}

// The error compiling `source` gives (a test failure when it compiles, or fails another way).
Diagnostic errorOf(const std::string& source) {
    try {
        compileKernel(source, "k.cu");
    } catch (const DiagnosticError& e) {
        return e.diagnostics().at(0);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not a DiagnosticError: " << e.what() << "\nfor:\n" << source;
        return {};
    }
    ADD_FAILURE() << "expected an error for:\n" << source;
    return {};
}

// The asm statement's error is located at it (line 4, column 3 of k.cu) and says `text`.
void expectAsmError(const std::string& asmText, const std::string& text) {
    SCOPED_TRACE(asmText);
    Diagnostic d = errorOf(kernelWith(asmText));
    EXPECT_EQ(d.file, "k.cu") << d.format();
    EXPECT_EQ(d.line, 4) << d.format();
    EXPECT_EQ(d.column, 3) << d.format();
    EXPECT_NE(d.message.find(text), std::string::npos) << d.format();
}

}  // namespace

TEST(InlinePtx, TooFewOperandsNameTheInstructionWhatItTakesAndWhatItGot) {
    expectAsmError("selp.b32 %0, %1;", "selp.b32 takes 4 operands");
    expectAsmError("selp.b32 %0, %1;", "but was given 2");
    expectAsmError("add.s32 %0;", "add.s32 takes 3 operands");
    expectAsmError("add.s32 %0;", "but was given 1");
    expectAsmError("ld.global.u32 %0;", "ld.global.u32 takes 2 operands");
    expectAsmError("ret 1;", "ret takes no operands");
}

TEST(InlinePtx, OperandsOfTheWrongKind) {
    expectAsmError("ld.global.u32 %0, %2;", "operand 2 is");  // a register where the address belongs
    expectAsmError("ld.global.u32 %0, %2;", "an address");
    expectAsmError("st.global.u32 %0, [%2];", "operand 1 is");  // the operands swapped
    expectAsmError("add.s32 %0, %1, [%2];", "operand 3 is");
    expectAsmError("selp.b32 %0, %1, 2, q;", "a name no .reg declares");  // an undeclared predicate
    expectAsmError("add.s32 %%tid.x, %0, 1;", "a special register");
    expectAsmError("bra %0;", "a label");
    expectAsmError("bra NOWHERE;", "the label 'NOWHERE' is not defined");
    expectAsmError("add %0, %0, 1;", "names no type");
    expectAsmError("ld.global.v2.u32 %0, [%2];", "must be a vector of 2 registers");
    expectAsmError("ld.global.u32 {%0, %1}, [%2];", "has 2 elements");
    expectAsmError("shfl.sync.bfly.b32 %0|%%p1, %1, 1, 31, -1;", "predicate destination");
}

// Every instruction the selector takes, with each shorter operand list: all are located errors.
TEST(InlinePtx, EveryShorterOperandListIsALocatedError) {
    struct Case {
        std::string before, instruction, after;  // the instruction in full, between the text around it
    };
    std::vector<Case> cases;
    for (const char* text : {"add.s32 %0, %0, %1",
                             "sub.s32 %0, %0, %1",
                             "mul.lo.s32 %0, %0, %1",
                             "mul.hi.s32 %0, %0, %1",
                             "mad.lo.s32 %0, %0, %1, 3",
                             "div.s32 %0, %0, %1",
                             "rem.u32 %0, %0, %1",
                             "and.b32 %0, %0, %1",
                             "or.b32 %0, %0, %1",
                             "xor.b32 %0, %0, %1",
                             "shl.b32 %0, %0, 2",
                             "shr.s32 %0, %0, %1",
                             "min.s32 %0, %0, %1",
                             "max.u32 %0, %0, %1",
                             "neg.s32 %0, %1",
                             "not.b32 %0, %1",
                             "abs.s32 %0, %1",
                             "popc.b32 %0, %1",
                             "clz.b32 %0, %1",
                             "brev.b32 %0, %1",
                             "bfe.u32 %0, %1, 4, 8",
                             "bfi.b32 %0, %1, %0, 4, 8",
                             "shf.l.wrap.b32 %0, %1, %0, 3",
                             "prmt.b32 %0, %1, %0, 0x3210",
                             "mov.u32 %0, %1",
                             "mov.u32 %0, %%tid.x",
                             "cvt.u32.u16 %0, %1",
                             "add.rn.f32 %0, %0, %1",
                             "fma.rn.f32 %0, %0, %1, %0",
                             "sqrt.rn.f32 %0, %1",
                             "neg.f32 %0, %1",
                             "ld.global.u32 %0, [%2]",
                             "st.global.u32 [%2], %0",
                             "atom.global.add.u32 %0, [%2], %1",
                             "red.global.add.u32 [%2], %1",
                             "bar.sync 0",
                             "shfl.sync.bfly.b32 %0, %1, 1, 31, -1"})
        cases.push_back({"", text, ";"});
    const std::string scope = "{\\n\\t.reg .pred p;\\n\\t";
    cases.push_back({scope, "setp.gt.s32 p, %1, 3", ";\\n\\tselp.b32 %0, %1, 7, p;\\n}"});
    cases.push_back({scope + "setp.gt.s32 p, %1, 3;\\n\\t", "selp.b32 %0, %1, 7, p", ";\\n}"});
    int variants = 0;
    for (const Case& c : cases) {
        size_t gap = c.instruction.find(' ');
        std::string opcode = c.instruction.substr(0, gap);
        std::vector<std::string> operands;
        std::istringstream list(c.instruction.substr(gap + 1));
        for (std::string o; std::getline(list, o, ',');) operands.push_back(o);
        for (size_t n = 0; n < operands.size(); ++n) {
            std::string shorter = opcode;
            for (size_t i = 0; i < n; ++i) shorter += (i ? "," : " ") + operands[i];
            std::string text = c.before + shorter + c.after;
            SCOPED_TRACE(text);
            Diagnostic d = errorOf(kernelWith(text));
            EXPECT_EQ(d.line, 4) << d.format();
            EXPECT_NE(d.message.find(opcode + " takes"), std::string::npos) << d.format();
            ++variants;
        }
    }
    EXPECT_GE(variants, 90);
}

TEST(InlinePtx, ALabelDefinedTwice) {
    expectAsmError("L1:\\n add.s32 %0, %0, 1;\\nL1:\\n add.s32 %0, %0, 2;", "the label 'L1' is defined twice");
    expectAsmError("L1: add.s32 %0, %0, 1; L1: add.s32 %0, %0, 2;", "defined twice");
}

TEST(InlinePtx, BracesThatDoNotBalance) {
    expectAsmError("add.s32 %0, %0, 1;\\n}", "closes no '{'");
    expectAsmError("}", "closes no '{'");
    expectAsmError("{\\n add.s32 %0, %0, 1;", "is not closed");
    expectAsmError("{ { add.s32 %0, %0, 1; }", "is not closed");
}

TEST(InlinePtx, ASectionInsideTheKernel) {
    expectAsmError(".section .debug_info { .b8 1 }", "a .section directive inside a function");
}

// Valid PTX the machine would compute differently is refused, not run.
TEST(InlinePtx, SaturatingIntegerArithmeticIsRefused) {
    expectAsmError("add.sat.s32 %0, %0, %1;", "saturating integer arithmetic");
}

// Registers are known by name: an asm statement's register named like one outside its scope would be that one.
TEST(InlinePtx, ARegisterDeclaredAgainInAnInnerScope) {
    expectAsmError("{ .reg .b32 %%r1; mov.b32 %%r1, 5; add.s32 %0, %0, %%r1; }", "'%r1' is declared twice");
    expectAsmError(".reg .b32 t;\\n.reg .b32 t;\\nmov.b32 t, 1;", "'t' is declared twice");
}

TEST(InlinePtx, AStatementWithoutItsSemicolon) {
    expectAsmError("add.s32 %0, %0, 1", "expected ';'");                              // at the end
    expectAsmError("add.s32 %0, %0, 1\\n add.s32 %0, %0, 2;", "expected ';'");        // then a line
    expectAsmError("add.s32 %0, %0, 1\\nL2:\\n add.s32 %0, %0, 2;", "expected ';'");  // then a label
    expectAsmError("add.s32 %0, %0, 1 add.s32 %0, %0, 2;", "expected ',' or ';'");    // on one line
    expectAsmError("add.s32 %0, %0, 1 }", "expected ';'");
    expectAsmError("add.s32 %0, %0, 1 /* no end", "not closed");
}

TEST(InlinePtx, CorrectInlineAsmCompilesAndRuns) {
    // Two scopes that each declare a predicate p (without '%'), two statements on a line with a comment between
    // them, and a branch to a label made unique with %=.
    const std::string source =
        "__global__ void k(const int* a, const int* b, const int* c, int* out) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  int y;\n"
        "  asm volatile(\"{\\n\\t.reg .pred p;\\n\\tsetp.gt.s32 p, %1, 3;\\n\\tselp.b32 %0, %1, 7, p;\\n}\"\n"
        "               : \"=r\"(y) : \"r\"(a[i]));\n"
        "  asm volatile(\"add.s32 %0, %0, 1; /* two on a line */ add.s32 %0, %0, %1;\" : \"+r\"(y) : \"r\"(b[i]));\n"
        "  asm volatile(\"{ .reg .pred p; setp.lt.s32 p, %0, 0; @p bra DONE%=;\\n\\tshl.b32 %0, %0, 1;\\n\"\n"
        "               \"DONE%=: }\" : \"+r\"(y));\n"
        "  out[i] = y;\n"
        "}\n";
    CompiledKernel k;
    try {
        k = compileKernel(source, "k.cu");
    } catch (const DiagnosticError& e) {
        FAIL() << e.what() << "\n" << source;
    }
    std::vector<uint32_t> a = qgpu::testing::operands(1, {0, 3, 4, 5, uint32_t(-1), 0x7fffffff}),
                          b = qgpu::testing::operands(2, {0, 0, 0, uint32_t(-100), 0, 1});
    qgpu::testing::Outcome r = qgpu::testing::run(k.kernel.program, a, b, a);
    for (int i = 0; i < qgpu::testing::kThreads; ++i) {
        int32_t y = int32_t(a[size_t(i)]) > 3 ? int32_t(a[size_t(i)]) : 7;
        y = int32_t(uint32_t(y) + 1u + b[size_t(i)]);
        if (y >= 0) y = int32_t(uint32_t(y) << 1);
        EXPECT_EQ(r.out.at(size_t(i)), uint32_t(y))
            << "thread " << i << ": a = " << a[size_t(i)] << ", b = " << b[size_t(i)];
    }
}

// The parser alone, on hand-written PTX: the same mistakes name their PTX line.
TEST(InlinePtx, TheParserLocatesTheMistakesInPtxText) {
    auto lineOf = [](const std::string& body, const std::string& text) {
        std::string ptx = ".visible .entry f()\n{\n" + body + "\tret;\n}\n";
        try {
            ptx::parse(ptx, "f.ptx");
        } catch (const DiagnosticError& e) {
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
            return e.diagnostics().at(0).line;
        }
        ADD_FAILURE() << "expected an error for:\n" << ptx;
        return 0;
    };
    EXPECT_EQ(lineOf("L1:\n\tadd.s32 %r1, %r1, 1;\nL1:\n", "the label 'L1' is defined twice"), 5);
    EXPECT_EQ(lineOf("\tadd.s32 %r1, %r1, 1\n\tadd.s32 %r1, %r1, 2;\n", "expected ';'"), 3);
    EXPECT_EQ(lineOf("\tadd.s32 %r1, %r1, 1 add.s32 %r1, %r1, 2;\n", "expected ',' or ';'"), 3);
    EXPECT_EQ(lineOf("\t{\n\tadd.s32 %r1, %r1, 1;\n", "the function 'f' is not closed"), 6);
    EXPECT_EQ(lineOf("\tadd.s32 %r1, %r1, 1;\n}\n", "the '}' at PTX line 4 closed the function"), 5);
    EXPECT_EQ(lineOf("\tld.global.u32 %r1, [%rd1;\n", "is not closed with ']'"), 3);
    EXPECT_EQ(lineOf("\tadd.s32 %r1, %r2,;\n", "an operand is missing"), 3);

    // Several statements on a line, labels before instructions and `/* */` comments are PTX as well.
    ptx::Module m = ptx::parse(
        ".visible .entry f()\n{\n\t.reg .pred p;\n\tadd.s32 %r1, %r1, 1; /* one */ L1: add.s32 %r1, %r1, 2;\n"
        "\t@p bra L1; { .reg .b32 t; mov.b32 t, 3; }\n\tret;\n}\n",
        "f.ptx");
    const ptx::Function& f = m.functions.at(0);
    ASSERT_EQ(f.body.size(), 5u);
    EXPECT_EQ(f.labels.at("L1"), 1u);
    EXPECT_EQ(f.body[2].guard, "%__p") << "a register a scope declares without '%' is %__NAME";
    EXPECT_EQ(f.body[2].operands.at(0).kind, ptx::Operand::Kind::Label);
    EXPECT_EQ(f.body[3].operands.at(0).kind, ptx::Operand::Kind::Reg) << "t is declared by .reg";
    EXPECT_EQ(f.body[3].operands.at(0).name, "%__t");
}

// Clang takes the high word of a 64-bit value as `{ .reg .b32 tmp; mov.b64 {tmp, %r1}, %rd1; }`, once per
// use: a register of the scope in a vector.
TEST(InlinePtx, ScopedRegistersInVectorsAreRegisters) {
    const std::string source =
        "__global__ void k(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* out) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  unsigned long long v = (unsigned long long)a[i] * a[i] + b[i];\n"
        "  out[i] = unsigned(v >> 32) + unsigned(v);\n"
        "}\n";
    ASSERT_NE(compileCudaToPtx(source, "k.cu").ptx.find(".reg .b32 tmp;"), std::string::npos)
        << "Clang no longer writes the scope this test is about";
    std::vector<uint32_t> a = qgpu::testing::operands(3, {0, 1, 0xfff, 0xffffffffu}),
                          b = qgpu::testing::operands(4, {0, 0xfff00000u, 0x100000u, 0xffffffffu});
    qgpu::testing::Outcome r = qgpu::testing::run(compileKernel(source, "k.cu").kernel.program, a, b, a);
    for (size_t i = 0; i < size_t(qgpu::testing::kThreads); ++i) {
        uint64_t v = uint64_t(a[i]) * a[i] + b[i];
        EXPECT_EQ(r.out.at(i), uint32_t(v >> 32) + uint32_t(v)) << i;
    }
}

// %clock, %clock64 and %globaltimer (inline, or through clock() and clock64()) read the machine's clock: every
// read advances it by one, so a thread's reads increase and the launch's 24 reads are 0..23, each once.
TEST(InlinePtx, TheClockRegistersReadTheMachinesCounter) {
    const std::string source =
        "__global__ void k(int* first, int* second, int* third, int* fourth) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  unsigned c;\n"
        "  unsigned long long t, g;\n"
        "  asm volatile(\"mov.u32 %0, %%clock;\" : \"=r\"(c));\n"
        "  asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t));\n"
        "  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g));\n"
        "  long long last = clock64();\n"
        "  first[i] = c; second[i] = (int)t; third[i] = (int)(g >> 32) * 1000 + (int)g; fourth[i] = (int)last;\n"
        "}\n";
    auto out = tests::runToEnd(source,
                               R"({"grid": 2, "block": 3, "args": [{"name": "first", "zeros": 6},
                                   {"name": "second", "zeros": 6}, {"name": "third", "zeros": 6},
                                   {"name": "fourth", "zeros": 6}]})");
    std::set<int64_t> seen;
    for (size_t i = 0; i < 6; ++i) {
        std::vector<int64_t> reads = {out["first"][i], out["second"][i], out["third"][i], out["fourth"][i]};
        for (size_t r = 1; r < reads.size(); ++r) EXPECT_LT(reads[r - 1], reads[r]) << "thread " << i;
        seen.insert(reads.begin(), reads.end());
    }
    EXPECT_EQ(seen.size(), 24u);
    EXPECT_EQ(*seen.begin(), 0);
    EXPECT_EQ(*seen.rbegin(), 23);
    EXPECT_EQ(out[kClockCounterName], std::vector<int64_t>{24});
}
