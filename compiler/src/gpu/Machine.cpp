#include "qgpu/compiler/gpu/Machine.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "MachineParts.h"

namespace qgpu::gpu {

namespace {

using namespace detail;

std::vector<int> codeOf(const Token& t) {
    std::vector<int> bits;
    if (t.kind == Kind::Val) {
        bits = {IsVal, SlotBits + t.slot, LaneBits + t.lane, ByteBits + t.byteIndex};
        if (t.last) bits.push_back(IsLast);
        for (int j = 0; j < 8; ++j)
            if (t.value >> j & 1) bits.push_back(ValueBits + j);
    } else if (t.kind == Kind::Exec) {
        bits = {IsExec};
        for (int j = 0; j < kBlockBits; ++j)
            if (t.block >> j & 1) bits.push_back(BlockBits + j);
        for (int j = 0; j < kWarpBits; ++j)
            if (t.warp >> j & 1) bits.push_back(WarpBits + j);
        for (int l = 0; l < 4; ++l)
            if (t.mask >> l & 1) bits.push_back(MaskBits + l);
    } else if (t.kind == Kind::Release) {
        bits = {IsRelease};
        if (t.epoch) bits.push_back(EpochBit);
    } else if (t.kind == Kind::End) {
        bits = {IsEnd};
    } else if (t.kind == Kind::Fault) {
        bits = {IsFault};
        for (int l = 0; l < 4; ++l)
            if (t.mask >> l & 1) bits.push_back(MaskBits + l);
    }
    return bits;  // the loading tokens have no code: the host feeds them, the model never writes them
}

}  // namespace

circuit::Geometry defaultMachineGeometry() {
    circuit::Geometry g;
    g.hiddenSize = 2048;
    g.intermediateSize = 6144;
    g.linearNumKeyHeads = g.linearNumValueHeads = 16;
    g.linearKeyHeadDim = g.linearValueHeadDim = 128;
    return g;
}

namespace {

// The machine's inputs: the features token embeddings set (docs/tokens.md), and the code dims the next
// token's code is written into (cleared first: the token's own code came in with its embedding).
Inputs machineInputs(Scheduler& s) {
    Inputs in;
    in.any = s.input("any", 1);
    in.exec = s.input("t_exec", 1);
    in.blockDim = s.input("t_block_dim", 1);  // BLOCK(x, y, z): the launch's thread-block shape
    in.gridDim = s.input("t_grid_dim", 1);    // GRID(x, y, z): its grid, the last token fed: the launch starts
    in.release = s.input("t_release", 1);     // RELEASE(e): the barrier's waiting lanes run again
    in.epoch = s.input("release_epoch", 1);   // RELEASE(1)
    in.rom = s.input("t_rom", 1);
    in.mem = s.input("t_mem", 1);          // MEM(a): the assembled word initialises global[a]
    in.valMid = s.input("t_val_mid", 1);   // a VAL record of a byte with more to come
    in.val3 = s.input("t_val_last", 1);    // a VAL record of the value's last byte: the value is complete
    in.assemble = s.input("assemble", 1);  // reads the four scratch bytes (ROM writes, last VAL bytes)
    for (int k = 0; k < 4; ++k) in.byte.push_back(s.input("byte" + std::to_string(k), 1));
    in.pos = s.input("val_pos", 16);     // VAL: slot * 4 + lane, one-hot
    in.slot = s.input("val_slot", 4);    // VAL: slot one-hot
    in.lane = s.input("val_lane", 4);    // VAL: lane one-hot
    in.kNext = s.input("val_knext", 4);  // VAL of byte k with more to come: byte k + 1, one-hot
    in.vdata = s.input("vdata");  // Byte, VAL: the byte at its place in the word (a last byte: and its sign above)
    in.x = s.input("x");          // EXEC, ROM, MEM: gpu::xWord; BLOCK, GRID: gpu::shapeWord
    in.code = s.input("code", CodeWidth);
    s.keep(in.code);
    s.gadget("clear_code", 1, {in.code}, {}, [](Circuit& c, int first, const Dims& d, const Dims&) {
        for (int dim : d[0]) c.clear(first, dim);  // the token's own code came in with its embedding
    });
    return in;
}

// The code of a VAL record: its slot, lane and byte (one-hot), the byte's value, and whether it is the last.
void valueCodeTerms(Circuit& c, int first, const Dims& d) {
    const auto &code = d[0], &k = d[1], &res = d[2], &pos = d[3];
    int toVal = d[4][0];
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
            c.threshold(first, {{k[size_t(byte)], 1}, {res[size_t(8 * byte + j)], 1}}, -2, code[size_t(ValueBits + j)]);
    // Byte k is the value's last when bits 8k + 7 .. 31 are all 0 or all 1 (byte 3 always is).
    for (int byte = 0; byte < 4; ++byte) {
        Terms zeros{{k[size_t(byte)], 1}}, ones{{k[size_t(byte)], 1}};
        for (int i = 8 * byte + 7; byte < 3 && i < 32; ++i) {
            zeros.push_back({res[size_t(i)], -1});
            ones.push_back({res[size_t(i)], 1});
        }
        c.threshold(first, zeros, -1, code[IsLast]);
        if (byte < 3) c.threshold(first, ones, -int(ones.size()), code[IsLast]);
    }
}

// The code of the record after a block's end or the launch's start: EXEC (the min-PC rule's block and lanes
// of this warp or the next), FAULT, RELEASE or END.
void controlCodeTerms(Circuit& c, int first, const Dims& d) {
    const auto& code = d[0];
    int end = d[5][0], launch = d[6][0], release = d[7][0], running = d[9][0];
    int sameBlock = d[15][0], nextCta = d[16][0], waiting = d[17][0], epoch = d[18][0], bar = d[19][0];
    const auto& runningLanes = d[20];
    const size_t lanesNow = 21, lanesThen = 25;  // each lane's state (codeInputs' tail)
    // An EXEC: the min-PC rule's block and lanes of a warp, under the conditions `when` (all hold).
    auto exec = [&](const Terms& when, const std::vector<int>& minima, const std::vector<int>& firstMin, size_t lanesAt,
                    const std::vector<int>& warpBits) {
        int n = int(std::count_if(when.begin(), when.end(), [](const auto& t) { return t.second > 0; }));
        auto with = [&](Terms more) {
            more.insert(more.end(), when.begin(), when.end());
            return more;
        };
        c.threshold(first, when, -n, code[IsExec]);
        for (int i = 0; i < 4; ++i) {
            c.threshold(first, with({{minima[size_t(i)], 1}}), -n - 1, code[size_t(MaskBits + i)]);
            for (int bit = 0; bit < kBlockBits; ++bit)
                c.threshold(first, with({{firstMin[size_t(i)], 1}, {d[lanesAt + size_t(i)][size_t(bit)], 1}}), -n - 2,
                            code[size_t(BlockBits + bit)]);
        }
        for (int bit = 0; bit < kWarpBits; ++bit)
            c.threshold(first, with({{warpBits[size_t(bit)], 1}}), -n - 1, code[size_t(WarpBits + bit)]);
    };
    // At a block's end or the launch, the warp goes on while a lane runs.
    std::vector<int> current(d[11].begin() + kExecWarp, d[11].begin() + kExecMask);
    exec({{launch, 1}, {running, 1}}, d[8], d[10], lanesNow, current);
    exec({{end, 1}, {bar, -1}, {running, 1}}, d[8], d[10], lanesNow, current);
    // A barrier reached while other lanes of the warp still run: FAULT with those lanes ends the launch.
    c.threshold(first, {{end, 1}, {bar, 1}, {running, 1}}, -3, code[IsFault]);
    for (int l = 0; l < 4; ++l)
        c.threshold(first, {{end, 1}, {bar, 1}, {runningLanes[size_t(l)], 1}}, -3, code[size_t(MaskBits + l)]);
    // When it leaves, the model visits the next warp of its thread block; after the block's last warp,
    // RELEASE when lanes wait at the barrier (then the block's first warp), else the next thread
    // block's first warp, or END.
    exec({{release, 1}}, d[12], d[13], lanesThen, d[14]);
    exec({{end, 1}, {running, -1}, {sameBlock, 1}}, d[12], d[13], lanesThen, d[14]);
    exec({{end, 1}, {running, -1}, {sameBlock, -1}, {waiting, -1}, {nextCta, 1}}, d[12], d[13], lanesThen, d[14]);
    c.threshold(first, {{end, 1}, {running, -1}, {sameBlock, -1}, {waiting, 1}}, -2, code[IsRelease]);
    c.threshold(first, {{end, 1}, {running, -1}, {sameBlock, -1}, {waiting, 1}, {epoch, -1}}, -2, code[EpochBit]);
    c.threshold(first, {{end, 1}, {running, -1}, {sameBlock, -1}, {waiting, -1}, {nextCta, -1}}, -1, code[IsEnd]);
}

// The features each token's embedding sets: its input features, and its own code (the tied LM head's row).
std::vector<std::vector<int>> tokenFeatures(const Scheduler& s, const Inputs& in, const std::vector<int>& codeDims) {
    auto bitsOf = [&](Value v, uint32_t word, std::vector<int>& dims) {
        for (size_t i = 0; i < s.dims(v).size(); ++i)
            if (word >> i & 1) dims.push_back(s.dims(v)[i]);
    };
    // A byte goes into its scratch row at its place in the word. A last byte also writes the rows above it
    // (with a Val's sign, or zero), so the four rows always hold this word: earlier words never show through.
    auto writeByte = [&](const Token& t, std::vector<int>& dims) {
        int k = t.byteIndex;
        uint32_t word = uint32_t(t.value) << (8 * k);
        if (t.last && t.kind == Kind::Val && (t.value & 0x80) && k < 3) word |= ~0u << (8 * (k + 1));
        for (int j = k; j < (t.last ? 4 : k + 1); ++j) dims.push_back(s.dims(in.byte[size_t(j)])[0]);
        bitsOf(in.vdata, word, dims);
    };
    std::vector<std::vector<int>> trueDims;  // per token: the features its embedding sets
    for (int id = 0; id < vocabularySize(); ++id) {
        Token t = Token::fromId(id);
        std::vector<int> on{s.dims(in.any)[0]};
        switch (t.kind) {
            case Kind::BlockDim:
            case Kind::GridDim:
                on.push_back(s.dims(t.kind == Kind::BlockDim ? in.blockDim : in.gridDim)[0]);
                bitsOf(in.x, shapeWord(t), on);
                break;
            case Kind::Byte: writeByte(t, on); break;
            case Kind::RomWrite:
            case Kind::MemWrite:
                if (t.small) {  // the token is its own last (and only) byte: it fills the scratch rows, then reads them
                    Token byte{Kind::Byte};
                    byte.value = t.value, byte.last = true;
                    writeByte(byte, on);
                }
                on.push_back(s.dims(t.kind == Kind::RomWrite ? in.rom : in.mem)[0]);
                on.push_back(s.dims(in.assemble)[0]);
                bitsOf(in.x, xWord(t), on);
                break;
            case Kind::Exec:
                on.push_back(s.dims(in.exec)[0]);
                bitsOf(in.x, xWord(t), on);
                break;
            case Kind::Val:
                on.push_back(s.dims(t.last ? in.val3 : in.valMid)[0]);
                if (t.last)
                    on.push_back(s.dims(in.assemble)[0]);
                else
                    on.push_back(s.dims(in.kNext)[size_t(t.byteIndex + 1)]);
                writeByte(t, on);
                on.push_back(s.dims(in.pos)[size_t(t.slot * 4 + t.lane)]);
                on.push_back(s.dims(in.slot)[size_t(t.slot)]);
                on.push_back(s.dims(in.lane)[size_t(t.lane)]);
                break;
            case Kind::Release:
                on.push_back(s.dims(in.release)[0]);
                if (t.epoch) on.push_back(s.dims(in.epoch)[0]);
                break;
            case Kind::End:
            case Kind::Fault: break;
        }
        for (int bit : codeOf(t)) on.push_back(codeDims[size_t(bit)]);
        trueDims.push_back(std::move(on));
    }
    return trueDims;
}

}  // namespace

Machine buildMachine(const circuit::Geometry& geometry) {
    Scheduler s(geometry);
    Inputs in = machineInputs(s);
    Control ctl = buildControl(s, in);
    Warps warps = buildWarps(s, ctl, in.release);
    Lanes lanes = buildLanes(s, in, ctl, warps);
    Value result = buildDatapath(s, in, ctl, warps);
    const Value kOut = ctl.route[1], nextPos = ctl.route[0];
    const MinPc &now = lanes.current, &then = lanes.next;

    // The code of the next token, written into the code dims the LM head reads.
    std::vector<Value> codeInputs = {
        in.code,     kOut,          result,         nextPos,         ctl.route[2],  ctl.next[1],
        in.gridDim,  in.release,    now.minima,     now.anyRunning,  now.firstMin,  ctl.execR,
        then.minima, then.firstMin, warps.nextWarp, warps.sameBlock, warps.nextCta, lanes.barrierWaiting,
        ctl.epochR,  ctl.cand[4],   now.running};
    codeInputs.insert(codeInputs.end(), now.lanes.begin(), now.lanes.end());
    codeInputs.insert(codeInputs.end(), then.lanes.begin(), then.lanes.end());
    s.gadget("code", 1, codeInputs, {}, [](Circuit& c, int first, const Dims& d, const Dims&) {
        valueCodeTerms(c, first, d);
        controlCodeTerms(c, first, d);
    });
    s.build();

    Machine m{std::move(s.circuit()), {}, s.dims(in.code)};
    m.embeddings = m.circuit.tokenEmbeddings(tokenFeatures(s, in, m.codeDims));
    // The final norm keeps only the code dims, each at +-1: the logit of a token is the number of code
    // bits it agrees on minus those it does not.
    std::vector<float> finalNorm(size_t(geometry.hiddenSize), -1.f);
    for (int d : m.codeDims) finalNorm[size_t(d)] = float(m.circuit.inputScale() - 1);
    m.circuit.setFinalNorm(finalNorm);
    return m;
}

std::string rowMeaning(const std::string& memory, int row) {
    size_t digits = memory.find_last_not_of("0123456789") + 1;
    std::string base = memory.substr(0, digits);
    int n = digits < memory.size() ? std::stoi(memory.substr(digits)) : -1;
    auto str = [](int v) { return std::to_string(v); };
    if ((base == "regs_a" || base == "regs_b" || base == "regs_c") && n >= 0)  // bank = lane * 4 + warp / 8
        return "warp " + str(n % 4 * 8 + row / 16) + ", lane " + str(n / 4) + ", r" + str(row % 16);
    if ((base == "regs_rc" || base == "regs_lane") && memory.size() - digits == 2)  // lane, then bank = warp / 8
        return "warp " + str(n % 10 * 8 + row / 16) + ", lane " + str(n / 10) + ", r" + str(row % 16);
    if (base == kGlobalMemory && n >= 0) return "global word " + str(n * 128 + row);
    if (base == kSharedMemory && n >= 0) return "block " + str(n * 2 + row / 64) + ", shared word " + str(row % 64);
    if ((base == "lane" || base == "lane_next") && n >= 0)
        return "warp " + str(row) + ", lane " + str(n) + ": pc, exited, waiting, epoch";
    if ((base == "rom_fields_next" || base == "rom_fields_current") && n >= 0)
        return "block " + str(n * kRomBankBlocks + row / 4) + ", slot " + str(row % 4) + " (fields)";
    if (base == "rom_imm_next" && n >= 0)
        return "block " + str(n * kRomBankBlocks + row / 4) + ", slot " + str(row % 4) + " (immediate)";
    if (base == "rom_term_fields" || base == "rom_term_imm") return "block " + str(row) + ", terminator";
    return "row " + str(row);
}

}  // namespace qgpu::gpu
