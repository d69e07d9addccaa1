// The machine's sizes as data: every other layer reads them from here, never from its own constants.
#pragma once

#include <cstdint>

namespace qgpu {

struct MachineSpec {
    int lanesPerWarp = 4;
    int registers = 16;      // r0 reads zero and ignores writes
    int romBlocks = 128;     // program ROM capacity in machine blocks
    int slotsPerBlock = 4;   // body instructions per block (the terminator is extra)
    int globalWords = 1024;  // 32-bit words of global memory
    int sharedWords = 64;    // 32-bit words of shared memory per thread block
    int maxThreads = 128;    // threads per launch
    int maxThreadsPerBlock = 32;
    int maxBlocks = 32;  // thread blocks per launch

    int usableRegisters() const { return registers - 1; }

    // The machine the project ships: the published design's sizes, global memory raised to 1024 words.
    static MachineSpec standard() { return MachineSpec{}; }
};

}  // namespace qgpu
