#include "FuzzTarget.h"
#include "qgpu/compiler/Ptx.h"

void fuzzOne(const std::string& input) { qgpu::ptx::parse(input, "fuzz.ptx"); }
