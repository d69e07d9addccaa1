// The .qasm assembler: syntax, immediates, symbols, and every error with its file:line:col.
#include <gtest/gtest.h>

#include "TestUtil.h"

using namespace qgpu;
using namespace qgpu::test;

namespace {

// Lines joined with '\n', so line numbers in the tests are the index + 1.
std::string lines(std::initializer_list<const char*> ls) {
    std::string s;
    for (const char* l : ls) s += std::string(l) + "\n";
    return s;
}

// Assembles `src` as t.qasm; returns the diagnostics of the DiagnosticError (failing if none is thrown).
std::vector<Diagnostic> errorsOf(const std::string& src) {
    try {
        assemble(src, "t.qasm");
    } catch (const DiagnosticError& e) {
        return e.diagnostics();
    }
    ADD_FAILURE() << "expected an assembler error for:\n" << src;
    return {};
}

// Expects exactly one diagnostic at line:col whose message contains `text`, and checks what() names it.
void expectError(const std::string& src, int line, int col, const std::string& text) {
    std::string what;
    std::vector<Diagnostic> diags;
    try {
        assemble(src, "t.qasm");
        ADD_FAILURE() << "expected an assembler error for:\n" << src;
        return;
    } catch (const DiagnosticError& e) {
        what = e.what();
        diags = e.diagnostics();
    }
    ASSERT_EQ(diags.size(), 1u) << what;
    EXPECT_EQ(diags[0].file, "t.qasm");
    EXPECT_EQ(diags[0].line, line) << what;
    EXPECT_EQ(diags[0].column, col) << what;
    EXPECT_NE(diags[0].message.find(text), std::string::npos) << what;
    std::string where = "t.qasm:" + std::to_string(line) + ":" + std::to_string(col) + ":";
    EXPECT_NE(what.find(where), std::string::npos) << what;
}

Program linkWith(const Program& p, const std::string& launchJson) {
    LaunchSpec l = parseLaunchSpec(launchJson);
    return linkLaunch(p, l).program;
}

}  // namespace

TEST(Assembler, BlocksBodiesAndTerminators) {
    Program p = assemble(lines({
        "entry:",
        "    add r1, r2, r3",
        "    sub r4, r5, 6",
        "    br r1, entry, done",
        "done:",
        "    exit",
    }));
    ASSERT_EQ(p.blocks.size(), 2u);
    EXPECT_EQ(p.blocks[0].label, "entry");
    ASSERT_EQ(p.blocks[0].body.size(), 2u);
    const Instruction& add = p.blocks[0].body[0];
    EXPECT_EQ(add.op, Opcode::Add);
    EXPECT_EQ(add.rd, 1);
    EXPECT_EQ(add.rs1, 2);
    EXPECT_EQ(add.rs2, 3);
    EXPECT_FALSE(add.useImm);
    const Instruction& sub = p.blocks[0].body[1];
    EXPECT_TRUE(sub.useImm);
    EXPECT_EQ(sub.imm, 6u);
    EXPECT_EQ(sub.rs2, 0);
    const Instruction& br = p.blocks[0].terminator;
    EXPECT_EQ(br.op, Opcode::Br);
    EXPECT_EQ(br.rc, 1);
    EXPECT_EQ(br.target(), 0);
    EXPECT_EQ(br.elseTarget(), 1);
    EXPECT_EQ(p.blocks[1].terminator.op, Opcode::Exit);
    EXPECT_TRUE(p.blocks[1].body.empty());
    EXPECT_EQ(p.blockIndex("done"), 1);
    EXPECT_EQ(p.blockIndex("nope"), -1);
    // source locations of the body and the terminator
    ASSERT_EQ(p.blocks[0].bodyLocs.size(), 2u);
    EXPECT_EQ(p.blocks[0].bodyLocs[1].line, 3);
    EXPECT_EQ(p.blocks[0].bodyLocs[1].column, 5);
    EXPECT_EQ(p.blocks[0].terminatorLoc.line, 4);
}

TEST(Assembler, FourBodyInstructionsAreAllowed) {
    Program p = assemble(lines({"a:", "  mov r1, 1", "  mov r2, 2", "  mov r3, 3", "  mov r4, 4", "  exit"}));
    EXPECT_EQ(p.blocks[0].body.size(), 4u);
}

TEST(Assembler, FifthBodyInstructionIsAnError) {
    expectError(lines({
                    "entry:",
                    "    add r1, r1, 1",
                    "    add r1, r1, 1",
                    "    add r1, r1, 1",
                    "    add r1, r1, 1",
                    "    add r1, r1, 1",
                    "    exit",
                }),
                6, 5, "already has 4 instructions");
}

TEST(Assembler, LabelWhileBlockIsOpenIsAnError) {
    expectError(lines({"a:", "    add r1, r1, 1", "  b:", "    exit"}), 3, 3,
                "ends without a terminator before label 'b'");
}

TEST(Assembler, MissingFinalTerminatorIsAnError) {
    std::vector<Diagnostic> d = errorsOf(lines({"a:", "    exit", "b:", "    add r1, r1, 1"}));
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].line, 3);
    EXPECT_NE(d[0].message.find("does not end with a terminator"), std::string::npos) << d[0].message;
}

TEST(Assembler, UnknownLabelIsAnError) {
    expectError(lines({"a:", "    jmp nowhere"}), 2, 9, "unknown label 'nowhere'");
    expectError(lines({"a:", "    br r1, yes, a"}), 2, 12, "unknown label 'yes'");
    expectError(lines({"a:", "    br r1, a, no"}), 2, 15, "unknown label 'no'");
    expectError(lines({"a:", "    bar later"}), 2, 9, "unknown label 'later'");
}

TEST(Assembler, WrongOperandCountIsAnError) {
    expectError(lines({"a:", "    add r1, r2", "    exit"}), 2, 5, "add takes 3 operands, found 2");
    expectError(lines({"a:", "    exit r1", "    exit"}), 2, 5, "exit takes 0 operands, found 1");
    expectError(lines({"a:", "    mov r1", "    exit"}), 2, 5, "mov takes 2 operands, found 1");
    expectError(lines({"a:", "  sel r1, r2, r3", "  exit"}), 2, 3, "sel takes 4 operands, found 3");
    expectError(lines({"a:", "  shfl.up r1, r2, 1", "  exit"}), 2, 3, "shfl.up takes 4 operands, found 3");
    expectError(lines({"a:", "  br r1, a", "  exit"}), 2, 3, "br takes 3 operands, found 2");
    expectError(lines({"a:", "  st.global [r1], r2, r3", "  exit"}), 2, 3, "st.global takes 2 operands, found 3");
}

TEST(Assembler, OperandErrorsPointAtTheOperand) {
    expectError(lines({"a:", "    frob r1", "    exit"}), 2, 5, "unknown instruction 'frob'");
    expectError(lines({"a:", "    add r1, r16, r2", "    exit"}), 2, 13, "expected a register r0..r15");
    expectError(lines({"a:", "    add r1, r2, 12abc", "    exit"}), 2, 17, "found '12abc'");
    expectError(lines({"a:", "    shfl.up r1, r2, 1, 3", "    exit"}), 2, 24, "shuffle width must be 1, 2 or 4");
    expectError(lines({"a:", "    sreg r1, tid.w", "    exit"}), 2, 14, "unknown special register 'tid.w'");
    expectError(lines({"a:", "    ld.global r1, r2", "    exit"}), 2, 19, "expected a memory operand");
}

TEST(Assembler, OutOfRangeImmediatesAreErrors) {
    expectError(lines({"a:", "    mov r1, 4294967296", "    exit"}), 2, 13, "32-bit integer");
    expectError(lines({"a:", "    mov r1, 0x100000000", "    exit"}), 2, 13, "32-bit integer");
    expectError(lines({"a:", "    mov r1, 0x", "    exit"}), 2, 13, "32-bit integer");
    expectError(lines({"a:", "    mov r1, -", "    exit"}), 2, 13, "32-bit integer");
}

TEST(Assembler, DuplicateLabelIsAnError) {
    expectError(lines({"a:", "    exit", "a:", "    exit"}), 3, 1, "defined twice");
}

TEST(Assembler, EveryErrorIsReported) {
    std::vector<Diagnostic> d = errorsOf(lines({
        "a:",
        "    frob r1",
        "    add r1, r2",
        "    jmp missing",
    }));
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0].line, 2);
    EXPECT_EQ(d[1].line, 3);
    EXPECT_EQ(d[2].line, 4);
}

TEST(Assembler, EmptyProgramIsAnError) {
    std::vector<Diagnostic> d = errorsOf("; nothing here\n\n");
    ASSERT_EQ(d.size(), 1u);
    EXPECT_NE(d[0].message.find("no blocks"), std::string::npos);
}

TEST(Assembler, CommentsAndBlankLinesAreIgnored) {
    Program p = assemble(lines({
        "; a full-line comment",
        "// another one",
        "# and another",
        "",
        "   \t  ",
        "entry:   ; comment after a label",
        "    mov r1, 5      // trailing",
        "    mov r2, 0x10   # trailing hash",
        "    ; indented comment",
        "    exit ; done",
    }));
    ASSERT_EQ(p.blocks.size(), 1u);
    EXPECT_EQ(p.blocks[0].label, "entry");
    ASSERT_EQ(p.blocks[0].body.size(), 2u);
    EXPECT_EQ(p.blocks[0].body[0].imm, 5u);
    EXPECT_EQ(p.blocks[0].body[1].imm, 16u);
    EXPECT_EQ(p.blocks[0].bodyLocs[0].line, 7);
    EXPECT_EQ(p.blocks[0].terminator.op, Opcode::Exit);
}

TEST(Assembler, InstructionsBeforeAnyLabelOpenAnAnonymousBlock) {
    Program p = assemble(lines({"    mov r1, 1", "    exit", "    mov r2, 2", "    exit", "named:", "    exit"}));
    ASSERT_EQ(p.blocks.size(), 3u);
    EXPECT_FALSE(p.blocks[0].label.empty());
    EXPECT_FALSE(p.blocks[1].label.empty());
    EXPECT_NE(p.blocks[0].label, p.blocks[1].label);
    EXPECT_EQ(p.blocks[2].label, "named");
}

TEST(Assembler, HexAndNegativeImmediates) {
    Program p = assemble(lines({
        "a:",
        "    mov r1, 0x1F",
        "    mov r2, 0XfF",
        "    mov r3, -5",
        "    mov r4, -0x10",
        "    jmp b",
        "b:",
        "    mov r5, 0xFFFFFFFF",
        "    mov r6, 4294967295",
        "    mov r7, -2147483648",
        "    add r8, r1, 0",
        "    exit",
    }));
    const auto& a = p.blocks[0].body;
    const auto& b = p.blocks[1].body;
    EXPECT_EQ(a[0].imm, 0x1Fu);
    EXPECT_EQ(a[1].imm, 0xFFu);
    EXPECT_EQ(a[2].imm, uint32_t(-5));
    EXPECT_EQ(a[3].imm, 0xFFFFFFF0u);
    EXPECT_EQ(b[0].imm, 0xFFFFFFFFu);
    EXPECT_EQ(b[1].imm, 0xFFFFFFFFu);
    EXPECT_EQ(b[2].imm, 0x80000000u);
    EXPECT_TRUE(b[3].useImm);
    EXPECT_EQ(b[3].imm, 0u);
    for (const auto& in : a) EXPECT_TRUE(in.useImm);
}

TEST(Assembler, MemoryOperandForms) {
    Program p = assemble(lines({
        "a:",
        "    ld.global r1, [r2 + 4]",
        "    ld.global r1, [r3-4]",
        "    ld.shared r1, [r5]",
        "    ld.shared r1, [12]",
        "    jmp b",
        "b:",
        "    st.global [ r6 + 0x10 ], r7",
        "    atom.global r8, [r9 + $buf], r10",
        "    atom.shared r8, [$buf], r10",
        "    exit",
    }));
    const auto& a = p.blocks[0].body;
    EXPECT_EQ(a[0].rs1, 2);
    EXPECT_EQ(a[0].imm, 4u);
    EXPECT_EQ(a[1].rs1, 3);
    EXPECT_EQ(a[1].imm, uint32_t(-4));
    EXPECT_EQ(a[2].rs1, 5);
    EXPECT_EQ(a[2].imm, 0u);
    EXPECT_EQ(a[3].rs1, 0);
    EXPECT_EQ(a[3].imm, 12u);
    const auto& b = p.blocks[1].body;
    EXPECT_EQ(b[0].op, Opcode::StGlobal);
    EXPECT_EQ(b[0].rs1, 6);
    EXPECT_EQ(b[0].imm, 16u);
    EXPECT_EQ(b[0].rs2, 7);
    EXPECT_EQ(b[1].rd, 8);
    EXPECT_EQ(b[1].rs1, 9);
    EXPECT_EQ(b[1].rs2, 10);
    EXPECT_EQ(b[1].immSymbol, "buf");
    EXPECT_EQ(b[2].rs1, 0);
    EXPECT_EQ(b[2].immSymbol, "buf");
}

TEST(Assembler, SymbolsResolveAtLinkTime) {
    Program p = assemble(lines({
        "a:",
        "    ld.global r1, [r2 + $b]",
        "    mov r3, $s",
        "    add r4, r1, $a",
        "    st.global [$c], r4",
        "    exit",
    }));
    for (const auto& in : p.blocks[0].body) EXPECT_FALSE(in.immSymbol.empty());
    EXPECT_EQ(p.blocks[0].body[1].immSymbol, "s");
    Program l = linkWith(p, R"({"block": 1, "args": [{"name":"a","array":[1,2,3]}, {"name":"s","scalar":-7},
                                                    {"name":"b","zeros":5}, {"name":"c","array":[9]}]})");
    const auto& body = l.blocks[0].body;
    for (const auto& in : body) EXPECT_TRUE(in.immSymbol.empty());
    EXPECT_EQ(body[0].imm, 4u);            // b follows a's 3 words
    EXPECT_EQ(body[1].imm, uint32_t(-7));  // scalars are values
    EXPECT_TRUE(body[1].useImm);
    EXPECT_EQ(body[2].imm, 1u);  // a is at word 1 (word 0 is null)
    EXPECT_TRUE(body[2].useImm);
    EXPECT_EQ(body[3].imm, 9u);  // c follows a (3) and b (5)
}

TEST(Assembler, UnknownSymbolIsALinkError) {
    Program p = assemble(lines({"a:", "    mov r1, 1", "    mov r2, $nope", "    exit"}));
    try {
        linkWith(p, R"({"block": 1, "args": [{"name":"yes","scalar":1}]})");
        FAIL() << "link accepted an unknown symbol";
    } catch (const DiagnosticError& e) {
        ASSERT_EQ(e.diagnostics().size(), 1u);
        const Diagnostic& d = e.diagnostics()[0];
        EXPECT_EQ(d.line, 3);
        EXPECT_TRUE(d.column == 5 || d.column == 13) << d.column;
        EXPECT_NE(d.message.find("$nope"), std::string::npos) << d.message;
        EXPECT_NE(std::string(e.what()).find("3:"), std::string::npos) << e.what();
    }
}

namespace {

std::string chainOfBlocks(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s += "b" + std::to_string(i) + ":\n";
        s += i + 1 < n ? "    jmp b" + std::to_string(i + 1) + "\n" : "    exit\n";
    }
    return s;
}

}  // namespace

TEST(Assembler, RomHoldsExactly128Blocks) {
    Program ok = assemble(chainOfBlocks(128));
    EXPECT_EQ(ok.blocks.size(), 128u);
    EXPECT_NO_THROW(linkWith(ok, R"({"block": 1})"));

    Program big = assemble(chainOfBlocks(129));  // the assembler itself does not limit the count
    std::string msg = diagnosticOf([&] { linkWith(big, R"({"block": 1})"); });
    EXPECT_NE(msg.find("129 blocks"), std::string::npos) << msg;
    EXPECT_NE(msg.find("holds 128"), std::string::npos) << msg;
}

TEST(Assembler, SharedDirective) {
    EXPECT_EQ(assemble(".shared 8\na:\n  exit\n").sharedWords, 8);
    EXPECT_EQ(assemble("a:\n  exit\n").sharedWords, 0);
    expectError(".shared 65\na:\n  exit\n", 1, 1, ".shared needs a word count between 0 and 64");
    expectError(".stack 4\na:\n  exit\n", 1, 1, "unknown directive");
}

TEST(Assembler, ShuffleWidthsAndSpecialRegisters) {
    Program p = assemble(lines({
        "a:",
        "    shfl.idx r1, r2, 3, 1",
        "    shfl.up r1, r2, r3, 2",
        "    shfl.down r1, r2, 1, 4",
        "    sreg r4, nctaid.z",
        "    exit",
    }));
    const auto& b = p.blocks[0].body;
    EXPECT_EQ(b[0].aux, 0);
    EXPECT_TRUE(b[0].useImm);
    EXPECT_EQ(b[1].aux, 1);
    EXPECT_FALSE(b[1].useImm);
    EXPECT_EQ(b[1].rs2, 3);
    EXPECT_EQ(b[2].aux, 2);
    EXPECT_EQ(b[3].imm, uint32_t(SpecialReg::NctaidZ));
}

TEST(Assembler, WarningsRoundTripAndUnknownNamesAreErrors) {
    Program p = assemble(lines({"a:", "    warn r3, divzero", "    warn r0, divoverflow", "    exit"}));
    const auto& b = p.blocks[0].body;
    ASSERT_EQ(b.size(), 2u);
    EXPECT_EQ(b[0].op, Opcode::Warn);
    EXPECT_EQ(b[0].rc, 3);
    EXPECT_EQ(b[0].imm, uint32_t(MachineWarning::DivisionByZero));
    EXPECT_EQ(disassemble(b[0]), "warn r3, divzero");
    EXPECT_EQ(disassemble(b[1]), "warn r0, divoverflow");
    expectError(lines({"a:", "    warn r1, overflow", "    exit"}), 2, 14, "unknown warning 'overflow'");
}

TEST(Assembler, UnknownLabelErrorNamesTheFile) {
    std::string msg = diagnosticOf([] { assemble("a:\n    jmp nowhere\n", "kernels/x.qasm"); });
    EXPECT_NE(msg.find("kernels/x.qasm:2:9:"), std::string::npos) << msg;
}

TEST(Assembler, AFileOfErrorsStopsAfterAHundred) {
    std::string garbage;
    for (int i = 0; i < 100000; ++i) garbage += "frobnicate r1\n";
    try {
        assemble(garbage, "junk.qasm");
        FAIL() << "assembled garbage";
    } catch (const DiagnosticError& e) {
        ASSERT_EQ(e.diagnostics().size(), 101u);
        EXPECT_EQ(e.diagnostics().back().format(),
                  "junk.qasm:100:1: error: stopping after 100 errors; fix these first");
    }
}

TEST(Assembler, ManyBlocksAssembleInLinearTimeUpToWhatTargetsCanName) {
    // 65,535 labelled blocks, each jumping to the next: a linear label lookup made 70,000 take 35 s.
    auto chain = [](int blocks) {
        std::string text;
        for (int i = 0; i + 1 < blocks; ++i)
            text += "b" + std::to_string(i) + ":\n    jmp b" + std::to_string(i + 1) + "\n";
        return text + "b" + std::to_string(blocks - 1) + ":\n    exit\n";
    };
    Program p = assemble(chain(65535), "long.qasm");
    ASSERT_EQ(p.blocks.size(), 65535u);
    EXPECT_EQ(p.blocks[65533].terminator.target(), 65534);
    std::string msg = diagnosticOf([&] { assemble(chain(70000), "long.qasm"); });
    EXPECT_NE(msg.find("long.qasm:1:1: error: the program has 70000 blocks; branch targets are 16-bit"),
              std::string::npos)
        << msg;
}
