// Text renderings of step events and memory, shared by the CLI, tests and logs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineState.h"

namespace qgpu {

std::string maskString(uint8_t mask, int lanes);
const char* laneStatusName(LaneStatus s);  // "absent", "live", "barrier", "exited"  // "1101" with lane 0 first
// One line per event, then indented writes and warnings; a register the compiler marks as holding a float
// (Block::floatRegisters: at the start of the lane's next block) shows its words as floats. A lane's writes in
// the block it exits from show as integers: no block follows to say.
std::string formatEvent(const StepEvent& ev, const Program& program, int lanesPerWarp);
std::vector<int64_t> readArray(const MachineState& state, const ArrayPlacement& placement);
// The source line of `block`'s terminator (0 when unknown).
int terminatorLine(const Program& program, int block);
// A fault of the step that ran `block`, located at its terminator's source line: "k.cu:12: divergent ...".
std::string locatedFault(const Program& program, int block, const std::string& fault);
// The source line of an instruction of a block (its body slot; the block's size: the terminator), else of the
// block's terminator; 0 when unknown.
int instructionLine(const Program& program, int block, int instruction);
// "k.cu:8: text" at that line; the text alone when the line or the file is unknown.
std::string locatedAt(const Program& program, int block, int instruction, const std::string& text);
// The run's warnings (division by zero, a full call stack), one line each, located at the source line of the
// instruction that warned and counted over lanes and steps: "k.cu:8: warning: ... (3 times)".
std::vector<std::string> locatedWarnings(const Program& program, const std::vector<StepEvent>& history);
// Some thread found its call stack full: its results are incomplete.
bool callStackFilled(const std::vector<StepEvent>& history);
// Memory the compiler placed for itself, which the listings of arrays leave out: the device header's variables
// (printf's buffer, whose records print as text; the clock; the math library's coefficient tables), Clang's
// string literals and function names (__func__, __PRETTY_FUNCTION__: assert's message).
bool isInternalArray(const ArrayPlacement& placement);
// "name = [v0, v1, ...]" for every array of the launch and variable of the program but the internal ones.
std::string formatArrays(const MachineState& state, const MemoryMap& map);
// The same in one short line: at most `values` elements of each array, then "... (N values)".
std::string summarizeArrays(const MachineState& state, const MemoryMap& map, size_t values = 6);
// How the arrays differ from the launch's "expect": "out[2] = 5, expected 6" (the first differing value of
// each array), or "out holds 3 values, expected 4"; empty when every expected array matches.
std::vector<std::string> expectationMismatches(const MachineState& state, const LaunchSpec& launch,
                                               const MemoryMap& map);
// The part of them about printf: how its texts differ from "expect"."printf" (in any order), or nothing when
// they match or none are expected.
std::optional<std::string> printfExpectationMismatch(const MachineState& state, const LaunchSpec& launch,
                                                     const MemoryMap& map);

}  // namespace qgpu
