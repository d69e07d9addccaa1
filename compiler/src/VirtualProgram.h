// The lowering's intermediate form: machine instructions over unlimited virtual registers, in a CFG
// of basic blocks with any number of instructions. Private to the compiler library.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "qgpu/core/Isa.h"

namespace qgpu::lowering {

constexpr int kZeroReg = -1;  // r0: reads zero, discards writes

struct VInst {
    Opcode op = Opcode::Exit;
    int rd = kZeroReg, rs1 = kZeroReg, rs2 = kZeroReg, rc = kZeroReg;
    bool useImm = false;
    uint32_t imm = 0;
    std::string immSymbol;
    uint8_t aux = 0;
    SourceLoc loc;  // CUDA line
    int ptxLine = 0;
    uint16_t floatRegistersBefore = 0;  // after allocation: machine registers holding a float before it

    std::vector<int> uses() const;  // virtual registers read (rs2 only when !useImm)
    bool hasSideEffects() const;    // stores, atomics, shuffles are kept even when rd is dead
};

struct VBlock {
    std::vector<VInst> body;
    VInst term;  // Jmp, Br (rc = condition), Bar or Exit
    int target = -1, elseTarget = -1;
    bool terminated = false;

    std::vector<int> successors() const;
};

struct VProgram {
    std::vector<VBlock> blocks;  // block 0 is the entry
    int vregCount = 0;
    std::set<int> ptxVregs;    // virtual registers of PTX registers (the others are the selector's temporaries)
    std::set<int> floatVregs;  // those of PTX .f32 registers
};

}  // namespace qgpu::lowering
