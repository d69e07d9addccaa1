#include "qgpu/compiler/gpu/Machine.h"

#include <cmath>
#include <stdexcept>

#include "qgpu/compiler/circuit/Alu.h"

namespace qgpu::gpu {

namespace {

using circuit::Circuit;
using circuit::Scheduler;
using Value = Scheduler::Value;
using Dims = Scheduler::Dims;
using Terms = std::vector<std::pair<int, int>>;

// Terms that are all satisfied exactly when bits[first..first+n) spell `value`; returns how many of
// them are +1 (the threshold's required count).
int spell(Terms& terms, const std::vector<int>& bits, int first, int n, uint32_t value) {
    int ones = 0;
    for (int i = 0; i < n; ++i) {
        bool set = value >> i & 1;
        terms.push_back({bits[size_t(first + i)], set ? 1 : -1});
        ones += set;
    }
    return ones;
}

// out := all terms hold (each +1 term true, each -1 term false) plus `ones` more +1 terms' worth.
void all(Circuit& c, int layer, const Terms& terms, int required, int out) {
    c.threshold(layer, terms, -required, out);
}

// Code dims: what the next token is. All chip tokens share them, so the right one wins by 2 per differing bit.
enum Code {
    IsVal = 0,
    IsExec = 1,
    IsEnd = 2,
    SlotBits = 3,
    LaneBits = 7,
    ByteBits = 11,
    ValueBits = 15,
    BlockBits = 23,
    WarpBits = 28,
    MaskBits = 33,
    CodeWidth = 37
};

std::vector<int> codeOf(const Token& t) {
    std::vector<int> bits;
    if (t.kind == Kind::Val) {
        bits = {IsVal, SlotBits + t.slot, LaneBits + t.lane, ByteBits + t.byteIndex};
        for (int j = 0; j < 8; ++j)
            if (t.value >> j & 1) bits.push_back(ValueBits + j);
    } else if (t.kind == Kind::Exec) {
        bits = {IsExec};
        for (int j = 0; j < 5; ++j) {
            if (t.block >> j & 1) bits.push_back(BlockBits + j);
            if (t.warp >> j & 1) bits.push_back(WarpBits + j);
        }
        for (int l = 0; l < 4; ++l)
            if (t.mask >> l & 1) bits.push_back(MaskBits + l);
    } else if (t.kind == Kind::End) {
        bits = {IsEnd};
    }
    return bits;  // the loading tokens have no code: the host feeds them, the model never writes them
}

struct Inputs {
    Value any, exec, launch, rom, mem, valMid, val3, assemble, pos, slot, lane, kNext, vdata, x, code;
    std::vector<Value> byte;
};

}  // namespace

circuit::Geometry defaultMachineGeometry() {
    circuit::Geometry g;
    g.hiddenSize = 2048;
    g.intermediateSize = 6144;
    g.linearNumKeyHeads = g.linearNumValueHeads = 16;
    g.linearKeyHeadDim = g.linearValueHeadDim = 128;
    return g;
}

Machine buildMachine(const circuit::Geometry& geometry) {
    Scheduler s(geometry);
    Inputs in;
    in.any = s.input("any", 1);
    in.exec = s.input("t_exec", 1);
    in.launch = s.input("t_launch", 1);
    in.rom = s.input("t_rom", 1);
    in.mem = s.input("t_mem", 1);          // MEM(a): the assembled word initialises global[a]
    in.valMid = s.input("t_val_mid", 1);   // a VAL record of byte 0..2
    in.val3 = s.input("t_val_last", 1);    // a VAL record of byte 3: the value is complete
    in.assemble = s.input("assemble", 1);  // reads the four scratch bytes (ROM writes, last VAL bytes)
    for (int k = 0; k < 4; ++k) in.byte.push_back(s.input("byte" + std::to_string(k), 1));
    in.pos = s.input("val_pos", 16);     // VAL: slot * 4 + lane, one-hot
    in.slot = s.input("val_slot", 4);    // VAL: slot one-hot
    in.lane = s.input("val_lane", 4);    // VAL: lane one-hot
    in.kNext = s.input("val_knext", 4);  // VAL of byte k < 3: byte k + 1, one-hot
    in.vdata = s.input("vdata");         // Byte, VAL: the byte at its place in the word
    in.x = s.input("x");  // EXEC: b | w << 5; LAUNCH: live mask | lanes << 4; ROM: b | s << 5 | part << 8
    in.code = s.input("code", CodeWidth);
    s.keep(in.code);
    s.gadget("clear_code", 1, {in.code}, {}, [](Circuit& c, int first, const Dims& d, const Dims&) {
        for (int dim : d[0]) c.clear(first, dim);  // the token's own code came in with its embedding
    });

    // Control memories: the current block and warp, the launch, the byte scratch.
    Value execR = s.memory("exec", in.exec, in.x, in.any);
    Value launchR = s.memory("launch", in.launch, in.x, in.any);
    std::vector<Value> scratch;
    for (int k = 0; k < 4; ++k)
        scratch.push_back(s.memory("scratch" + std::to_string(k), in.byte[size_t(k)], in.vdata, in.assemble));
    Value assembled = s.gadget("assembled", 1, scratch, {32}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
        for (int i = 0; i < 32; ++i) {
            Terms any;
            for (const auto& word : d) any.push_back({word[size_t(i)], 1});
            c.threshold(first, any, -1, o[0][size_t(i)]);
        }
    })[0];

    // ROM rows: body (b * 4 + s) and terminator (b), each half word in its own memory.
    auto romKeys = s.gadget(
        "rom_keys", 1, {in.rom, in.x}, {128, 128, 32, 32}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
            for (int part = 0; part < 2; ++part)
                for (int b = 0; b < kBlocks; ++b) {
                    for (int slot = 0; slot <= kSlots; ++slot) {
                        Terms t{{d[0][0], 1}};
                        int ones = 1 + spell(t, d[1], 0, 5, uint32_t(b));
                        ones += spell(t, d[1], 5, 4, uint32_t(slot | part << 3));
                        int out =
                            slot < kSlots ? o[size_t(part)][size_t(b * 4 + slot)] : o[size_t(2 + part)][size_t(b)];
                        all(c, first, t, ones, out);
                    }
                }
        });
    auto rows =
        s.gadget("rom_rows_current", 1, {in.val3, in.exec, execR, in.slot}, {128, 32},
                 [](Circuit& c, int first, const Dims& d, const Dims& o) {
                     for (int b = 0; b < kBlocks; ++b) {
                         for (int slot = 0; slot < kSlots; ++slot) {  // the completed value's slot
                             Terms t{{d[0][0], 1}, {d[3][size_t(slot)], 1}};
                             all(c, first, t, 2 + spell(t, d[2], 0, 5, uint32_t(b)), o[0][size_t(b * 4 + slot)]);
                         }
                         Terms t{{d[0][0], 1}, {d[1][0], 1}};  // EXEC or a completed value: the block's end
                         all(c, first, t, 1 + spell(t, d[2], 0, 5, uint32_t(b)), o[1][size_t(b)]);
                     }
                 });
    Value fieldsCur = s.memory("rom_fields_current", romKeys[0], assembled, rows[0]);
    Value termFields = s.memory("rom_term_fields", romKeys[2], assembled, rows[1]);
    Value termImm = s.memory("rom_term_imm", romKeys[3], assembled, rows[1]);

    // What comes next: cand(s, l) = slot s writes and lane l is live; the next record is the first
    // candidate after the current one (after EXEC: the first of all), else the block's terminator.
    auto cand = s.gadget(
        "candidates", 1, {termFields, execR}, {16, 1, 1, 1}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
            for (int q = 0; q < 16; ++q)  // the block's active lanes: bits 10..13 of EXEC's word
                c.threshold(first, {{d[0][size_t(kWritesMaskShift + q / 4)], 1}, {d[1][size_t(10 + q % 4)], 1}}, -2,
                            o[0][size_t(q)]);
            Terms jmp, exit, br;
            all(c, first, jmp, spell(jmp, d[0], 0, 6, uint32_t(Opcode::Jmp)), o[1][0]);
            all(c, first, exit, spell(exit, d[0], 0, 6, uint32_t(Opcode::Exit)), o[2][0]);
            all(c, first, br, spell(br, d[0], 0, 6, uint32_t(Opcode::Br)), o[3][0]);
        });
    auto next = s.gadget("next_record", 1, {in.pos, in.exec, in.val3, cand[0]}, {16, 1},
                         [](Circuit& c, int first, const Dims& d, const Dims& o) {
                             const auto &pos = d[0], &cd = d[3];
                             int exec = d[1][0], last = d[2][0];
                             for (int q = 0; q < 16; ++q) {
                                 Terms t{{exec, 1}, {cd[size_t(q)], 1}};
                                 for (int r = 0; r < q; ++r) t.push_back({cd[size_t(r)], -1});
                                 c.threshold(first, t, -2, o[0][size_t(q)]);
                                 for (int p = 0; p < q; ++p) {
                                     Terms u{{last, 1}, {pos[size_t(p)], 1}, {cd[size_t(q)], 1}};
                                     for (int r = p + 1; r < q; ++r) u.push_back({cd[size_t(r)], -1});
                                     c.threshold(first, u, -3, o[0][size_t(q)]);
                                 }
                             }
                             Terms none{{exec, 1}};
                             for (int r = 0; r < 16; ++r) none.push_back({cd[size_t(r)], -1});
                             c.threshold(first, none, -1, o[1][0]);
                             for (int p = 0; p < 16; ++p) {
                                 Terms u{{last, 1}, {pos[size_t(p)], 1}};
                                 for (int r = p + 1; r < 16; ++r) u.push_back({cd[size_t(r)], -1});
                                 c.threshold(first, u, -2, o[1][0]);
                             }
                         });
    auto route = s.gadget("route", 1, {in.valMid, in.pos, in.kNext, next[0]}, {16, 4, 1},
                          [](Circuit& c, int first, const Dims& d, const Dims& o) {
                              int mid = d[0][0];
                              Terms anyNext;
                              for (int q = 0; q < 16; ++q) {
                                  c.threshold(first, {{mid, 1}, {d[1][size_t(q)], 1}}, -2, o[0][size_t(q)]);
                                  c.threshold(first, {{d[3][size_t(q)], 1}}, -1, o[0][size_t(q)]);
                                  anyNext.push_back({d[3][size_t(q)], 1});
                              }
                              for (int k = 1; k < 4; ++k)
                                  c.threshold(first, {{mid, 1}, {d[2][size_t(k)], 1}}, -2, o[1][size_t(k)]);
                              c.threshold(first, anyNext, -1, o[1][0]);  // a new value starts at byte 0
                              Terms toVal = anyNext;
                              toVal.push_back({mid, 1});
                              c.threshold(first, toVal, -1, o[2][0]);
                          });
    Value nextPos = route[0], kOut = route[1];
    auto nextRows = s.gadget("rom_rows_next", 1, {execR, nextPos}, {128, 4},
                             [](Circuit& c, int first, const Dims& d, const Dims& o) {
                                 for (int b = 0; b < kBlocks; ++b)
                                     for (int slot = 0; slot < kSlots; ++slot) {
                                         Terms t;
                                         int ones = spell(t, d[0], 0, 5, uint32_t(b));
                                         for (int l = 0; l < 4; ++l) t.push_back({d[1][size_t(slot * 4 + l)], 1});
                                         all(c, first, t, ones + 1, o[0][size_t(b * 4 + slot)]);
                                     }
                                 for (int l = 0; l < 4; ++l) {
                                     Terms t;
                                     for (int slot = 0; slot < 4; ++slot) t.push_back({d[1][size_t(slot * 4 + l)], 1});
                                     c.threshold(first, t, -1, o[1][size_t(l)]);
                                 }
                             });
    Value fieldsNext = s.memory("rom_fields_next", romKeys[0], assembled, nextRows[0]);
    Value immNext = s.memory("rom_imm_next", romKeys[1], assembled, nextRows[0]);
    Value laneNext = nextRows[1];

    // The register file: row lane * 16 + r, three copies for the three operands.
    Value regWrite =
        s.gadget("reg_write_row", 1, {in.val3, in.lane, fieldsCur}, {64},
                 [](Circuit& c, int first, const Dims& d, const Dims& o) {
                     for (int l = 0; l < 4; ++l)
                         for (int r = 1; r < 16; ++r) {  // r0 is never written
                             Terms t{{d[0][0], 1}, {d[1][size_t(l)], 1}};
                             all(c, first, t, 2 + spell(t, d[2], 7, 4, uint32_t(r)), o[0][size_t(l * 16 + r)]);
                         }
                 })[0];
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

    // The terminator at the end of a block: every active lane's rc (four more register-file copies), its
    // new pc (jmp T; br: T where rc != 0, else F) or exit, written into the lane's own state memory; the
    // LAUNCH token starts the live lanes at block 0.
    auto rcRows =
        s.gadget("rc_rows", 1, {termFields}, {64, 64, 64, 64}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
            for (int l = 0; l < 4; ++l)
                for (int r = 0; r < 16; ++r) {
                    Terms t;
                    all(c, first, t, spell(t, d[0], 19, 4, uint32_t(r)), o[size_t(l)][size_t(l * 16 + r)]);
                }
        });
    std::vector<Value> rcValues;
    for (int l = 0; l < 4; ++l)
        rcValues.push_back(s.memory("regs_rc" + std::to_string(l), regWrite, assembled, rcRows[size_t(l)]));
    Value taken = s.gadget("taken", 1, rcValues, {4}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
        for (int l = 0; l < 4; ++l) {
            Terms any;
            for (int dim : d[size_t(l)]) any.push_back({dim, 1});
            c.threshold(first, any, -1, o[0][size_t(l)]);
        }
    })[0];
    std::vector<int> laneWidths(4, 1);
    for (int l = 0; l < 4; ++l) laneWidths.push_back(6);  // pc (5 bits), running
    auto laneUpdate = s.gadget(
        "lane_update", 1, {next[1], execR, cand[1], cand[2], cand[3], termImm, taken, in.launch, launchR}, laneWidths,
        [](Circuit& c, int first, const Dims& d, const Dims& o) {
            int end = d[0][0], jmp = d[2][0], exit = d[3][0], br = d[4][0], launch = d[7][0];
            for (int l = 0; l < 4; ++l) {
                int active = d[1][size_t(10 + l)], live = d[8][size_t(l)], tk = d[6][size_t(l)];
                int key = o[size_t(l)][0];
                const auto& data = o[size_t(4 + l)];
                c.threshold(first, {{end, 1}, {active, 1}}, -2, key);
                c.threshold(first, {{launch, 1}, {live, 1}}, -2, key);
                for (int k = 0; k < 5; ++k) {
                    int target = d[5][size_t(k)], elseTarget = d[5][size_t(16 + k)];
                    c.threshold(first, {{end, 1}, {active, 1}, {jmp, 1}, {target, 1}}, -4, data[size_t(k)]);
                    c.threshold(first, {{end, 1}, {active, 1}, {br, 1}, {tk, 1}, {target, 1}}, -5, data[size_t(k)]);
                    c.threshold(first, {{end, 1}, {active, 1}, {br, 1}, {tk, -1}, {elseTarget, 1}}, -4,
                                data[size_t(k)]);
                }
                c.threshold(first, {{launch, 1}, {live, 1}}, -2, data[5]);
                c.threshold(first, {{end, 1}, {active, 1}, {exit, -1}}, -2, data[5]);
            }
        });
    std::vector<Value> lanes;
    for (int l = 0; l < 4; ++l)
        lanes.push_back(s.memory("lane" + std::to_string(l), laneUpdate[size_t(l)], laneUpdate[size_t(4 + l)], in.any));
    // The min-PC rule: a running lane is a minimum when every other running lane's pc is not below its own.
    Value ok = s.gadget("lane_order", 1, lanes, {16}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
                if (i == j) continue;
                Terms t{{d[size_t(j)][5], -32}};  // a stopped lane j never blocks lane i
                for (int k = 0; k < 5; ++k) {
                    t.push_back({d[size_t(j)][size_t(k)], 1 << k});
                    t.push_back({d[size_t(i)][size_t(k)], -(1 << k)});
                }
                c.threshold(first, t, 32, o[0][size_t(i * 4 + j)]);
            }
    })[0];
    std::vector<Value> minInputs = lanes;
    minInputs.push_back(ok);
    auto minima = s.gadget("minimum", 1, minInputs, {4, 1}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
        Terms anyRunning;
        for (int i = 0; i < 4; ++i) {
            Terms t{{d[size_t(i)][5], 1}};
            for (int j = 0; j < 4; ++j)
                if (j != i) t.push_back({d[4][size_t(i * 4 + j)], 1});
            c.threshold(first, t, -4, o[0][size_t(i)]);
            anyRunning.push_back({d[size_t(i)][5], 1});
        }
        c.threshold(first, anyRunning, -1, o[1][0]);
    });
    Value firstMin =
        s.gadget("first_minimum", 1, {minima[0]}, {4}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
            for (int i = 0; i < 4; ++i) {
                Terms t{{d[0][size_t(i)], 1}};
                for (int j = 0; j < i; ++j) t.push_back({d[0][size_t(j)], -1});
                c.threshold(first, t, -1, o[0][size_t(i)]);
            }
        })[0];

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

    // The code of the next token, written into the code dims the LM head reads.
    std::vector<Value> codeInputs = {in.code,   kOut,      result,    nextPos,  route[2], next[1],
                                     in.launch, minima[0], minima[1], firstMin, execR};
    codeInputs.insert(codeInputs.end(), lanes.begin(), lanes.end());
    s.gadget("code", 1, codeInputs, {}, [](Circuit& c, int first, const Dims& d, const Dims&) {
        const auto &code = d[0], &k = d[1], &res = d[2], &pos = d[3], &isMin = d[7], &firstMin = d[9], &exec = d[10];
        int toVal = d[4][0], anyRunning = d[8][0];
        c.threshold(first, {{toVal, 1}}, -1, code[IsVal]);
        for (int i = 0; i < 4; ++i) {
            Terms slot, lane;
            for (int j = 0; j < 4; ++j) {
                slot.push_back({pos[size_t(i * 4 + j)], 1});
                lane.push_back({pos[size_t(j * 4 + i)], 1});
            }
            c.threshold(first, slot, -1, code[size_t(SlotBits + i)]);
            c.threshold(first, lane, -1, code[size_t(LaneBits + i)]);
            c.threshold(first, {{k[size_t(i)], 1}}, -1, code[size_t(ByteBits + i)]);
        }
        for (int j = 0; j < 8; ++j)
            for (int byte = 0; byte < 4; ++byte)
                c.threshold(first, {{k[size_t(byte)], 1}, {res[size_t(8 * byte + j)], 1}}, -2,
                            code[size_t(ValueBits + j)]);
        // At a block's end or the launch: the next EXEC by the min-PC rule, or END when no lane runs.
        for (int decide : {d[5][0], d[6][0]}) {
            c.threshold(first, {{decide, 1}, {anyRunning, 1}}, -2, code[IsExec]);
            c.threshold(first, {{decide, 1}, {anyRunning, -1}}, -1, code[IsEnd]);
            for (int i = 0; i < 4; ++i) {
                c.threshold(first, {{decide, 1}, {isMin[size_t(i)], 1}}, -2, code[size_t(MaskBits + i)]);
                for (int bit = 0; bit < 5; ++bit)
                    c.threshold(first, {{decide, 1}, {firstMin[size_t(i)], 1}, {d[size_t(11 + i)][size_t(bit)], 1}}, -3,
                                code[size_t(BlockBits + bit)]);
            }
            for (int bit = 0; bit < 5; ++bit)
                c.threshold(first, {{decide, 1}, {exec[size_t(5 + bit)], 1}}, -2, code[size_t(WarpBits + bit)]);
        }
    });
    s.build();

    Machine m{std::move(s.circuit()), {}, s.dims(in.code)};
    // Embeddings: each token's input features and its own code (the tied LM head's row).
    auto bitsOf = [&](Value v, uint32_t word, std::vector<int>& dims) {
        for (size_t i = 0; i < s.dims(v).size(); ++i)
            if (word >> i & 1) dims.push_back(s.dims(v)[i]);
    };
    for (int id = 0; id < vocabularySize(); ++id) {
        Token t = Token::fromId(id);
        std::vector<int> on{s.dims(in.any)[0]};
        switch (t.kind) {
            case Kind::Launch:
                on.push_back(s.dims(in.launch)[0]);
                bitsOf(in.x, ((1u << t.lanes) - 1) | uint32_t(t.lanes) << 4, on);
                break;
            case Kind::Byte:
                on.push_back(s.dims(in.byte[size_t(t.byteIndex)])[0]);
                bitsOf(in.vdata, uint32_t(t.value) << (8 * t.byteIndex), on);
                break;
            case Kind::RomWrite:
                on.push_back(s.dims(in.rom)[0]);
                on.push_back(s.dims(in.assemble)[0]);
                bitsOf(in.x, uint32_t(t.block | t.slot << 5 | t.part << 8), on);
                break;
            case Kind::MemWrite:
                on.push_back(s.dims(in.mem)[0]);
                on.push_back(s.dims(in.assemble)[0]);
                bitsOf(in.x, uint32_t(t.address), on);
                break;
            case Kind::Exec:
                on.push_back(s.dims(in.exec)[0]);
                bitsOf(in.x, uint32_t(t.block | t.warp << 5 | t.mask << 10), on);
                break;
            case Kind::Val:
                on.push_back(s.dims(t.byteIndex < 3 ? in.valMid : in.val3)[0]);
                if (t.byteIndex == 3)
                    on.push_back(s.dims(in.assemble)[0]);
                else
                    on.push_back(s.dims(in.kNext)[size_t(t.byteIndex + 1)]);
                on.push_back(s.dims(in.byte[size_t(t.byteIndex)])[0]);
                bitsOf(in.vdata, uint32_t(t.value) << (8 * t.byteIndex), on);
                on.push_back(s.dims(in.pos)[size_t(t.slot * 4 + t.lane)]);
                on.push_back(s.dims(in.slot)[size_t(t.slot)]);
                on.push_back(s.dims(in.lane)[size_t(t.lane)]);
                break;
            case Kind::End: break;
        }
        for (int bit : codeOf(t)) on.push_back(m.codeDims[size_t(bit)]);
        m.embeddings.push_back(m.circuit.tokenEmbedding(on));
    }
    // The final norm keeps only the code dims, each at +-1: the logit of a token is the number of code
    // bits it agrees on minus those it does not.
    std::vector<float> finalNorm(size_t(geometry.hiddenSize), -1.f);
    for (int d : m.codeDims) finalNorm[size_t(d)] = float(m.circuit.inputScale() - 1);
    m.circuit.setFinalNorm(finalNorm);
    return m;
}

}  // namespace qgpu::gpu
