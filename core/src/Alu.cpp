#include "qgpu/core/Alu.h"

#include <algorithm>

namespace qgpu {

namespace {

uint32_t shiftLeft(uint32_t a, uint32_t b) { return b >= 32 ? 0 : a << b; }
uint32_t shiftRight(uint32_t a, uint32_t b) { return b >= 32 ? 0 : a >> b; }
uint32_t shiftRightArith(uint32_t a, uint32_t b) { return uint32_t(int32_t(a) >> std::min<uint32_t>(b, 31)); }

}  // namespace

std::optional<uint32_t> aluResult(Opcode op, uint32_t a, uint32_t b) {
    int32_t sa = int32_t(a), sb = int32_t(b);
    switch (op) {
        case Opcode::Add: return a + b;
        case Opcode::Sub: return a - b;
        case Opcode::Mul: return a * b;
        case Opcode::Shl: return shiftLeft(a, b);
        case Opcode::Shr: return shiftRight(a, b);
        case Opcode::Sra: return shiftRightArith(a, b);
        case Opcode::And: return a & b;
        case Opcode::Or: return a | b;
        case Opcode::Xor: return a ^ b;
        case Opcode::Not: return ~a;
        case Opcode::Min: return uint32_t(std::min(sa, sb));
        case Opcode::Max: return uint32_t(std::max(sa, sb));
        case Opcode::MinU: return std::min(a, b);
        case Opcode::MaxU: return std::max(a, b);
        case Opcode::Mov: return b;
        case Opcode::SetEq: return a == b;
        case Opcode::SetNe: return a != b;
        case Opcode::SetLt: return sa < sb;
        case Opcode::SetLe: return sa <= sb;
        case Opcode::SetGt: return sa > sb;
        case Opcode::SetGe: return sa >= sb;
        case Opcode::SetLtU: return a < b;
        case Opcode::SetLeU: return a <= b;
        case Opcode::SetGtU: return a > b;
        case Opcode::SetGeU: return a >= b;
        default: return std::nullopt;
    }
}

}  // namespace qgpu
