// The machine's datapath: the next record's operands, the ALU, special registers and global memory.
#include "MachineParts.h"
#include "qgpu/compiler/circuit/Alu.h"
#include "qgpu/compiler/gpu/Alphabet.h"
#include "qgpu/compiler/gpu/Machine.h"

namespace qgpu::gpu::detail {

Value buildDatapath(Scheduler& s, const Inputs& in, const Control& ctl) {
    const Value laneNext = ctl.laneNext, fieldsNext = ctl.fieldsNext, immNext = ctl.immNext;
    const Value regWrite = ctl.regWrite, assembled = ctl.assembled, execR = ctl.execR, launchR = ctl.launchR;
    const Value fieldsCur = ctl.fieldsCur;
    const auto &romKeys = ctl.romKeys, &rows = ctl.rows;
    auto regRead = s.gadget("reg_read_rows", 1, {laneNext, fieldsNext}, {64, 64, 64},
                            [](Circuit& c, int first, const Dims& d, const Dims& o) {
                                const int fieldAt[3] = {11, 15, 19};  // rs1, rs2, rc
                                for (int k = 0; k < 3; ++k)
                                    for (int l = 0; l < 4; ++l)
                                        for (int r = 0; r < 16; ++r) {
                                            Terms t{{d[0][size_t(l)], 1}};
                                            all(c, first, t, 1 + spell(t, d[1], fieldAt[k], 4, uint32_t(r)),
                                                o[size_t(k)][size_t(l * 16 + r)]);
                                        }
                            });
    Value a = s.memory(kRegisterFile, regWrite, assembled, regRead[0]);
    Value rs2 = s.memory("regs_b", regWrite, assembled, regRead[1]);
    Value rc = s.memory("regs_c", regWrite, assembled, regRead[2]);

    // The instruction: opcode one-hot (sreg runs as mov of its value), the b operand.
    const auto& ops = circuit::aluOpcodes();
    auto decoded = s.gadget("opcode", 1, {fieldsNext, immNext}, {int(ops.size()), 1, 14, 1},
                            [&ops](Circuit& c, int first, const Dims& d, const Dims& o) {
                                for (size_t k = 0; k < ops.size(); ++k) {
                                    Terms t;
                                    all(c, first, t, spell(t, d[0], 0, 6, uint32_t(ops[k])), o[0][k]);
                                    if (ops[k] == Opcode::Mov)  // sreg's value and a store's rs2 pass as b
                                        for (Opcode as : {Opcode::Sreg, Opcode::StGlobal}) {
                                            Terms u;
                                            all(c, first, u, spell(u, d[0], 0, 6, uint32_t(as)), o[0][k]);
                                        }
                                }
                                Terms t, load;
                                all(c, first, t, spell(t, d[0], 0, 6, uint32_t(Opcode::Sreg)), o[1][0]);
                                all(c, first, load, spell(load, d[0], 0, 6, uint32_t(Opcode::LdGlobal)), o[3][0]);
                                Terms atomic;  // its record is the old word, read like a load
                                all(c, first, atomic, spell(atomic, d[0], 0, 6, uint32_t(Opcode::AtomGlobal)), o[3][0]);
                                for (uint32_t r = 0; r < 14; ++r) {
                                    Terms u;
                                    int ones = spell(u, d[0], 0, 6, uint32_t(Opcode::Sreg)) + spell(u, d[1], 0, 4, r);
                                    all(c, first, u, ones, o[2][r]);
                                }
                            });
    std::vector<Value> opBits;
    for (size_t k = 0; k < ops.size(); ++k)
        opBits.push_back(s.gadget("op_" + std::string(opcodeInfo(ops[k]).mnemonic), 1, {decoded[0]}, {1},
                                  [k](Circuit& c, int first, const Dims& d, const Dims& o) {
                                      c.threshold(first, {{d[0][k], 1}}, -1, o[0][0]);
                                  })[0]);
    Value sregValue = s.gadget(
        "sreg_value", 1, {decoded[2], laneNext, execR, launchR}, {32},
        [](Circuit& c, int first, const Dims& d, const Dims& o) {
            const auto &reg = d[0], &lane = d[1], &exec = d[2], &launch = d[3];
            auto laneBit = [&](int sr, int bit, int out) {  // bit of the lane index
                for (int l = 0; l < 4; ++l)
                    if (l >> bit & 1)
                        c.threshold(first, {{reg[size_t(sr)], 1}, {lane[size_t(l)], 1}}, -2, o[0][size_t(out)]);
            };
            auto copy = [&](int sr, int from, int out) {
                c.threshold(first, {{reg[size_t(sr)], 1}, {from, 1}}, -2, o[0][size_t(out)]);
            };
            int tidX = int(SpecialReg::TidX), laneId = int(SpecialReg::LaneId);
            for (int bit = 0; bit < 2; ++bit) {
                laneBit(tidX, bit, bit);
                laneBit(laneId, bit, bit);
            }
            for (int i = 0; i < 5; ++i) {
                copy(tidX, exec[size_t(5 + i)], 2 + i);  // tid.x = 4 w + l
                copy(int(SpecialReg::WarpId), exec[size_t(5 + i)], i);
            }
            for (int i = 0; i < 3; ++i) copy(int(SpecialReg::NtidX), launch[size_t(4 + i)], i);
            for (SpecialReg one :
                 {SpecialReg::NtidY, SpecialReg::NtidZ, SpecialReg::NctaidX, SpecialReg::NctaidY, SpecialReg::NctaidZ})
                c.threshold(first, {{reg[size_t(one)], 1}}, -1, o[0][0]);
        })[0];
    Value b = s.gadget("b_operand", 1, {decoded[1], sregValue, fieldsNext, immNext, rs2}, {32},
                       [](Circuit& c, int first, const Dims& d, const Dims& o) {
                           int sreg = d[0][0], useImm = d[2][6];
                           for (int i = 0; i < 32; ++i) {
                               int out = o[0][size_t(i)];
                               c.threshold(first, {{sreg, 1}, {d[1][size_t(i)], 1}}, -2, out);
                               c.threshold(first, {{sreg, -1}, {useImm, 1}, {d[3][size_t(i)], 1}}, -2, out);
                               c.threshold(first, {{sreg, -1}, {useImm, -1}, {d[4][size_t(i)], 1}}, -1, out);
                           }
                       })[0];
    Value aluResult = circuit::buildAlu(s, a, b, rc, opBits, "alu");

    // Global memory: 1024 words in eight heads of 128 rows; a row one-hot plus a head bit gate each key.
    // A store writes at its last VAL byte (the value is the four bytes, the address rs1 + imm of the
    // completed slot); MEM(a) tokens initialise it; the next record's load reads rs1 + imm.
    Value immCur = s.memory("rom_imm_current", romKeys[1], assembled, rows[0]);
    auto storeSide =
        s.gadget("store_rows", 1, {in.val3, in.lane, fieldsCur}, {64, 1, 1, 64},
                 [](Circuit& c, int first, const Dims& d, const Dims& o) {
                     for (int l = 0; l < 4; ++l)
                         for (int r = 0; r < 16; ++r)
                             for (int field : {11, 15}) {  // rs1 (the address), rs2 (an atomic's addend)
                                 Terms t{{d[0][0], 1}, {d[1][size_t(l)], 1}};
                                 int out = o[field == 11 ? 0 : 3][size_t(l * 16 + r)];
                                 all(c, first, t, 2 + spell(t, d[2], field, 4, uint32_t(r)), out);
                             }
                     for (Opcode op : {Opcode::StGlobal, Opcode::AtomGlobal}) {  // both write memory
                         Terms st{{d[0][0], 1}};
                         all(c, first, st, 1 + spell(st, d[2], 0, 6, uint32_t(op)), o[1][0]);
                     }
                     Terms atomic{{d[0][0], 1}};
                     all(c, first, atomic, 1 + spell(atomic, d[2], 0, 6, uint32_t(Opcode::AtomGlobal)), o[2][0]);
                 });
    Value storeBase = s.memory("regs_store", regWrite, assembled, storeSide[0]);
    // An atomic add writes old + rs2: the old word is the value its records just assembled.
    Value addend = s.memory("regs_addend", regWrite, assembled, storeSide[3]);
    Value sum = s.add(assembled, addend, "atomic_sum");
    Value memoryData = s.gadget("memory_data", 1, {storeSide[2], assembled, sum}, {32},
                                [](Circuit& c, int first, const Dims& d, const Dims& o) {
                                    int atomic = d[0][0];
                                    for (int i = 0; i < 32; ++i) {
                                        c.threshold(first, {{atomic, -1}, {d[1][size_t(i)], 1}}, -1, o[0][size_t(i)]);
                                        c.threshold(first, {{atomic, 1}, {d[2][size_t(i)], 1}}, -2, o[0][size_t(i)]);
                                    }
                                })[0];
    Value storeAddress = s.add(storeBase, immCur, "store_address");
    Value loadAddress = s.add(a, immNext, "load_address");
    // Row one-hot (address bits 0..6) and bank one-hot (bits 7..9), from MEM(a) or a completed store.
    auto writeAt = s.gadget("global_write_rows", 1, {in.mem, in.x, storeSide[1], storeAddress}, {128, 8},
                            [](Circuit& c, int first, const Dims& d, const Dims& o) {
                                for (auto [when, address] : {std::pair{d[0][0], &d[1]}, std::pair{d[2][0], &d[3]}}) {
                                    for (int r = 0; r < 128; ++r) {
                                        Terms t{{when, 1}};
                                        all(c, first, t, 1 + spell(t, *address, 0, 7, uint32_t(r)), o[0][size_t(r)]);
                                    }
                                    for (int h = 0; h < 8; ++h) {
                                        Terms t{{when, 1}};
                                        all(c, first, t, 1 + spell(t, *address, 7, 3, uint32_t(h)), o[1][size_t(h)]);
                                    }
                                }
                            });
    auto readAt = s.gadget("global_read_rows", 1, {loadAddress}, {128, 8},
                           [](Circuit& c, int first, const Dims& d, const Dims& o) {
                               for (int r = 0; r < 128; ++r) {
                                   Terms t;
                                   all(c, first, t, spell(t, d[0], 0, 7, uint32_t(r)), o[0][size_t(r)]);
                               }
                               for (int h = 0; h < 8; ++h) {
                                   Terms t;
                                   all(c, first, t, spell(t, d[0], 7, 3, uint32_t(h)), o[1][size_t(h)]);
                               }
                           });
    Value loaded = s.bankedMemory(kGlobalMemory, 8, writeAt[0], memoryData, readAt[0], writeAt[1], readAt[1]);
    Value result = s.gadget("record_value", 1, {decoded[3], aluResult, loaded}, {32},
                            [](Circuit& c, int first, const Dims& d, const Dims& o) {
                                int load = d[0][0];
                                for (int i = 0; i < 32; ++i) {
                                    c.threshold(first, {{load, -1}, {d[1][size_t(i)], 1}}, -1, o[0][size_t(i)]);
                                    c.threshold(first, {{load, 1}, {d[2][size_t(i)], 1}}, -2, o[0][size_t(i)]);
                                }
                            })[0];
    return result;
}

}  // namespace qgpu::gpu::detail
