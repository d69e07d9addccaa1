#include "qgpu/core/Variables.h"

#include <cstdio>

namespace qgpu {

namespace {

// The variable's bytes in the thread's frame; fewer where the frame runs past global memory.
std::vector<uint8_t> frameBytes(const MachineState& state, const MemoryMap& map, const Program& program,
                                const ProgramVariable& v, int slot) {
    std::vector<uint8_t> out;
    int64_t first = (int64_t(map.localBase) + int64_t(slot) * program.localWords) * 4 + v.frameByte;
    for (int64_t b = first; b < first + v.bytes; ++b) {
        size_t word = size_t(b / 4);
        if (b < 0 || word >= state.global.size()) break;
        out.push_back(uint8_t(state.global[word] >> (8 * (b % 4))));
    }
    return out;
}

std::string hexBytes(const std::vector<uint8_t>& bytes) {
    std::string out = "{";
    for (size_t i = 0; i < bytes.size() && i < 16; ++i) {
        char text[4];
        std::snprintf(text, sizeof text, "%02x", bytes[i]);
        out += (i ? " " : "") + std::string(text);
    }
    return out + (bytes.size() > 16 ? " ...}" : "}");
}

std::string formatPointer(int64_t address, const MemoryMap& map) {
    if (address == 0) return "nullptr";
    for (const ArrayPlacement& a : map.arrays) {
        int64_t offset = address - int64_t(a.base) * 4;
        if (offset >= 0 && offset < int64_t(a.size) * 4)
            return "&" + a.name + "[" + std::to_string(offset / elementBytes(a.type)) + "]";
    }
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
    return text;
}

// "t", or "helper::t" for a variable of a device function (the kernel's variables come first).
std::string qualifiedName(const Program& program, const ProgramVariable& v) {
    return v.function == program.variables.front().function ? v.name : v.function + "::" + v.name;
}

}  // namespace

std::optional<int64_t> readVariable(const MachineState& state, const MemoryMap& map, const Program& program,
                                    const ProgramVariable& v, int slot) {
    if (v.frameByte < 0 || v.kind == ProgramVariable::Kind::Aggregate) return std::nullopt;
    std::vector<uint8_t> bytes = frameBytes(state, map, program, v, slot);
    if (int(bytes.size()) != v.bytes || v.bytes > 8) return std::nullopt;
    uint64_t value = 0;
    for (size_t i = 0; i < bytes.size(); ++i) value |= uint64_t(bytes[i]) << (8 * i);
    bool isSigned = v.element == ElementType::I8 || v.element == ElementType::I16 || v.element == ElementType::I32;
    int bits = 8 * v.bytes;
    if (isSigned && bits < 64 && (value >> (bits - 1)) & 1) value |= ~uint64_t(0) << bits;
    return int64_t(value);
}

std::string formatVariable(const MachineState& state, const MemoryMap& map, const Program& program,
                           const ProgramVariable& v, int slot) {
    if (v.frameByte < 0) return "(optimized out)";
    if (v.kind == ProgramVariable::Kind::Aggregate) return hexBytes(frameBytes(state, map, program, v, slot));
    std::optional<int64_t> value = readVariable(state, map, program, v, slot);
    if (!value) return "(outside memory)";
    if (v.kind == ProgramVariable::Kind::Pointer) return formatPointer(*value, map);
    return formatElement(*value, v.element);
}

std::string formatThreadVariables(const MachineState& state, const MemoryMap& map, const Program& program,
                                  const LaunchSpec& launch, const MachineSpec& spec) {
    std::string out;
    int threads = launch.threadsPerBlock(), warps = launch.warpsPerBlock(spec);
    for (int cta = 0; cta < launch.grid.count(); ++cta)
        for (int t = 0; t < threads; ++t) {
            int slot = (cta * warps + t / spec.lanesPerWarp) * spec.lanesPerWarp + t % spec.lanesPerWarp;
            out += "thread " + std::to_string(cta * threads + t) + " (block " + std::to_string(cta) + ", " +
                   std::to_string(t) + "):";
            for (const ProgramVariable& v : program.variables)
                out += (&v == &program.variables.front() ? " " : ", ") + qualifiedName(program, v) + " = " +
                       formatVariable(state, map, program, v, slot);
            out += "\n";
        }
    return out;
}

}  // namespace qgpu
