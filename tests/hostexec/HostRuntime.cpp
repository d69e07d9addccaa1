// The host executor's threads, barriers and shuffles (see host_cuda.h).
#include <algorithm>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "host_cuda.h"

namespace qgpu_cuda {

thread_local uint3 threadIdx;
thread_local uint3 blockIdx;
thread_local uint3 blockDim;
thread_local uint3 gridDim;

namespace detail {
namespace {

constexpr int kLanes = 4;
constexpr std::chrono::seconds kDeadlockTimeout(20);

// The threads of one warp: a slot per lane for shuffles and a barrier over the lanes that exist.
struct WarpContext {
    explicit WarpContext(int lanes) : lanes(lanes), sync(lanes) {}
    int lanes;
    int slots[kLanes] = {};
    std::barrier<> sync;
};

// The running thread block.
struct BlockContext {
    explicit BlockContext(int threads) : sync(threads) {
        for (int t = 0; t < threads; t += kLanes)
            warps.push_back(std::make_unique<WarpContext>(threads - t < kLanes ? threads - t : kLanes));
    }
    std::barrier<> sync;
    std::vector<std::unique_ptr<WarpContext>> warps;
    std::mutex errorMutex;
    std::string error;  // the first misuse a thread reported
    std::condition_variable finished;
    int running = 0;  // guarded by errorMutex

    void fail(const std::string& msg) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (error.empty()) error = msg;
    }
};

std::mutex gPrintedMutex;
std::vector<std::string> gPrinted;

thread_local BlockContext* tBlock = nullptr;
thread_local WarpContext* tWarp = nullptr;
thread_local int tLane = 0;

}  // namespace

void syncBlock() { tBlock->sync.arrive_and_wait(); }
void syncWarp() { tWarp->sync.arrive_and_wait(); }

int shuffle(ShuffleMode mode, int value, unsigned b, int width) {
    WarpContext* w = tWarp;
    int lane = tLane;
    if (width != 1 && width != 2 && width != 4) {
        tBlock->fail("shuffle width " + std::to_string(width) + " (the machine has widths 1, 2 and 4)");
        width = kLanes;
    }
    w->slots[lane] = value;
    w->sync.arrive_and_wait();
    int bval = int(b & 31u);
    int minLane = lane & ~(width - 1);
    int maxLane = minLane + width - 1;
    int j = lane;
    bool valid = true;
    switch (mode) {
        case ShuffleMode::Idx: j = minLane | (bval & (width - 1)); break;
        case ShuffleMode::Up:
            j = lane - bval;
            valid = j >= minLane;
            break;
        case ShuffleMode::Down:
            j = lane + bval;
            valid = j <= maxLane;
            break;
        case ShuffleMode::Bfly:
            j = lane ^ bval;
            valid = j <= maxLane;
            break;
    }
    int result = (valid && j < w->lanes) ? w->slots[j] : value;
    w->sync.arrive_and_wait();
    return result;
}

GlobalMemory layOut(const qgpu::LaunchSpec& spec, size_t parameters) {
    if (spec.args.size() != parameters)
        throw std::runtime_error("the kernel has " + std::to_string(parameters) + " parameters but the launch gives " +
                                 std::to_string(spec.args.size()) + " arguments");
    GlobalMemory m;
    for (const auto& a : spec.args) {
        m.words.resize((m.words.size() + 3) / 4 * 4);  // 16-byte aligned, as cudaMalloc's are (and more)
        m.bases.push_back(int(m.words.size()));
        if (!a.isArray) continue;
        std::vector<int32_t> words = qgpu::packElements(a.values, a.type);
        m.words.insert(m.words.end(), words.begin(), words.end());
    }
    m.words.push_back(0);  // keeps every base a valid address
    return m;
}

ArrayContents readBack(const qgpu::LaunchSpec& spec, const GlobalMemory& memory) {
    ArrayContents out;
    for (size_t i = 0; i < spec.args.size(); ++i) {
        const auto& a = spec.args[i];
        if (!a.isArray) continue;
        auto first = memory.words.begin() + memory.bases[i];
        std::vector<int32_t> words(first, first + std::ptrdiff_t(qgpu::packElements(a.values, a.type).size()));
        std::vector<int64_t> values = qgpu::unpackElements(words, a.type, a.values.size());
        if (a.isFloat())  // the machine writes one NaN, 0x7fffffff; the host's arithmetic others
            for (int64_t& w : values)
                if ((uint32_t(w) & 0x7fffffffu) > 0x7f800000u) w = 0x7fffffff;
        out.emplace_back(a.name, std::move(values));
    }
    return out;
}

void badArgument(const qgpu::KernelArg& arg, size_t index, bool pointerParameter) {
    if (arg.isArray == pointerParameter)
        throw std::runtime_error("argument " + std::to_string(index) + " (\"" + arg.name + "\") is " +
                                 qgpu::elementCName(arg.type) + " in the launch but not in the kernel's parameter");
    throw std::runtime_error("argument " + std::to_string(index) + " (\"" + arg.name + "\") is " +
                             (pointerParameter ? "a pointer parameter but the launch gives a scalar"
                                               : "a scalar parameter but the launch gives an array"));
}

std::vector<std::string> printedTexts() {
    std::lock_guard<std::mutex> lock(gPrintedMutex);
    std::vector<std::string> texts = gPrinted;
    std::sort(texts.begin(), texts.end());
    return texts;
}

void runGrid(const qgpu::LaunchSpec& spec, void (*body)(const void*), const void* context) {
    {
        std::lock_guard<std::mutex> lock(gPrintedMutex);
        gPrinted.clear();
    }
    const qgpu::Dim3 g = spec.grid, b = spec.block;
    if (g.count() < 1 || b.count() < 1) throw std::runtime_error("empty grid or block");
    const int threads = b.count();
    for (int cz = 0; cz < g.z; ++cz)
        for (int cy = 0; cy < g.y; ++cy)
            for (int cx = 0; cx < g.x; ++cx) {
                BlockContext block(threads);
                block.running = threads;
                std::vector<std::thread> pool;
                pool.reserve(size_t(threads));
                for (int t = 0; t < threads; ++t) {
                    pool.emplace_back([&, t, cx, cy, cz] {
                        threadIdx = {unsigned(t % b.x), unsigned(t / b.x % b.y), unsigned(t / (b.x * b.y))};
                        blockIdx = {unsigned(cx), unsigned(cy), unsigned(cz)};
                        blockDim = {unsigned(b.x), unsigned(b.y), unsigned(b.z)};
                        gridDim = {unsigned(g.x), unsigned(g.y), unsigned(g.z)};
                        tBlock = &block;
                        tWarp = block.warps[size_t(t / kLanes)].get();
                        tLane = t % kLanes;
                        body(context);
                        // An exited thread counts as arrived at every later barrier.
                        tWarp->sync.arrive_and_drop();
                        block.sync.arrive_and_drop();
                        std::lock_guard<std::mutex> lock(block.errorMutex);
                        if (--block.running == 0) block.finished.notify_all();
                    });
                }
                {
                    // A kernel that misuses a barrier (one not reached by all threads of the block or warp)
                    // would hang; stop the process with a message instead.
                    std::unique_lock<std::mutex> lock(block.errorMutex);
                    if (!block.finished.wait_for(lock, kDeadlockTimeout, [&] { return block.running == 0; })) {
                        std::fprintf(
                            stderr,
                            "qgpu host executor: block (%d, %d, %d) did not finish in %d s: %d threads wait at "
                            "__syncthreads, __syncwarp or a shuffle that not all threads reach\n",
                            cx, cy, cz, int(kDeadlockTimeout.count()), block.running);
                        std::abort();
                    }
                }
                for (auto& th : pool) th.join();
                if (!block.error.empty()) throw std::runtime_error(block.error);
            }
}

}  // namespace detail

int printf(const char* format, ...) {
    va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    int n = std::vsnprintf(nullptr, 0, format, args);
    std::string text(size_t(std::max(n, 0)) + 1, '\0');
    std::vsnprintf(text.data(), text.size(), format, again);
    va_end(again);
    va_end(args);
    text.resize(size_t(std::max(n, 0)));
    std::lock_guard<std::mutex> lock(detail::gPrintedMutex);
    detail::gPrinted.push_back(std::move(text));
    return n;
}

}  // namespace qgpu_cuda
