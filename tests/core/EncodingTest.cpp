// The 64-bit instruction word and the block layout in ROM: exact round trips and rejected words.
#include <gtest/gtest.h>

#include "TestUtil.h"
#include "qgpu/core/Encoding.h"

using namespace qgpu;
using namespace qgpu::test;

namespace {

Instruction make(Opcode op, uint8_t rd, uint8_t rs1, uint8_t rs2, uint8_t rc, bool useImm, uint8_t aux, uint32_t imm) {
    Instruction in;
    in.op = op;
    in.rd = rd;
    in.rs1 = rs1;
    in.rs2 = rs2;
    in.rc = rc;
    in.useImm = useImm;
    in.aux = aux;
    in.imm = imm;
    return in;
}

std::string name(Opcode op) { return std::string(opcodeInfo(op).mnemonic); }

// Compares two programs instruction by instruction (source locations are not part of the program's meaning).
void expectSamePrograms(const Program& a, const Program& b) {
    EXPECT_EQ(a.sharedWords, b.sharedWords);
    ASSERT_EQ(a.blocks.size(), b.blocks.size());
    for (size_t i = 0; i < a.blocks.size(); ++i) {
        const Block &x = a.blocks[i], &y = b.blocks[i];
        EXPECT_EQ(x.label, y.label) << "block " << i;
        ASSERT_EQ(x.body.size(), y.body.size()) << "block " << i;
        for (size_t k = 0; k < x.body.size(); ++k)
            EXPECT_EQ(x.body[k], y.body[k])
                << "block " << i << " slot " << k << ": " << disassemble(x.body[k]) << " vs " << disassemble(y.body[k]);
        EXPECT_EQ(x.terminator, y.terminator) << "block " << i;
    }
}

const char* kProgram = R"(
.shared 16
entry:
    sreg r1, tid.x
    sreg r2, ctaid.y
    ld.global r3, [r1 + $in]
    st.shared [r1 - 4], r3
    bar loop
loop:
    add r4, r4, -1
    shl r5, r3, 0x1F
    sel r6, r5, 17, r4
    setgeu r7, r4, r6
    br r7, loop, shuffle
shuffle:
    shfl.up r8, r3, 1, 4
    shfl.down r9, r3, r2, 2
    shfl.bfly r10, r3, 3, 1
    shfl.idx r11, r3, -1, 4
    jmp mem
mem:
    atom.global r12, [r0 + $out], r8
    atom.shared r13, [r2 + 3], r9
    ld.shared r14, [0x10]
    st.global [r15 + 2147483647], r14
    jmp tail
tail:
    not r1, r2
    mov r15, $n
    exit
    exit
)";

}  // namespace

TEST(Encoding, EveryOpcodeRoundTripsWithManyFieldValues) {
    const uint8_t regs[] = {0, 1, 5, 15};
    const uint32_t imms[] = {0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x12345678};
    int checked = 0;
    for (int op = 0; op < int(Opcode::Count_); ++op) {
        for (uint8_t r : regs)
            for (bool useImm : {false, true})
                for (uint8_t aux = 0; aux < 3; ++aux)
                    for (uint32_t imm : imms) {
                        // vary the register fields independently of each other
                        Instruction in = make(Opcode(op), r, uint8_t((r + 3) % 16), uint8_t((r + 7) % 16),
                                              uint8_t((r + 11) % 16), useImm, aux, imm);
                        uint64_t w = encode(in);
                        EXPECT_EQ(decode(w), in) << name(Opcode(op)) << " word 0x" << std::hex << w;
                        EXPECT_EQ(encode(decode(w)), w) << name(Opcode(op));
                        ++checked;
                    }
    }
    EXPECT_EQ(checked, int(Opcode::Count_) * 4 * 2 * 3 * 6);
}

TEST(Encoding, ShuffleWidthFieldThreeIsRejected) {
    uint64_t w = uint64_t(Opcode::ShflIdx) | (uint64_t(3) << 23);  // aux = 3 would mean width 8
    EXPECT_THROW(decode(w), DiagnosticError);
}

TEST(Encoding, DistinctInstructionsGetDistinctWords) {
    Instruction base = make(Opcode::Add, 1, 2, 3, 4, false, 0, 5);
    uint64_t w = encode(base);
    auto differs = [&](Instruction in) { return encode(in) != w; };
    Instruction x = base;
    x.op = Opcode::Sub;
    EXPECT_TRUE(differs(x));
    x = base, x.rd = 9;
    EXPECT_TRUE(differs(x));
    x = base, x.rs1 = 9;
    EXPECT_TRUE(differs(x));
    x = base, x.rs2 = 9;
    EXPECT_TRUE(differs(x));
    x = base, x.rc = 9;
    EXPECT_TRUE(differs(x));
    x = base, x.useImm = true;
    EXPECT_TRUE(differs(x));
    x = base, x.aux = 2;
    EXPECT_TRUE(differs(x));
    x = base, x.imm = 6;
    EXPECT_TRUE(differs(x));
}

TEST(Encoding, FieldLayoutMatchesTheDocumentedWord) {
    // [5:0] op, [6] useImm, [10:7] rd, [14:11] rs1, [18:15] rs2, [22:19] rc, [24:23] aux, [63:32] imm
    Instruction in = make(Opcode::ShflUp, 3, 4, 5, 6, true, 2, 0xCAFEF00D);
    uint64_t expected = uint64_t(unsigned(Opcode::ShflUp)) | (1ull << 6) | (3ull << 7) | (4ull << 11) | (5ull << 15) |
                        (6ull << 19) | (2ull << 23) | (0xCAFEF00Dull << 32);
    EXPECT_EQ(encode(in), expected);
    // A zero word is `add r0, r0, r0`: a harmless padding slot.
    EXPECT_EQ(decode(0), make(Opcode::Add, 0, 0, 0, 0, false, 0, 0));
}

TEST(Encoding, DecodeRejectsInvalidOpcodes) {
    for (unsigned op = unsigned(Opcode::Count_); op < 64; ++op) {
        std::string msg = diagnosticOf([&] { decode(uint64_t(op)); });
        EXPECT_NE(msg.find("invalid opcode"), std::string::npos) << op << ": " << msg;
    }
}

TEST(Encoding, DecodeRejectsReservedBits) {
    uint64_t valid = encode(make(Opcode::Mov, 1, 0, 0, 0, true, 0, 7));
    for (int bit = 25; bit <= 31; ++bit) {
        std::string msg = diagnosticOf([&] { decode(valid | (1ull << bit)); });
        EXPECT_NE(msg.find("reserved"), std::string::npos) << "bit " << bit << ": " << msg;
    }
}

TEST(Encoding, AssembledProgramRoundTripsThroughWords) {
    Program p = assemble(kProgram);
    LaunchSpec l = parseLaunchSpec(
        R"({"block": 4, "args": [{"name":"in","array":[1,2,3,4]},{"name":"out","zeros":4},{"name":"n","scalar":-9}]})");
    Program linked = linkLaunch(p, l).program;
    for (const Block& b : linked.blocks) {
        for (const Instruction& in : b.body) EXPECT_EQ(decode(encode(in)), in) << disassemble(in);
        EXPECT_EQ(decode(encode(b.terminator)), b.terminator) << disassemble(b.terminator);
    }
}

TEST(Encoding, BlockIsPaddedWithZeroWordsBeforeTheTerminator) {
    Program p = assemble(R"(
a:
    exit
b:
    add r1, r2, 3
    jmp a
c:
    add r1, r2, 3
    sub r2, r1, r1
    mul r3, r1, r2
    not r4, r3
    br r4, a, b
)");
    ASSERT_EQ(p.blocks.size(), 3u);
    for (const Block& b : p.blocks) {
        std::vector<uint64_t> words = encodeBlock(b, 4);
        ASSERT_EQ(words.size(), 5u) << b.label;
        for (size_t i = 0; i < 4; ++i) {
            uint64_t want = i < b.body.size() ? encode(b.body[i]) : 0;  // padding slots are zero words
            EXPECT_EQ(words[i], want) << b.label << " slot " << i;
        }
        EXPECT_EQ(words[4], encode(b.terminator)) << b.label;
        Block back = decodeBlock(words);
        EXPECT_EQ(back.body, b.body) << b.label;
        EXPECT_EQ(back.terminator, b.terminator) << b.label;
    }
}

TEST(Encoding, DecodeBlockRejectsANonTerminatorLastWord) {
    std::vector<uint64_t> words(5, 0);
    words[4] = encode(make(Opcode::Add, 1, 1, 0, 0, true, 0, 1));
    std::string msg = diagnosticOf([&] { decodeBlock(words); });
    EXPECT_NE(msg.find("terminator"), std::string::npos) << msg;
}

TEST(Encoding, AssembleOfDisassembleIsTheSameProgram) {
    Program p = assemble(kProgram);
    std::string text = disassemble(p);
    Program again = assemble(text);
    expectSamePrograms(p, again);
    EXPECT_EQ(disassemble(again), text);
}

TEST(Encoding, DisassembleOfLinkedProgramReassembles) {
    Program p = assemble(kProgram);
    LaunchSpec l = parseLaunchSpec(
        R"({"block": 4, "args": [{"name":"in","array":[1,2,3,4]},{"name":"out","zeros":4},{"name":"n","scalar":-9}]})");
    Program linked = linkLaunch(p, l).program;
    expectSamePrograms(linked, assemble(disassemble(linked)));
}

TEST(Encoding, DisassemblyOfUnlabelledBlocksReassembles) {
    // The block after `exit` has no label; the assembler names it. That name must not collide with a user label.
    Program p = assemble(R"(
_b1:
    add r1, r1, 1
    exit
    add r2, r2, 2
    jmp _b1
)");
    ASSERT_EQ(p.blocks.size(), 2u);
    EXPECT_NE(p.blocks[0].label, p.blocks[1].label) << "two blocks share a label";
    std::string text = disassemble(p);
    Program again;
    EXPECT_NO_THROW(again = assemble(text)) << text;
    EXPECT_EQ(p.blocks[1].terminator.target(), 0);
}
