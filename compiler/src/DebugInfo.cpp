#include "DebugInfo.h"

#include <algorithm>
#include <optional>

#include "DwarfTree.h"

namespace qgpu::lowering {

namespace {

using dwarf::Die;
using dwarf::Tree;

struct Context {
    const Tree& tree;
    const ptx::Function& function;  // whose code the scopes' labels are in
    const std::map<std::string, int>& localWords;
};

const Die* typeOf(const Tree& tree, const Die* die) {
    const dwarf::Value* type = die ? die->get(dwarf::kType) : nullptr;
    return type ? tree.at(size_t(type->number)) : nullptr;
}

bool isQualifier(uint64_t tag) {
    return tag == dwarf::kTypedef || tag == dwarf::kConstType || tag == dwarf::kVolatileType ||
           tag == dwarf::kRestrictType;
}

// The type under typedefs and qualifiers; null for void.
const Die* underlying(const Tree& tree, const Die* type) {
    for (int depth = 0; type && isQualifier(type->tag) && depth < 64; ++depth) type = typeOf(tree, type);
    return type;
}

std::string arrayBounds(const Tree& tree, const Die& array) {
    std::string out;
    for (size_t child : array.children) {
        const Die* range = tree.at(child);
        if (!range || range->tag != dwarf::kSubrangeType) continue;
        const dwarf::Value* count = range->get(dwarf::kCount);
        const dwarf::Value* upper = range->get(dwarf::kUpperBound);
        out += "[" + (count ? std::to_string(count->number) : upper ? std::to_string(upper->number + 1) : "") + "]";
    }
    return out;
}

// The type as CUDA spells it: "int", "const float *", "int[8]".
std::string typeName(const Tree& tree, const Die* type, int depth = 0) {
    if (!type) return "void";
    if (depth > 16) return "...";
    const dwarf::Value* name = type->get(dwarf::kName);
    std::string target = typeName(tree, typeOf(tree, type), depth + 1);
    switch (type->tag) {
        case dwarf::kPointerType: return target + " *";
        case dwarf::kReferenceType: return target + " &";
        case dwarf::kRvalueReferenceType: return target + " &&";
        case dwarf::kConstType: return "const " + target;
        case dwarf::kVolatileType: return "volatile " + target;
        case dwarf::kRestrictType: return target + " __restrict__";
        case dwarf::kArrayType: return target + arrayBounds(tree, *type);
        default: return name ? name->text : "(anonymous)";
    }
}

std::optional<ElementType> scalarElement(uint64_t encoding, uint64_t bytes) {
    if (encoding == dwarf::kBoolean && bytes == 1) return ElementType::Bool;
    if (encoding == dwarf::kFloat) return bytes == 4 ? std::optional(ElementType::F32) : std::nullopt;
    bool isSigned = encoding == dwarf::kSigned || encoding == dwarf::kSignedChar;
    if (!isSigned && encoding != dwarf::kUnsigned && encoding != dwarf::kUnsignedChar) return std::nullopt;
    switch (bytes) {
        case 1: return isSigned ? ElementType::I8 : ElementType::U8;
        case 2: return isSigned ? ElementType::I16 : ElementType::U16;
        case 4: return isSigned ? ElementType::I32 : ElementType::U32;
        case 8: return isSigned ? ElementType::I64 : ElementType::U64;
        default: return std::nullopt;
    }
}

// What reading the variable's bytes takes: a scalar's element type, a pointer, or bytes to show as they are.
void describeType(const Tree& tree, const Die* declared, ProgramVariable& v) {
    v.typeName = typeName(tree, declared);
    const Die* type = underlying(tree, declared);
    const dwarf::Value* size = type ? type->get(dwarf::kByteSize) : nullptr;
    v.bytes = size ? int(size->number) : 0;
    v.kind = ProgramVariable::Kind::Aggregate;
    if (!type) return;
    if (type->tag == dwarf::kPointerType || type->tag == dwarf::kReferenceType ||
        type->tag == dwarf::kRvalueReferenceType) {
        v.kind = ProgramVariable::Kind::Pointer;
        v.element = ElementType::U64;
        v.bytes = 8;
        return;
    }
    std::optional<ElementType> element;
    if (type->tag == dwarf::kEnumerationType)
        element = scalarElement(dwarf::kSigned, uint64_t(v.bytes));
    else if (const dwarf::Value* encoding = type->get(dwarf::kEncoding))
        element = scalarElement(encoding->number, uint64_t(v.bytes));
    if (!element) return;
    v.kind = ProgramVariable::Kind::Scalar;
    v.element = *element;
}

// Where -O0 keeps a variable: DW_OP_addr of a .local array, plus a byte offset.
int frameByte(const Context& cx, const dwarf::Value* location) {
    std::optional<dwarf::SymbolOffset> place = location ? dwarf::symbolPlusOffset(cx.tree, *location) : std::nullopt;
    auto base = place ? cx.localWords.find(place->symbol) : cx.localWords.end();
    if (base == cx.localWords.end() || place->offset > uint64_t(1) << 20) return -1;  // no frame is that large
    return base->second * 4 + int(place->offset);
}

size_t labelIndex(const ptx::Function& f, const dwarf::Value* pc, size_t otherwise) {
    if (!pc || pc->symbol.empty()) return otherwise;
    auto it = f.labels.find(pc->symbol);
    return it == f.labels.end() ? otherwise : it->second;
}

// The CUDA lines of the instructions between a scope's first and last labels.
std::pair<int, int> scopeLines(const Context& cx, const Die& scope) {
    const ptx::Function& f = cx.function;
    size_t first = labelIndex(f, scope.get(dwarf::kLowPc), 0);
    size_t last = std::min(labelIndex(f, scope.get(dwarf::kHighPc), f.body.size()), f.body.size());
    int low = 0, high = 0;
    for (size_t i = first; i < last; ++i) {
        int line = f.body[i].cudaLoc.line;
        if (line <= 0) continue;
        low = low ? std::min(low, line) : line;
        high = std::max(high, line);
    }
    return {low, high};
}

void collect(const Context& cx, const Die& scope, std::vector<ProgramVariable>& out) {
    auto [first, last] = scopeLines(cx, scope);
    for (size_t offset : scope.children) {
        const Die* die = cx.tree.at(offset);
        if (!die) continue;
        if (die->tag == dwarf::kLexicalBlock) collect(cx, *die, out);
        if (die->tag != dwarf::kVariable && die->tag != dwarf::kFormalParameter) continue;
        ProgramVariable v;
        const dwarf::Value* name = die->get(dwarf::kName);
        const dwarf::Value* line = die->get(dwarf::kDeclLine);
        v.name = name ? name->text : "(unnamed)";
        v.parameter = die->tag == dwarf::kFormalParameter;
        v.declLine = line ? int(line->number) : 0;
        v.firstLine = first;
        v.lastLine = last;
        describeType(cx.tree, typeOf(cx.tree, die), v);
        v.frameByte = frameByte(cx, die->get(dwarf::kLocation));
        out.push_back(std::move(v));
    }
}

// The subprogram entry whose code starts at the function's first label.
const Die* functionEntry(const Tree& tree, const ptx::Function& function) {
    for (const auto& [label, index] : function.labels) {
        if (label.rfind("$L__func_begin", 0) != 0) continue;
        for (const auto& [offset, die] : tree.dies) {
            const dwarf::Value* low = die.get(dwarf::kLowPc);
            if (die.tag == dwarf::kSubprogram && low && low->symbol == label) return &die;
        }
    }
    return nullptr;
}

// The function's name as CUDA writes it; a member function's entry names its declaration, which has it.
std::string functionName(const Tree& tree, const Die& entry) {
    const Die* die = &entry;
    for (int depth = 0; die && depth < 8; ++depth) {
        if (const dwarf::Value* name = die->get(dwarf::kName)) return name->text;
        const dwarf::Value* declaration = die->get(dwarf::kSpecification);
        if (!declaration) declaration = die->get(dwarf::kAbstractOrigin);
        die = declaration ? tree.at(size_t(declaration->number)) : nullptr;
    }
    return "";
}

dwarf::Section section(const ptx::Module& module, const std::string& name) {
    auto it = module.debugSections.find(name);
    return it == module.debugSections.end() ? dwarf::Section{} : dwarf::readSection(it->second);
}

}  // namespace

std::vector<ProgramVariable> programVariables(const ptx::Module& module, const std::map<std::string, int>& localWords,
                                              std::string& warning) {
    if (!module.debugSections.count(".debug_info")) return {};
    std::vector<ProgramVariable> out;
    try {
        dwarf::Section info = section(module, ".debug_info");
        Tree tree = dwarf::readTree(info, section(module, ".debug_abbrev"), section(module, ".debug_str"));
        std::vector<const ptx::Function*> functions;  // the kernel first
        for (const ptx::Function& f : module.functions)
            functions.insert(f.isEntry ? functions.begin() : functions.end(), &f);
        for (const ptx::Function* f : functions) {
            const Die* entry = functionEntry(tree, *f);
            if (!entry) continue;
            size_t first = out.size();
            collect(Context{tree, *f, localWords}, *entry, out);
            for (size_t i = first; i < out.size(); ++i) out[i].function = functionName(tree, *entry);
        }
    } catch (const dwarf::Unreadable& e) {
        warning = std::string(e.what()) + ", which qgpu does not read: the build lists no variables";
        return {};
    }
    return out;
}

}  // namespace qgpu::lowering
