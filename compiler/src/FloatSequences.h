// IEEE-754 binary32 arithmetic as machine-instruction sequences: the machine has 32-bit integer opcodes
// only, so every PTX float instruction becomes integer code exact to its PTX definition (docs/lowering.md
// lists the costs). The long operations are routine bodies: the selector emits each once per kernel and
// calls it from every use. Private to the compiler library.
#pragma once

#include <cstdint>

#include "Sequences.h"

namespace qgpu::lowering {

// PTX's rounding modifiers: .rn/.rni, .rz/.rzi, .rm/.rmi, .rp/.rpi.
enum class Rounding { Nearest, Zero, Down, Up };

// How a float instruction rounds, and whether it flushes subnormal inputs and results to a zero of the
// same sign (.ftz; a result is subnormal when its rounded exponent field is 0).
struct FloatMode {
    Rounding rounding = Rounding::Nearest;
    bool flush = false;
};

// The one NaN every float operation writes (PTX's canonical NaN); moves, loads, stores and selp keep bits.
constexpr uint32_t kCanonicalNan = 0x7fffffffu;

// setp's float comparisons: ordered ones are false when an operand is NaN, the `u` ones true.
enum class FloatCompare { Eq, Ne, Lt, Le, Gt, Ge, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };

// Routine bodies: they end in the block where control continues, with the result in rd.
void floatAdd(Emitter& e, int rd, int a, int b, FloatMode mode);
void floatMultiply(Emitter& e, int rd, int a, int b, FloatMode mode);
// fma.f32: a * b + c with one rounding (the exact product and sum in a 64-bit window).
void floatFusedMultiplyAdd(Emitter& e, int rd, int a, int b, int c, FloatMode mode);
// div.rn/rz/rm/rp.f32 and sqrt: correctly rounded, by long division and digit-by-digit square root.
void floatDivide(Emitter& e, int rd, int a, int b, FloatMode mode);
void floatSquareRoot(Emitter& e, int rd, int a, FloatMode mode);
// cvt.f32.s32/u32.
void intToFloat(Emitter& e, int rd, int a, bool isSigned, Rounding rounding);
// cvt.s32/u32.f32 with the integer rounding modifiers: saturating, NaN gives 0.
void floatToInt(Emitter& e, int rd, int a, bool isSigned, Rounding rounding, bool flush);
// cvt.rn/rz.f32.s64/u64 (and rm/rp unsigned): a 64-bit integer in a pair (PairSequences.cpp).
void pairToFloat(Emitter& e, int rd, Pair a, bool isSigned, Rounding rounding);
// cvt.rzi.s64/u64.f32: truncated, saturating, NaN gives 0 (PairSequences.cpp).
void floatToPair(Emitter& e, Pair rd, int a, bool isSigned);
// cvt.rni/rzi/rmi/rpi.f32.f32: the integral value in the rounding's direction, as a float.
void roundToIntegral(Emitter& e, int rd, int a, Rounding rounding, bool flush);

// Short sequences, written where they are used.
void floatCompare(Emitter& e, int rd, int a, B b, FloatCompare compare, bool flush);
// min.f32/max.f32 give the other operand when one is NaN; min.NaN/max.NaN give the canonical NaN.
struct MinMax {
    bool isMax = false;
    bool flush = false;
    bool propagateNan = false;
};
void floatMinMax(Emitter& e, int rd, int a, B b, MinMax kind);
// neg.f32 and abs.f32: the sign bit flipped or cleared; a NaN becomes the canonical NaN.
void floatSign(Emitter& e, int rd, int a, bool absolute, bool flush);
// .sat: a clamped to [+0.0, 1.0]; -0.0 and NaN give +0.0.
void floatSaturate(Emitter& e, int rd, int a);
// testp.finite/infinite/number/notanumber/normal/subnormal.f32: 1 when a is of the class.
enum class FloatClass { Finite, Infinite, Number, NotANumber, Normal, Subnormal };
void floatTest(Emitter& e, int rd, int a, FloatClass what);
// copysign.f32 d, a, b: b's magnitude bits with a's sign bit (NaN payloads kept, as the hardware's bit
// operation keeps them).
void floatCopySign(Emitter& e, int rd, int signOf, int valueOf);

// A float immediate's bits after .ftz's flush of a subnormal.
uint32_t flushedBits(uint32_t bits, bool flush);

}  // namespace qgpu::lowering
