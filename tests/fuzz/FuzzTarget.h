// One libFuzzer entry point per parser: the input goes through the parser, a DiagnosticError (a located
// message for the user) is the expected way to refuse it, and anything else escaping -- another exception,
// a crash, a sanitizer report -- is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "qgpu/core/Diagnostic.h"

// Defined by each target: runs one input, letting a DiagnosticError through.
void fuzzOne(const std::string& input);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        fuzzOne(std::string(reinterpret_cast<const char*>(data), size));
    } catch (const qgpu::DiagnosticError&) {
    }
    return 0;
}
