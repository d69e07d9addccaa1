// A recorded run as a JSON file: the document, the launch, the ROM it ran on, the tokens and each step's
// event as an array of numbers (a launch of 20,000 steps stays a few megabytes).
#include "qgpu/core/RecordedRun.h"

#include <system_error>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Encoding.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/JsonDocument.h"

namespace qgpu {

namespace {

using Json = nlohmann::json;

constexpr const char* kFormat = "qgpu recorded run";
constexpr int kVersion = 1;
constexpr size_t kMaxRunBytes = size_t(1) << 30;  // a run the studio can record (20,000 steps) is far smaller

Json eventJson(const StepEvent& e) {
    Json regs = Json::array(), mems = Json::array(), lanes = Json::array(), warnings = Json::array();
    for (const RegWrite& w : e.regWrites) regs.push_back({w.thread, w.reg, w.before, w.after});
    for (const MemWrite& w : e.memWrites) mems.push_back({int(w.space), w.cta, w.addr, w.before, w.after, w.thread});
    for (const LaneChange& c : e.laneChanges)
        lanes.push_back({c.thread, c.pcBefore, c.pcAfter, int(c.statusBefore), int(c.statusAfter)});
    for (const StepWarning& w : e.warnings)
        warnings.push_back({int(w.kind), int(w.code), w.instruction, w.lane, w.text});
    return Json::array({e.step, e.warp, e.cta, e.block, e.liveBefore, e.maskBefore, e.maskAfter, e.barrierReleased,
                        regs, mems, lanes, warnings, e.fault});
}

Json runJson(const RecordedRun& run) {
    Json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    j["source"] = {{"name", run.sourceName}, {"text", run.source}, {"cuda", run.cuda}, {"debugBuild", run.debugBuild}};
    j["launch"] = run.launch;
    j["backend"] = run.backend;
    j["rom"] = run.rom;
    j["initialGlobal"] = run.initialGlobal;
    j["tokens"] = {
        {"fed", run.tokens.fed}, {"written", run.tokens.written}, {"writtenAfterStep", run.tokens.writtenAfterStep}};
    Json steps = Json::array();
    for (const StepEvent& e : run.steps) steps.push_back(eventJson(e));
    j["steps"] = std::move(steps);
    return j;
}

// Reads a JSON file's values with the file and the value's path in every message.
class Reader {
public:
    explicit Reader(std::string file) : m_file(std::move(file)) {}
    const Json& field(const Json& object, const std::string& key, const std::string& path) const {
        if (!object.is_object() || !object.contains(key))
            failAt(m_file, "\"" + jsonPath(path, key) + "\" is missing: this is not a run qgpu recorded");
        return object[key];
    }
    const Json& array(const Json& value, const std::string& path, size_t size = 0) const {
        if (!value.is_array() || (size > 0 && value.size() != size))
            failAt(m_file,
                   "\"" + path + "\" must be an array" + (size ? " of " + std::to_string(size) : std::string()));
        return value;
    }
    template <class T>
    T get(const Json& value, const std::string& path) const {
        return jsonGet<T>(value, path, m_file);
    }
    template <class T>
    std::vector<T> list(const Json& value, const std::string& path) const {
        std::vector<T> out;
        for (size_t i = 0; i < array(value, path).size(); ++i) out.push_back(get<T>(value[i], jsonPath(path, i)));
        return out;
    }
    const std::string& file() const { return m_file; }

private:
    std::string m_file;
};

LaneStatus laneStatus(const Reader& r, const Json& v, const std::string& path) {
    int s = r.get<int>(v, path);
    if (s < int(LaneStatus::Absent) || s > int(LaneStatus::Exited))
        failAt(r.file(), "\"" + path + "\" is not a lane status (0 to 3)");
    return LaneStatus(s);
}

void readWrites(const Reader& r, const Json& v, const std::string& path, StepEvent& e) {
    const Json& regs = r.array(v[8], jsonPath(path, 8));
    for (size_t i = 0; i < regs.size(); ++i) {
        std::string p = jsonPath(jsonPath(path, 8), i);
        const Json& w = r.array(regs[i], p, 4);
        e.regWrites.push_back(
            {r.get<int>(w[0], p), r.get<int>(w[1], p), r.get<uint32_t>(w[2], p), r.get<uint32_t>(w[3], p)});
    }
    const Json& mems = r.array(v[9], jsonPath(path, 9));
    for (size_t i = 0; i < mems.size(); ++i) {
        std::string p = jsonPath(jsonPath(path, 9), i);
        const Json& w = r.array(mems[i], p, 6);
        int space = r.get<int>(w[0], p);
        if (space != int(MemSpace::Global) && space != int(MemSpace::Shared))
            failAt(r.file(), "\"" + p + "\" names no memory (0 global, 1 shared)");
        e.memWrites.push_back({MemSpace(space), r.get<int>(w[1], p), r.get<int>(w[2], p), r.get<uint32_t>(w[3], p),
                               r.get<uint32_t>(w[4], p), r.get<int>(w[5], p)});
    }
    const Json& lanes = r.array(v[10], jsonPath(path, 10));
    for (size_t i = 0; i < lanes.size(); ++i) {
        std::string p = jsonPath(jsonPath(path, 10), i);
        const Json& c = r.array(lanes[i], p, 5);
        e.laneChanges.push_back({r.get<int>(c[0], p), r.get<int>(c[1], p), r.get<int>(c[2], p), laneStatus(r, c[3], p),
                                 laneStatus(r, c[4], p)});
    }
}

void readWarnings(const Reader& r, const Json& v, const std::string& path, StepEvent& e) {
    const Json& warnings = r.array(v[11], jsonPath(path, 11));
    for (size_t i = 0; i < warnings.size(); ++i) {
        std::string p = jsonPath(jsonPath(path, 11), i);
        const Json& w = r.array(warnings[i], p, 5);
        StepWarning out;
        int kind = r.get<int>(w[0], p), code = r.get<int>(w[1], p);
        if (kind < 0 || kind > int(StepWarning::Kind::OutOfBounds) || code < 0 || code > 255)
            failAt(r.file(), "\"" + p + "\" is not a warning qgpu records");
        out.kind = StepWarning::Kind(kind);
        out.code = MachineWarning(code);
        out.instruction = r.get<int>(w[2], p);
        out.lane = r.get<int>(w[3], p);
        out.text = r.get<std::string>(w[4], p);
        e.warnings.push_back(std::move(out));
    }
}

StepEvent readEvent(const Reader& r, const Json& v, const std::string& path) {
    r.array(v, path, 13);
    StepEvent e;
    e.step = r.get<int>(v[0], path);
    e.warp = r.get<int>(v[1], path);
    e.cta = r.get<int>(v[2], path);
    e.block = r.get<int>(v[3], path);
    uint32_t masks[3];
    for (int m = 0; m < 3; ++m) {
        masks[m] = r.get<uint32_t>(v[size_t(4 + m)], path);
        if (masks[m] > 255) failAt(r.file(), "\"" + jsonPath(path, size_t(4 + m)) + "\" is not a lane mask");
    }
    e.liveBefore = uint8_t(masks[0]), e.maskBefore = uint8_t(masks[1]), e.maskAfter = uint8_t(masks[2]);
    e.barrierReleased = r.get<bool>(v[7], path);
    readWrites(r, v, path, e);
    readWarnings(r, v, path, e);
    e.fault = r.get<std::string>(v[12], path);
    return e;
}

RecordedRun readRun(const Reader& r, const Json& j) {
    if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
        failAt(r.file(), "this is not a run qgpu recorded (File > Save Run writes them)");
    int version = r.get<int>(r.field(j, "version", ""), "version");
    if (version != kVersion)
        failAt(r.file(), "the run was recorded by another version of qgpu (format " + std::to_string(version) +
                             "; this one reads format " + std::to_string(kVersion) + ")");
    RecordedRun run;
    const Json& source = r.field(j, "source", "");
    run.sourceName = r.get<std::string>(r.field(source, "name", "source"), "source.name");
    run.source = r.get<std::string>(r.field(source, "text", "source"), "source.text");
    run.cuda = r.get<bool>(r.field(source, "cuda", "source"), "source.cuda");
    run.debugBuild = r.get<bool>(r.field(source, "debugBuild", "source"), "source.debugBuild");
    run.launch = r.get<std::string>(r.field(j, "launch", ""), "launch");
    run.backend = r.get<std::string>(r.field(j, "backend", ""), "backend");
    const Json& rom = r.array(r.field(j, "rom", ""), "rom");
    for (size_t b = 0; b < rom.size(); ++b) run.rom.push_back(r.list<uint64_t>(rom[b], jsonPath("rom", b)));
    run.initialGlobal = r.list<uint32_t>(r.field(j, "initialGlobal", ""), "initialGlobal");
    const Json& tokens = r.field(j, "tokens", "");
    run.tokens.fed = r.list<std::string>(r.field(tokens, "fed", "tokens"), "tokens.fed");
    run.tokens.written = r.list<std::string>(r.field(tokens, "written", "tokens"), "tokens.written");
    for (uint64_t n : r.list<uint64_t>(r.field(tokens, "writtenAfterStep", "tokens"), "tokens.writtenAfterStep"))
        run.tokens.writtenAfterStep.push_back(size_t(n));
    const Json& steps = r.array(r.field(j, "steps", ""), "steps");
    for (size_t i = 0; i < steps.size(); ++i) run.steps.push_back(readEvent(r, steps[i], jsonPath("steps", i)));
    return run;
}

}  // namespace

void saveRecordedRun(const RecordedRun& run, const std::filesystem::path& path) {
    std::filesystem::path partial = path;
    partial += ".partial";
    try {
        writeTextFile(partial, runJson(run).dump());
    } catch (...) {
        std::error_code ignored;
        std::filesystem::remove(partial, ignored);
        throw;
    }
    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec) {
        std::filesystem::remove(partial, ec);
        failAt(path.string(), "cannot write the run there: " + ec.message());
    }
}

RecordedRun loadRecordedRun(const std::filesystem::path& path) {
    Reader r(path.string());
    return readRun(r, parseJsonDocument(readFile(path, kMaxRunBytes), path.string()));
}

void recordMachine(RecordedRun& run, const Program& program, const LaunchSpec& launch) {
    MachineSpec spec = MachineSpec::standard();
    Program linked = linkLaunch(program, launch, spec).program;
    run.rom.clear();
    for (const Block& b : linked.blocks) run.rom.push_back(encodeBlock(b, spec.slotsPerBlock));
    run.initialGlobal = Interpreter(linked, launch, spec).state().global;
}

}  // namespace qgpu
