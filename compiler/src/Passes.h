// The lowering passes over the virtual program. Private to the compiler library.
#pragma once

#include <vector>

#include "VirtualProgram.h"
#include "qgpu/compiler/Lowering.h"

namespace qgpu::lowering {

// Drops unreachable blocks, jumps through empty blocks, merges straight-line chains.
void simplifyControlFlow(VProgram& program);

// Propagates registers that hold one constant (immediates and argument symbols) into immediate fields
// and address offsets, and turns x*1, x+0 and the like into copies. Dead movs are left for allocateRegisters.
void foldConstants(VProgram& program);

// Removes instructions whose results nobody reads, then maps virtual registers onto r1..r(K), preferring
// the same register for both sides of a move (those moves then vanish). Throws DiagnosticError naming the
// line of highest register pressure when K registers do not suffice (`advice` ends that message). Returns
// the registers used.
int allocateRegisters(VProgram& program, int registers, const std::string& cudaFile, const std::string& advice = "");

// Gives each branch to an empty `exit` block a copy of its own when the kernel has a barrier, so lanes that
// return early can exit right away (reconvergenceOrder places exits early) and count as arrived.
void separateExits(VProgram& program);
// The block order the min-PC reconvergence rule needs: every loop contiguous and before the blocks its
// exits reach, every block after its forward predecessors, the entry first; a block that ends in `exit`
// right after its last predecessor. Throws DiagnosticError for irreducible control flow.
std::vector<int> reconvergenceOrder(const VProgram& program);

// Orders blocks for the min-PC reconvergence rule (a loop's blocks before its exits, every join after
// its branches), splits them into machine blocks of at most `slots` instructions and fills the line map.
void layoutBlocks(const VProgram& program, int slots, Program& out, std::vector<LineMapEntry>& lineMap);

}  // namespace qgpu::lowering
