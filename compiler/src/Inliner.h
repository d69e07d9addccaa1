// The inliner of Inlining.cpp and RecursiveCalls.cpp: copies device functions into the kernel at each call,
// and places recursive ones on the call stack. Private to the compiler library.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "CallStack.h"
#include "Inlining.h"
#include "qgpu/compiler/Ptx.h"

namespace qgpu::lowering::inlining {

using ptx::Instruction;
using ptx::Operand;

Instruction mov(const Instruction& at, const std::string& type, Operand dest, Operand value);
std::vector<std::string> names(const std::string& list);  // `(param0, param1)`: the names inside
std::string typeOf(const Instruction& in);
std::string key(const std::string& name, int64_t offset);  // "param0+8"
int elementBytes(const std::string& type);
// The functions on a cycle of calls: those that can reach themselves.
std::set<std::string> recursiveFunctions(const ptx::Module& module);
// Whether `fn` can reach one of `recursive` through its calls.
bool reachesRecursion(const ptx::Module& module, const ptx::Function& fn, const std::set<std::string>& recursive);

// The arguments a call site stored (param0+offset -> value, and the st.param's type) and the results its
// callee left (retval0+offset -> the register that carries it).
struct CallSequence {
    std::map<std::string, Operand> stored, returned;
    std::map<std::string, std::string> storedTypes;
};

// What a call instruction names: `call (retval0), name, (param0, ...)`.
struct CallTarget {
    std::string name;
    std::vector<std::string> results, args;
};

class Inliner {
public:
    Inliner(const ptx::Module& module, const std::string& cudaFile, int callDepth)
        : m_module(module), m_cudaFile(cudaFile), m_callDepth(callDepth), m_recursive(recursiveFunctions(module)) {}
    InlinedKernel run(const ptx::Function& kernel);

private:
    struct Subroutine;
    // One function's body as it is copied: the suffixes that rename its registers and its labels, the
    // values its parameters take (by name and byte offset), and the label its `ret` goes to ("" in the
    // kernel).
    struct Body {
        const ptx::Function& fn;
        std::string suffix;
        std::map<std::string, Operand> args;
        std::string returnLabel;
        std::map<std::string, Operand> results = {};  // func_retval0+offset -> the register that carries it
        std::string labelSuffix = suffix;
        const Subroutine* subroutine = nullptr;  // the recursive function this body is a copy of
        size_t at = 0;                           // the instruction of `fn` being copied
        bool unreached = false;                  // after a call of a recursive function in a copy
    };
    // A recursive function, placed after the kernel in copies that each start where the function can be
    // entered: its entry, and the return site of each of its calls of recursive functions. A copy holds
    // only what can be reached from its start before the next call or `ret` leaves for the trampoline,
    // so no return site lies inside a loop that is also entered another way, and the control flow
    // stays reducible, as the machine's reconvergence rule needs.
    struct Subroutine {
        Body body;  // the template of its copies: registers renamed once for all of them
        std::string entry;
        std::vector<std::set<std::string>> live;
        int number = 0;                              // its entry's number at the trampoline
        std::vector<std::pair<size_t, int>> copies;  // start and the site it returns to (0: the entry)
        size_t placed = 0;                           // the copies placed so far
    };

    [[noreturn]] void fail(const Instruction& in, const std::string& message) const;
    std::string renamed(const std::string& name, const std::string& suffix) const;
    Operand rename(Operand o, const Body& b) const;
    void emitBody(Body& b, size_t start = 0, int site = 0);
    void emitInstruction(const Instruction& in, Body& b, CallSequence& seq);
    CallTarget callTarget(const Instruction& call) const;
    void inlineCall(const Instruction& call, CallSequence& seq, Body& caller);
    void paramLoad(const Instruction& in, const std::map<std::string, Operand>& from, Body& b);
    Operand resultCarrier(const std::string& type, const Body& b, int64_t offset);
    const ptx::Function* callee(const std::string& name) const;

    // RecursiveCalls.cpp
    void callSubroutine(const Instruction& call, const ptx::Function& fn, const CallTarget& target, CallSequence& seq,
                        Body& caller);
    int returnSite(const Body& caller);
    void returnValues(const ptx::Function& fn, const CallTarget& target, CallSequence& seq) const;
    Subroutine& subroutine(const ptx::Function& fn);
    void emitSubroutines();
    std::vector<Operand> depotWords(const ptx::Function& fn) const;
    Operand carrier(const std::string& type, const std::string& role, int64_t offset);

    const ptx::Module& m_module;
    std::string m_cudaFile;
    int m_callDepth;
    std::set<std::string> m_recursive;
    ptx::Function m_out;
    int m_calls = 0, m_carriers = 0, m_deepestFrame = 1;
    std::map<std::string, std::unique_ptr<Subroutine>> m_subroutines;
    std::map<std::string, std::string> m_carrierTypes;       // a subroutine's argument carrier -> its mov type
    std::map<std::pair<std::string, size_t>, int> m_siteOf;  // (recursive caller, call) -> its site
    std::map<int, CallFrame> m_frames;                       // each site's frame
    std::vector<int> m_sites;                                // every return site, in order
};

}  // namespace qgpu::lowering::inlining
