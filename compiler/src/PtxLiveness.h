// Which PTX registers hold a value that a later instruction may read, after each instruction of a function:
// what a call of a recursive device function must keep on the call stack (Inlining.cpp). Private to the
// compiler library.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "qgpu/compiler/Ptx.h"

namespace qgpu::lowering {

// For each instruction of `fn`, the registers live after it. An over-approximation where PTX is unclear
// (a guarded definition does not end a value; every operand but a destination is read), never an under-one.
std::vector<std::set<std::string>> liveAfter(const ptx::Function& fn);

}  // namespace qgpu::lowering
