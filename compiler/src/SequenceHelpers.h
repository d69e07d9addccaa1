// Small helpers for writing machine-instruction sequences (Sequences.cpp, FloatSequences.cpp): each
// returns the fresh register it writes. Private to the compiler library.
#pragma once

#include "Sequences.h"

namespace qgpu::lowering {

inline int op(Emitter& e, Opcode o, int a, B b) {
    int t = e.temp();
    e.emit(o, t, a, b);
    return t;
}
inline int mov(Emitter& e, B b) { return op(e, Opcode::Mov, kZeroReg, b); }
inline void copy(Emitter& e, int rd, int from) { e.emit(Opcode::Mov, rd, kZeroReg, reg(from)); }
// rd = cond ? a : b
inline int sel(Emitter& e, int cond, int a, B b) {
    int t = e.temp();
    e.emit(Opcode::Sel, t, a, b, cond);
    return t;
}

// b as a register (an immediate gets a mov).
inline int inRegister(Emitter& e, B b) { return b.isImm ? mov(e, b) : b.reg; }

}  // namespace qgpu::lowering
