#include "qgpu/runtime/StateRows.h"

#include <sys/mman.h>

#include <cstdlib>

namespace qgpu {

namespace {
// From this size on, a block is mapped: its pages cost nothing until touched. (A state layer is 1 MiB.)
constexpr size_t kMapped = 64 * 1024;
}  // namespace

void* allocateZeroed(size_t bytes) {
    void* p = bytes >= kMapped ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                               : std::calloc(bytes, 1);
    if (p == MAP_FAILED || p == nullptr) throw std::bad_alloc();
    return p;
}

void releaseZeroed(void* p, size_t bytes) {
    if (bytes >= kMapped)
        munmap(p, bytes);
    else
        std::free(p);
}

}  // namespace qgpu
