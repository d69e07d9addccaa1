// A layer's recurrent state as the sparse engine keeps it: floats that start at 0 and cost nothing until
// written. Large blocks come straight from mmap, whose pages the kernel zeroes on first touch, so a new
// state allocates 17 MB in microseconds and a launch pays only for the rows it writes (zeroing every
// layer up front took longer than a short launch's tokens).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>
#include <vector>

namespace qgpu {

template <typename T>
class ZeroedAllocator {
public:
    using value_type = T;
    ZeroedAllocator() = default;
    template <typename U>
    ZeroedAllocator(const ZeroedAllocator<U>&) {}

    T* allocate(size_t n) {
        void* p = n * sizeof(T) >= kMapped
                      ? mmap(nullptr, n * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                      : std::calloc(n, sizeof(T));
        if (p == MAP_FAILED || p == nullptr) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t n) {
        if (n * sizeof(T) >= kMapped)
            munmap(p, n * sizeof(T));
        else
            std::free(p);
    }
    // Value-initialisation writes nothing: fresh memory is zero already. (So a vector of these must never
    // shrink and grow again within its capacity, which would show old values; states never change size.)
    template <typename U>
    void construct(U*) noexcept {}
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    template <typename U>
    bool operator==(const ZeroedAllocator<U>&) const {
        return true;
    }

private:
    static constexpr size_t kMapped = 64 * 1024;
};

using StateRows = std::vector<float, ZeroedAllocator<float>>;

}  // namespace qgpu
