// The PTX parser for PTX compiled from a kernel's CUDA source (Frontend.cpp). Private to the compiler library.
#pragma once

#include <string>
#include <vector>

#include "qgpu/compiler/Ptx.h"

namespace qgpu::ptx {

// ptx::parse, with an error inside a function located at the line of `cudaFile` its PTX came from (the last
// `.loc` of the .cu file before it in the function; inline PTX carries its asm statement's) and the PTX line
// named in the message, as instruction selection reports. Errors outside functions name the PTX line.
Module parse(const std::string& text, const std::string& fileName, const std::string& cudaFile);

// The elements of a `{%r1, %r2, 0, _}` operand: registers, immediates, and symbols (`_`, one a load
// discards); any other operand is its own one element.
std::vector<Operand> vectorElements(const Operand& v);

}  // namespace qgpu::ptx
