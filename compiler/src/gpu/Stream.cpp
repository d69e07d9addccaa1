#include "qgpu/compiler/gpu/Stream.h"

#include <stdexcept>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/Trace.h"

namespace qgpu::gpu {

ReferenceLaunch referenceLaunch(const Program& program, const LaunchSpec& launch, int maxSteps) {
    Interpreter interp(program, launch);
    ReferenceLaunch out;
    out.initialGlobal = interp.state().global;
    // The model visits warps in order: a warp that leaves (all its lanes exited or at the barrier) passes
    // to the next one, and the model writes an empty EXEC for a warp with nothing to run. When a thread
    // block's last warp leaves with lanes at the barrier, it writes RELEASE and goes back to the block's
    // first warp.
    int warpsPerBlock = (launch.threadsPerBlock() + kLanes - 1) / kLanes, cursor = 0, epoch = 0;
    std::vector<StepEvent> warned;
    auto passUpTo = [&](int warp) {
        for (; cursor < warp; ++cursor) {
            Token empty{Kind::Exec};
            empty.warp = cursor;
            out.stream.push_back(empty);
        }
    };
    for (int steps = 0; !interp.done(); ++steps) {
        if (steps == maxSteps)
            failAt(program.sourceFile, "the launch does not end within " + std::to_string(maxSteps) +
                                           " warp steps (the reference interpreter's run); check the kernel for "
                                           "an endless loop, or raise the limit (--max-steps)");
        StepEvent ev = interp.step();
        if (!ev.warnings.empty()) warned.push_back(ev);
        passUpTo(ev.warp);
        Token exec{Kind::Exec};
        exec.block = ev.block, exec.warp = ev.warp, exec.mask = ev.maskBefore;
        out.stream.push_back(exec);
        // The writes come slot by slot, lanes ascending: exactly the VAL records' order.
        size_t nextReg = 0, nextMem = 0;
        const Block& block = program.blocks[size_t(ev.block)];
        for (size_t slot = 0; slot < block.body.size(); ++slot) {
            if (!producesValue(block.body[slot])) continue;
            const Instruction& in = block.body[slot];
            bool store = in.op == Opcode::StGlobal || in.op == Opcode::StShared;
            bool atomic = in.op == Opcode::AtomGlobal || in.op == Opcode::AtomShared;
            for (int lane = 0; lane < kLanes; ++lane) {
                if (!(ev.maskBefore >> lane & 1)) continue;
                bool fromMemory = store || atomic, toRegister = !store && in.rd != 0;
                if ((fromMemory && nextMem >= ev.memWrites.size()) || (toRegister && nextReg >= ev.regWrites.size()))
                    throw std::logic_error("fewer writes than records");
                // A store records what it writes; an atomic the old word (what rd receives).
                uint32_t value = store    ? ev.memWrites[nextMem].after
                                 : atomic ? ev.memWrites[nextMem].before
                                          : ev.regWrites[nextReg].after;
                nextMem += fromMemory;
                nextReg += toRegister;
                for (Token val : spellWord(Kind::Val, value)) {
                    val.slot = int(slot), val.lane = lane;
                    out.stream.push_back(val);
                }
            }
        }
        if (!ev.fault.empty()) {  // the lanes that did not arrive, and the launch ends
            Token fault{Kind::Fault};
            fault.mask = ev.liveBefore & ~ev.maskBefore;
            out.stream.push_back(fault);
            out.fault = ev.fault;
            break;
        }
        if (ev.barrierReleased || ev.maskAfter == 0) cursor = ev.warp + 1;
        if (ev.barrierReleased) {
            passUpTo((ev.cta + 1) * warpsPerBlock);
            Token release{Kind::Release};
            release.epoch = epoch ^= 1;
            out.stream.push_back(release);
            cursor = ev.cta * warpsPerBlock;
        }
    }
    if (out.fault.empty()) {
        passUpTo(int(threadSlots(launch.grid, launch.block).back()) / kLanes + 1);
        out.stream.push_back({Kind::End});
    }
    out.warned = std::move(warned);
    out.global = interp.state().global;
    out.shared = interp.state().shared;
    for (int slot : threadSlots(launch.grid, launch.block))
        out.registers.push_back(interp.state().lane(slot / kLanes, slot % kLanes).regs);
    return out;
}

long firstMismatch(const std::vector<Token>& model, const std::vector<Token>& reference) {
    size_t i = 0;
    while (i < model.size() && i < reference.size() && model[i] == reference[i]) ++i;
    return i == model.size() && i == reference.size() ? -1 : long(i);
}

std::string formatTokens(const std::vector<Token>& tokens, size_t from, size_t count) {
    std::string s;
    for (size_t i = from; i < tokens.size() && i - from < count; ++i) s += (s.empty() ? "" : " ") + tokens[i].text();
    return s;
}

}  // namespace qgpu::gpu
