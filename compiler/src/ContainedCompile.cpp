#include "ContainedCompile.h"

#include <llvm/Demangle/Demangle.h>

#include <cctype>
#include <csignal>
#include <cstring>
#include <regex>

namespace qgpu {
namespace {

void putText(std::string& out, const std::string& text) { out += std::to_string(text.size()) + ":" + text; }
void putNumber(std::string& out, long long n) { putText(out, std::to_string(n)); }

struct Reader {
    const std::string& bytes;
    size_t at = 0;
    bool ok = true;

    std::string text() {
        size_t colon = bytes.find(':', at);
        if (!ok || colon == std::string::npos || colon == at || colon - at > 12 ||
            bytes.find_first_not_of("0123456789", at) != colon)
            return fail();
        size_t size = std::stoull(bytes.substr(at, colon - at));
        if (size > bytes.size() - colon - 1) return fail();
        at = colon + 1 + size;
        return bytes.substr(colon + 1, size);
    }
    long long number() {
        std::string t = text();
        bool digits = !t.empty() && t.size() < 19 && t.find_first_not_of("-0123456789") == std::string::npos &&
                      t.find('-', 1) == std::string::npos && t != "-";
        if (!digits) fail();
        return ok ? std::stoll(t) : 0;
    }
    std::string fail() {
        ok = false;
        return {};
    }
};

std::string signalName(int signal) {
    const char* name = sigabbrev_np(signal);
    return name ? std::string("SIG") + name : "signal " + std::to_string(signal);
}

// The error LLVM stopped with: the line after "LLVM ERROR: ", without its node addresses, at most 160 chars.
std::string llvmError(const std::string& errorText) {
    size_t at = errorText.find("LLVM ERROR: ");
    if (at == std::string::npos) return {};
    std::string line = errorText.substr(at + 12, errorText.find('\n', at) - at - 12);
    line = std::regex_replace(line, std::regex("0x[0-9a-f]+: ?"), "");
    for (char& c : line)
        if (!std::isprint(static_cast<unsigned char>(c))) c = ' ';
    return line.size() > 160 ? line.substr(0, 157) + "..." : line;
}

// Where the compiler was, from LLVM's stack dump (entries outermost first): the parser's current token,
// else the innermost source position, else the function the back end was compiling, else the file.
Diagnostic locate(const std::string& errorText, const CompileRequest& site) {
    std::regex position(std::regex_replace(site.virtualSource, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                        R"(:(\d{1,9}):(\d{1,9})(: current parser token)?)");
    Diagnostic at{site.userFile, 0, 0, ""};
    bool token = false;
    for (std::sregex_iterator it(errorText.begin(), errorText.end(), position), end; it != end && !token; ++it) {
        at.line = std::stoi((*it)[1].str());
        at.column = std::stoi((*it)[2].str());
        token = (*it)[3].matched;
    }
    if (at.line) return at;
    // "... on function '@_Z1kPi'", "on function \"_Z1kPi\"", "in function 'k'"
    std::smatch function;
    std::string name;
    for (auto it = errorText.cbegin(); std::regex_search(
             it, errorText.cend(), function, std::regex(R"(function ['"]@?([A-Za-z_][A-Za-z0-9_.$]*)['"])"));
         it = function.suffix().first)
        name = function[1].str();
    std::string base = llvm::demangle(name);
    base = base.substr(0, base.find('('));
    if (size_t colons = base.rfind("::"); colons != std::string::npos) base = base.substr(colons + 2);
    std::smatch use;
    if (!base.empty() && std::regex_match(base, std::regex("[A-Za-z_][A-Za-z0-9_]*")) &&
        std::regex_search(site.source, use, std::regex("\\b" + base + "\\s*\\(")))
        return diagnosticAtOffset(site.userFile, site.source, size_t(use.position(0)), "");
    return at;
}

std::string limitsAdvice(const char* flag, const char* variable) {
    return std::string("raise the limit with ") + flag + " (" + variable + " in the studio and chat)";
}

std::string failureMessage(const JobOutcome& outcome, const CompileRequest& site) {
    using End = JobOutcome::End;
    const CompileLimits& l = site.options.limits;
    switch (outcome.end) {
        case End::WallLimit:
            return "the compile stopped making progress and was ended after " + std::to_string(2 * l.cpuSeconds + 10) +
                   " s; compile again, and if it recurs simplify the code here, or " +
                   limitsAdvice("--compile-seconds N", "QGPU_COMPILE_SECONDS");
        case End::CpuLimit:
            return "the compile ran past its limit of " + std::to_string(l.cpuSeconds) +
                   " s of CPU time; simplify the code here (a large unrolled loop or a deep template recursion is "
                   "the usual cause), or " +
                   limitsAdvice("--compile-seconds N", "QGPU_COMPILE_SECONDS");
        case End::OutOfMemory:
            return "the compile needed more memory than its limit of " + std::to_string(l.memoryMiB) +
                   " MiB; simplify the code here, or " +
                   limitsAdvice("--compile-memory MIB", "QGPU_COMPILE_MEMORY_MIB");
        default: break;
    }
    std::string error = llvmError(outcome.errorText);
    if (!error.empty())
        return "the CUDA compiler (LLVM) stopped with \"" + error +
               "\": the code here uses a construct its NVPTX back end cannot compile; write it another way";
    if (outcome.signal == SIGSEGV || outcome.signal == SIGBUS)
        return "the CUDA compiler crashed here (" + signalName(outcome.signal) + "), most likely out of its " +
               std::to_string(kCompileStackBytes >> 20) +
               " MiB stack on deeply nested code; flatten the nesting (split the "
               "expression, give intermediate values names)";
    std::string how = outcome.signal ? signalName(outcome.signal) : "exit code " + std::to_string(outcome.exitCode);
    return "the CUDA compiler crashed here (" + how + "); simplify the code around this line";
}

}  // namespace

std::string encodeCompileRequest(const CompileRequest& request) {
    std::string out;
    for (const std::string* text : {&request.source, &request.virtualSource, &request.virtualHeader, &request.userFile,
                                    &request.options.deviceHeader})
        putText(out, *text);
    putNumber(out, request.options.optLevel);
    putNumber(out, request.options.fuseMultiplyAdd ? 1 : 0);
    putNumber(out, request.options.debugInfo ? 1 : 0);
    putNumber(out, request.options.limits.maxUnroll);
    putNumber(out, static_cast<long long>(request.options.defines.size()));
    for (const std::string& define : request.options.defines) putText(out, define);
    return out;
}

std::optional<CompileRequest> decodeCompileRequest(const std::string& bytes) {
    Reader in{bytes};
    CompileRequest request;
    for (std::string* text : {&request.source, &request.virtualSource, &request.virtualHeader, &request.userFile,
                              &request.options.deviceHeader})
        *text = in.text();
    request.options.optLevel = int(in.number());
    request.options.fuseMultiplyAdd = in.number() != 0;
    request.options.debugInfo = in.number() != 0;
    request.options.limits.maxUnroll = int(in.number());
    long long defines = in.number();
    for (long long i = 0; in.ok && i < defines; ++i) request.options.defines.push_back(in.text());
    if (!in.ok || in.at != bytes.size()) return std::nullopt;
    return request;
}

std::string encodeCompileResult(const CudaCompileResult& result) {
    std::string out;
    putNumber(out, result.ok);
    putText(out, result.ptx);
    putNumber(out, static_cast<long long>(result.diagnostics.size()));
    for (const Diagnostic& d : result.diagnostics) {
        putText(out, d.file);
        putNumber(out, d.line);
        putNumber(out, d.column);
        putText(out, d.message);
        putNumber(out, d.warning);
    }
    return out;
}

CudaCompileResult decodeCompileResult(const std::string& bytes, const std::string& userFile) {
    Reader in{bytes};
    CudaCompileResult result;
    result.ok = in.number() != 0;
    result.ptx = in.text();
    long long count = in.number();
    for (long long i = 0; in.ok && i < count; ++i) {
        Diagnostic d;
        d.file = in.text();
        d.line = int(in.number());
        d.column = int(in.number());
        d.message = in.text();
        d.warning = in.number() != 0;
        result.diagnostics.push_back(std::move(d));
    }
    if (in.ok && in.at == bytes.size()) return result;
    CudaCompileResult cut;
    cut.diagnostics.push_back({userFile, 0, 0, "the compile's result came back cut short; compile again"});
    return cut;
}

Diagnostic failedCompileDiagnostic(const JobOutcome& outcome, const CompileRequest& site) {
    Diagnostic d = locate(outcome.errorText, site);
    d.message = failureMessage(outcome, site);
    return d;
}

}  // namespace qgpu
