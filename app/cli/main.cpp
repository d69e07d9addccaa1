// qgpu: the command-line face of qgpu studio. Wiring only: every job is a library call.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "qgpu/compiler/CudaCompiler.h"
#include "qgpu/core/Assembler.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Session.h"
#include "qgpu/core/Trace.h"
#include "qgpu/runtime/TorchSetup.h"

using namespace qgpu;

namespace {

const char* kUsage = R"(usage:
  qgpu asm PROGRAM.qasm --launch SPEC.json [--quiet] [--check]
      Runs an assembly program on the reference interpreter; prints every step and the final arrays.
      --check compares the arrays with the spec's "expect" and exits 1 on a difference.
  qgpu compile KERNEL.cu [-O0|-O1|-O2|-O3]
      Compiles CUDA to PTX in-process and prints the PTX.
  qgpu version
)";

constexpr int kCliStepLimit = 100000;

struct Args {
    std::vector<std::string> positional;
    std::string launch;
    bool quiet = false, check = false;
    int optLevel = 2;
};

Args parseArgs(int argc, char** argv) {
    Args a;
    for (int i = 2; i < argc; ++i) {
        std::string s = argv[i];
        if (s == "--launch") {
            if (i + 1 >= argc)
                throw DiagnosticError(Diagnostic{"", 0, 0, "--launch needs a launch spec file (SPEC.json)"});
            a.launch = argv[++i];
        } else if (s == "--quiet")
            a.quiet = true;
        else if (s == "--check")
            a.check = true;
        else if (s.size() == 3 && s.rfind("-O", 0) == 0 && s[2] >= '0' && s[2] <= '3')
            a.optLevel = s[2] - '0';
        else if (!s.empty() && s[0] == '-')
            throw DiagnosticError(Diagnostic{"", 0, 0, "unknown option '" + s + "'\n" + kUsage});
        else
            a.positional.push_back(s);
    }
    return a;
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw DiagnosticError(Diagnostic{path, 0, 0, "cannot open the file; check the path"});
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int runAsm(const Args& a) {
    if (a.positional.size() != 1 || a.launch.empty())
        throw DiagnosticError(
            Diagnostic{"", 0, 0, std::string("asm needs PROGRAM.qasm and --launch SPEC.json\n") + kUsage});
    MachineSpec spec = MachineSpec::standard();
    Program program = assemble(readFile(a.positional[0]), a.positional[0], spec);
    LaunchSpec launch = parseLaunchSpec(readFile(a.launch), a.launch);
    auto session = makeReferenceSession(spec);
    session->load(program, launch);
    StopReason r = session->run(kCliStepLimit);
    if (!a.quiet)
        for (const auto& ev : session->history()) std::cout << formatEvent(ev, program, spec.lanesPerWarp);
    if (r == StopReason::Faulted) {
        std::cerr << "error: " << session->snapshot().fault << "\n";
        return 1;
    }
    if (r != StopReason::Finished) {
        std::cerr << "error: the launch did not finish within " << kCliStepLimit
                  << " steps; check the kernel for an endless loop\n";
        return 1;
    }
    MemoryMap map = validateLaunch(launch, spec);
    std::cout << "finished in " << session->position() << " steps\n" << formatArrays(session->snapshot(), map);
    if (!a.check) return 0;
    int bad = 0;
    for (const auto& [name, expected] : launch.expect) {
        auto got = readArray(session->snapshot(), *map.find(name));
        if (got != expected) {
            std::cerr << "check: " << name << " differs from \"expect\"\n";
            ++bad;
        }
    }
    if (launch.expect.empty()) std::cerr << "check: the launch spec has no \"expect\"\n";
    std::cout << "check: " << (bad ? "FAILED" : "ok") << "\n";
    return bad ? 1 : 0;
}

int runCompile(const Args& a) {
    if (a.positional.size() != 1)
        throw DiagnosticError(Diagnostic{"", 0, 0, std::string("compile needs KERNEL.cu\n") + kUsage});
    CudaCompileOptions opts;
    opts.optLevel = a.optLevel;
    CudaCompileResult r = compileCudaToPtx(readFile(a.positional[0]), a.positional[0], opts);
    for (const auto& d : r.diagnostics) std::cerr << d.format() << "\n";
    if (!r.ok) return 1;
    std::cout << r.ptx;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << kUsage;
        return 2;
    }
    std::string cmd = argv[1];
    try {
        Args a = parseArgs(argc, argv);
        if (cmd == "asm") return runAsm(a);
        if (cmd == "compile") return runCompile(a);
        if (cmd == "version" || cmd == "--version") {
            initTorch();
            std::cout << "qgpu 0.1.0\n" << clangVersionString() << "\n" << torchDescription() << "\n";
            return 0;
        }
        if (cmd == "help" || cmd == "--help" || cmd == "-h") {
            std::cout << kUsage;
            return 0;
        }
        std::cerr << "unknown command '" << cmd << "'\n" << kUsage;
        return 2;
    } catch (const DiagnosticError& e) {
        std::cerr << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "internal error: " << e.what() << "\n";
        return 3;
    }
}
