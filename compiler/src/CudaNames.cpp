#include "CudaNames.h"

#include <map>
#include <string_view>

namespace qgpu {
namespace {

constexpr const char* kFloatFunction =
    "is not in qgpu's CUDA yet: the float functions are sqrtf, rsqrtf, __frsqrt_rn, expf, exp2f, exp10f, "
    "expm1f, logf, log2f, log10f, log1pf, powf, sinf, cosf, tanf, sincosf, sinpif, cospif, sinhf, coshf, "
    "tanhf, asinf, acosf, atanf, atan2f, asinhf, acoshf, atanhf, erff, erfcf, erfcxf, erfinvf, erfcinvf, "
    "hypotf, cbrtf, rcbrtf, fmaf, fmodf, remainderf, remquof, roundf, lroundf, ldexpf, scalbnf, frexpf, "
    "modff, ilogbf, logbf, nextafterf, fdimf, fminf, fmaxf, fabsf, floorf, ceilf, truncf, rintf, copysignf "
    "and __saturatef besides + - * /; build the function from them (docs/qgpu-cuda.md)";

// name -> what follows "'name' " in the message.
const std::map<std::string_view, std::string>& advice() {
    static const std::map<std::string_view, std::string> table = [] {
        std::map<std::string_view, std::string> t;
        for (std::string_view f : {"lgammaf", "tgammaf", "lgamma", "tgamma"}) t[f] = kFloatFunction;
        t["cooperative_groups"] = "is declared by <cooperative_groups.h>: include it first";
        t["half"] = "is not supported: the machine computes in 32-bit float; use float";
        return t;
    }();
    return table;
}

// The name quoted after `prefix` at the start of `message` ("use of undeclared identifier 'expf'; did you
// mean ...?"), or empty.
std::string_view quotedName(const std::string& message, std::string_view prefix) {
    if (message.rfind(prefix, 0) != 0) return {};
    size_t end = message.find('\'', prefix.size());
    return end == std::string::npos ? std::string_view()
                                    : std::string_view(message).substr(prefix.size(), end - prefix.size());
}

}  // namespace

std::string explainCudaName(const std::string& message) {
    for (std::string_view prefix : {"use of undeclared identifier '", "unknown type name '"}) {
        std::string_view name = quotedName(message, prefix);
        if (name.empty()) continue;
        auto it = advice().find(name);
        if (it != advice().end()) return "'" + std::string(name) + "' " + it->second;
    }
    return message;
}

}  // namespace qgpu
