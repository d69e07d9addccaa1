#include "qgpu/compiler/CudaCompiler.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Driver/Tool.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/PrettyStackTrace.h>
#include <llvm/Support/Signals.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <mutex>

#include "ContainedCompile.h"
#include "AssertHeader.h"
#include "CudaNames.h"
#include "CooperativeGroupsHeader.h"
#include "CooperativeGroupsReduceHeader.h"
#include "StdTypesHeader.h"
#include "DeviceHeader.h"
#include "SourceChecks.h"
#include "qgpu/core/Environment.h"

namespace qgpu {
namespace {

constexpr const char* kVirtualDir = "/qgpu-virtual";
constexpr const char* kVirtualInclude = "/qgpu-virtual/include";  // the device header and the system headers
constexpr const char* kClangPath = "/usr/lib/llvm-19/bin/clang";
constexpr const char* kBuiltinVarsHeader = "__clang_cuda_builtin_vars.h";
constexpr size_t kMaxSourceBytes = size_t(1) << 20;
// <cstdio> and <stdio.h>: what a kernel uses of them, printf, is the device header's.
constexpr const char* kStdioHeader = "#pragma once\n// printf is the device header's (qgpu_printf.h).\n";

// Collects Clang's diagnostics as values, with positions mapped back to the user's file name.
class Collector : public clang::DiagnosticConsumer {
public:
    Collector(std::string virtualPath, std::string userPath)
        : m_virtual(std::move(virtualPath)), m_user(std::move(userPath)) {}

    void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
        DiagnosticConsumer::HandleDiagnostic(level, info);
        if (level == clang::DiagnosticsEngine::Ignored || level == clang::DiagnosticsEngine::Note) return;
        llvm::SmallString<256> text;
        info.FormatDiagnostic(text);
        Diagnostic d;
        d.message = explainCudaName(std::string(text.str()));
        d.warning = level < clang::DiagnosticsEngine::Error;
        if (info.hasSourceManager() && info.getLocation().isValid()) {
            clang::PresumedLoc p = info.getSourceManager().getPresumedLoc(info.getLocation());
            if (p.isValid()) {
                std::string f = p.getFilename();
                d.file = f == m_virtual ? m_user : f.rfind(kVirtualDir, 0) == 0 ? f.substr(f.find_last_of('/') + 1) : f;
                d.line = int(p.getLine());
                d.column = int(p.getColumn());
            }
        }
        diagnostics.push_back(std::move(d));
        if (level >= clang::DiagnosticsEngine::Error) hadError = true;
    }

    std::vector<Diagnostic> diagnostics;
    bool hadError = false;

private:
    std::string m_virtual, m_user;
};

void initNvptxOnce() {
    static std::once_flag once;
    std::call_once(once, [] {
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
        // Keep loops as loops: closed forms of loop sums need 64-bit products the machine lacks.
        // -fno-unroll-loops (driver flag) keeps loop copies from filling the 128-block ROM.
        const char* args[] = {"qgpu", "-replexitval=never"};
        llvm::cl::ParseCommandLineOptions(2, args);
    });
}

// The one Clang header the device header includes: its path in Clang's resource directory (a path the
// host chose) and its text, read once.
const std::pair<std::string, std::string>& builtinVarsHeader() {
    static const std::pair<std::string, std::string> header = [] {
        std::string path = clang::driver::Driver::GetResourcesPath(kClangPath) + "/include/" + kBuiltinVarsHeader;
        auto buffer = llvm::MemoryBuffer::getFile(path);
        return std::pair{path, buffer ? std::string((*buffer)->getBuffer()) : std::string()};
    }();
    return header;
}

// The only files a compile can see, all in memory: the kernel's source, the device header, the Clang header
// it includes, <cooperative_groups.h>, the integer types and limits under their C and C++ names, <cstdio> and
// <cassert>. No #include in a kernel reaches the host's file system, so code a model wrote cannot read host
// files.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> sandbox(const std::string& sourcePath, const std::string& source,
                                                        const std::string& headerPath, const std::string& header) {
    const auto& builtinVars = builtinVarsHeader();
    auto memFs = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    memFs->addFile(sourcePath, 0, llvm::MemoryBuffer::getMemBufferCopy(source, sourcePath));
    memFs->addFile(headerPath, 0, llvm::MemoryBuffer::getMemBufferCopy(header, headerPath));
    if (!builtinVars.second.empty())  // without it the device header's #include names the missing file
        memFs->addFile(builtinVars.first, 0, llvm::MemoryBuffer::getMemBufferCopy(builtinVars.second));
    // The system headers a kernel may include, beside the device header.
    std::string include = std::string(kVirtualInclude) + "/";
    memFs->addFile(include + "cooperative_groups.h", 0, llvm::MemoryBuffer::getMemBuffer(kCooperativeGroupsHeader));
    memFs->addFile(include + "cooperative_groups/reduce.h", 0,
                   llvm::MemoryBuffer::getMemBuffer(kCooperativeGroupsReduceHeader));
    for (const char* name : {"cstdint", "stdint.h", "climits", "limits.h", "cstddef", "stddef.h"})
        memFs->addFile(include + name, 0, llvm::MemoryBuffer::getMemBuffer(kStdTypesHeader));
    for (const char* name : {"cstdio", "stdio.h"})
        memFs->addFile(include + name, 0, llvm::MemoryBuffer::getMemBuffer(kStdioHeader));
    for (const char* name : {"cassert", "assert.h"})
        memFs->addFile(include + name, 0, llvm::MemoryBuffer::getMemBuffer(kAssertHeader));
    return memFs;
}

std::string baseName(const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Emits PTX with the source checks ahead of code generation, so their errors stop the compile before the
// optimizer and the back end run.
class LimitedEmitAssembly : public clang::EmitAssemblyAction {
public:
    explicit LimitedEmitAssembly(int maxUnroll) : m_maxUnroll(maxUnroll) {}

protected:
    std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef file) override {
        std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
        consumers.push_back(makeSourceChecks(ci.getDiagnostics(), m_maxUnroll));
        consumers.push_back(EmitAssemblyAction::CreateASTConsumer(ci, file));
        return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
    }

private:
    int m_maxUnroll;
};

// A request for `source` under `fileName`: where its files are in the sandbox and how the user named it.
CompileRequest compileRequest(const std::string& source, const std::string& fileName,
                              const CudaCompileOptions& options) {
    std::string base = baseName(fileName.empty() ? "kernel.cu" : fileName);
    if (base.size() < 3 || base.substr(base.size() - 3) != ".cu") base += ".cu";
    return {source, std::string(kVirtualDir) + "/" + base, std::string(kVirtualInclude) + "/qgpu_cuda.h",
            fileName.empty() ? base : fileName, options};
}

std::vector<std::string> driverArguments(const CompileRequest& request) {
    const CudaCompileOptions& options = request.options;
    std::vector<std::string> args = {kClangPath,
                                     "-x",
                                     "cuda",
                                     "--cuda-device-only",
                                     "--cuda-gpu-arch=sm_75",
                                     "-nocudainc",
                                     "-nocudalib",
                                     "--cuda-path=/nonexistent",
                                     "--cuda-feature=+ptx70",
                                     options.debugInfo ? "-g" : "-gline-tables-only",
                                     "-fno-unroll-loops",
                                     "-fno-exceptions",
                                     "-Xclang",
                                     "-fcuda-allow-variadic-functions",  // printf's format check (qgpu_printf.h)
                                     options.fuseMultiplyAdd ? "-ffp-contract=fast" : "-ffp-contract=off",
                                     "-O" + std::to_string(options.optLevel),
                                     "-isystem",
                                     kVirtualInclude,
                                     "-include",
                                     request.virtualHeader,
                                     "-S",
                                     request.virtualSource,
                                     "-o",
                                     "-"};
    for (const auto& d : options.defines) args.push_back("-D" + d);
    return args;
}

// The cc1 arguments the driver makes of `args`; empty (with the driver's errors collected) when it fails.
std::vector<std::string> cc1Arguments(const std::vector<std::string>& args, clang::DiagnosticsEngine& diags,
                                      llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs) {
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    clang::driver::Driver driver(kClangPath, "x86_64-pc-linux-gnu", diags, "qgpu CUDA compiler", fs);
    driver.setCheckInputsExist(false);
    std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
    if (compilation)
        for (const auto& job : compilation->getJobs())
            if (std::string(job.getCreator().getName()) == "clang")
                return std::vector<std::string>(job.getArguments().begin(), job.getArguments().end());
    return {};
}

// The compile itself, in this process: what the worker runs.
CudaCompileResult compileHere(const CompileRequest& request) {
    const CudaCompileOptions& options = request.options;
    auto fs = sandbox(request.virtualSource, request.source, request.virtualHeader,
                      options.deviceHeader.empty() ? std::string(kDeviceHeader) : options.deviceHeader);
    Collector collector(request.virtualSource, request.userFile);
    auto diagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    clang::DiagnosticsEngine diags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), diagOpts, &collector, false);
    std::vector<std::string> cc1 = cc1Arguments(driverArguments(request), diags, fs);
    CudaCompileResult result;
    if (cc1.empty() || collector.hadError) {
        if (collector.diagnostics.empty())
            collector.diagnostics.push_back({"", 0, 0, "could not set up the CUDA compile job"});
        result.diagnostics = std::move(collector.diagnostics);
        return result;
    }
    std::vector<const char*> cc1Argv;
    for (const auto& a : cc1) cc1Argv.push_back(a.c_str());
    auto invocation = std::make_shared<clang::CompilerInvocation>();
    clang::CompilerInvocation::CreateFromArgs(*invocation, cc1Argv, diags);
    invocation->getDiagnosticOpts().ShowCarets = false;                // no "N errors generated" on stderr
    invocation->getPreprocessorOpts().DisablePragmaDebugCrash = true;  // `#pragma clang __debug crash` etc.
    clang::CompilerInstance ci;
    ci.setInvocation(invocation);
    ci.createDiagnostics(&collector, false);
    ci.createFileManager(fs);
    llvm::SmallString<4096> ptx;
    ci.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(ptx));
    LimitedEmitAssembly action(options.limits.maxUnroll);
    bool ok = !collector.hadError && ci.ExecuteAction(action) && !collector.hadError;
    result.diagnostics = std::move(collector.diagnostics);
    result.ok = ok;
    if (ok) result.ptx = std::string(ptx.str());
    return result;
}

// What a new worker does before its first job: LLVM's crash reports (a stack dump naming where in the
// source the compiler was, printed on stderr for the caller to read), and one compile of a known kernel, so
// that the first job does not pay for what a compile sets up once (LLVM's targets, Clang's tables).
void setUpWorker() {
    setenv("LLVM_DISABLE_SYMBOLIZATION", "1", 1);
    llvm::sys::PrintStackTraceOnErrorSignal("qgpu-compile", true);
    llvm::EnablePrettyStackTrace();
    llvm::install_out_of_memory_new_handler();
    initNvptxOnce();
    compileHere(
        compileRequest("__global__ void warm_up(int* out) { out[threadIdx.x] = blockIdx.x; }\n", "warm_up.cu", {}));
}

std::string answerRequest(const std::string& bytes) {
    std::optional<CompileRequest> request = decodeCompileRequest(bytes);
    if (!request) {
        CudaCompileResult bad;
        bad.diagnostics.push_back({"", 0, 0, "the compile's process got a request cut short; compile again"});
        return encodeCompileResult(bad);
    }
    return encodeCompileResult(compileHere(*request));
}

WorkerProcess& compileWorker() {
    static WorkerProcess* worker = new WorkerProcess(setUpWorker, answerRequest, kCompileStackBytes);
    return *worker;  // never destroyed: the worker ends when this process closes its socket at exit
}

}  // namespace

CompileLimits CompileLimits::fromEnvironment() {
    CompileLimits l;
    l.cpuSeconds = environmentInteger("QGPU_COMPILE_SECONDS", l.cpuSeconds, 1, 3600);
    l.memoryMiB = environmentInteger("QGPU_COMPILE_MEMORY_MIB", l.memoryMiB, 64, 1 << 20);
    l.maxUnroll = environmentInteger("QGPU_MAX_UNROLL", l.maxUnroll, 1, 1 << 20);
    return l;
}

std::string clangVersionString() { return clang::getClangFullVersion(); }

CudaCompileResult compileCudaToPtx(const std::string& source, const std::string& fileName,
                                   const CudaCompileOptions& options) {
    CompileRequest request = compileRequest(source, fileName, options);
    CudaCompileResult result;
    if (source.size() > kMaxSourceBytes) {
        result.diagnostics.push_back({request.userFile, 0, 0,
                                      "the kernel source has " + std::to_string(source.size()) +
                                          " bytes, more than the limit of " + std::to_string(kMaxSourceBytes)});
        return result;
    }
    JobLimits limits{options.limits.cpuSeconds, size_t(options.limits.memoryMiB) << 20};
    JobOutcome outcome;
    try {
        outcome = compileWorker().run(encodeCompileRequest(request), limits);
    } catch (const std::runtime_error& e) {
        result.diagnostics.push_back(
            {request.userFile, 0, 0,
             std::string(e.what()) + "; try again when the system has processes and memory to spare"});
        return result;
    }
    if (outcome.end == JobOutcome::End::Finished) return decodeCompileResult(outcome.payload, request.userFile);
    result.diagnostics.push_back(failedCompileDiagnostic(outcome, request));
    return result;
}

}  // namespace qgpu
