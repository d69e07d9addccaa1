#include "qgpu/core/Interpreter.h"

#include <algorithm>

#include "qgpu/core/Alu.h"
#include "qgpu/core/Diagnostic.h"

namespace qgpu {

struct Interpreter::Exec {
    StepEvent ev;
    int warp = 0;
    uint8_t mask = 0;
    int firstSlot() const { return ev.warp * lanes; }
    int lanes = 4;
};

namespace {

std::string laneList(uint8_t mask, int lanes) {
    std::string s;
    for (int l = 0; l < lanes; ++l)
        if (mask & (1u << l)) s += (s.empty() ? "" : ",") + std::to_string(l);
    return "{" + s + "}";
}

}  // namespace

std::string divergentBarrierFault(int warp, int cta, int block, uint8_t arrived,
                                  const std::vector<std::pair<int, int>>& elsewhere) {
    std::string where;
    for (const auto& [lane, pc] : elsewhere)
        where += (where.empty() ? " lane " : ", lane ") + std::to_string(lane) + " at block " + std::to_string(pc);
    return "divergent barrier: warp " + std::to_string(warp) + " (thread block " + std::to_string(cta) +
           ") reached __syncthreads() at the end of block " + std::to_string(block) + " with lanes " +
           laneList(arrived, 4) + " while" + where +
           " did not; every thread of a block must reach the barrier (or return before it)";
}

namespace {

MemoryMap placedMemory(const Program& program, const LaunchSpec& launch, const MachineSpec& spec) {
    MemoryMap map = validateLaunch(launch, spec);
    placeProgramGlobals(map, program, launch, spec);
    return map;
}

}  // namespace

Interpreter::Interpreter(Program program, LaunchSpec launch, MachineSpec spec)
    : m_program(std::move(program)),
      m_launch(std::move(launch)),
      m_spec(spec),
      m_map(placedMemory(m_program, m_launch, m_spec)),
      m_bounds(m_program, m_map, size_t(m_launch.grid.count() * m_launch.warpsPerBlock(m_spec) * m_spec.lanesPerWarp)) {
    int wpb = m_launch.warpsPerBlock(m_spec);
    int lanes = m_spec.lanesPerWarp;
    m_state.lanesPerWarp = lanes;
    m_state.warpsPerBlock = wpb;
    m_state.threads.resize(size_t(m_launch.grid.count() * wpb * lanes));
    for (size_t slot = 0; slot < m_state.threads.size(); ++slot) {
        int inBlock = int(slot) % (wpb * lanes);
        if (inBlock < m_launch.threadsPerBlock()) m_state.threads[slot].status = LaneStatus::Live;
    }
    m_state.global.assign(size_t(m_spec.globalWords), 0);
    for (const auto& p : m_map.arrays) {
        const KernelArg* a = m_launch.arg(p.name);
        if (!a) a = m_launch.symbol(p.name);
        std::vector<int32_t> words = a ? packElements(a->values, a->type) : globalWords(p.name);
        for (int i = 0; i < p.size; ++i) m_state.global[size_t(p.base + i)] = uint32_t(words[size_t(i)]);
    }
    m_state.shared.assign(size_t(m_launch.grid.count()), std::vector<uint32_t>(size_t(m_spec.sharedWords), 0));
}

std::vector<int32_t> Interpreter::globalWords(const std::string& name) const {
    for (const ProgramGlobal& g : m_program.globals)
        if (g.name == name) return packElements(g.values, g.element);
    return {};
}

uint32_t Interpreter::specialReg(int slot, SpecialReg r) const {
    int lanes = m_spec.lanesPerWarp, wpb = m_state.warpsPerBlock;
    int warp = slot / lanes, lane = slot % lanes;
    int cta = warp / wpb, t = (warp % wpb) * lanes + lane;
    const Dim3 &b = m_launch.block, &g = m_launch.grid;
    switch (r) {
        case SpecialReg::TidX: return uint32_t(t % b.x);
        case SpecialReg::TidY: return uint32_t(t / b.x % b.y);
        case SpecialReg::TidZ: return uint32_t(t / (b.x * b.y));
        case SpecialReg::NtidX: return uint32_t(b.x);
        case SpecialReg::NtidY: return uint32_t(b.y);
        case SpecialReg::NtidZ: return uint32_t(b.z);
        case SpecialReg::CtaidX: return uint32_t(cta % g.x);
        case SpecialReg::CtaidY: return uint32_t(cta / g.x % g.y);
        case SpecialReg::CtaidZ: return uint32_t(cta / (g.x * g.y));
        case SpecialReg::NctaidX: return uint32_t(g.x);
        case SpecialReg::NctaidY: return uint32_t(g.y);
        case SpecialReg::NctaidZ: return uint32_t(g.z);
        case SpecialReg::LaneId: return uint32_t(lane);
        case SpecialReg::WarpId: return uint32_t(warp % wpb);
        case SpecialReg::Count_: break;
    }
    return 0;
}

uint8_t Interpreter::maskOf(int warp) const {
    int lanes = m_spec.lanesPerWarp, minPc = INT32_MAX;
    for (int l = 0; l < lanes; ++l) {
        const ThreadState& t = m_state.threads[size_t(warp * lanes + l)];
        if (t.status == LaneStatus::Live) minPc = std::min(minPc, t.pc);
    }
    uint8_t mask = 0;
    for (int l = 0; l < lanes; ++l) {
        const ThreadState& t = m_state.threads[size_t(warp * lanes + l)];
        if (t.status == LaneStatus::Live && t.pc == minPc) mask |= uint8_t(1u << l);
    }
    return mask;
}

NextStep Interpreter::peek() const {
    for (int w = 0; w < m_state.warpCount(); ++w) {
        uint8_t mask = maskOf(w);
        if (!mask) continue;
        int lane = __builtin_ctz(mask);
        return {w, m_state.threads[size_t(w * m_spec.lanesPerWarp + lane)].pc, mask};
    }
    return {};
}

std::vector<uint32_t>& Interpreter::memory(MemSpace space, int cta) {
    return space == MemSpace::Global ? m_state.global : m_state.shared[size_t(cta)];
}

int Interpreter::wordIndex(MemSpace space, uint32_t addr, Exec& x, int lane, int instr) {
    uint32_t size = uint32_t(memory(space, x.ev.cta).size());
    if (addr < size) return int(addr);
    x.ev.warnings.push_back({StepWarning::Kind::AddressWrapped,
                             {},
                             instr,
                             lane,
                             std::string(space == MemSpace::Global ? "global" : "shared") + " address " +
                                 std::to_string(int32_t(addr)) + " is outside 0.." + std::to_string(size - 1) +
                                 "; wrapped to " + std::to_string(addr % size)});
    return int(addr % size);
}

void Interpreter::checkBounds(Exec& x, const Instruction& in, int instr, int lane, uint32_t address) {
    bool global = in.op == Opcode::LdGlobal || in.op == Opcode::StGlobal || in.op == Opcode::AtomGlobal;
    std::string text = global ? m_bounds.check(x.firstSlot() + lane, x.ev.block, instr, in, address) : "";
    if (!text.empty()) x.ev.warnings.push_back({StepWarning::Kind::OutOfBounds, {}, instr, lane, std::move(text)});
}

void Interpreter::storeWord(Exec& x, MemSpace space, int index, uint32_t value, int thread) {
    uint32_t& w = memory(space, x.ev.cta)[size_t(index)];
    x.ev.memWrites.push_back({space, x.ev.cta, index, w, value, thread});
    w = value;
}

void Interpreter::execute(Exec& x, const Instruction& in, int instr) {
    if (in.op >= Opcode::ShflIdx && in.op <= Opcode::ShflBfly) return executeShuffle(x, in, instr);
    for (int l = 0; l < x.lanes; ++l) {
        if (!(x.mask & (1u << l))) continue;
        int thread = x.firstSlot() + l;
        ThreadState& t = m_state.threads[size_t(thread)];
        uint32_t a = t.regs[in.rs1], b = in.useImm ? in.imm : t.regs[in.rs2];
        std::optional<uint32_t> result;
        MemSpace space = MemSpace::Global;
        switch (in.op) {
            case Opcode::Sel: result = t.regs[in.rc] != 0 ? a : b; break;
            case Opcode::Sreg: result = specialReg(thread, SpecialReg(in.imm)); break;
            case Opcode::Warn:
                if (t.regs[in.rc] == 0) break;
                x.ev.warnings.push_back(
                    {StepWarning::Kind::Machine, MachineWarning(in.imm), instr, l, machineWarningText(in.imm)});
                break;
            case Opcode::LdShared: space = MemSpace::Shared; [[fallthrough]];
            case Opcode::LdGlobal:
                checkBounds(x, in, instr, l, a + in.imm);
                result = memory(space, x.ev.cta)[size_t(wordIndex(space, a + in.imm, x, l, instr))];
                break;
            case Opcode::StShared: space = MemSpace::Shared; [[fallthrough]];
            case Opcode::StGlobal:
                checkBounds(x, in, instr, l, a + in.imm);
                storeWord(x, space, wordIndex(space, a + in.imm, x, l, instr), t.regs[in.rs2], thread);
                break;
            case Opcode::AtomShared: space = MemSpace::Shared; [[fallthrough]];
            case Opcode::AtomGlobal: {
                checkBounds(x, in, instr, l, a + in.imm);
                int index = wordIndex(space, a + in.imm, x, l, instr);
                result = memory(space, x.ev.cta)[size_t(index)];
                storeWord(x, space, index, *result + t.regs[in.rs2], thread);
                break;
            }
            default: result = aluResult(in.op, a, b); break;
        }
        if (result && in.rd != 0) {
            m_bounds.follow(thread, x.ev.block, instr, in, t.regs[in.rc]);
            x.ev.regWrites.push_back({thread, in.rd, t.regs[in.rd], *result});
            t.regs[in.rd] = *result;
        }
    }
}

void Interpreter::executeShuffle(Exec& x, const Instruction& in, int instr) {
    int width = 1 << in.aux;
    std::vector<uint32_t> src(size_t(x.lanes));
    for (int l = 0; l < x.lanes; ++l) src[size_t(l)] = m_state.threads[size_t(x.firstSlot() + l)].regs[in.rs1];
    for (int l = 0; l < x.lanes; ++l) {
        if (!(x.mask & (1u << l))) continue;
        ThreadState& t = m_state.threads[size_t(x.firstSlot() + l)];
        int bval = int((in.useImm ? in.imm : t.regs[in.rs2]) & 31);
        int minLane = l & ~(width - 1), maxLane = minLane + width - 1, j = l;
        bool valid = true;
        switch (in.op) {
            case Opcode::ShflUp:
                j = l - bval;
                valid = j >= minLane;
                break;
            case Opcode::ShflDown:
                j = l + bval;
                valid = j <= maxLane;
                break;
            case Opcode::ShflBfly:
                j = l ^ bval;
                valid = j <= maxLane;
                break;
            default: j = minLane | (bval & (width - 1)); break;
        }
        if (!valid) j = l;
        if (!(x.mask & (1u << j))) {
            x.ev.warnings.push_back({StepWarning::Kind::InactiveLane,
                                     {},
                                     instr,
                                     l,
                                     std::string(opcodeInfo(in.op).mnemonic) + " reads lane " + std::to_string(j) +
                                         ", which is inactive; the lane gets its own value"});
            j = l;
        }
        if (in.rd != 0) {
            m_bounds.follow(x.firstSlot() + l, x.ev.block, instr, in, 0);
            x.ev.regWrites.push_back({x.firstSlot() + l, in.rd, t.regs[in.rd], src[size_t(j)]});
            t.regs[in.rd] = src[size_t(j)];
        }
    }
}

void Interpreter::terminate(Exec& x, const Instruction& term) {
    uint8_t live = 0;
    for (int l = 0; l < x.lanes; ++l)
        if (m_state.threads[size_t(x.firstSlot() + l)].status == LaneStatus::Live) live |= uint8_t(1u << l);
    if (term.op == Opcode::Bar && live != x.mask) {  // the arrived lanes still wait: the fault ends the launch
        std::vector<std::pair<int, int>> elsewhere;
        for (int l = 0; l < x.lanes; ++l)
            if ((live & ~x.mask) & (1u << l)) elsewhere.push_back({l, m_state.threads[size_t(x.firstSlot() + l)].pc});
        x.ev.fault = divergentBarrierFault(x.ev.warp, x.ev.cta, x.ev.block, x.mask, elsewhere);
    }
    for (int l = 0; l < x.lanes; ++l) {
        if (!(x.mask & (1u << l))) continue;
        ThreadState& t = m_state.threads[size_t(x.firstSlot() + l)];
        LaneChange c{x.firstSlot() + l, t.pc, t.pc, t.status, t.status};
        switch (term.op) {
            case Opcode::Jmp: c.pcAfter = term.target(); break;
            case Opcode::Br: c.pcAfter = t.regs[term.rc] != 0 ? term.target() : term.elseTarget(); break;
            case Opcode::Bar:
                c.pcAfter = term.target();
                c.statusAfter = LaneStatus::AtBarrier;
                break;
            default: c.statusAfter = LaneStatus::Exited; break;
        }
        t.pc = c.pcAfter;
        t.status = c.statusAfter;
        x.ev.laneChanges.push_back(c);
    }
}

void Interpreter::releaseBarrierIfComplete(Exec& x) {
    int per = m_state.warpsPerBlock * x.lanes, first = x.ev.cta * per;
    bool anyWaiting = false;
    for (int s = first; s < first + per; ++s) {
        LaneStatus st = m_state.threads[size_t(s)].status;
        if (st == LaneStatus::Live) return;
        anyWaiting = anyWaiting || st == LaneStatus::AtBarrier;
    }
    if (!anyWaiting) return;
    for (int s = first; s < first + per; ++s) {
        ThreadState& t = m_state.threads[size_t(s)];
        if (t.status != LaneStatus::AtBarrier) continue;
        auto it = std::find_if(x.ev.laneChanges.begin(), x.ev.laneChanges.end(),
                               [s](const LaneChange& c) { return c.thread == s; });
        if (it == x.ev.laneChanges.end())
            it = x.ev.laneChanges.insert(x.ev.laneChanges.end(), {s, t.pc, t.pc, t.status, t.status});
        it->statusAfter = t.status = LaneStatus::Live;
    }
    x.ev.barrierReleased = true;
}

StepEvent Interpreter::step() {
    NextStep next = peek();
    if (done() || next.warp < 0) return {};
    Exec x;
    x.lanes = m_spec.lanesPerWarp;
    x.mask = next.mask;
    x.ev.step = m_state.steps;
    x.ev.warp = next.warp;
    x.ev.cta = next.warp / m_state.warpsPerBlock;
    x.ev.block = next.block;
    x.ev.maskBefore = next.mask;
    for (int l = 0; l < x.lanes; ++l)
        if (m_state.threads[size_t(next.warp * x.lanes + l)].status == LaneStatus::Live)
            x.ev.liveBefore |= uint8_t(1u << l);
    const Block& block = m_program.blocks.at(size_t(next.block));
    for (size_t i = 0; i < block.body.size(); ++i) execute(x, block.body[i], int(i));
    terminate(x, block.terminator);
    if (!x.ev.fault.empty()) {
        m_state.steps = x.ev.step + 1;
        m_state.run = RunState::Faulted;
        m_state.fault = x.ev.fault;
        return x.ev;
    }
    releaseBarrierIfComplete(x);
    x.ev.maskAfter = maskOf(x.ev.warp);
    m_state.steps = x.ev.step + 1;
    if (peek().warp < 0) m_state.run = RunState::Finished;
    return x.ev;
}

void Interpreter::apply(const StepEvent& ev, bool forward) {
    auto memOf = [&](const MemWrite& w) -> uint32_t& { return memory(w.space, w.cta)[size_t(w.addr)]; };
    if (forward) {
        for (const auto& w : ev.regWrites) m_state.threads[size_t(w.thread)].regs[size_t(w.reg)] = w.after;
        for (const auto& w : ev.memWrites) memOf(w) = w.after;
        for (const auto& c : ev.laneChanges) {
            m_state.threads[size_t(c.thread)].pc = c.pcAfter;
            m_state.threads[size_t(c.thread)].status = c.statusAfter;
        }
        m_state.steps = ev.step + 1;
    } else {
        for (auto it = ev.regWrites.rbegin(); it != ev.regWrites.rend(); ++it)
            m_state.threads[size_t(it->thread)].regs[size_t(it->reg)] = it->before;
        for (auto it = ev.memWrites.rbegin(); it != ev.memWrites.rend(); ++it) memOf(*it) = it->before;
        for (const auto& c : ev.laneChanges) {
            m_state.threads[size_t(c.thread)].pc = c.pcBefore;
            m_state.threads[size_t(c.thread)].status = c.statusBefore;
        }
        m_state.steps = ev.step;
    }
    m_state.fault.clear();
    m_state.run = peek().warp < 0 ? RunState::Finished : RunState::Running;
    if (forward && !ev.fault.empty()) m_state.run = RunState::Faulted, m_state.fault = ev.fault;
}

MachineState runToCompletion(Interpreter& interp, int maxSteps) {
    while (!interp.done()) {
        if (interp.state().steps >= maxSteps)
            throw DiagnosticError(Diagnostic{
                "", 0, 0,
                "the launch did not finish within " + std::to_string(maxSteps) + " steps; check for an endless loop"});
        interp.step();
    }
    if (interp.state().run == RunState::Faulted) throw DiagnosticError(Diagnostic{"", 0, 0, interp.state().fault});
    return interp.state();
}

}  // namespace qgpu
