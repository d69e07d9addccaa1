#include <vector>

#include "FuzzTarget.h"
#include "qgpu/core/Expression.h"

namespace {

// Stands in for the GPU: every launch's memory reads back as zeros, so evaluation runs its planning and
// result reading without a backend.
class ZeroRunner : public qgpu::expr::KernelRunner {
public:
    qgpu::expr::KernelOutcome run(const qgpu::expr::KernelLaunch&) override {
        qgpu::expr::KernelOutcome out;
        out.global.assign(size_t(qgpu::MachineSpec::standard().globalWords), 0);
        return out;
    }
};

}  // namespace

void fuzzOne(const std::string& input) {
    ZeroRunner runner;
    qgpu::expr::evaluate(input, runner);
}
