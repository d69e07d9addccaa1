// Kernel parameters passed by value as structs or vectors, moved to memory (StructParams.cpp). Private to
// the compiler library.
#pragma once

#include "qgpu/compiler/Ptx.h"

namespace qgpu::lowering {

// A by-value parameter (`.param .b8 p[N]`) lives in global memory, as its own array of N bytes that the
// launch gives: reading a field, `ld.param.T %x, [p+8]`, becomes a load of the parameter's address and
// `ld.global.T %x, [%a+8]`; taking its address, `mov.b64 %a, p`, becomes the load of that address, and a
// load through it reads global memory. Other parameters and instructions are unchanged.
ptx::Function structParamsInMemory(const ptx::Function& kernel);

}  // namespace qgpu::lowering
