// The call stack that recursive device functions run on, written as PTX for RecursiveCalls.cpp. A function
// on a cycle of calls cannot be copied into its callers, so it is placed after the kernel (in copies, see
// Inliner.h), and every call of it pushes a frame onto a stack in the thread's local memory
// (`__qgpu_call_stack`): the caller's registers that are live after the call (those of a recursive caller
// are the callee's own), the words of the caller's local depot (-O0 keeps every variable there) and the
// number of the call site; the callee's `ret` reads that number and goes back to its site, which pops the
// frame. Calls and returns all pass one trampoline block. Registers move as machine words (`qgpu.save`,
// `qgpu.restore`, selected by callStackSlot), so addresses, 64-bit pairs and predicates keep exactly what
// they held. A call deeper than the program's call depth warns `stackfull` and the thread exits
// (`trap.callstack`). Private to the compiler library.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "qgpu/compiler/Ptx.h"

namespace qgpu::lowering {

inline constexpr const char* kCallStackArray = "__qgpu_call_stack";

// What one call site keeps in its frame, at word offsets: registers (two words for a 64-bit one), then
// depot words, then the site's number in the frame's last word.
struct CallFrame {
    std::vector<std::pair<std::string, int>> registers;
    std::vector<std::pair<ptx::Operand, int>> depotWords;  // [depot+byte] and its word in the frame
    int words = 0;
};

CallFrame callFrame(const std::set<std::string>& live, const std::vector<ptx::Operand>& depotWords);

// Each appends PTX to `out`, located at `at`, labels included.
// The stack pointer and the depth, at the kernel's start.
void startCallStack(const ptx::Instruction& at, ptx::Function& out);
// The depth check (at most `depth` calls in progress), then the frame pushed for call site `site`.
void pushFrame(const ptx::Instruction& at, const CallFrame& frame, int site, int depth, ptx::Function& out);
// The return site's label, then the frame popped and the caller's words restored.
void popFrame(const ptx::Instruction& at, const CallFrame& frame, int site, ptx::Function& out);
// Where a call of a recursive function returns to: a site's label, and the label every recursive
// function's `ret` branches to.
std::string returnSiteLabel(int site);
inline constexpr const char* kReturnLabel = "$L__qgpu_return";
// A branch to the trampoline, to go on at `target`: a recursive function's number (negative) or a site's.
void enterTrampoline(const ptx::Instruction& at, int target, ptx::Function& out);
// kReturnLabel: the site number on top of the stack taken to the trampoline.
void returnPath(const ptx::Instruction& at, ptx::Function& out);
// The one block every call and return of a recursive function passes: it branches on the number it is
// given to `targets` (number, label). One way into all recursive code keeps the control flow reducible.
void trampoline(const ptx::Instruction& at, const std::vector<std::pair<int, std::string>>& targets,
                ptx::Function& out);

}  // namespace qgpu::lowering
