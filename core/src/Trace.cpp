#include "qgpu/core/Trace.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "qgpu/core/DevicePrintf.h"

namespace qgpu {

const char* laneStatusName(LaneStatus s) {
    switch (s) {
        case LaneStatus::Absent: return "absent";
        case LaneStatus::Live: return "live";
        case LaneStatus::AtBarrier: return "barrier";
        case LaneStatus::Exited: return "exited";
    }
    return "?";
}

std::string maskString(uint8_t mask, int lanes) {
    std::string s;
    for (int l = 0; l < lanes; ++l) s += (mask & (1u << l)) ? '1' : '0';
    return s;
}

int terminatorLine(const Program& program, int block) {
    return block >= 0 && block < int(program.blocks.size()) ? program.blocks[size_t(block)].terminatorLoc.line : 0;
}

std::string locatedFault(const Program& program, int block, const std::string& fault) {
    int line = terminatorLine(program, block);
    if (program.sourceFile.empty() || line <= 0) return fault;
    return program.sourceFile + ":" + std::to_string(line) + ": " + fault;
}

int instructionLine(const Program& program, int block, int instruction) {
    if (block < 0 || block >= int(program.blocks.size())) return 0;
    const Block& b = program.blocks[size_t(block)];
    int line = instruction < int(b.bodyLocs.size()) ? b.bodyLocs[size_t(instruction)].line : 0;
    return line > 0 ? line : b.terminatorLoc.line;
}

std::string locatedAt(const Program& program, int block, int instruction, const std::string& text) {
    int line = instructionLine(program, block, instruction);
    if (program.sourceFile.empty() || line <= 0) return text;
    return program.sourceFile + ":" + std::to_string(line) + ": " + text;
}

bool callStackFilled(const std::vector<StepEvent>& history) {
    for (const StepEvent& ev : history)
        for (const StepWarning& w : ev.warnings)
            if (w.kind == StepWarning::Kind::Machine && w.code == MachineWarning::CallStackFull) return true;
    return false;
}

std::vector<std::string> locatedWarnings(const Program& program, const std::vector<StepEvent>& history) {
    std::vector<std::pair<std::string, int>> seen;  // in the order they first happened
    for (const StepEvent& ev : history)
        for (const StepWarning& w : ev.warnings) {
            std::string line = locatedAt(program, ev.block, w.instruction, "warning: " + w.text);
            auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == line; });
            if (it == seen.end())
                seen.push_back({line, 1});
            else
                ++it->second;
        }
    std::vector<std::string> out;
    for (const auto& [line, times] : seen)
        out.push_back(times == 1 ? line : line + " (" + std::to_string(times) + " times)");
    return out;
}

namespace {

// A register's word as the debugger reads it: a float where the compiler marks the register as holding one
// at `block`'s start.
std::string registerWord(uint32_t word, const Program& program, int block, int reg) {
    bool isFloat =
        block >= 0 && block < int(program.blocks.size()) && ((program.blocks[size_t(block)].floatRegisters >> reg) & 1);
    return formatWord(int32_t(word), isFloat);
}

// Where a lane of the step goes next (a lane whose pc did not change looped to the same block); -1 once it
// has exited.
int nextBlock(const StepEvent& ev, int thread) {
    for (const LaneChange& c : ev.laneChanges)
        if (c.thread == thread)
            return c.statusAfter == LaneStatus::Live || c.statusAfter == LaneStatus::AtBarrier ? c.pcAfter : -1;
    return ev.block;
}

}  // namespace

std::string formatEvent(const StepEvent& ev, const Program& program, int lanes) {
    std::string label = ev.block < int(program.blocks.size()) ? program.blocks[size_t(ev.block)].label : "?";
    std::string out = "step " + std::to_string(ev.step) + ": warp " + std::to_string(ev.warp) + " block " +
                      std::to_string(ev.block) + " (" + label + ") mask " + maskString(ev.maskBefore, lanes) + " -> " +
                      maskString(ev.maskAfter, lanes);
    if (ev.barrierReleased) out += " [barrier released]";
    out += "\n";
    for (const auto& w : ev.regWrites)
        out += "    t" + std::to_string(w.thread) + ".r" + std::to_string(w.reg) + " = " +
               registerWord(w.after, program, nextBlock(ev, w.thread), w.reg) + " (was " +
               registerWord(w.before, program, ev.block, w.reg) + ")\n";
    for (const auto& w : ev.memWrites)
        out += std::string("    ") +
               (w.space == MemSpace::Global ? "global" : "shared[cta " + std::to_string(w.cta) + "]") + "[" +
               std::to_string(w.addr) + "] = " + std::to_string(int32_t(w.after)) + " (was " +
               std::to_string(int32_t(w.before)) + ")\n";
    for (const auto& w : ev.warnings) out += "    warning: " + w.describe() + "\n";
    if (!ev.fault.empty()) out += "    fault: " + ev.fault + "\n";
    return out;
}

std::vector<int64_t> readArray(const MachineState& state, const ArrayPlacement& p) {
    std::vector<int32_t> words;
    for (int i = 0; i < p.size; ++i) words.push_back(int32_t(state.global[size_t(p.base + i)]));
    return unpackElements(words, p.type, size_t(p.count));
}

bool isInternalArray(const ArrayPlacement& p) {
    // the device header's variables (C++ names a table _ZL29__qgpu_log2_over_coefficients)
    if (p.name.find("__qgpu_") != std::string::npos) return true;
    for (const char* prefix : {"$str", "_$_str", "__func__", "__FUNCTION__", "__PRETTY_FUNCTION__"})
        if (p.name.rfind(prefix, 0) == 0) return true;
    return false;
}

std::string formatArrays(const MachineState& state, const MemoryMap& map) {
    std::string out;
    for (const auto& p : map.arrays) {
        if (isInternalArray(p)) continue;
        out += p.name + " = [";
        auto v = readArray(state, p);
        for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + formatElement(v[i], p.type);
        out += "]\n";
    }
    return out;
}

std::string summarizeArrays(const MachineState& state, const MemoryMap& map, size_t values) {
    std::string out;
    for (const auto& p : map.arrays) {
        if (isInternalArray(p)) continue;
        auto v = readArray(state, p);
        out += (out.empty() ? "" : "  ") + p.name + " = [";
        for (size_t i = 0; i < v.size() && i < values; ++i) out += (i ? ", " : "") + formatElement(v[i], p.type);
        out += v.size() > values ? ", ... (" + std::to_string(v.size()) + " values)]" : "]";
    }
    return out;
}

namespace {

// A text of `a` that `b` lacks (counting repeats), quoted with C's escapes for a newline and a quote.
std::optional<std::string> missingText(std::vector<std::string> a, std::vector<std::string> b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::vector<std::string> extra;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(extra));
    if (extra.empty()) return std::nullopt;
    std::string quoted = "\"";
    for (char c : extra.front()) quoted += c == '\n' ? "\\n" : c == '"' ? "\\\"" : std::string(1, c);
    return quoted + "\"";
}

}  // namespace

std::optional<std::string> printfExpectationMismatch(const MachineState& state, const LaunchSpec& launch,
                                                     const MemoryMap& map) {
    if (launch.expectPrintf.empty()) return std::nullopt;
    std::vector<std::string> got = readDevicePrintf(state.global, map).sortedTexts();
    if (auto extra = missingText(got, launch.expectPrintf))
        return "printf printed " + *extra + ", which \"printf\" does not expect (" + std::to_string(got.size()) +
               " calls printed, " + std::to_string(launch.expectPrintf.size()) + " expected)";
    if (auto missing = missingText(launch.expectPrintf, got))
        return "printf did not print " + *missing + " (" + std::to_string(got.size()) + " calls printed, " +
               std::to_string(launch.expectPrintf.size()) + " expected)";
    return std::nullopt;
}

std::vector<std::string> expectationMismatches(const MachineState& state, const LaunchSpec& launch,
                                               const MemoryMap& map) {
    std::vector<std::string> out;
    if (auto bad = printfExpectationMismatch(state, launch, map)) out.push_back(*bad);
    for (const auto& [name, expected] : launch.expect) {
        const ArrayPlacement* p = map.find(name);
        if (!p) {
            out.push_back("the launch has no array named " + name);
            continue;
        }
        std::vector<int64_t> got = readArray(state, *p);
        if (got.size() != expected.size()) {
            out.push_back(name + " holds " + std::to_string(got.size()) + " values, expected " +
                          std::to_string(expected.size()));
            continue;
        }
        for (size_t i = 0; i < got.size(); ++i)
            if (got[i] != expected[i]) {
                out.push_back(name + "[" + std::to_string(i) + "] = " + formatElement(got[i], p->type) + ", expected " +
                              formatElement(expected[i], p->type));
                break;
            }
    }
    return out;
}

}  // namespace qgpu
