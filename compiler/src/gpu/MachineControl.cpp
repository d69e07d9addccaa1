// The machine's control: the records' order within a block, ROM, and the register-file commit.
#include "MachineParts.h"
#include "qgpu/compiler/gpu/Alphabet.h"

namespace qgpu::gpu::detail {

namespace {

// The ROM's rows are keyed by b mod 32 (one-hot) and the bank b / 32.
constexpr int kLowBits = 5, kBanks = kBlocks / kRomBankBlocks, kBankBits = kBlockBits - kLowBits;
static_assert(kRomBankBlocks == 1 << kLowBits);

// The four scratch bytes as one word (ROM and MEM writes, completed values).
Value assembledWord(Scheduler& s, const Inputs& in) {
    std::vector<Value> scratch;
    for (int k = 0; k < 4; ++k)
        scratch.push_back(s.memory("scratch" + std::to_string(k), in.byte[size_t(k)], in.vdata, in.assemble));
    return s.gadget("assembled", 1, scratch, {32}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
        for (int i = 0; i < 32; ++i) {
            Terms any;
            for (const auto& word : d) any.push_back({word[size_t(i)], 1});
            c.threshold(first, any, -1, o[0][size_t(i)]);
        }
    })[0];
}

// A ROM write's keys: b mod 32, b / 32, a body half word's slot (fields, imm), a terminator's bank (fields, imm).
void romKeyTerms(Circuit& c, int first, const Dims& d, const Dims& o) {
    constexpr int lowBits = kLowBits, banks = kBanks, bankBits = kBankBits;
    int rom = d[0][0];
    const auto& x = d[1];
    for (int b = 0; b < kRomBankBlocks; ++b) {  // b mod 32
        Terms t{{rom, 1}};
        all(c, first, t, 1 + spell(t, x, kRomBlock, lowBits, uint32_t(b)), o[0][size_t(b)]);
    }
    for (int bank = 0; bank < banks; ++bank) {
        Terms t{{rom, 1}};
        all(c, first, t, 1 + spell(t, x, kRomBlock + lowBits, bankBits, uint32_t(bank)), o[1][size_t(bank)]);
    }
    for (int part = 0; part < 2; ++part) {
        for (int slot = 0; slot < kSlots; ++slot) {  // a body half word, by its slot
            Terms t{{rom, 1}};
            int ones = 1 + spell(t, x, kRomSlot, 3, uint32_t(slot)) + spell(t, x, kRomPart, 1, uint32_t(part));
            all(c, first, t, ones, o[size_t(2 + part)][size_t(slot)]);
        }
        for (int bank = 0; bank < banks; ++bank) {  // a terminator half word, by its block's bank
            Terms t{{rom, 1}};
            int ones = 1 + spell(t, x, kRomSlot, 3, uint32_t(kSlots)) + spell(t, x, kRomPart, 1, uint32_t(part)) +
                       spell(t, x, kRomBlock + lowBits, bankBits, uint32_t(bank));
            all(c, first, t, ones, o[size_t(4 + part)][size_t(bank)]);
        }
    }
}

// Read rows of the current block (EXEC's): b mod 32, b / 32, and b / 32 where a completed value reads its
// slot's fields (the last VAL byte) or the block's terminator is read (EXEC, the last VAL byte).
void romRowsCurrentTerms(Circuit& c, int first, const Dims& d, const Dims& o) {
    constexpr int lowBits = kLowBits, banks = kBanks, bankBits = kBankBits;
    int last = d[0][0], exec = d[1][0];
    const auto& word = d[2];
    c.decode(first, std::vector<int>(word.begin() + kExecBlock, word.begin() + kExecBlock + lowBits), o[0]);
    for (int bank = 0; bank < banks; ++bank) {
        Terms t;
        int ones = spell(t, word, kExecBlock + lowBits, bankBits, uint32_t(bank));
        all(c, first, t, ones, o[1][size_t(bank)]);
        Terms atLast = t, atExec = t;
        atLast.push_back({last, 1});
        atExec.push_back({exec, 1});
        all(c, first, atLast, ones + 1, o[2][size_t(bank)]);
        all(c, first, atLast, ones + 1, o[3][size_t(bank)]);
        all(c, first, atExec, ones + 1, o[3][size_t(bank)]);  // never with atLast
    }
}

// cand(s, l) = slot s writes and lane l is live (EXEC's mask); and whether the block ends in jmp, exit, br, bar.
void candidateTerms(Circuit& c, int first, const Dims& d, const Dims& o) {
    for (int q = 0; q < 16; ++q)  // the block's active lanes: EXEC's mask
        c.threshold(first, {{d[0][size_t(kWritesMaskShift + q / 4)], 1}, {d[1][size_t(kExecMask + q % 4)], 1}}, -2,
                    o[0][size_t(q)]);
    Terms jmp, exit, br;
    all(c, first, jmp, spell(jmp, d[0], 0, 6, uint32_t(Opcode::Jmp)), o[1][0]);
    all(c, first, exit, spell(exit, d[0], 0, 6, uint32_t(Opcode::Exit)), o[2][0]);
    all(c, first, br, spell(br, d[0], 0, 6, uint32_t(Opcode::Br)), o[3][0]);
    Terms bar;
    all(c, first, bar, spell(bar, d[0], 0, 6, uint32_t(Opcode::Bar)), o[4][0]);
}

// The next record after this one: the first candidate after the current one (after EXEC: the first of all),
// one-hot; else the block has ended.
void nextRecordTerms(Circuit& c, int first, const Dims& d, const Dims& o) {
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
}

// The next record's position (16), its byte (4), and whether it is a VAL.
void routeTerms(Circuit& c, int first, const Dims& d, const Dims& o) {
    int mid = d[0][0];
    Terms anyNext;
    for (int q = 0; q < 16; ++q) {
        c.threshold(first, {{mid, 1}, {d[1][size_t(q)], 1}}, -2, o[0][size_t(q)]);
        c.threshold(first, {{d[3][size_t(q)], 1}}, -1, o[0][size_t(q)]);
        anyNext.push_back({d[3][size_t(q)], 1});
    }
    for (int k = 1; k < 4; ++k) c.threshold(first, {{mid, 1}, {d[2][size_t(k)], 1}}, -2, o[1][size_t(k)]);
    c.threshold(first, anyNext, -1, o[1][0]);  // a new value starts at byte 0
    Terms toVal = anyNext;
    toVal.push_back({mid, 1});
    c.threshold(first, toVal, -1, o[2][0]);
}

// The next record's slot and lane, one-hot, from its position.
void slotAndLaneTerms(Circuit& c, int first, const Dims& d, const Dims& o) {
    for (int i = 0; i < 4; ++i) {
        Terms slot, lane;
        for (int j = 0; j < 4; ++j) {
            slot.push_back({d[0][size_t(i * 4 + j)], 1});
            lane.push_back({d[0][size_t(j * 4 + i)], 1});
        }
        c.threshold(first, slot, -1, o[0][size_t(i)]);
        c.threshold(first, lane, -1, o[1][size_t(i)]);
    }
}

// The register file's write side: the completed value's rd (one-hot), and its bank (lane, g / 8), in the
// lane's own bank and in its four copies.
void registerWriteTerms(Circuit& c, int first, const Dims& d, const Dims& o) {
    for (int r = 1; r < 16; ++r) {  // r0 is never written
        Terms t;
        all(c, first, t, spell(t, d[2], 7, 4, uint32_t(r)), o[0][size_t(r)]);
    }
    for (int l = 0; l < 4; ++l)
        for (int high = 0; high < 4; ++high)
            for (int out : {o[1][size_t(l * 4 + high)], o[size_t(2 + l)][size_t(high)]}) {
                Terms t{{d[0][0], 1}, {d[1][size_t(l)], 1}};
                all(c, first, t, 2 + spell(t, d[3], kExecWarp + 3, 2, uint32_t(high)), out);
            }
}

// The ROM's memories read for the current block: its slots' fields (at a completed value) and its
// terminator's fields and immediate.
struct RomCurrent {
    std::vector<Value> keys;
    Value blockLow, blockBank, fields, termFields, termImm;
};
RomCurrent romCurrent(Scheduler& s, const Inputs& in, Value execR, Value assembled) {
    auto keys =
        s.gadget("rom_keys", 1, {in.rom, in.x}, {kRomBankBlocks, kBanks, kSlots, kSlots, kBanks, kBanks}, romKeyTerms);
    const Value romLow = keys[0], romBank = keys[1];
    auto rows = s.gadget("rom_rows_current", 1, {in.val3, in.exec, execR}, {kRomBankBlocks, kBanks, kBanks, kBanks},
                         romRowsCurrentTerms);
    const Value blockLow = rows[0], blockBank = rows[1];
    Value fieldsCur = s.bankedMemory("rom_fields_current", kBanks, {romLow, keys[2]}, assembled, {blockLow, in.slot},
                                     romBank, rows[2]);
    Value termFields = s.memory("rom_term_fields", {keys[4], romLow}, assembled, {rows[3], blockLow});
    Value termImm = s.memory("rom_term_imm", {keys[5], romLow}, assembled, {rows[3], blockLow});
    return {keys, blockLow, blockBank, fieldsCur, termFields, termImm};
}

}  // namespace

Control buildControl(Scheduler& s, const Inputs& in) {
    // Control memories: the current block and warp, the launch's shape, the byte scratch.
    Value execR = s.memory("exec", in.exec, in.x, in.any);
    Value blockR = s.memory("block_shape", in.blockDim, in.x, in.any);
    Value gridR = s.memory("grid_shape", in.gridDim, in.x, in.any);
    Value epochR = s.memory("epoch", in.release, in.epoch, in.any);
    Value assembled = assembledWord(s, in);
    // ROM (the memories of Machine.h): body word (b, s) in bank b / 32, row (b mod 32) * 4 + s; terminator b
    // in row b of a memory of its own; each half word in its own memories.
    RomCurrent rom = romCurrent(s, in, execR, assembled);
    // What comes next: the first candidate after the current record, else the block's terminator.
    auto cand = s.gadget("candidates", 1, {rom.termFields, execR}, {16, 1, 1, 1, 1}, candidateTerms);
    auto next = s.gadget("next_record", 1, {in.pos, in.exec, in.val3, cand[0]}, {16, 1}, nextRecordTerms);
    auto route = s.gadget("route", 1, {in.valMid, in.pos, in.kNext, next[0]}, {16, 4, 1}, routeTerms);
    auto nextRows = s.gadget("rom_rows_next", 1, {route[0]}, {4, 4}, slotAndLaneTerms);
    const Value romLow = rom.keys[0], romBank = rom.keys[1];
    Value fieldsNext = s.bankedMemory("rom_fields_next", kBanks, {romLow, rom.keys[2]}, assembled,
                                      {rom.blockLow, nextRows[0]}, romBank, rom.blockBank);
    Value immNext = s.bankedMemory("rom_imm_next", kBanks, {romLow, rom.keys[3]}, assembled,
                                   {rom.blockLow, nextRows[0]}, romBank, rom.blockBank);
    // The register file's write side.
    auto warpParts =
        s.gadget("warp_low_high", 1, {execR}, {8, 4}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
            c.decode(first, std::vector<int>(d[0].begin() + kExecWarp, d[0].begin() + kExecWarp + 3), o[0]);
            c.decode(first, std::vector<int>(d[0].begin() + kExecWarp + 3, d[0].begin() + kExecMask), o[1]);
        });
    auto regWrite =
        s.gadget("reg_write", 1, {in.val3, in.lane, rom.fields, execR}, {16, 16, 4, 4, 4, 4}, registerWriteTerms);
    return Control{.execR = execR,
                   .blockR = blockR,
                   .gridR = gridR,
                   .epochR = epochR,
                   .assembled = assembled,
                   .fieldsCur = rom.fields,
                   .termFields = rom.termFields,
                   .termImm = rom.termImm,
                   .cand = cand,
                   .next = next,
                   .route = route,
                   .fieldsNext = fieldsNext,
                   .immNext = immNext,
                   .laneNext = nextRows[1],
                   .warpLow = warpParts[0],
                   .warpHigh = warpParts[1],
                   .regWrite = regWrite[0],
                   .regWriteBank = regWrite[1],
                   .rcWriteBanks = {regWrite[2], regWrite[3], regWrite[4], regWrite[5]}};
}

namespace {

// The min-PC rule over a warp's lanes: lane l runs when it is present, has not exited and does not wait at
// the barrier of this epoch; a running lane is a minimum when no other running lane's pc is below its own.
MinPc minPcRule(Scheduler& s, const std::string& name, const std::vector<Value>& lanes, Value present, Value epoch) {
    std::vector<Value> inputs = lanes;
    inputs.push_back(present);
    inputs.push_back(epoch);
    auto state =
        s.gadget(name + "_running", 1, inputs, {4, 4}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
            int e = d[5][0];
            for (int l = 0; l < 4; ++l) {
                const auto& lane = d[size_t(l)];
                int here = d[4][size_t(l)], exited = lane[kLaneExited], waiting = lane[kLaneWaiting],
                    at = lane[kLaneEpoch], out = o[0][size_t(l)];
                c.threshold(first, {{here, 1}, {exited, -1}, {waiting, -1}}, -1, out);
                c.threshold(first, {{here, 1}, {exited, -1}, {waiting, 1}, {at, 1}, {e, -1}}, -3, out);  // released
                c.threshold(first, {{here, 1}, {exited, -1}, {waiting, 1}, {at, -1}, {e, 1}}, -3, out);
                c.threshold(first, {{here, 1}, {exited, -1}, {waiting, 1}, {at, 1}, {e, 1}}, -4, o[1][size_t(l)]);
                c.threshold(first, {{here, 1}, {exited, -1}, {waiting, 1}, {at, -1}, {e, -1}}, -2, o[1][size_t(l)]);
            }
        });
    std::vector<Value> orderInputs = lanes;
    orderInputs.push_back(state[0]);
    Value ok =
        s.gadget(name + "_lane_order", 1, orderInputs, {16}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) {
                    if (i == j) continue;
                    Terms t{{d[4][size_t(j)], -kBlocks}};  // a lane j that does not run never blocks i
                    for (int k = 0; k < kBlockBits; ++k) {
                        t.push_back({d[size_t(j)][size_t(k)], 1 << k});
                        t.push_back({d[size_t(i)][size_t(k)], -(1 << k)});
                    }
                    c.threshold(first, t, kBlocks, o[0][size_t(i * 4 + j)]);
                }
        })[0];
    auto minima =
        s.gadget(name + "_minimum", 1, {state[0], ok}, {4, 1}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
            Terms anyRunning;
            for (int i = 0; i < 4; ++i) {
                Terms t{{d[0][size_t(i)], 1}};
                for (int j = 0; j < 4; ++j)
                    if (j != i) t.push_back({d[1][size_t(i * 4 + j)], 1});
                c.threshold(first, t, -4, o[0][size_t(i)]);
                anyRunning.push_back({d[0][size_t(i)], 1});
            }
            c.threshold(first, anyRunning, -1, o[1][0]);
        });
    Value firstMin =
        s.gadget(name + "_first_minimum", 1, {minima[0]}, {4}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
            for (int i = 0; i < 4; ++i) {
                Terms t{{d[0][size_t(i)], 1}};
                for (int j = 0; j < i; ++j) t.push_back({d[0][size_t(j)], -1});
                c.threshold(first, t, -1, o[0][size_t(i)]);
            }
        })[0];
    return MinPc{lanes, state[0], minima[0], minima[1], firstMin, state[1]};
}

}  // namespace

Lanes buildLanes(Scheduler& s, const Inputs& in, const Control& ctl, const Warps& warps) {
    const Value termFields = ctl.termFields, termImm = ctl.termImm, execR = ctl.execR;
    const auto &next = ctl.next, &cand = ctl.cand;
    // The terminator at the end of a block: every active lane's rc (a copy of the register file per lane,
    // four banks each), its new pc (jmp T; br: T where rc != 0, else F) or exit, written into row g of the
    // lane's own state memory. A row never written is a lane at block 0 that has not exited.
    auto rcRead = s.gadget("rc_rows", 1, {termFields}, {16}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
        for (int r = 0; r < 16; ++r) {
            Terms t;
            all(c, first, t, spell(t, d[0], 19, 4, uint32_t(r)), o[0][size_t(r)]);
        }
    })[0];
    std::vector<Value> rcValues;
    for (int l = 0; l < 4; ++l)
        rcValues.push_back(s.bankedMemory("regs_rc" + std::to_string(l), 4, {ctl.warpLow, ctl.regWrite}, ctl.assembled,
                                          {ctl.warpLow, rcRead}, ctl.rcWriteBanks[size_t(l)], ctl.warpHigh));
    Value taken = s.gadget("taken", 1, rcValues, {4}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
        for (int l = 0; l < 4; ++l) {
            Terms any;
            for (int dim : d[size_t(l)]) any.push_back({dim, 1});
            c.threshold(first, any, -1, o[0][size_t(l)]);
        }
    })[0];
    std::vector<int> laneWidths(4, 1);
    for (int l = 0; l < 4; ++l) laneWidths.push_back(kLaneStateBits);
    auto laneUpdate = s.gadget(
        "lane_update", 1, {next[1], execR, cand[1], cand[2], cand[3], termImm, taken, cand[4], ctl.epochR}, laneWidths,
        [](Circuit& c, int first, const Dims& d, const Dims& o) {
            int end = d[0][0], jmp = d[2][0], exit = d[3][0], br = d[4][0], bar = d[7][0], epoch = d[8][0];
            for (int l = 0; l < 4; ++l) {
                int active = d[1][size_t(kExecMask + l)], tk = d[6][size_t(l)];
                const auto& data = o[size_t(4 + l)];
                c.threshold(first, {{end, 1}, {active, 1}}, -2, o[size_t(l)][0]);
                for (int k = 0; k < kBlockBits; ++k) {
                    int target = d[5][size_t(k)], elseTarget = d[5][size_t(16 + k)];
                    for (int to : {jmp, bar})
                        c.threshold(first, {{end, 1}, {active, 1}, {to, 1}, {target, 1}}, -4, data[size_t(k)]);
                    c.threshold(first, {{end, 1}, {active, 1}, {br, 1}, {tk, 1}, {target, 1}}, -5, data[size_t(k)]);
                    c.threshold(first, {{end, 1}, {active, 1}, {br, 1}, {tk, -1}, {elseTarget, 1}}, -4,
                                data[size_t(k)]);
                }
                c.threshold(first, {{end, 1}, {active, 1}, {exit, 1}}, -3, data[kLaneExited]);
                c.threshold(first, {{end, 1}, {active, 1}, {bar, 1}}, -3, data[kLaneWaiting]);  // in this epoch
                c.threshold(first, {{end, 1}, {active, 1}, {bar, 1}, {epoch, 1}}, -4, data[kLaneEpoch]);
            }
        });
    // Two copies of the lanes' states, rows by warp: one read at the current warp, one at the next.
    std::vector<Value> lanes, lanesNext;
    for (int l = 0; l < 4; ++l) {
        lanes.push_back(s.memory("lane" + std::to_string(l), warps.row, laneUpdate[size_t(4 + l)], warps.row,
                                 laneUpdate[size_t(l)]));
        lanesNext.push_back(s.memory("lane_next" + std::to_string(l), warps.row, laneUpdate[size_t(4 + l)],
                                     warps.nextRow, laneUpdate[size_t(l)]));
    }
    Lanes out{minPcRule(s, "current", lanes, warps.present, ctl.epochR),
              minPcRule(s, "next", lanesNext, warps.nextMask, ctl.epochR), -1};
    // Whether a lane of the thread block waits at the barrier: set when a warp leaves with lanes there,
    // cleared by RELEASE.
    auto waitWrite = s.gadget("barrier_write", 1, {next[1], out.current.anyRunning, out.current.waiting, in.release},
                              {1, 1}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
                                  int end = d[0][0], running = d[1][0], release = d[3][0];
                                  Terms leaves{{end, 4}, {running, -4}};  // and some lane waits
                                  for (int l = 0; l < 4; ++l) leaves.push_back({d[2][size_t(l)], 1});
                                  c.threshold(first, leaves, -5, o[0][0]);
                                  c.threshold(first, {{release, 1}}, -1, o[0][0]);
                                  c.threshold(first, {{release, -1}}, 0, o[1][0]);
                              });
    out.barrierWaiting = s.memory("barrier_waiting", in.any, waitWrite[1], in.any, waitWrite[0]);
    return out;
}

}  // namespace qgpu::gpu::detail
