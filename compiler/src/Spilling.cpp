// Local memory on the machine: the address of a thread's frame, and values spilled there when the values
// live at once do not fit the registers (docs/lowering.md).
#include "Passes.h"

namespace qgpu::lowering {
namespace {

VInst instruction(Opcode op, int rd, int rs1, SourceLoc loc) {
    VInst v;
    v.op = op, v.rd = rd, v.rs1 = rs1, v.loc = loc;
    return v;
}
VInst withRegister(Opcode op, int rd, int rs1, int rs2, SourceLoc loc) {
    VInst v = instruction(op, rd, rs1, loc);
    v.rs2 = rs2;
    return v;
}
VInst withImmediate(Opcode op, int rd, int rs1, uint32_t imm, SourceLoc loc, const char* symbol = "") {
    VInst v = instruction(op, rd, rs1, loc);
    v.useImm = true, v.imm = imm, v.immSymbol = symbol;
    return v;
}

}  // namespace

std::vector<VInst> frameAddress(int rd, int lanes, int& nextVreg, SourceLoc loc) {
    std::vector<VInst> out;
    auto special = [&](SpecialReg r) {
        int t = nextVreg++;
        out.push_back(withImmediate(Opcode::Sreg, t, kZeroReg, uint32_t(r), loc));
        return t;
    };
    auto combine = [&](Opcode op, int a, int b) {
        int t = nextVreg++;
        out.push_back(withRegister(op, t, a, b, loc));
        return t;
    };
    // cta = (ctaid.z * nctaid.y + ctaid.y) * nctaid.x + ctaid.x, the block's linear index
    int cta = combine(Opcode::Mul, special(SpecialReg::CtaidZ), special(SpecialReg::NctaidY));
    cta = combine(Opcode::Add, cta, special(SpecialReg::CtaidY));
    cta = combine(Opcode::Mul, cta, special(SpecialReg::NctaidX));
    cta = combine(Opcode::Add, cta, special(SpecialReg::CtaidX));
    int warp = nextVreg++;
    out.push_back(withImmediate(Opcode::Mul, warp, cta, 0, loc, kWarpsPerBlockSymbol));
    warp = combine(Opcode::Add, warp, special(SpecialReg::WarpId));
    int slot = nextVreg++;
    out.push_back(withImmediate(Opcode::Mul, slot, warp, uint32_t(lanes), loc));
    slot = combine(Opcode::Add, slot, special(SpecialReg::LaneId));
    int offset = nextVreg++;
    out.push_back(withImmediate(Opcode::Mul, offset, slot, 0, loc, kFrameWordsSymbol));
    out.push_back(withImmediate(Opcode::Add, rd, offset, 0, loc, kLocalMemorySymbol));
    return out;
}

void spillValue(VProgram& p, int value, int frameBase, int slot, std::set<int>& temps) {
    auto load = [&](std::vector<VInst>& body, SourceLoc loc) {
        int t = p.vregCount++;
        temps.insert(t);
        body.push_back(withImmediate(Opcode::LdGlobal, t, frameBase, uint32_t(slot), loc));
        return t;
    };
    for (VBlock& blk : p.blocks) {
        std::vector<VInst> body;
        for (VInst v : blk.body) {
            bool reads = false;
            for (int u : v.uses()) reads = reads || u == value;
            if (reads) {
                int t = load(body, v.loc);
                for (int* r : {&v.rs1, &v.rs2, &v.rc})
                    if (*r == value && (r != &v.rs2 || !v.useImm)) *r = t;
            }
            bool writes = v.rd == value;
            if (writes) v.rd = p.vregCount++, temps.insert(v.rd);
            body.push_back(v);
            if (writes) body.push_back(withRegister(Opcode::StGlobal, kZeroReg, frameBase, v.rd, v.loc));
            if (writes) body.back().useImm = false, body.back().imm = uint32_t(slot);
        }
        if (blk.term.rc == value) blk.term.rc = load(body, blk.term.loc);
        blk.body = std::move(body);
    }
}

}  // namespace qgpu::lowering
