// Inline PTX through the whole compile and lowering: the input is the text of an `asm volatile("...")`
// statement in a fixed kernel (quotes, backslashes and control characters escaped, so the PTX holds it as it
// is but for its %-operands: %0 int y, %1 float g, %2 int x, %3 the pointer a). Clang, the PTX parser, the
// operand check and instruction selection must refuse whatever is malformed with a DiagnosticError.
#include <cstdio>

#include "FuzzTarget.h"
#include "qgpu/compiler/Frontend.h"

namespace {

// `input` as the inside of a C string literal.
std::string escaped(const std::string& input) {
    std::string out;
    for (char c : input) {
        unsigned char u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (u < 0x20 || u >= 0x7f) {  // three octal digits: the escape ends there, whatever follows
            char octal[8];
            std::snprintf(octal, sizeof octal, "\\%03o", unsigned(u));
            out += octal;
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace

void fuzzOne(const std::string& input) {
    std::string source =
        "__global__ void k(int* a, float* f) {\n"
        "  int x = a[threadIdx.x], y = 0;\n"
        "  float g = f[threadIdx.x];\n"
        "  asm volatile(\"" +
        escaped(input) +
        "\" : \"+r\"(y), \"+f\"(g) : \"r\"(x), \"l\"(a));\n"
        "  a[threadIdx.x] = y;\n"
        "  f[threadIdx.x] = g;\n"
        "}\n";
    qgpu::compileKernel(source, "fuzz.cu");
}
