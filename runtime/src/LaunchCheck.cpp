#include "qgpu/runtime/LaunchCheck.h"

namespace qgpu {

namespace {

LaunchCheck differsIn(LaunchCheck::Part part, std::string what) {
    LaunchCheck c;
    c.differs = part;
    c.what = std::move(what);
    return c;
}

LaunchCheck compareRegisters(const GpuLaunch& run, const gpu::ReferenceLaunch& ref) {
    if (run.registers.size() != ref.registers.size())
        return differsIn(LaunchCheck::Part::Registers,
                         "the model holds registers for " + std::to_string(run.registers.size()) +
                             " threads, the interpreter for " + std::to_string(ref.registers.size()));
    for (size_t thread = 0; thread < ref.registers.size(); ++thread)
        for (size_t r = 0; r < ref.registers[thread].size(); ++r)
            if (run.registers[thread][r] != ref.registers[thread][r]) {
                LaunchCheck c = differsIn(LaunchCheck::Part::Registers,
                                          "thread " + std::to_string(thread) + "'s r" + std::to_string(r) + " is " +
                                              std::to_string(run.registers[thread][r]) + " in the model, " +
                                              std::to_string(ref.registers[thread][r]) + " in the interpreter");
                c.thread = int(thread);
                return c;
            }
    return {};
}

// The first word where two memories differ, as a sentence; empty when they are equal.
std::string memoryDifference(const std::string& name, const std::vector<uint32_t>& model,
                             const std::vector<uint32_t>& reference) {
    if (model.size() != reference.size())
        return name + " holds " + std::to_string(model.size()) + " words in the model, " +
               std::to_string(reference.size()) + " in the interpreter";
    for (size_t i = 0; i < model.size(); ++i)
        if (model[i] != reference[i])
            return name + " word " + std::to_string(i) + " is " + std::to_string(model[i]) + " in the model, " +
                   std::to_string(reference[i]) + " in the interpreter";
    return {};
}

LaunchCheck compareMemory(const GpuLaunch& run, const gpu::ReferenceLaunch& ref) {
    if (std::string d = memoryDifference("global memory", run.global, ref.global); !d.empty())
        return differsIn(LaunchCheck::Part::GlobalMemory, d);
    if (run.shared.size() != ref.shared.size())
        return differsIn(LaunchCheck::Part::SharedMemory,
                         "the model holds shared memory for " + std::to_string(run.shared.size()) +
                             " thread blocks, the interpreter for " + std::to_string(ref.shared.size()));
    for (size_t cta = 0; cta < ref.shared.size(); ++cta)
        if (std::string d = memoryDifference("thread block " + std::to_string(cta) + "'s shared memory",
                                             run.shared[cta], ref.shared[cta]);
            !d.empty())
            return differsIn(LaunchCheck::Part::SharedMemory, d);
    return {};
}

}  // namespace

LaunchCheck compareLaunch(const GpuLaunch& run, const gpu::ReferenceLaunch& ref) {
    if (long at = gpu::firstMismatch(run.written, ref.stream); at >= 0) {
        LaunchCheck c = differsIn(LaunchCheck::Part::Records,
                                  "the stream differs at record " + std::to_string(at) +
                                      "\n  model:       " + gpu::formatTokens(run.written, size_t(at), 8) +
                                      "\n  interpreter: " + gpu::formatTokens(ref.stream, size_t(at), 8));
        c.record = at;
        return c;
    }
    if (LaunchCheck c = compareRegisters(run, ref); !c.exact()) return c;
    return compareMemory(run, ref);
}

LaunchCheck teacherForcedCheck(const GpuModel& model, Engine engine, const GpuLaunch& run,
                               const gpu::ReferenceLaunch& ref) {
    std::vector<gpu::Token> stream = run.fed;
    stream.insert(stream.end(), ref.stream.begin(), ref.stream.end());
    std::vector<int> predicted = model.teacherForced(stream, engine);
    for (size_t t = run.fed.size() - 1; t + 1 < stream.size(); ++t)
        if (predicted[t] != stream[t + 1].id()) {
            long record = long(t + 1 - run.fed.size());
            LaunchCheck c = differsIn(LaunchCheck::Part::TeacherForced,
                                      "teacher-forced, the model predicts " + gpu::Token::fromId(predicted[t]).text() +
                                          " for record " + std::to_string(record) + ", the interpreter's is " +
                                          stream[t + 1].text());
            c.record = record;
            return c;
        }
    return {};
}

}  // namespace qgpu
