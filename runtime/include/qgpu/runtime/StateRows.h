// A layer's recurrent state as the sparse engine keeps it: floats that start at 0 and cost nothing until
// written. Large blocks come straight from mmap, whose pages the kernel zeroes on first touch, so a new
// state allocates 17 MB in microseconds and a launch pays only for the rows it writes (zeroing every
// layer up front took longer than a short launch's tokens).
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace qgpu {

// Zeroed memory: large blocks mapped (zero pages), small ones from calloc. Throws std::bad_alloc.
void* allocateZeroed(size_t bytes);
void releaseZeroed(void* p, size_t bytes);

template <typename T>
class ZeroedAllocator {
public:
    using value_type = T;
    ZeroedAllocator() = default;
    template <typename U>
    ZeroedAllocator(const ZeroedAllocator<U>&) {}

    T* allocate(size_t n) { return static_cast<T*>(allocateZeroed(n * sizeof(T))); }
    void deallocate(T* p, size_t n) { releaseZeroed(p, n * sizeof(T)); }
    // Value-initialisation writes nothing: fresh memory is zero already. (So a vector of these must never
    // shrink and grow again within its capacity, which would show old values; states never change size.)
    template <typename U>
    void construct(U*) noexcept {
        static_assert(std::is_trivial_v<U>, "only trivial values are zero as all-zero bytes");
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    template <typename U>
    bool operator==(const ZeroedAllocator<U>&) const {
        return true;
    }
};

using StateRows = std::vector<float, ZeroedAllocator<float>>;

}  // namespace qgpu
