// The machine's datapath: the next record's operands, the ALU, special registers, shuffles, and global and
// shared memory.
#include "MachineParts.h"
#include "qgpu/compiler/circuit/Alu.h"
#include "qgpu/compiler/gpu/Alphabet.h"
#include "qgpu/compiler/gpu/Machine.h"

namespace qgpu::gpu::detail {

namespace {

// The lane a shuffle reads (docs/isa.md, "Shuffles"): its source j by mode, width and b (when valid), or the
// reader itself when j is not valid or not active in this step. One-hot.
Value shuffleSource(Scheduler& s, const Control& ctl, Value b) {
    auto source = s.gadget(
        "shuffle_lane", 1, {ctl.fieldsNext, ctl.laneNext, b}, {4},
        [](Circuit& c, int first, const Dims& d, const Dims& o) {
            const Opcode modes[4] = {Opcode::ShflIdx, Opcode::ShflUp, Opcode::ShflDown, Opcode::ShflBfly};
            for (Opcode mode : modes)
                for (int aux = 0; aux < 3; ++aux)
                    for (int l = 0; l < 4; ++l)
                        for (int low = 0; low < 4; ++low) {
                            // b & 31 in 0..3 (idx reads only its low bits; for the
                            // others b >= 4 is never valid)
                            int width = 1 << aux, minLane = l & ~(width - 1);
                            int maxLane = minLane + width - 1, j = 0;
                            bool valid = true;
                            switch (mode) {
                                case Opcode::ShflUp: j = l - low, valid = j >= minLane; break;
                                case Opcode::ShflDown: j = l + low, valid = j <= maxLane; break;
                                case Opcode::ShflBfly: j = l ^ low, valid = j <= maxLane; break;
                                default: j = minLane | (low & (width - 1)); break;
                            }
                            if (!valid) continue;
                            Terms t{{d[1][size_t(l)], 1}};
                            int ones = 1 + spell(t, d[0], 0, 6, uint32_t(mode)) + spell(t, d[0], 23, 2, uint32_t(aux)) +
                                       spell(t, d[2], 0, 2, uint32_t(low));
                            if (mode != Opcode::ShflIdx) spell(t, d[2], 2, 3, 0);
                            all(c, first, t, ones, o[0][size_t(j)]);
                        }
        })[0];
    return s.gadget("shuffle_source", 1, {source, ctl.laneNext, ctl.execR}, {4},
                    [](Circuit& c, int first, const Dims& d, const Dims& o) {
                        const auto &j = d[0], &lane = d[1], &exec = d[2];
                        for (int k = 0; k < 4; ++k) {
                            int out = o[0][size_t(k)];
                            c.threshold(first, {{j[size_t(k)], 1}, {exec[size_t(kExecMask + k)], 1}}, -2, out);
                            Terms none{{lane[size_t(k)], 1}};  // no valid source
                            for (int m = 0; m < 4; ++m) none.push_back({j[size_t(m)], -1});
                            c.threshold(first, none, -1, out);
                            for (int m = 0; m < 4; ++m)  // an inactive source
                                c.threshold(
                                    first, {{lane[size_t(k)], 1}, {j[size_t(m)], 1}, {exec[size_t(kExecMask + m)], -1}},
                                    -2, out);
                        }
                    })[0];
}

// Every lane reads its shuffle source before any lane writes (docs/isa.md): each lane's rs1 is read in a
// copy of that lane's registers (four banks) and kept in a pending memory when the next record starts a
// slot; the records of the slot pick their source's.
Value shuffleValue(Scheduler& s, const Inputs& in, const Control& ctl, Value rs1Rows, Value source) {
    Value startsSlot = s.gadget("starts_slot", 1, {in.exec, in.val3, in.slot, ctl.next[0]}, {1},
                                [](Circuit& c, int first, const Dims& d, const Dims& o) {
                                    for (int slot = 0; slot < 4; ++slot) {
                                        Terms after{{d[0][0], 1}}, other{{d[1][0], 1}, {d[2][size_t(slot)], -1}};
                                        for (int l = 0; l < 4; ++l) {
                                            after.push_back({d[3][size_t(slot * 4 + l)], 1});
                                            other.push_back({d[3][size_t(slot * 4 + l)], 1});
                                        }
                                        c.threshold(first, after, -2, o[0][0]);  // after EXEC
                                        c.threshold(first, other, -2, o[0][0]);  // after a value of another slot
                                    }
                                })[0];
    std::vector<Value> inputs{source};
    for (int lane = 0; lane < 4; ++lane) {
        Value now = s.bankedMemory("regs_lane" + std::to_string(lane), 4, {ctl.warpLow, ctl.regWrite}, ctl.assembled,
                                   {ctl.warpLow, rs1Rows}, ctl.rcWriteBanks[size_t(lane)], ctl.warpHigh);
        inputs.push_back(s.memory("shuffle_source" + std::to_string(lane), in.any, now, in.any, startsSlot));
    }
    return s.gadget("shuffle_value", 1, inputs, {32}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
        for (int lane = 0; lane < 4; ++lane)
            for (int i = 0; i < 32; ++i)
                c.threshold(first, {{d[0][size_t(lane)], 1}, {d[size_t(1 + lane)][size_t(i)], 1}}, -2, o[0][size_t(i)]);
    })[0];
}

// The rows of the next record's operands: rs1, rs2 and rc one-hot (16 each), and the bank (its lane, g / 8).
void regReadRows(Circuit& c, int first, const Dims& d, const Dims& o) {
    const int fieldAt[3] = {11, 15, 19};  // rs1, rs2, rc
    for (int k = 0; k < 3; ++k)
        for (int r = 0; r < 16; ++r) {
            Terms t;
            all(c, first, t, spell(t, d[1], fieldAt[k], 4, uint32_t(r)), o[size_t(k)][size_t(r)]);
        }
    for (int l = 0; l < 4; ++l)
        for (int high = 0; high < 4; ++high)
            c.threshold(first, {{d[0][size_t(l)], 1}, {d[2][size_t(high)], 1}}, -2, o[3][size_t(l * 4 + high)]);
}

struct Operands {
    Value rs1Rows;     // rs1's row one-hot (also read by shuffles)
    Value a, rs2, rc;  // the registers rs1, rs2 and rc
};

// The next record's operands: rows (g mod 8, rs1 / rs2 / rc) in bank (its lane, g / 8).
Operands readOperands(Scheduler& s, const Control& ctl) {
    auto regRead =
        s.gadget("reg_read_rows", 1, {ctl.laneNext, ctl.fieldsNext, ctl.warpHigh}, {16, 16, 16, 16}, regReadRows);
    Value a = registerFile(s, kRegisterFile, ctl, regRead[0], regRead[3]);
    Value rs2 = registerFile(s, "regs_b", ctl, regRead[1], regRead[3]);
    Value rc = registerFile(s, "regs_c", ctl, regRead[2], regRead[3]);
    return Operands{.rs1Rows = regRead[0], .a = a, .rs2 = rs2, .rc = rc};
}

// The instruction's decoded bits: the ALU opcode one-hot, it is sreg, sreg's one-hot (14), it reads global
// memory (a load or an atomic), it is a shuffle, it reads shared memory.
void decodeOpcode(Circuit& c, int first, const Dims& d, const Dims& o) {
    const auto& ops = circuit::aluOpcodes();
    for (size_t k = 0; k < ops.size(); ++k) {
        Terms t;
        all(c, first, t, spell(t, d[0], 0, 6, uint32_t(ops[k])), o[0][k]);
        if (ops[k] == Opcode::Mov)  // sreg's value and a store's rs2 pass as b
            for (Opcode as : {Opcode::Sreg, Opcode::StGlobal, Opcode::StShared}) {
                Terms u;
                all(c, first, u, spell(u, d[0], 0, 6, uint32_t(as)), o[0][k]);
            }
    }
    Terms t, load;
    all(c, first, t, spell(t, d[0], 0, 6, uint32_t(Opcode::Sreg)), o[1][0]);
    all(c, first, load, spell(load, d[0], 0, 6, uint32_t(Opcode::LdGlobal)), o[3][0]);
    for (Opcode shuffle : {Opcode::ShflIdx, Opcode::ShflUp, Opcode::ShflDown, Opcode::ShflBfly}) {
        Terms u;
        all(c, first, u, spell(u, d[0], 0, 6, uint32_t(shuffle)), o[4][0]);
    }
    Terms atomic;  // its record is the old word, read like a load
    all(c, first, atomic, spell(atomic, d[0], 0, 6, uint32_t(Opcode::AtomGlobal)), o[3][0]);
    for (Opcode shared : {Opcode::LdShared, Opcode::AtomShared}) {
        Terms u;
        all(c, first, u, spell(u, d[0], 0, 6, uint32_t(shared)), o[5][0]);
    }
    for (uint32_t r = 0; r < 14; ++r) {
        Terms u;
        int ones = spell(u, d[0], 0, 6, uint32_t(Opcode::Sreg)) + spell(u, d[1], 0, 4, r);
        all(c, first, u, ones, o[2][r]);
    }
}

// One bit per ALU opcode (the order of circuit::aluOpcodes), from the opcode one-hot.
std::vector<Value> opcodeBits(Scheduler& s, Value opcode) {
    const auto& ops = circuit::aluOpcodes();
    std::vector<Value> opBits;
    for (size_t k = 0; k < ops.size(); ++k)
        opBits.push_back(s.gadget("op_" + std::string(opcodeInfo(ops[k]).mnemonic), 1, {opcode}, {1},
                                  [k](Circuit& c, int first, const Dims& d, const Dims& o) {
                                      c.threshold(first, {{d[0][k], 1}}, -1, o[0][0]);
                                  })[0]);
    return opBits;
}

// The ALU's b operand: sreg's value, the immediate or rs2.
Value bOperand(Scheduler& s, const Control& ctl, Value isSreg, Value sregValue, Value rs2) {
    return s.gadget("b_operand", 1, {isSreg, sregValue, ctl.fieldsNext, ctl.immNext, rs2}, {32},
                    [](Circuit& c, int first, const Dims& d, const Dims& o) {
                        int sreg = d[0][0], useImm = d[2][6];
                        for (int i = 0; i < 32; ++i) {
                            int out = o[0][size_t(i)];
                            c.threshold(first, {{sreg, 1}, {d[1][size_t(i)], 1}}, -2, out);
                            c.threshold(first, {{sreg, -1}, {useImm, 1}, {d[3][size_t(i)], 1}}, -2, out);
                            c.threshold(first, {{sreg, -1}, {useImm, -1}, {d[4][size_t(i)], 1}}, -1, out);
                        }
                    })[0];
}

struct MemoryAccess {
    std::vector<Value> writes;        // a completed write of global memory, of shared memory, an atomic
    Value loadAddress, storeAddress;  // the next record's rs1 + imm, the completed record's
    Value data;                       // the word a completed store or atomic writes
};

// A completed store or atomic writes memory at its last VAL byte: global (st.global, atom.global) or
// shared (st.shared, atom.shared); an atomic adds rs2 to the old word its records just assembled.
MemoryAccess memoryAccess(Scheduler& s, const Inputs& in, const Control& ctl, Value a, Value rs2) {
    auto writes = s.gadget("memory_writes", 1, {in.val3, ctl.fieldsCur}, {1, 1, 1},
                           [](Circuit& c, int first, const Dims& d, const Dims& o) {
                               const std::pair<Opcode, int> ops[6] = {{Opcode::StGlobal, 0},   {Opcode::AtomGlobal, 0},
                                                                      {Opcode::StShared, 1},   {Opcode::AtomShared, 1},
                                                                      {Opcode::AtomGlobal, 2}, {Opcode::AtomShared, 2}};
                               for (auto [op, out] : ops) {
                                   Terms t{{d[0][0], 1}};
                                   all(c, first, t, 1 + spell(t, d[1], 0, 6, uint32_t(op)), o[size_t(out)][0]);
                               }
                           });
    // The address (rs1 + imm) and rs2 of a record, as the token before its last VAL byte computed them (its
    // next record was this record): by the last byte the record may have written its own rd, which may be
    // rs1 or rs2, and a one-byte value's token is its last.
    Value loadAddress = s.add(a, ctl.immNext, "load_address");
    Value storeAddress = s.previous("pending_address", loadAddress, in.any);
    Value addend = s.previous("pending_addend", rs2, in.any);
    Value sum = s.add(ctl.assembled, addend, "atomic_sum");
    Value memoryData = s.select(writes[2], sum, ctl.assembled, "memory_data");
    return MemoryAccess{.writes = writes, .loadAddress = loadAddress, .storeAddress = storeAddress, .data = memoryData};
}

// Rows by two one-hot factors, address bits 4..6 and 0..3, and the bank one-hot (bits 7..9), from
// MEM(a) or a completed store.
void decodeAddress(Circuit& c, int first, int when, const std::vector<int>& address, const Dims& o) {
    const int from[3] = {4, 0, 7}, width[3] = {3, 4, 3};
    for (int part = 0; part < 3; ++part)
        for (int v = 0; v < 1 << width[part]; ++v) {
            Terms t;
            int ones = spell(t, address, from[part], width[part], uint32_t(v));
            if (when >= 0) t.push_back({when, 1});
            all(c, first, t, ones + (when >= 0), o[size_t(part)][size_t(v)]);
        }
}

// Global memory: 1024 words in eight heads of 128 rows; a row one-hot plus a head bit gate each key.
// A store writes at its last VAL byte (the value is the four bytes, the address rs1 + imm of the
// completed slot); MEM(a) tokens initialise it; the next record's load reads rs1 + imm.
Value globalMemory(Scheduler& s, const Inputs& in, const MemoryAccess& access) {
    auto writeAt = s.gadget("global_write_rows", 1, {in.mem, in.x, access.writes[0], access.storeAddress}, {8, 16, 8},
                            [](Circuit& c, int first, const Dims& d, const Dims& o) {
                                decodeAddress(c, first, d[0][0], d[1], o);
                                decodeAddress(c, first, d[2][0], d[3], o);
                            });
    auto readAt =
        s.gadget("global_read_rows", 1, {access.loadAddress}, {8, 16, 8},
                 [](Circuit& c, int first, const Dims& d, const Dims& o) { decodeAddress(c, first, -1, d[0], o); });
    return s.bankedMemory(kGlobalMemory, 8, {writeAt[0], writeAt[1]}, access.data, {readAt[0], readAt[1]}, writeAt[2],
                          readAt[2]);
}

// Shared memory: 64 words per thread block, row (cta mod 2) * 64 + address, bank cta / 2 (16 heads).
Value sharedMemory(Scheduler& s, const Warps& warps, const MemoryAccess& access) {
    auto sharedAt =
        s.gadget("shared_rows", 1, {access.writes[1], access.storeAddress, access.loadAddress, warps.ctaHigh},
                 {64, 64, 16}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
                     for (int a = 0; a < 64; ++a) {
                         Terms w, r;
                         all(c, first, w, spell(w, d[1], 0, 6, uint32_t(a)), o[0][size_t(a)]);
                         all(c, first, r, spell(r, d[2], 0, 6, uint32_t(a)), o[1][size_t(a)]);
                     }
                     for (int h = 0; h < 16; ++h)
                         c.threshold(first, {{d[0][0], 1}, {d[3][size_t(h)], 1}}, -2, o[2][size_t(h)]);
                 });
    return s.bankedMemory(kSharedMemory, 16, {warps.ctaLow, sharedAt[0]}, access.data, {warps.ctaLow, sharedAt[1]},
                          sharedAt[2], warps.ctaHigh);
}

// The next record's value: the word a load or atomic read (global or shared), a shuffle's, else the ALU's.
Value recordValue(Scheduler& s, const std::vector<Value>& decoded, Value loaded, Value sharedLoaded, Value shuffled,
                  Value aluResult) {
    return s.gadget(
        "record_value", 1, {decoded[3], decoded[5], decoded[4], loaded, sharedLoaded, shuffled, aluResult}, {32},
        [](Circuit& c, int first, const Dims& d, const Dims& o) {
            int global = d[0][0], shared = d[1][0], shuffle = d[2][0];
            for (int i = 0; i < 32; ++i) {
                int out = o[0][size_t(i)];
                c.threshold(first, {{global, 1}, {d[3][size_t(i)], 1}}, -2, out);
                c.threshold(first, {{shared, 1}, {d[4][size_t(i)], 1}}, -2, out);
                c.threshold(first, {{shuffle, 1}, {d[5][size_t(i)], 1}}, -2, out);
                c.threshold(first, {{global, -1}, {shared, -1}, {shuffle, -1}, {d[6][size_t(i)], 1}}, -1, out);
            }
        })[0];
}

}  // namespace

Value buildDatapath(Scheduler& s, const Inputs& in, const Control& ctl, const Warps& warps) {
    Operands operands = readOperands(s, ctl);

    // The instruction: opcode one-hot (sreg runs as mov of its value), the b operand.
    const int opcodeCount = int(circuit::aluOpcodes().size());
    auto decoded = s.gadget("opcode", 1, {ctl.fieldsNext, ctl.immNext}, {opcodeCount, 1, 14, 1, 1, 1}, decodeOpcode);
    std::vector<Value> opBits = opcodeBits(s, decoded[0]);
    Value sregValue = buildSpecialRegisters(s, ctl, warps, decoded[2]);
    Value b = bOperand(s, ctl, decoded[1], sregValue, operands.rs2);
    Value aluResult = circuit::buildAlu(s, operands.a, b, operands.rc, opBits, "alu");

    MemoryAccess access = memoryAccess(s, in, ctl, operands.a, operands.rs2);
    Value loaded = globalMemory(s, in, access);
    Value sharedLoaded = sharedMemory(s, warps, access);
    // A shuffle's record is rs1 of its source lane: a copy of the register file read in that lane's bank.
    Value shuffled = shuffleValue(s, in, ctl, operands.rs1Rows, shuffleSource(s, ctl, b));
    return recordValue(s, decoded, loaded, sharedLoaded, shuffled, aluResult);
}

}  // namespace qgpu::gpu::detail
