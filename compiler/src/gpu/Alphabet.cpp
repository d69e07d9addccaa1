#include "qgpu/compiler/gpu/Alphabet.h"

#include <algorithm>
#include <stdexcept>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Encoding.h"

namespace qgpu::gpu {

namespace {

// Id ranges, in this order.
const int kShapeCount = int(launchShapes().size());
// A word's byte token is one of 7 forms: byte 0..2 with more to come, or byte 0..3 as the last.
constexpr int kByteForms = 7;
constexpr int kByteCount = kByteForms * 256, kRomCount = kBlocks * (kSlots + 1) * 2,
              kSmallRomCount = kSmallRomBlocks * (kSlots + 1) * 2 * 256, kMemCount = 1024,
              kExecCount = kBlocks * kWarps * 16, kValCount = kSlots * kLanes * kByteForms * 256;
const int kByteBase = 2 * kShapeCount, kRomBase = kByteBase + kByteCount, kMemBase = kRomBase + kRomCount,
          kExecBase = kMemBase + kMemCount, kValBase = kExecBase + kExecCount, kReleaseBase = kValBase + kValCount,
          kEndId = kReleaseBase + 2, kFaultBase = kEndId + 1, kSmallRomBase = kFaultBase + 16,
          kSmallMemBase = kSmallRomBase + kSmallRomCount, kVocabulary = kSmallMemBase + kSmallMemWords * 256;

int shapeIndex(const std::array<int, 3>& shape) {
    const auto& all = launchShapes();
    auto it = std::find(all.begin(), all.end(), shape);
    if (it == all.end()) throw std::out_of_range("no launch shape of more than 32 threads or blocks");
    return int(it - all.begin());
}

int byteForm(const Token& t) { return t.last || t.byteIndex == 3 ? 3 + t.byteIndex : t.byteIndex; }
void setByteForm(Token& t, int form) {
    t.byteIndex = form < 3 ? form : form - 3;
    t.last = form >= 3;
}

std::string laneSet(int mask) {
    std::string lanes;
    for (int l = 0; l < kLanes; ++l)
        if (mask >> l & 1) lanes += (lanes.empty() ? "" : ",") + std::to_string(l);
    return "{" + lanes + "}";
}

std::string hex(int v) {
    const char* digits = "0123456789abcdef";
    return std::string("0x") + digits[v >> 4] + digits[v & 15];
}

}  // namespace

const std::vector<std::array<int, 3>>& launchShapes() {
    static const std::vector<std::array<int, 3>> shapes = [] {
        std::vector<std::array<int, 3>> all;
        for (int x = 1; x <= 32; ++x)
            for (int y = 1; x * y <= 32; ++y)
                for (int z = 1; x * y * z <= 32; ++z) all.push_back({x, y, z});
        return all;
    }();
    return shapes;
}

uint32_t xWord(const Token& t) {
    switch (t.kind) {
        case Kind::Exec: return uint32_t(t.block | t.warp << kExecWarp | t.mask << kExecMask);
        case Kind::RomWrite: return uint32_t(t.block | t.slot << kRomSlot | t.part << kRomPart);
        case Kind::MemWrite: return uint32_t(t.address);
        default: return 0;
    }
}

uint32_t shapeWord(const Token& t) {
    auto [x, y, z] = t.shape;
    uint32_t word = uint32_t(x - 1) | uint32_t(y - 1) << 5 | uint32_t(z - 1) << 10 | uint32_t(x * y * z - 1) << 15;
    if (t.kind == Kind::BlockDim) word |= uint32_t((x * y * z + 3) / 4 - 1) << 20;
    return word;
}

std::vector<int> threadSlots(const Dim3& grid, const Dim3& block) {
    int threads = block.count(), warpsPerBlock = (threads + kLanes - 1) / kLanes;
    std::vector<int> slots;
    for (int warp = 0; warp < grid.count() * warpsPerBlock; ++warp)
        for (int lane = 0; lane < kLanes; ++lane)
            if (warp % warpsPerBlock * kLanes + lane < threads) slots.push_back(warp * kLanes + lane);
    return slots;
}

int vocabularySize() { return kVocabulary; }

int Token::id() const {
    switch (kind) {
        case Kind::BlockDim: return shapeIndex(shape);
        case Kind::GridDim: return kShapeCount + shapeIndex(shape);
        case Kind::Byte: return kByteBase + byteForm(*this) * 256 + value;
        case Kind::RomWrite: {
            int rom = (block * (kSlots + 1) + slot) * 2 + part;
            if (small && block >= kSmallRomBlocks)
                throw std::out_of_range("ROM block " + std::to_string(block) + " has no one-token form");
            return small ? kSmallRomBase + rom * 256 + value : kRomBase + rom;
        }
        case Kind::MemWrite: return small ? kSmallMemBase + address * 256 + value : kMemBase + address;
        case Kind::Exec: return kExecBase + (block * kWarps + warp) * 16 + mask;
        case Kind::Val: return kValBase + ((slot * kLanes + lane) * kByteForms + byteForm(*this)) * 256 + value;
        case Kind::Release: return kReleaseBase + epoch;
        case Kind::End: return kEndId;
        case Kind::Fault: return kFaultBase + mask;
    }
    return -1;
}

Token Token::fromId(int id) {
    Token t;
    if (id < 0 || id >= kVocabulary) throw std::out_of_range("token id " + std::to_string(id) + " is no chip token");
    if (id >= kFaultBase && id < kSmallRomBase) {
        t.kind = Kind::Fault;
        t.mask = id - kFaultBase;
        return t;
    }
    if (id > kEndId) {  // a small RomWrite or MemWrite: the word in the token
        bool rom = id < kSmallMemBase;
        int r = id - (rom ? kSmallRomBase : kSmallMemBase);
        t = fromId(rom ? kRomBase + r / 256 : kMemBase + r / 256);
        t.small = true;
        t.value = r % 256;
        return t;
    }
    if (id < kByteBase) {
        t.kind = id < kShapeCount ? Kind::BlockDim : Kind::GridDim;
        t.shape = launchShapes()[size_t(id % kShapeCount)];
    } else if (id < kRomBase) {
        t.kind = Kind::Byte;
        setByteForm(t, (id - kByteBase) / 256);
        t.value = (id - kByteBase) % 256;
    } else if (id < kMemBase) {
        int r = id - kRomBase;
        t.kind = Kind::RomWrite;
        t.part = r % 2;
        t.slot = r / 2 % (kSlots + 1);
        t.block = r / 2 / (kSlots + 1);
    } else if (id < kExecBase) {
        t.kind = Kind::MemWrite;
        t.address = id - kMemBase;
    } else if (id < kValBase) {
        t.kind = Kind::Exec;
        t.mask = (id - kExecBase) % 16;
        t.block = (id - kExecBase) / 16 / kWarps;
        t.warp = (id - kExecBase) / 16 % kWarps;
    } else if (id >= kReleaseBase && id < kEndId) {
        t.kind = Kind::Release;
        t.epoch = id - kReleaseBase;
    } else if (id < kEndId) {
        int r = id - kValBase;
        t.kind = Kind::Val;
        t.value = r % 256;
        setByteForm(t, r / 256 % kByteForms);
        t.lane = r / 256 / kByteForms % kLanes;
        t.slot = r / 256 / kByteForms / kLanes;
    } else {
        t.kind = Kind::End;
    }
    return t;
}

std::string Token::text() const {
    auto n = [](int v) { return std::to_string(v); };
    switch (kind) {
        case Kind::BlockDim:
        case Kind::GridDim:
            return std::string(kind == Kind::BlockDim ? "BLOCK(" : "GRID(") + n(shape[0]) + "," + n(shape[1]) + "," +
                   n(shape[2]) + ")";
        case Kind::Byte: return "BYTE(k" + n(byteIndex) + "," + hex(value) + (last ? ".)" : ")");
        case Kind::RomWrite:
            return "ROM(b" + n(block) + ",s" + n(slot) + (part ? ",imm" : ",op") + (small ? "," + hex(value) : "") +
                   ")";
        case Kind::MemWrite: return "MEM(" + n(address) + (small ? "," + hex(value) : "") + ")";
        case Kind::Exec: return "EXEC(b" + n(block) + ",w" + n(warp) + "," + laneSet(mask) + ")";
        case Kind::Val:
            return "VAL(s" + n(slot) + ",l" + n(lane) + ",k" + n(byteIndex) + "," + hex(value) + (last ? ".)" : ")");
        case Kind::Release: return "RELEASE(" + n(epoch) + ")";
        case Kind::End: return "END";
        case Kind::Fault: return "FAULT(bar," + laneSet(mask) + ")";
    }
    return "?";
}

int wordBytes(uint32_t word, bool signExtend) {
    for (int n = 1; n < 4; ++n) {
        uint32_t low = word << (32 - 8 * n);  // the low n bytes, at the top
        if ((signExtend ? uint32_t(int32_t(low) >> (32 - 8 * n)) : low >> (32 - 8 * n)) == word) return n;
    }
    return 4;
}

std::vector<Token> spellWord(Kind kind, uint32_t word) {
    std::vector<Token> tokens;
    for (int k = 0, n = wordBytes(word, kind == Kind::Val); k < n; ++k) {
        Token byte{kind};
        byte.byteIndex = k, byte.value = int(word >> (8 * k) & 0xFF), byte.last = k == n - 1;
        tokens.push_back(byte);
    }
    return tokens;
}

bool producesValue(const Instruction& in) {
    switch (in.op) {
        case Opcode::StGlobal:
        case Opcode::StShared:
        case Opcode::AtomGlobal:
        case Opcode::AtomShared: return true;
        case Opcode::Jmp:
        case Opcode::Br:
        case Opcode::Bar:
        case Opcode::Exit: return false;
        default: return in.rd != 0;
    }
}

std::vector<Token> loadTokens(const Program& program, const Dim3& grid, const Dim3& block,
                              const std::vector<uint32_t>& global) {
    if (block.count() < 1 || block.count() > 32 || grid.count() < 1 || grid.count() > 32 ||
        threadSlots(grid, block).back() / kLanes >= kWarps)
        throw DiagnosticError(
            Diagnostic{"", 0, 0,
                       "the model runs at most 32 thread blocks of at most 32 threads and 32 warps in "
                       "all; this launch has " +
                           std::to_string(grid.count()) + " blocks of " + std::to_string(block.count()) + " threads"});
    if (int(program.blocks.size()) > kBlocks)
        throw DiagnosticError(Diagnostic{"", 0, 0,
                                         "the program has " + std::to_string(program.blocks.size()) +
                                             " blocks but the model's ROM holds " + std::to_string(kBlocks)});
    std::vector<Token> tokens;
    auto bytes = [&](uint32_t word) {
        for (const Token& byte : spellWord(Kind::Byte, word)) tokens.push_back(byte);
    };
    // A word below 256 rides in its RomWrite token (in the first kSmallRomBlocks blocks) or MemWrite token (the
    // first kSmallMemWords words); any other is spelt in Byte tokens first.
    auto write = [&](Token t, uint32_t word) {
        t.small = word < 256 && (t.kind == Kind::RomWrite ? t.block < kSmallRomBlocks : t.address < kSmallMemWords);
        if (t.small)
            t.value = int(word);
        else
            bytes(word);
        tokens.push_back(t);
    };
    auto half = [&](int block, int slot, int part, uint32_t word) {
        if (word == 0) return;  // rows never written read as zero
        Token rom{Kind::RomWrite};
        rom.block = block, rom.slot = slot, rom.part = part;
        write(rom, word);
    };
    for (int b = 0; b < int(program.blocks.size()); ++b) {
        const Block& block = program.blocks[size_t(b)];
        uint32_t writes = 0;
        for (size_t s = 0; s < block.body.size(); ++s) {
            const Instruction& in = block.body[s];
            if (producesValue(in)) writes |= 1u << s;
            uint64_t word = encode(in);
            half(b, int(s), 0, uint32_t(word));
            half(b, int(s), 1, uint32_t(word >> 32));
        }
        const Instruction& term = block.terminator;
        if (term.rd != 0) throw std::logic_error("a terminator with rd: its bits carry the writes mask");
        uint64_t word = encode(term);
        half(b, kSlots, 0, uint32_t(word) | writes << kWritesMaskShift);
        half(b, kSlots, 1, uint32_t(word >> 32));
    }
    if (global.size() > 1024) throw DiagnosticError(Diagnostic{"", 0, 0, "global memory holds 1024 words"});
    for (size_t a = 0; a < global.size(); ++a) {
        if (global[a] == 0) continue;  // memory starts zero
        Token mem{Kind::MemWrite};
        mem.address = int(a);
        write(mem, global[a]);
    }
    Token blockDim{Kind::BlockDim}, gridDim{Kind::GridDim};
    blockDim.shape = {block.x, block.y, block.z};
    gridDim.shape = {grid.x, grid.y, grid.z};
    tokens.push_back(blockDim);
    tokens.push_back(gridDim);
    return tokens;
}

}  // namespace qgpu::gpu
