#include "qgpu/core/Encoding.h"

#include <cassert>

#include "qgpu/core/Diagnostic.h"

namespace qgpu {

// Word layout (docs/isa.md): [5:0] op, [6] useImm, [10:7] rd, [14:11] rs1, [18:15] rs2,
// [22:19] rc, [24:23] aux, [31:25] zero, [63:32] imm.
uint64_t encode(const Instruction& in) {
    assert(in.immSymbol.empty() && "encode needs a linked instruction");
    assert(in.rd < 16 && in.rs1 < 16 && in.rs2 < 16 && in.rc < 16 && in.aux < 3);
    uint64_t w = uint64_t(in.op) & 0x3F;
    w |= uint64_t(in.useImm) << 6;
    w |= uint64_t(in.rd) << 7;
    w |= uint64_t(in.rs1) << 11;
    w |= uint64_t(in.rs2) << 15;
    w |= uint64_t(in.rc) << 19;
    w |= uint64_t(in.aux) << 23;
    w |= uint64_t(in.imm) << 32;
    return w;
}

Instruction decode(uint64_t w) {
    Instruction in;
    unsigned op = unsigned(w & 0x3F);
    if (op >= unsigned(Opcode::Count_))
        throw DiagnosticError(Diagnostic{"", 0, 0, "invalid opcode " + std::to_string(op) + " in instruction word"});
    if ((w >> 25) & 0x7F) throw DiagnosticError(Diagnostic{"", 0, 0, "reserved bits 25..31 set in instruction word"});
    in.op = Opcode(op);
    in.useImm = (w >> 6) & 1;
    in.rd = (w >> 7) & 0xF;
    in.rs1 = (w >> 11) & 0xF;
    in.rs2 = (w >> 15) & 0xF;
    in.rc = (w >> 19) & 0xF;
    in.aux = (w >> 23) & 0x3;
    if (in.aux == 3)
        throw DiagnosticError(Diagnostic{"", 0, 0, "shuffle width field 3 (width 8) is invalid on a 4-lane warp"});
    in.imm = uint32_t(w >> 32);
    return in;
}

std::vector<uint64_t> encodeBlock(const Block& block, int slotsPerBlock) {
    assert(int(block.body.size()) <= slotsPerBlock);
    std::vector<uint64_t> words(size_t(slotsPerBlock) + 1, 0);
    for (size_t i = 0; i < block.body.size(); ++i) words[i] = encode(block.body[i]);
    words.back() = encode(block.terminator);
    return words;
}

Block decodeBlock(const std::vector<uint64_t>& words) {
    assert(!words.empty());
    Block b;
    for (size_t i = 0; i + 1 < words.size(); ++i)
        if (words[i] != 0) b.body.push_back(decode(words[i]));
    b.terminator = decode(words.back());
    if (!opcodeInfo(b.terminator.op).terminator)
        throw DiagnosticError(Diagnostic{"", 0, 0, "last word of a block is not a terminator"});
    return b;
}

}  // namespace qgpu
