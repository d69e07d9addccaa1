#include "qgpu/ui/LaunchStepCounter.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "qgpu/core/Session.h"

namespace qgpu {

namespace {

constexpr int kSlice = 1000;  // steps between two looks at the stop flag

int countSteps(const Program& program, const LaunchSpec& launch, int limit, const std::atomic<bool>& stop) {
    try {
        std::unique_ptr<Session> reference = makeReferenceSession();
        reference->load(program, launch);
        while (reference->position() < limit && !stop) {
            if (reference->run(std::min(kSlice, limit - reference->position())) != StopReason::StepLimit)
                return reference->position();
        }
    } catch (const std::exception&) {  // a launch the interpreter refuses: no count, as for an endless one
    }
    return 0;
}

}  // namespace

LaunchStepCounter::~LaunchStepCounter() { clear(); }

void LaunchStepCounter::start(const Program& program, const LaunchSpec& launch, int limit) {
    clear();
    m_stop = std::make_shared<std::atomic<bool>>(false);
    m_count = std::async(std::launch::async,
                         [program, launch, limit, stop = m_stop] { return countSteps(program, launch, limit, *stop); });
}

void LaunchStepCounter::clear() {
    if (m_stop) *m_stop = true;
    if (m_count.valid()) m_count.wait();  // within one slice of steps
    m_count = {};
    m_stop.reset();
    m_steps = 0;
}

int LaunchStepCounter::steps() {
    if (m_count.valid() && m_count.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
        m_steps = m_count.get();
    return m_steps;
}

}  // namespace qgpu
