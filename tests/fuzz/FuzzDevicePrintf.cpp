// Device printf's records and format strings come from a kernel's memory, which whoever wrote the kernel (Qwen
// included) controls. The input is global memory whose words from 1 on are printf's buffer; the records are
// read back and formatted, and the input is also formatted as one format string over arguments of every kind.
#include <algorithm>
#include <cstring>

#include "FuzzTarget.h"
#include "qgpu/core/DevicePrintf.h"

void fuzzOne(const std::string& input) {
    std::vector<uint32_t> global(input.size() / 4 + 2, 0);
    std::memcpy(global.data() + 1, input.data(), input.size());  // word 0 is null, as on the machine
    qgpu::MemoryMap map;
    int words = int(std::min<size_t>(global.size() - 1, 300));
    map.arrays.push_back({qgpu::kPrintfBufferName, 1, words, qgpu::ElementType::U32, words});
    qgpu::readDevicePrintf(global, map).text();
    std::vector<qgpu::PrintfArgument> arguments;
    for (size_t i = 0; i < global.size() && i < 64; ++i)
        arguments.push_back({int(1 + i % 5), uint64_t(global[i]) | uint64_t(global[global.size() - 1 - i]) << 32});
    qgpu::formatDevicePrintf(input, arguments, global);
}
