// The lowering passes over the virtual program. Private to the compiler library.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "VirtualProgram.h"
#include "qgpu/compiler/Lowering.h"

namespace qgpu::lowering {

// Drops unreachable blocks, jumps through empty blocks, merges straight-line chains.
void simplifyControlFlow(VProgram& program);

// Propagates registers that hold one constant (immediates and argument symbols) into immediate fields
// and address offsets, and turns x*1, x+0 and the like into copies. Dead movs are left for allocateRegisters.
void foldConstants(VProgram& program);

// Local memory for spilled values: their slots follow the kernel's own local arrays in the thread's frame.
struct SpillFrame {
    int lanes = 4;      // lanes per warp, for the frame's address
    int firstWord = 0;  // the first free word of the frame (after the local arrays)
    int spilled = 0;    // out: values spilled, one word each
};

// Removes instructions whose results nobody reads, then maps virtual registers onto r1..r(K), preferring
// the same register for both sides of a move (those moves then vanish). When K registers do not suffice it
// spills values to the thread's frame in local memory (with `frame`; Spilling.cpp), else, or when spilling
// does not help, throws DiagnosticError naming the line of highest register pressure (`advice` ends that
// message). Returns the registers used.
int allocateRegisters(VProgram& program, int registers, const std::string& cudaFile, const std::string& advice = "",
                      SpillFrame* frame = nullptr);

// The instructions that compute the word address of the calling thread's frame in local memory into rd:
// the frame of thread slot `warp * lanes + lane` at kLocalMemorySymbol + slot * kFrameWordsSymbol (both
// link-time immediates, with kWarpsPerBlockSymbol). Fresh virtual registers come from nextVreg.
std::vector<VInst> frameAddress(int rd, int lanes, int& nextVreg, SourceLoc loc);

// Spills `value`: each definition is followed by a store to word `slot` of the frame at `frameBase`, and
// each use preceded by a load into a fresh register (added to `temps`), so the value holds a register for
// one instruction at a time.
void spillValue(VProgram& program, int value, int frameBase, int slot, std::set<int>& temps);

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
