#include "SpliceCommands.h"

#include "qgpu/core/Files.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "GpuCommands.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/runtime/ChatSession.h"
#include "qgpu/runtime/HostSplice.h"
#include "qgpu/runtime/SpliceCheck.h"

namespace qgpu::cli {

namespace {

// Text for the fidelity check when none is given: prose, code and numbers.
constexpr const char* kDefaultText =
    "The quick brown fox jumps over the lazy dog. In 1969, Apollo 11 landed on the Moon; the crew returned "
    "safely four days later. for (int i = 0; i < n; ++i) sum += a[i] * b[i]; The dot product of [1, 2, 3] "
    "and [4, 5, 6] is 32.";

}  // namespace

int buildHost(const std::string& host, const std::string& out, std::optional<DType> dtype) {
    OutputDirectory::removePartialsOnInterrupt();
    auto start = std::chrono::steady_clock::now();
    SpliceOptions options;
    options.dtype = dtype;
    // A terminal gets one line rewritten per tensor; a log a line per tenth.
    options.progress = [tty = bool(::isatty(STDERR_FILENO)), tenth = -1](const std::string& what, int done,
                                                                         int total) mutable {
        if (tty) {
            std::fprintf(stderr, "\r[%d/%d] %-60s", done, total, what.c_str());
            if (done == total) std::fprintf(stderr, "\n");
        } else if (done * 10 / total != tenth) {
            tenth = done * 10 / total;
            std::fprintf(stderr, "[%d/%d] %s\n", done, total, what.c_str());
        }
    };
    std::cerr << "building the GPU's layers at the combined width...\n";
    SpliceLayout L = spliceHost(host, out, gpuChip(), options);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "wrote " << out << " in " << seconds << " s: " << L.circuitLayers << " GPU layers + " << L.hostLayers
              << " host layers at hidden size " << L.width << " (GPU dims 0.." << L.circuitDims - 1 << ", host dims "
              << L.hostOffset() << ".." << L.flagDim - 1 << ", text flag " << L.flagDim << "); vocabulary "
              << L.hostVocab << " + " << L.chipTokens << " chip tokens (id = " << L.hostVocab
              << " + chip id); peak memory " << peakMemoryGiB() << " GiB\n";
    return 0;
}

int checkSplice(const std::string& host, const std::string& combined, const std::string& prompt,
                const std::string& resourceDir) {
    ChatHost h = loadChatHost(host);
    SpliceLayout layout = SpliceLayout::load(combined);
    auto model = Qwen35Model::load(combined);
    std::vector<int> text = h.tokenizer.encode(prompt.empty() ? kDefaultText : prompt);
    TextFidelity f = measureTextFidelity(*h.model, *model, layout, text);
    std::printf(
        "text: %d positions, KL(combined || host) mean %.3g, max %.3g (target <= 1e-5); chip tokens: "
        "largest total probability %.3g, at least %.3g below the best text logit\n",
        f.positions, f.meanKl, f.maxKl, f.maxChipMass, f.minChipGap);

    auto [program, launch] = loadLinked(std::filesystem::path(resourceDir) / "examples" / "dot_product.cu");
    gpu::ReferenceLaunch ref = gpu::referenceLaunch(program, launch);
    std::vector<gpu::Token> fed = gpu::loadTokens(program, launch.grid, launch.block, ref.initialGlobal);
    CombinedReplay r = replayLaunch(*model, layout, fed, ref.stream);
    if (r.firstMismatch >= 0)
        std::printf(
            "launch (dot_product.cu, its own sequence): record %ld mispredicted: expected %s, the model "
            "chose %s\n",
            r.firstMismatch, r.expected.c_str(), r.predicted.c_str());
    else
        std::printf("launch (dot_product.cu, its own sequence): %zu fed, all %d records predicted exactly\n",
                    fed.size(), r.checked);
    return f.maxKl <= 1e-5 && r.firstMismatch < 0 ? 0 : 1;
}

}  // namespace qgpu::cli
