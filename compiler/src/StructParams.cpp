#include "StructParams.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace qgpu::lowering {

namespace {

using ptx::Instruction;
using ptx::Operand;
using Kind = Operand::Kind;

bool isStruct(const ptx::Function& f, const std::string& name) {
    for (const auto& p : f.params)
        if (p.name == name) return p.arrayBytes > 0;
    return false;
}

// `ld.param.u64 to, [param]` (under `at`'s guard, at its lines): the parameter's address in global memory.
Instruction addressLoad(const Instruction& at, const std::string& to, const std::string& param) {
    Instruction load = at;
    load.parts = {"ld", "param", "u64"};
    load.opcode = "ld.param.u64";
    load.operands = {Operand{Kind::Reg, to, 0, false}, Operand{Kind::Address, param, 0, false}};
    return load;
}

// The same load from global memory.
Instruction globalLoad(Instruction in) {
    in.parts[1] = "global";
    in.opcode = "ld";
    for (size_t i = 1; i < in.parts.size(); ++i) in.opcode += "." + in.parts[i];
    return in;
}

// Registers that hold a struct parameter's address (a mov of its name, and copies and offsets of those).
std::set<std::string> addressRegisters(const ptx::Function& f) {
    std::set<std::string> out;
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& in : f.body) {
            const auto& o = in.operands;
            if (o.size() < 2 || o[0].kind != Kind::Reg || out.count(o[0].name)) continue;
            const std::string& op = in.parts[0];
            bool derived =
                op == "mov" && (o[1].kind == Kind::Symbol || o[1].kind == Kind::Address) && isStruct(f, o[1].name);
            if (op == "mov" || op == "add" || op == "sub")
                for (size_t i = 1; i < o.size(); ++i) derived |= o[i].kind == Kind::Reg && out.count(o[i].name);
            if (derived) changed |= out.insert(o[0].name).second;
        }
    }
    return out;
}

}  // namespace

ptx::Function structParamsInMemory(const ptx::Function& kernel) {
    ptx::Function out = kernel;
    if (std::none_of(kernel.params.begin(), kernel.params.end(), [](const ptx::Param& p) { return p.arrayBytes > 0; }))
        return out;
    std::set<std::string> addresses = addressRegisters(kernel);
    out.body.clear();
    std::map<size_t, size_t> moved;  // old instruction index -> new
    for (size_t i = 0; i < kernel.body.size(); ++i) {
        moved[i] = out.body.size();
        const Instruction& in = kernel.body[i];
        const auto& o = in.operands;
        bool load = in.parts[0] == "ld" && in.has("param") && o.size() == 2 && o[1].kind == Kind::Address;
        if (in.parts[0] == "mov" && o.size() == 2 && (o[1].kind == Kind::Symbol || o[1].kind == Kind::Address) &&
            isStruct(kernel, o[1].name)) {
            out.body.push_back(addressLoad(in, o[0].name, o[1].name));
        } else if (load && isStruct(kernel, o[1].name)) {
            std::string address = "%rd_param" + std::to_string(i);  // %rd: a 64-bit register
            out.body.push_back(addressLoad(in, address, o[1].name));
            Instruction field = globalLoad(in);
            field.operands[1].name = address;
            out.body.push_back(field);
        } else if (load && addresses.count(o[1].name)) {
            out.body.push_back(globalLoad(in));
        } else {
            out.body.push_back(in);
        }
    }
    moved[kernel.body.size()] = out.body.size();
    for (auto& [label, index] : out.labels) index = moved[index];
    return out;
}

}  // namespace qgpu::lowering
