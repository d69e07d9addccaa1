#include "qgpu/compiler/Lowering.h"

#include "DebugInfo.h"
#include "InstructionSelection.h"
#include "Passes.h"
#include "qgpu/core/Assembler.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Launch.h"

namespace qgpu {

namespace {

constexpr const char* kFmaRegisterAdvice =
    " (a fused multiply-add holds about 11 registers while it runs: fmaf, and a * b + c, which CUDA compiles into "
    "one; `--fmad false` keeps a * b + c a product and a sum, which hold fewer)";

LoweredKernel lowerSelection(lowering::Selection sel, const std::string& cudaFile, const MachineSpec& spec) {
    // No program of more blocks than this before optimization fits the ROM; the passes below recurse over
    // the control-flow graph, so a larger one is refused before them.
    size_t selected = sel.program.blocks.size(), most = size_t(spec.romBlocks) * 64;
    if (selected > most)
        throw DiagnosticError(Diagnostic{
            cudaFile, 0, 0,
            "the kernel's code makes " + std::to_string(selected) + " blocks before optimization, past the " +
                std::to_string(most) + " (64 times the ROM's " + std::to_string(spec.romBlocks) +
                " blocks) from which any kernel could still fit; make the kernel smaller"});
    lowering::simplifyControlFlow(sel.program);
    lowering::foldConstants(sel.program);
    LoweredKernel out;
    out.name = sel.kernelName;
    out.shared = sel.shared;
    lowering::SpillFrame frame{spec.lanesPerWarp, sel.localWords, 0};
    out.registersUsed = lowering::allocateRegisters(sel.program, spec.usableRegisters(), cudaFile,
                                                    sel.usesFma ? kFmaRegisterAdvice : "", &frame);
    out.spilledValues = frame.spilled;
    lowering::simplifyControlFlow(sel.program);  // coalesced moves can leave blocks empty
    lowering::separateExits(sel.program);
    lowering::layoutBlocks(sel.program, spec.slotsPerBlock, out.program, out.lineMap);
    out.program.sharedWords = sel.sharedWords;
    out.program.params = sel.params;
    out.program.globals = sel.globals;
    out.program.dynamicShared = sel.dynamicShared;
    out.program.localWords = sel.localWords + frame.spilled;
    out.program.sourceFile = cudaFile;
    return out;
}

}  // namespace

LoweredKernel lowerKernel(const ptx::Module& module, const std::vector<std::string>& paramNames,
                          const std::string& cudaFile, const MachineSpec& spec, int callDepth) {
    lowering::Selection sel = lowering::selectInstructions(module, paramNames, cudaFile, spec, callDepth);
    bool fmaBesideAddOrMul = sel.fmaBesideAddOrMul;
    std::string debugWarning;
    std::vector<ProgramVariable> variables = lowering::programVariables(module, sel.localOffsets, debugWarning);
    LoweredKernel out = lowerSelection(std::move(sel), cudaFile, spec);
    // Too long with separate float routines: adds and multiplies share the fma routine instead.
    if (int(out.program.blocks.size()) > spec.romBlocks && fmaBesideAddOrMul) try {
            LoweredKernel shared = lowerSelection(
                lowering::selectInstructions(module, paramNames, cudaFile, spec, callDepth, true), cudaFile, spec);
            if (shared.program.blocks.size() < out.program.blocks.size()) out = std::move(shared);
        } catch (const DiagnosticError&) {  // no better: the ROM's error below stands
        }
    int blocks = int(out.program.blocks.size());
    if (blocks > spec.romBlocks)
        throw DiagnosticError(Diagnostic{cudaFile, 0, 0,
                                         "the kernel needs " + std::to_string(blocks) +
                                             " machine blocks but the ROM holds " + std::to_string(spec.romBlocks) +
                                             "; make the kernel smaller"});
    out.program.variables = std::move(variables);
    out.debugWarning = std::move(debugWarning);
    return out;
}

std::string formatVariables(const LoweredKernel& k) {
    const std::vector<ProgramVariable>& vars = k.program.variables;
    if (vars.empty())
        return "; kernel " + k.name + ": no variable locations (build with -O0 -g; optimized builds keep line " +
               "tables only)\n";
    std::string out = "; kernel " + k.name + ": " + std::to_string(vars.size()) +
                      " variables; a thread's frame in local memory holds " + std::to_string(k.program.localWords) +
                      " words\n; function: name, type, declared, scope, where it lives\n";
    for (const ProgramVariable& v : vars) {
        std::string where = v.frameByte < 0 ? "gone (optimized out)"
                                            : "local memory, frame bytes " + std::to_string(v.frameByte) + ".." +
                                                  std::to_string(v.frameByte + std::max(v.bytes, 1) - 1);
        out += v.function + ": " + v.name + "  " + v.typeName + (v.parameter ? "  parameter" : "") + "  line " +
               std::to_string(v.declLine) + "  lines " + std::to_string(v.firstLine) + "-" +
               std::to_string(v.lastLine) + "  " + where + "\n";
    }
    return out;
}

std::string formatLowered(const LoweredKernel& k) {
    const Program& p = k.program;
    std::string out = "; kernel " + k.name + ": " + std::to_string(p.blocks.size()) + " blocks, " +
                      std::to_string(k.registersUsed) + " registers, " + std::to_string(p.sharedWords) +
                      " shared words\n";
    for (size_t i = 0; i < p.params.size(); ++i)
        out +=
            "; #" + std::to_string(i) + " = " + p.params[i].name + (p.params[i].isArray ? " (array)\n" : " (scalar)\n");
    for (const auto& s : k.shared)
        out += "; shared " + s.name + " at " + std::to_string(s.base) + ", " +
               (s.name == p.dynamicShared ? "the launch's shared_bytes" : std::to_string(s.words) + " words") + "\n";
    for (const auto& g : p.globals)
        out += "; global " + g.name + ": " + std::to_string(g.values.size()) + " " + elementTypeName(g.element) +
               " values after the launch's arrays\n";
    if (p.localWords)
        out += "; local memory: " + std::to_string(p.localWords) + " words a thread" +
               (k.spilledValues ? ", " + std::to_string(k.spilledValues) + " of them spilled values" : "") + "\n";
    if (p.sharedWords) out += ".shared " + std::to_string(p.sharedWords) + "\n";
    // A listing line with a comment in the column after the instructions.
    auto commented = [](const std::string& text, const std::string& comment) {
        return text + std::string(text.size() < 40 ? 40 - text.size() : 1, ' ') + "; " + comment + "\n";
    };
    for (const auto& b : p.blocks) {
        std::string floats;
        for (int r = 1; r < 16; ++r)
            if (b.floatRegisters & (1u << r)) floats += (floats.empty() ? "" : ", ") + ("r" + std::to_string(r));
        out += floats.empty() ? b.label + ":\n" : commented(b.label + ":", "floats: " + floats);
        for (size_t i = 0; i < b.body.size(); ++i) {
            int line = i < b.bodyLocs.size() ? b.bodyLocs[i].line : 0;
            out += commented("    " + disassemble(b.body[i], &p), "line " + std::to_string(line));
        }
        out += "    " + disassemble(b.terminator, &p) + "\n";
    }
    return out;
}

}  // namespace qgpu
