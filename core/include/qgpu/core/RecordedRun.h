// A recorded run: a launch as one backend ran it (every step's event and, for the model, its tokens), saved
// with the source and the launch spec, so that it can be opened later and stepped both ways without the
// backend that made it, or compared with another run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "qgpu/core/Session.h"

namespace qgpu {

struct RecordedRun {
    // The document that was built: its text, its file name, CUDA or assembly, a debug build or not.
    std::string source, sourceName;
    bool cuda = false, debugBuild = false;
    std::string launch;   // the launch spec's JSON
    std::string backend;  // the backend that ran it ("reference", "model")
    // The linked program's ROM as the compiler encoded it (encodeBlock) and global memory before the first
    // step: a run only replays on the program and the arguments that made it.
    std::vector<std::vector<uint64_t>> rom;
    std::vector<uint32_t> initialGlobal;
    std::vector<StepEvent> steps;
    TokenStream tokens;  // empty for a backend that writes none; writtenNow is not kept
};

// Writes the run as JSON to `path` (through a temporary file renamed at the end, so that a failed save
// leaves no half-written file); throws DiagnosticError naming the path.
void saveRecordedRun(const RecordedRun& run, const std::filesystem::path& path);
// Reads a run saveRecordedRun wrote; every failure (not JSON, not a run, a field of the wrong type) is a
// DiagnosticError naming the file and the field.
RecordedRun loadRecordedRun(const std::filesystem::path& path);

// Sets `rom` and `initialGlobal` to those of `program` linked against `launch`.
void recordMachine(RecordedRun& run, const Program& program, const LaunchSpec& launch);

// A session that replays a recording: load() takes the program the recording was made on (anything else is
// refused with a message) and checks every event against the launch's machine; steps move through the
// recorded events and never execute, so the run ends where the recording ends.
std::unique_ptr<Session> makeRecordedSession(std::shared_ptr<const RecordedRun> run);

}  // namespace qgpu
