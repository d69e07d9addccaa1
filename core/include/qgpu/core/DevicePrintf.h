// Device printf's output: the records a launch left in its printf buffer (resources/include/qgpu_printf.h),
// read back from global memory and formatted as CUDA's host formats them after a launch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/core/Launch.h"

namespace qgpu {

// The global variable that holds the buffer: a word counting the words asked for, then the records.
inline constexpr const char* kPrintfBufferName = "__qgpu_printf_buffer";

// One printf call: the global word its record starts at, and its text (one line, several, or none). A failed
// device assert leaves CUDA's message as a record too.
struct PrintedRecord {
    int word = 0;
    std::string text;
    bool failedAssertion = false;
};

struct DevicePrintfOutput {
    std::vector<PrintedRecord> records;  // in buffer order, which is the order the calls ran in
    int bufferWords = 0;                 // 0 when the program never calls printf
    int droppedWords = 0;                // words of the calls whose records did not fit the buffer
    std::string text() const;            // every record's text, in order
    // The first failed assertion's record, or null (not of a temporary: the record lives in this object).
    const PrintedRecord* failedAssertion() const&;
    const PrintedRecord* failedAssertion() const&& = delete;
    // The records' texts sorted: what a check compares, since CUDA leaves the order across threads open.
    std::vector<std::string> sortedTexts() const;
};

// The launch's printf output from its final global memory.
DevicePrintfOutput readDevicePrintf(const std::vector<uint32_t>& global, const MemoryMap& map);

// One argument of a record: its kind (1 a 32-bit integer, 2 a 64-bit integer, 3 a float, 4 a double, 5 a
// pointer) and its bits (a float's in the low word).
struct PrintfArgument {
    int kind = 0;
    uint64_t bits = 0;
};

// `format` filled in with `arguments` as C's printf does (widths and precisions capped at 1024); %s reads a
// string from `global` at the pointer's byte address, and %n writes nothing. A conversion without an
// argument left is copied as it stands.
std::string formatDevicePrintf(const std::string& format, const std::vector<PrintfArgument>& arguments,
                               const std::vector<uint32_t>& global);

// The NUL-terminated string at byte address `address` of global memory (at most `limit` bytes).
std::string readGlobalString(const std::vector<uint32_t>& global, uint64_t address, size_t limit = 4096);

}  // namespace qgpu
