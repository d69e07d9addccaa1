// qgpu_hostexec: runs the kernel suite on the host executor.
//   qgpu_hostexec --write-expect DIR [NAME...]  rewrites "expect" in DIR/NAME.json with the host results
//   qgpu_hostexec --check DIR [NAME...]         compares the host results with "expect", prints differences
//   qgpu_hostexec --run NAME SPEC.json          prints the final arrays of one launch
//   qgpu_hostexec --list                        lists the kernels compiled in
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "HostExecutor.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineSpec.h"

namespace {

using Json = nlohmann::ordered_json;
using Arrays = std::vector<std::pair<std::string, std::vector<int64_t>>>;
namespace fs = std::filesystem;

// One line: {"name": "a", "array": [1, 2, 3]}
std::string compact(const Json& j) {
    std::string s;
    if (j.is_object()) {
        s = "{";
        bool first = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
            s += (first ? "" : ", ") + Json(it.key()).dump() + ": " + compact(it.value());
            first = false;
        }
        return s + "}";
    }
    if (j.is_array()) {
        s = "[";
        for (size_t i = 0; i < j.size(); ++i) s += (i ? ", " : "") + compact(j[i]);
        return s + "]";
    }
    return j.dump();
}

// The suite's layout: a key per line, an argument per line, an expected array per line.
std::string format(const Json& spec) {
    std::string s = "{\n";
    bool first = true;
    for (auto it = spec.begin(); it != spec.end(); ++it) {
        s += std::string(first ? "" : ",\n") + "  " + Json(it.key()).dump() + ": ";
        first = false;
        const Json& v = it.value();
        if (it.key() == "args" && v.is_array() && !v.empty()) {
            s += "[\n";
            for (size_t i = 0; i < v.size(); ++i) s += std::string(i ? ",\n" : "") + "    " + compact(v[i]);
            s += "\n  ]";
        } else if (it.key() == "expect" && v.is_object() && !v.empty()) {
            s += "{\n";
            bool f = true;
            for (auto e = v.begin(); e != v.end(); ++e) {
                s += std::string(f ? "" : ",\n") + "    " + Json(e.key()).dump() + ": " + compact(e.value());
                f = false;
            }
            s += "\n  }";
        } else {
            s += compact(v);
        }
    }
    return s + "\n}\n";
}

std::vector<std::string> selectKernels(int argc, char** argv, int from) {
    std::vector<std::string> names;
    for (int i = from; i < argc; ++i) names.push_back(argv[i]);
    return names.empty() ? hostKernelNames() : names;
}

qgpu::LaunchSpec loadSpec(const fs::path& file, std::string& text) {
    text = qgpu::readFile(file);
    qgpu::LaunchSpec spec = qgpu::parseLaunchSpec(text, file.string());
    qgpu::validateLaunch(spec, qgpu::MachineSpec::standard());
    return spec;
}

int writeExpect(const fs::path& dir, const std::vector<std::string>& names) {
    int failures = 0, written = 0;
    for (const auto& name : names) {
        fs::path file = dir / (name + ".json");
        try {
            std::string text;
            qgpu::LaunchSpec spec = loadSpec(file, text);
            Arrays result = runOnHost(name, spec);
            Json j = Json::parse(text);
            spec.expect.assign(result.begin(), result.end());  // written as the launch format writes values
            spec.expectPrintf = hostPrintedTexts();
            j["expect"] = Json::parse(qgpu::launchSpecToJson(spec))["expect"];  // replaces in place, or appends
            std::string out = format(j);
            if (out != text) {
                std::ofstream(file, std::ios::binary) << out;
                ++written;
                std::cout << "wrote " << file.string() << "\n";
            }
        } catch (const std::exception& e) {
            std::cerr << name << ": " << e.what() << "\n";
            ++failures;
        }
    }
    std::cout << names.size() << " kernels, " << written << " files rewritten, " << failures << " failed\n";
    return failures ? 1 : 0;
}

std::string show(const std::vector<int64_t>& v, qgpu::ElementType type) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + qgpu::formatElement(v[i], type);
    return s + "]";
}

int check(const fs::path& dir, const std::vector<std::string>& names) {
    int failures = 0;
    for (const auto& name : names) {
        fs::path file = dir / (name + ".json");
        try {
            std::string text;
            qgpu::LaunchSpec spec = loadSpec(file, text);
            Arrays result = runOnHost(name, spec);
            std::vector<std::string> problems;
            for (const auto& [array, got] : result) {
                qgpu::ElementType type = spec.arg(array)->type;
                const std::vector<int64_t>* want = nullptr;
                for (const auto& [n, v] : spec.expect)
                    if (n == array) want = &v;
                if (!want) {
                    problems.push_back("\"" + array + "\" has no \"expect\"; host gives " + show(got, type));
                    continue;
                }
                if (*want == got) continue;
                std::string p =
                    "\"" + array + "\":\n    expect " + show(*want, type) + "\n    host   " + show(got, type);
                for (size_t i = 0; i < got.size(); ++i)
                    if (got[i] != (*want)[i])
                        p += "\n    [" + std::to_string(i) + "] expect " + qgpu::formatElement((*want)[i], type) +
                             ", host " + qgpu::formatElement(got[i], type);
                problems.push_back(p);
            }
            std::vector<std::string> expectPrinted = spec.expectPrintf;
            std::sort(expectPrinted.begin(), expectPrinted.end());
            if (std::vector<std::string> printed = hostPrintedTexts(); printed != expectPrinted)
                problems.push_back("printf: the host's calls print " + Json(printed).dump() + "\n    expect " +
                                   Json(spec.expectPrintf).dump());
            if (problems.empty()) {
                std::cout << "ok      " << name << "\n";
            } else {
                ++failures;
                std::cout << "DIFFERS " << name << "\n";
                for (const auto& p : problems) std::cout << "  " << p << "\n";
            }
        } catch (const std::exception& e) {
            ++failures;
            std::cout << "ERROR   " << name << ": " << e.what() << "\n";
        }
    }
    std::cout << names.size() - size_t(failures) << " of " << names.size() << " kernels match\n";
    return failures ? 1 : 0;
}

int usage() {
    std::cerr << "usage: qgpu_hostexec --write-expect DIR [NAME...]\n"
                 "       qgpu_hostexec --check DIR [NAME...]\n"
                 "       qgpu_hostexec --run NAME SPEC.json\n"
                 "       qgpu_hostexec --list\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    std::string mode = argv[1];
    try {
        if (mode == "--list") {
            for (const auto& n : hostKernelNames()) std::cout << n << "\n";
            return 0;
        }
        if (mode == "--write-expect" && argc >= 3) return writeExpect(argv[2], selectKernels(argc, argv, 3));
        if (mode == "--check" && argc >= 3) return check(argv[2], selectKernels(argc, argv, 3));
        if (mode == "--run" && argc == 4) {
            std::string text;
            qgpu::LaunchSpec spec = loadSpec(argv[3], text);
            for (const auto& [name, values] : runOnHost(argv[2], spec))
                std::cout << name << " " << show(values, spec.arg(name)->type) << "\n";
            return 0;
        }
    } catch (const std::exception& e) {
        std::cerr << "qgpu_hostexec: " << e.what() << "\n";
        return 1;
    }
    return usage();
}
