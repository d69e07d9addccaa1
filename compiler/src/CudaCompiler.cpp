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
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <mutex>

#include "DeviceHeader.h"

namespace qgpu {
namespace {

constexpr const char* kVirtualDir = "/qgpu-virtual";
constexpr const char* kClangPath = "/usr/lib/llvm-19/bin/clang";
constexpr const char* kBuiltinVarsHeader = "__clang_cuda_builtin_vars.h";
constexpr size_t kMaxSourceBytes = size_t(1) << 20;

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
        d.message = std::string(text.str());
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
        // -ffp-contract=off (driver flag): a * b + c stays a product and a sum, as the host executor
        // computes it; a fused multiply-add is written as one.
        const char* args[] = {"qgpu", "-replexitval=never"};
        llvm::cl::ParseCommandLineOptions(2, args);
    });
}

// The only files a compile can see, all in memory: the kernel's source, the device header and the one
// Clang header the device header includes (read from Clang's resource directory, a path the host chose).
// No #include in a kernel reaches the host's file system, so code a model wrote cannot read host files.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> sandbox(const std::string& sourcePath, const std::string& source,
                                                        const std::string& headerPath, const std::string& header) {
    static const std::pair<std::string, std::string> builtinVars = [] {
        std::string path = clang::driver::Driver::GetResourcesPath(kClangPath) + "/include/" + kBuiltinVarsHeader;
        auto buffer = llvm::MemoryBuffer::getFile(path);
        return std::pair{path, buffer ? std::string((*buffer)->getBuffer()) : std::string()};
    }();
    auto memFs = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    memFs->addFile(sourcePath, 0, llvm::MemoryBuffer::getMemBufferCopy(source, sourcePath));
    memFs->addFile(headerPath, 0, llvm::MemoryBuffer::getMemBufferCopy(header, headerPath));
    if (!builtinVars.second.empty())  // without it the device header's #include names the missing file
        memFs->addFile(builtinVars.first, 0, llvm::MemoryBuffer::getMemBufferCopy(builtinVars.second));
    return memFs;
}

std::string baseName(const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string clangVersionString() { return clang::getClangFullVersion(); }

CudaCompileResult compileCudaToPtx(const std::string& source, const std::string& fileName,
                                   const CudaCompileOptions& options) {
    initNvptxOnce();
    std::string base = baseName(fileName.empty() ? "kernel.cu" : fileName);
    if (base.size() < 3 || base.substr(base.size() - 3) != ".cu") base += ".cu";
    std::string virtualSource = std::string(kVirtualDir) + "/" + base;
    std::string virtualHeader = std::string(kVirtualDir) + "/include/qgpu_cuda.h";

    CudaCompileResult result;
    if (source.size() > kMaxSourceBytes) {
        result.diagnostics.push_back({fileName.empty() ? base : fileName, 0, 0,
                                      "the kernel source has " + std::to_string(source.size()) +
                                          " bytes, more than the limit of " + std::to_string(kMaxSourceBytes)});
        return result;
    }
    auto fs = sandbox(virtualSource, source, virtualHeader,
                      options.deviceHeader.empty() ? std::string(kDeviceHeader) : options.deviceHeader);

    Collector collector(virtualSource, fileName.empty() ? base : fileName);
    auto diagOpts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    clang::DiagnosticsEngine diags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), diagOpts, &collector, false);

    std::vector<std::string> args = {kClangPath,
                                     "-x",
                                     "cuda",
                                     "--cuda-device-only",
                                     "--cuda-gpu-arch=sm_75",
                                     "-nocudainc",
                                     "-nocudalib",
                                     "--cuda-path=/nonexistent",
                                     "--cuda-feature=+ptx70",
                                     "-gline-tables-only",
                                     "-fno-unroll-loops",
                                     "-fno-exceptions",
                                     "-ffp-contract=off",
                                     "-O" + std::to_string(options.optLevel),
                                     "-include",
                                     virtualHeader,
                                     "-S",
                                     virtualSource,
                                     "-o",
                                     "-"};
    for (const auto& d : options.defines) args.push_back("-D" + d);
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());

    clang::driver::Driver driver(kClangPath, "x86_64-pc-linux-gnu", diags, "qgpu CUDA compiler", fs);
    driver.setCheckInputsExist(false);
    std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
    const clang::driver::Command* cc1 = nullptr;
    if (compilation)
        for (const auto& job : compilation->getJobs())
            if (std::string(job.getCreator().getName()) == "clang") cc1 = &job;
    if (!cc1 || collector.hadError) {
        if (collector.diagnostics.empty())
            collector.diagnostics.push_back({"", 0, 0, "could not set up the CUDA compile job"});
        result.diagnostics = std::move(collector.diagnostics);
        return result;
    }

    auto invocation = std::make_shared<clang::CompilerInvocation>();
    clang::CompilerInvocation::CreateFromArgs(*invocation, cc1->getArguments(), diags);
    invocation->getDiagnosticOpts().ShowCarets = false;  // no "N errors generated" line on stderr
    clang::CompilerInstance ci;
    ci.setInvocation(invocation);
    ci.createDiagnostics(&collector, false);
    ci.createFileManager(fs);
    llvm::SmallString<4096> ptx;
    ci.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(ptx));
    clang::EmitAssemblyAction action;
    bool ok = !collector.hadError && ci.ExecuteAction(action) && !collector.hadError;
    result.diagnostics = std::move(collector.diagnostics);
    result.ok = ok;
    if (ok) result.ptx = std::string(ptx.str());
    return result;
}

}  // namespace qgpu
