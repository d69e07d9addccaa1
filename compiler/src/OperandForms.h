// The operand forms the instruction selector takes: for each PTX instruction it selects, how many operands
// and of which kinds (register, immediate, address, label, predicate, ...). checkOperandForms
// (InstructionSelection.cpp) holds every instruction of the kernel against this table before selection, so
// the selector never reads an operand that is not there or is of another kind. Instructions missing from
// the table are refused by the selector by name, before it reads any operand. Private to the compiler
// library.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace qgpu::lowering {

// What may stand in one operand position: a set of these.
enum OperandKinds : unsigned {
    kReg = 1u << 0,      // a register: %r1, %rd2, or a name declared by .reg
    kImm = 1u << 1,      // an integer or float literal
    kAddress = 1u << 2,  // [%rd1], [%rd1+8], [symbol+8]
    kLabel = 1u << 3,    // a label of the function
    kPred = 1u << 4,     // a predicate register (%p1, or a name declared by .reg .pred)
    kSpecial = 1u << 5,  // %tid.x, %laneid, ...
    kSymbol = 1u << 6,   // a name: a __shared__ array (or `!%p`, a negated predicate)
    kVector = 1u << 7,   // {%r1, %r2}: the data of a .v2 or .v4 access
};

struct OperandForm {
    const char* opcode;    // the instruction's first part: "selp"
    const char* modifier;  // a part that selects this form ("param" for ld.param), or nullptr for any
    int min, max;          // how many operands
    unsigned kinds[5];     // what each position takes
    bool typed;            // a part names a type (.s32, .f32, .pred, ...)
};

constexpr unsigned kValue = kReg | kImm;

// Ordered: the first form whose opcode matches and whose modifier is among the instruction's parts applies.
inline constexpr OperandForm kOperandForms[] = {
    {"bra", nullptr, 1, 1, {kLabel}, false},
    {"ret", nullptr, 0, 0, {}, false},
    {"exit", nullptr, 0, 0, {}, false},
    {"trap", "callstack", 0, 0, {}, false},  // the call stack's overflow (CallStack.h), never the user's trap
    {"qgpu", "save", 2, 2, {kAddress, kReg | kPred}, false},
    {"qgpu", "restore", 2, 2, {kReg | kPred, kAddress}, false},
    {"bar", nullptr, 1, 2, {kValue, kValue}, false},  // bar.sync 0; bar.sync 1, 64; bar.warp.sync mask
    {"barrier", nullptr, 1, 2, {kValue, kValue}, false},
    {"membar", nullptr, 0, 0, {}, false},
    {"fence", nullptr, 0, 0, {}, false},
    {"ld", "param", 2, 2, {kReg, kAddress}, true},
    {"ld", nullptr, 2, 2, {kReg | kVector, kAddress}, true},
    {"st", nullptr, 2, 2, {kAddress, kValue | kVector}, true},
    {"atom", "cas", 4, 4, {kReg, kAddress, kValue, kValue}, true},
    {"atom", nullptr, 3, 3, {kReg, kAddress, kValue}, true},
    {"red", nullptr, 2, 2, {kAddress, kValue}, true},
    {"shfl", "sync", 5, 5, {kReg, kValue, kValue, kValue, kValue}, true},  // d, a, lane, c, membermask
    {"shfl", nullptr, 4, 4, {kReg, kValue, kValue, kValue}, true},
    {"mov", nullptr, 2, 2, {kReg | kPred | kVector, kValue | kPred | kSpecial | kSymbol | kVector}, true},
    {"setp", "and", 4, 4, {kPred, kValue, kValue, kPred | kSymbol}, true},  // a compound compare: `!%p` is a symbol
    {"setp", "or", 4, 4, {kPred, kValue, kValue, kPred | kSymbol}, true},
    {"setp", "xor", 4, 4, {kPred, kValue, kValue, kPred | kSymbol}, true},
    {"setp", nullptr, 3, 3, {kPred, kValue, kValue}, true},
    {"selp", nullptr, 4, 4, {kReg, kValue, kValue, kPred}, true},
    {"cvt", nullptr, 2, 2, {kReg, kReg}, true},
    {"cvta", nullptr, 2, 2, {kReg, kReg}, true},
    {"add", nullptr, 3, 3, {kReg, kValue, kValue}, true},
    {"sub", nullptr, 3, 3, {kReg, kValue, kValue}, true},
    {"mul", nullptr, 3, 3, {kReg, kValue, kValue}, true},
    {"div", nullptr, 3, 3, {kReg, kValue, kValue}, true},
    {"rem", nullptr, 3, 3, {kReg, kValue, kValue}, true},
    {"min", nullptr, 3, 3, {kReg, kValue, kValue}, true},
    {"max", nullptr, 3, 3, {kReg, kValue, kValue}, true},
    {"and", nullptr, 3, 3, {kReg | kPred, kValue | kPred, kValue | kPred}, true},
    {"or", nullptr, 3, 3, {kReg | kPred, kValue | kPred, kValue | kPred}, true},
    {"xor", nullptr, 3, 3, {kReg | kPred, kValue | kPred, kValue | kPred}, true},
    {"shl", nullptr, 3, 3, {kReg, kReg, kValue}, true},  // the value in a register: 64-bit shifts read its name
    {"shr", nullptr, 3, 3, {kReg, kReg, kValue}, true},
    {"mad", nullptr, 4, 4, {kReg, kValue, kValue, kValue}, true},
    {"fma", nullptr, 4, 4, {kReg, kValue, kValue, kValue}, true},
    {"neg", nullptr, 2, 2, {kReg, kValue}, true},
    {"not", nullptr, 2, 2, {kReg | kPred, kValue | kPred}, true},
    {"abs", nullptr, 2, 2, {kReg, kValue}, true},
    {"sqrt", nullptr, 2, 2, {kReg, kValue}, true},
    {"popc", nullptr, 2, 2, {kReg, kValue}, true},
    {"clz", nullptr, 2, 2, {kReg, kValue}, true},
    {"brev", nullptr, 2, 2, {kReg, kValue}, true},
    {"bfe", nullptr, 4, 4, {kReg, kValue, kValue, kValue}, true},
    {"bfi", nullptr, 5, 5, {kReg, kValue, kValue, kValue, kValue}, true},
    {"shf", nullptr, 4, 4, {kReg, kValue, kValue, kValue}, true},
    {"prmt", nullptr, 4, 4, {kReg, kValue, kValue, kValue}, true},
};

// The form for an instruction split at '.' (parts[0] is its name), or nullptr when the selector has none.
inline const OperandForm* operandForm(const std::vector<std::string>& parts) {
    if (parts.empty()) return nullptr;
    for (const OperandForm& f : kOperandForms) {
        if (parts[0] != f.opcode) continue;
        if (!f.modifier) return &f;
        for (size_t i = 1; i < parts.size(); ++i)
            if (parts[i] == f.modifier) return &f;
    }
    return nullptr;
}

// "a register or an immediate"
inline std::string describeKinds(unsigned kinds) {
    static const std::pair<unsigned, const char*> names[] = {
        {kReg, "a register"},   {kPred, "a predicate"},
        {kImm, "an immediate"}, {kAddress, "an address [reg+offset]"},
        {kLabel, "a label"},    {kSpecial, "a special register"},
        {kSymbol, "a symbol"},  {kVector, "a vector {...}"}};
    std::vector<const char*> parts;
    for (const auto& [kind, name] : names)
        if (kinds & kind) parts.push_back(name);
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i)
        out += std::string(i == 0 ? "" : i + 1 == parts.size() ? " or " : ", ") + parts[i];
    return out;
}

}  // namespace qgpu::lowering
