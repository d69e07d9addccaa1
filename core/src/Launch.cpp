#include "qgpu/core/Launch.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "qgpu/core/DevicePrintf.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/JsonDocument.h"

namespace qgpu {
namespace {

using Json = nlohmann::json;

// Parse-time sanity bounds (the machine's own, smaller limits are checked by validateLaunch); they keep
// products of dimensions (each at most kMaxDim in all) from overflowing and absurd arrays from being allocated.
constexpr int kMaxDim = 65535;
constexpr int kMaxArray = kMaxLaunchArrayWords;

int32_t toWord(const Json& v, const std::string& file, const std::string& where) {
    if (!v.is_number_integer()) failAt(file, where + " must be an integer, found " + v.dump());
    bool tooBig = v.is_number_unsigned() && v.get<uint64_t>() > UINT32_MAX;
    int64_t x = tooBig ? 0 : v.get<int64_t>();
    if (tooBig || x < INT32_MIN || x > int64_t(UINT32_MAX))
        failAt(file, where + " = " + v.dump() + " does not fit in 32 bits");
    return int32_t(uint32_t(x));
}

// A float's bits from a JSON number (rounded to the nearest float) or "nan", "inf", "-inf"; every NaN is
// the machine's canonical one.
int32_t toFloatWord(const Json& v, const std::string& file, const std::string& where) {
    if (v.is_string()) {
        std::string s = v.get<std::string>();
        if (s == "nan") return 0x7fffffff;
        if (s == "inf" || s == "-inf") return std::bit_cast<int32_t>(s == "inf" ? INFINITY : -INFINITY);
    } else if (v.is_number()) {
        double d = v.get<double>();
        if (std::fabs(d) <= 3.4028235677973366e38) return std::bit_cast<int32_t>(float(d));
        failAt(file, where + " = " + v.dump() + " is beyond the largest float; write \"inf\" for infinity");
    }
    failAt(file, where + " must be a number, \"nan\", \"inf\" or \"-inf\", found " + v.dump());
}

// An integer element: within its type's range (a bool also as true or false); a u64 keeps its bits.
int64_t toInteger(const Json& v, ElementType type, const std::string& file, const std::string& where) {
    if (type == ElementType::Bool && v.is_boolean()) return v.get<bool>() ? 1 : 0;
    bool isSigned = type == ElementType::I8 || type == ElementType::I16 || type == ElementType::I64;
    int bits = 8 * elementBytes(type);
    int64_t low = isSigned ? (bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1))) : 0;
    uint64_t high = type == ElementType::Bool ? 1
                    : bits == 64              ? (isSigned ? uint64_t(INT64_MAX) : UINT64_MAX)
                    : isSigned                ? (uint64_t(1) << (bits - 1)) - 1
                                              : (uint64_t(1) << bits) - 1;
    bool inRange = v.is_number_integer() &&
                   (v.is_number_unsigned()
                        ? v.get<uint64_t>() <= high
                        : v.get<int64_t>() >= low && (v.get<int64_t>() < 0 || uint64_t(v.get<int64_t>()) <= high));
    if (!inRange)
        failAt(file, where + " = " + v.dump() + " is not " +
                         (type == ElementType::Bool
                              ? "true, false, 0 or 1"
                              : "a whole number from " + std::to_string(low) + " to " + std::to_string(high)) +
                         " (the argument's type is " + elementTypeName(type) + ")");
    return v.is_number_unsigned() ? int64_t(v.get<uint64_t>()) : v.get<int64_t>();
}

// An element as KernelArg::values holds it: i32 words wrap (4294967295 is -1), u32 ones are zero-extended.
int64_t toValue(const Json& v, ElementType type, const std::string& file, const std::string& where) {
    if (type == ElementType::F32) return toFloatWord(v, file, where);
    if (type == ElementType::I32) return toWord(v, file, where);
    if (type == ElementType::U32) return uint32_t(toWord(v, file, where));
    return toInteger(v, type, file, where);
}

Json valueJson(int64_t value, ElementType type) {
    if (type == ElementType::Bool && (value == 0 || value == 1)) return value == 1;
    if (type == ElementType::U32) return uint32_t(value);
    if (type == ElementType::U64) return uint64_t(value);
    if (type != ElementType::F32) return value;
    int32_t word = int32_t(value);
    float f = std::bit_cast<float>(word);
    if (std::isnan(f)) return "nan";  // a launch spec's one NaN (the canonical one, as parsing reads it)
    if (!std::isfinite(f)) return formatWord(word, true);
    // The shortest decimal that reads back to f, as the double nearest it: the JSON writer prints that
    // double as the same short decimal. from_chars, unlike stod, ignores the locale (the studio's may
    // write decimal commas).
    std::string text = formatWord(word, true);
    double d = 0;
    std::from_chars(text.data(), text.data() + text.size(), d);
    return d;
}

// One dimension of a grid or block: a whole number from 1 to kMaxDim (no 32-bit wrap-around: 2^31 is
// refused as too large, not read as a negative number).
int parseExtent(const Json& v, const std::string& file, const std::string& where) {
    bool inRange = v.is_number_unsigned()
                       ? v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= uint64_t(kMaxDim)
                       : v.is_number_integer() && v.get<int64_t>() >= 1 && v.get<int64_t>() <= kMaxDim;
    if (!inRange)
        failAt(file,
               "\"" + where + "\" must be a whole number from 1 to " + std::to_string(kMaxDim) + ", found " + v.dump());
    return int(v.get<int64_t>());
}

Dim3 parseDim(const Json& j, const std::string& file, const std::string& key) {
    Dim3 d;
    if (j.is_array() && !j.empty() && j.size() <= 3) {
        int* f[3] = {&d.x, &d.y, &d.z};
        for (size_t i = 0; i < j.size(); ++i) *f[i] = parseExtent(j[i], file, key + "[" + std::to_string(i) + "]");
    } else if (j.is_number()) {
        d.x = parseExtent(j, file, key);
    } else {
        failAt(file, "\"" + key + "\" must be a positive integer or an array of 1 to 3 of them, found " + j.dump());
    }
    if (int64_t(d.x) * d.y * d.z > kMaxDim)
        failAt(file, "\"" + key + "\" describes more than " + std::to_string(kMaxDim) + " in all, found " + j.dump());
    return d;
}

Json dimJson(const Dim3& d) {
    if (d.y == 1 && d.z == 1) return d.x;
    return Json::array({d.x, d.y, d.z});
}

bool isIdentifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

// "type": one of elementTypeName's names, or "int" and "float" for i32 and f32.
ElementType parseType(const Json& t, const std::string& file, const std::string& where) {
    if (t == "int") return ElementType::I32;
    if (t == "float") return ElementType::F32;
    for (int i = 0; i <= int(ElementType::U64); ++i)
        if (t == elementTypeName(ElementType(i))) return ElementType(i);
    if (t == "f64" || t == "double")
        failAt(file, where + ".type " + t.dump() + ": the machine computes in 32-bit float; use \"float\"");
    failAt(file, where +
                     ".type must be one of \"i32\" (or \"int\"), \"u32\", \"f32\" (or \"float\"), \"bool\", "
                     "\"i8\", \"u8\", \"i16\", \"u16\", \"i64\", \"u64\"; found " +
                     t.dump());
}

// A struct's bytes as C lays out its fields: each on a multiple of its size, the whole a multiple of the widest.
std::vector<int64_t> structBytes(const std::vector<KernelArg::Field>& fields) {
    std::vector<int64_t> bytes;
    size_t widest = 1;
    for (const auto& f : fields) {
        size_t size = size_t(elementBytes(f.type));
        widest = std::max(widest, size);
        bytes.resize((bytes.size() + size - 1) / size * size, 0);
        std::vector<int32_t> words = packElements({f.value}, f.type);
        for (size_t b = 0; b < size; ++b) bytes.push_back((uint32_t(words[b / 4]) >> (8 * (b % 4))) & 0xff);
    }
    bytes.resize((bytes.size() + widest - 1) / widest * widest, 0);
    return bytes;
}

// "fields": [{"i32": 4}, {"float": 0.5}, ...]: a struct passed by value, as u8 bytes.
void parseFields(const Json& list, KernelArg& arg, const std::string& file, const std::string& where) {
    if (!list.is_array() || list.empty())
        failAt(file, where + ".fields must be a non-empty array of fields such as {\"i32\": 4}, {\"float\": 0.5}");
    for (size_t i = 0; i < list.size(); ++i) {
        std::string at = where + ".fields[" + std::to_string(i) + "]";
        if (!list[i].is_object() || list[i].size() != 1)
            failAt(file, at + " must be one type and its value, such as {\"i32\": 4}");
        ElementType type = parseType(Json(list[i].begin().key()), file, at);
        arg.fields.push_back({type, toValue(list[i].begin().value(), type, file, at)});
    }
    arg.isArray = true;
    arg.type = ElementType::U8;
    arg.values = structBytes(arg.fields);
}

KernelArg parseArg(const Json& a, const std::string& list, size_t index, const std::string& file) {
    std::string where = list + "[" + std::to_string(index) + "]";
    if (!a.is_object() || !a.contains("name") || !a["name"].is_string())
        failAt(file, where + " must be an object with a \"name\" string");
    KernelArg arg;
    arg.name = a["name"].get<std::string>();
    where += " (\"" + arg.name + "\")";
    if (!isIdentifier(arg.name)) failAt(file, where + ": the name must be an identifier");
    int kinds =
        int(a.contains("array")) + int(a.contains("zeros")) + int(a.contains("scalar")) + int(a.contains("fields"));
    if (kinds != 1) failAt(file, where + " needs exactly one of \"array\", \"zeros\", \"scalar\" or \"fields\"");
    for (auto it = a.begin(); it != a.end(); ++it)
        if (it.key() != "name" && it.key() != "array" && it.key() != "zeros" && it.key() != "scalar" &&
            it.key() != "type" && it.key() != "fields")
            failAt(file, where + ": unknown field \"" + it.key() + "\"");
    if (a.contains("type")) arg.type = parseType(a["type"], file, where);
    if (a.contains("fields")) {
        if (a.contains("type")) failAt(file, where + ": \"fields\" give each field's type; drop \"type\"");
        parseFields(a["fields"], arg, file, where);
    } else if (a.contains("scalar")) {
        arg.values = {toValue(a["scalar"], arg.type, file, where + ".scalar")};
    } else if (a.contains("zeros")) {
        int32_t n = toWord(a["zeros"], file, where + ".zeros");
        if (n < 1) failAt(file, where + ".zeros must be at least 1");
        if (n > kMaxArray) failAt(file, where + ".zeros must be at most " + std::to_string(kMaxArray));
        arg.isArray = true;
        arg.zeros = true;
        arg.values.assign(size_t(n), 0);
    } else {
        const Json& arr = a["array"];
        if (!arr.is_array() || arr.empty())
            failAt(file, where + ".array must be a non-empty array of " + elementCName(arg.type) + " values");
        arg.isArray = true;
        for (size_t i = 0; i < arr.size(); ++i)
            arg.values.push_back(toValue(arr[i], arg.type, file, where + ".array[" + std::to_string(i) + "]"));
    }
    return arg;
}

// What is wrong with argument i for the kernel's parameter i, or "".
std::string argumentProblem(const ProgramParam& param, const KernelArg& arg, size_t i) {
    std::string which = "argument " + std::to_string(i) + " (\"" + arg.name + "\")";
    if (param.name != arg.name)
        return "argument " + std::to_string(i) + " is named \"" + arg.name + "\" but the kernel's parameter " +
               std::to_string(i) + " is '" + param.name + "'; give the arguments the kernel's names, in its order";
    if (param.structBytes > 0) {  // its bytes: "fields", or an array of exactly its size
        size_t bytes = arg.values.size() * size_t(elementBytes(arg.type));
        if (arg.isArray && bytes == size_t(param.structBytes)) return "";
        return which + " must give the " + std::to_string(param.structBytes) + " bytes of the struct '" + param.name +
               "' that the kernel takes by value" + (arg.isArray ? " (it gives " + std::to_string(bytes) + ")" : "") +
               ": list its fields in order with their types, \"fields\": [{\"i32\": 4}, {\"float\": 0.5}, ...]";
    }
    if (!arg.fields.empty())
        return which + " gives \"fields\" but the kernel's parameter '" + param.name +
               "' is not a struct passed by value";
    if (!sameStorage(param.element, arg.type))
        return which + " holds " + elementCName(arg.type) + " values but the kernel's parameter '" + param.name +
               "' is " + (param.isArray ? "a pointer to " : "") + elementCName(param.element) +
               ": give it \"type\": \"" + elementTypeName(param.element) + "\"";
    if (param.isArray != arg.isArray)
        return which + " is " + (arg.isArray ? "an array" : "a scalar") + " but the kernel's parameter '" + param.name +
               "' is " + (param.isArray ? "a pointer: give an \"array\" or \"zeros\"" : "a scalar: give a \"scalar\"");
    return "";
}

void checkArguments(const std::vector<ProgramParam>& params, const LaunchSpec& launch, std::vector<Diagnostic>& diags) {
    auto err = [&](std::string msg) { diags.push_back({launch.file, 0, 0, std::move(msg)}); };
    if (params.size() != launch.args.size()) {
        err("the kernel takes " + std::to_string(params.size()) + " parameters but the launch gives " +
            std::to_string(launch.args.size()) + " arguments; list them in the kernel's order");
        return;
    }
    for (size_t i = 0; i < params.size(); ++i)
        if (std::string problem = argumentProblem(params[i], launch.args[i], i); !problem.empty()) err(problem);
}

}  // namespace

std::string formatWord(int32_t word, bool isFloat) {
    if (!isFloat) return std::to_string(word);
    float f = std::bit_cast<float>(word);
    if (std::isnan(f)) {  // a NaN other than the canonical one shows its bits
        char bits[16];
        std::snprintf(bits, sizeof bits, "%08x", uint32_t(word));
        return uint32_t(word) == 0x7fffffffu ? "nan" : "nan(0x" + std::string(bits) + ")";
    }
    if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
    char text[32];
    auto end = std::to_chars(text, text + sizeof text, f).ptr;
    return std::string(text, end);
}

std::string formatFloatLiteral(int32_t word) {
    std::string text = formatWord(word, true);
    if (text.find_first_not_of("-0123456789") == std::string::npos) text += ".0";
    return text;
}

const KernelArg* LaunchSpec::arg(const std::string& name) const {
    for (const auto& a : args)
        if (a.name == name) return &a;
    return nullptr;
}

const KernelArg* LaunchSpec::symbol(const std::string& name) const {
    for (const auto& a : symbols)
        if (a.name == name) return &a;
    return nullptr;
}

int LaunchSpec::warpsPerBlock(const MachineSpec& spec) const {
    return (block.count() + spec.lanesPerWarp - 1) / spec.lanesPerWarp;
}

const ArrayPlacement* MemoryMap::find(const std::string& name) const {
    for (const auto& a : arrays)
        if (a.name == name) return &a;
    return nullptr;
}

namespace {

std::vector<KernelArg> parseArgList(const Json& j, const std::string& list, const std::string& file) {
    std::vector<KernelArg> out;
    if (!j.contains(list)) return out;
    if (!j[list].is_array()) failAt(file, "\"" + list + "\" must be an array");
    for (size_t i = 0; i < j[list].size(); ++i) out.push_back(parseArg(j[list][i], list, i, file));
    return out;
}

void parseExpectPrintf(const Json& texts, LaunchSpec& spec, const std::string& file) {
    if (!texts.is_array()) failAt(file, "\"expect\".\"printf\" must be an array of the texts printf prints");
    for (size_t i = 0; i < texts.size(); ++i) {
        if (!texts[i].is_string())
            failAt(file, "\"expect\".\"printf\"[" + std::to_string(i) + "] must be a string: one call's text");
        spec.expectPrintf.push_back(texts[i].get<std::string>());
    }
}

void parseExpect(const Json& expect, LaunchSpec& spec, const std::string& file) {
    if (!expect.is_object()) failAt(file, "\"expect\" must map array names to expected contents");
    for (auto it = expect.begin(); it != expect.end(); ++it) {
        if (it.key() == "printf") {
            parseExpectPrintf(it.value(), spec, file);
            continue;
        }
        const KernelArg* a = spec.arg(it.key());
        if (!a || !a->isArray) a = spec.symbol(it.key());  // a symbol is memory, a scalar one too
        if (!a) failAt(file, "\"expect\" names \"" + it.key() + "\", which is not an array argument or symbol");
        if (!it.value().is_array() || it.value().size() != a->values.size())
            failAt(file, "\"expect\".\"" + it.key() + "\" must have " + std::to_string(a->values.size()) + " " +
                             elementCName(a->type) + " values");
        std::vector<int64_t> v;
        for (size_t i = 0; i < it.value().size(); ++i)
            v.push_back(toValue(it.value()[i], a->type, file, "expect." + it.key() + "[" + std::to_string(i) + "]"));
        spec.expect.push_back({it.key(), std::move(v)});
    }
}

}  // namespace

LaunchSpec parseLaunchSpec(const std::string& text, const std::string& file) {
    Json j = parseJsonDocument(text, file);
    if (!j.is_object()) failAt(file, "a launch spec is a JSON object with \"grid\", \"block\" and \"args\"");
    for (auto it = j.begin(); it != j.end(); ++it)
        if (it.key() != "grid" && it.key() != "block" && it.key() != "args" && it.key() != "expect" &&
            it.key() != "shared_bytes" && it.key() != "symbols")
            failAt(file,
                   "unknown field \"" + it.key() + "\" (expected grid, block, args, symbols, shared_bytes, expect)");
    LaunchSpec spec;
    spec.file = file;
    if (j.contains("grid")) spec.grid = parseDim(j["grid"], file, "grid");
    if (!j.contains("block")) failAt(file, "missing \"block\": the threads per block, e.g. \"block\": 4");
    spec.block = parseDim(j["block"], file, "block");
    if (j.contains("shared_bytes")) {
        int32_t n = toWord(j["shared_bytes"], file, "shared_bytes");
        if (n < 0 || n > kMaxArray) failAt(file, "\"shared_bytes\" must be from 0 to " + std::to_string(kMaxArray));
        spec.sharedBytes = n;
    }
    spec.args = parseArgList(j, "args", file);
    spec.symbols = parseArgList(j, "symbols", file);
    std::set<std::string> names;
    for (const auto& a : spec.args)
        if (!names.insert(a.name).second) failAt(file, "argument \"" + a.name + "\" is given twice");
    for (const auto& a : spec.symbols)
        if (!names.insert(a.name).second)
            failAt(file, "symbol \"" + a.name + "\" is given twice, or has the name of an argument");
    if (j.contains("expect")) parseExpect(j["expect"], spec, file);
    return spec;
}

namespace {

Json elementsJson(const std::vector<int64_t>& elements, ElementType type) {
    Json out = Json::array();
    for (int64_t e : elements) out.push_back(valueJson(e, type));
    return out;
}

bool allZero(const std::vector<int64_t>& elements) {
    return std::all_of(elements.begin(), elements.end(), [](int64_t e) { return e == 0; });
}

// An argument's fields in the order people write them: name, type, then its value.
Json::object_t::value_type argValue(const KernelArg& a) {
    if (!a.fields.empty()) {
        Json fields = Json::array();
        for (const auto& f : a.fields) fields.push_back(Json{{elementTypeName(f.type), valueJson(f.value, f.type)}});
        return {"fields", fields};
    }
    if (a.isArray && a.zeros && allZero(a.values)) return {"zeros", Json(a.values.size())};
    if (a.isArray) return {"array", elementsJson(a.values, a.type)};
    return {"scalar", valueJson(a.values.at(0), a.type)};
}

// A JSON value on one line with a space after each comma and colon.
std::string spaced(const Json& j) {
    if (j.is_array()) {
        std::string out = "[";
        for (size_t i = 0; i < j.size(); ++i) out += (i ? ", " : "") + spaced(j[i]);
        return out + "]";
    }
    return j.dump();
}

// The "type" a launch spec writes: none for int, "float" for f32 (as specs have always said), else the name;
// none for a struct, whose fields have theirs.
std::string typeField(const KernelArg& a) {
    if (!a.fields.empty() || a.type == ElementType::I32) return "";
    return a.type == ElementType::F32 ? "float" : elementTypeName(a.type);
}

std::string readableArg(const KernelArg& a) {
    auto [kind, value] = argValue(a);
    std::string type = typeField(a);
    return "{\"name\": " + Json(a.name).dump() + (type.empty() ? "" : ", \"type\": " + Json(type).dump()) + ", \"" +
           kind + "\": " + spaced(value) + "}";
}

// The type an expected array is written in: its argument's or symbol's.
ElementType expectType(const LaunchSpec& launch, const std::string& name) {
    const KernelArg* a = launch.arg(name);
    if (!a) a = launch.symbol(name);
    return a ? a->type : ElementType::I32;
}

std::string readableList(const std::string& key, const std::vector<KernelArg>& list) {
    std::string out = ",\n  \"" + key + "\": [\n";
    for (size_t i = 0; i < list.size(); ++i)
        out += "    " + readableArg(list[i]) + (i + 1 < list.size() ? ",\n" : "\n");
    return out + "  ]";
}

std::string readableLaunch(const LaunchSpec& launch) {
    std::string out = "{\n  \"grid\": " + spaced(dimJson(launch.grid)) +
                      ",\n  \"block\": " + spaced(dimJson(launch.block)) +
                      (launch.sharedBytes ? ",\n  \"shared_bytes\": " + std::to_string(launch.sharedBytes) : "") +
                      readableList("args", launch.args);
    if (!launch.symbols.empty()) out += readableList("symbols", launch.symbols);
    if (launch.hasExpectations()) {
        out += ",\n  \"expect\": {";
        for (size_t i = 0; i < launch.expect.size(); ++i) {
            const auto& [name, words] = launch.expect[i];
            out += (i ? ", " : "") + Json(name).dump() + ": " + spaced(elementsJson(words, expectType(launch, name)));
        }
        if (!launch.expectPrintf.empty())
            out += std::string(launch.expect.empty() ? "" : ", ") + "\"printf\": " + Json(launch.expectPrintf).dump();
        out += "}";
    }
    return out + "\n}\n";
}

Json argListJson(const std::vector<KernelArg>& list) {
    Json out = Json::array();
    for (const auto& a : list) {
        Json o{{"name", a.name}};
        if (std::string type = typeField(a); !type.empty()) o["type"] = type;
        o.emplace(argValue(a));
        out.push_back(o);
    }
    return out;
}

}  // namespace

std::string launchSpecToJson(const LaunchSpec& launch, JsonLayout layout) {
    if (layout == JsonLayout::Readable) return readableLaunch(launch);
    Json j;
    j["grid"] = dimJson(launch.grid);
    j["block"] = dimJson(launch.block);
    if (launch.sharedBytes) j["shared_bytes"] = launch.sharedBytes;
    j["args"] = argListJson(launch.args);
    if (!launch.symbols.empty()) j["symbols"] = argListJson(launch.symbols);
    if (launch.hasExpectations()) {
        j["expect"] = Json::object();
        for (const auto& [name, words] : launch.expect)
            j["expect"][name] = elementsJson(words, expectType(launch, name));
        if (!launch.expectPrintf.empty()) j["expect"]["printf"] = launch.expectPrintf;
    }
    return j.dump();
}

namespace {

// An array after the map's last one; 64-bit elements start on an even word (8 bytes).
void place(MemoryMap& map, const std::string& name, const std::vector<int64_t>& values, ElementType type) {
    if (elementBytes(type) == 8) map.usedWords += map.usedWords % 2;
    int words = int(packElements(values, type).size());
    map.arrays.push_back({name, map.usedWords, words, type, int(values.size())});
    map.usedWords += words;
}

}  // namespace

MemoryMap validateLaunch(const LaunchSpec& launch, const MachineSpec& spec) {
    auto check = [&](bool ok, const std::string& msg) {
        if (!ok) throw DiagnosticError(Diagnostic{launch.file, 0, 0, msg});
    };
    int tpb = launch.threadsPerBlock();
    check(tpb <= spec.maxThreadsPerBlock, "a thread block of " + std::to_string(tpb) +
                                              " threads exceeds the machine's " +
                                              std::to_string(spec.maxThreadsPerBlock) + "; use more blocks");
    check(launch.grid.count() <= spec.maxBlocks, "a grid of " + std::to_string(launch.grid.count()) +
                                                     " blocks exceeds the machine's " + std::to_string(spec.maxBlocks));
    int warps = launch.warpsPerBlock(spec) * launch.grid.count();
    check(warps * spec.lanesPerWarp <= spec.maxThreads,
          "the launch needs " + std::to_string(warps) + " warps (" + std::to_string(launch.totalThreads()) +
              " threads) but the machine runs at most " + std::to_string(spec.maxThreads) + " threads");
    check(launch.sharedBytes <= spec.sharedWords * 4,
          "\"shared_bytes\": " + std::to_string(launch.sharedBytes) + " is more than the machine's " +
              std::to_string(spec.sharedWords * 4) + " bytes of shared memory per block");
    MemoryMap map;
    for (const auto& a : launch.args) {
        if (!a.isArray) continue;
        place(map, a.name, a.values, a.type);
    }
    check(map.usedWords <= spec.globalWords, "the arrays need " +
                                                 std::to_string(map.usedWords - MemoryMap::kNullWords) +
                                                 " words of global memory but the machine has " +
                                                 std::to_string(spec.globalWords - MemoryMap::kNullWords) +
                                                 " for them (word 0 is null); use smaller arrays");
    return map;
}

namespace {

// Checks a program against the machine and the launch and resolves its symbols into the launch's
// addresses and arguments; gathers every error before it throws them together.
class ProgramLinker {
public:
    ProgramLinker(const Program& program, const LaunchSpec& launch, const MemoryMap& map, const MachineSpec& spec)
        : program_(program), launch_(launch), map_(map), spec_(spec) {}

    Program link() {
        checkFit();
        if (!program_.params.empty()) checkArguments(program_.params, launch_, diags_);
        Program out = program_;
        for (auto& b : out.blocks) linkBlock(b);
        if (!diags_.empty()) throw DiagnosticError(diags_);
        return out;
    }

private:
    const Program& program_;
    const LaunchSpec& launch_;
    const MemoryMap& map_;
    const MachineSpec& spec_;
    std::vector<Diagnostic> diags_;

    void err(SourceLoc loc, std::string msg) {
        diags_.push_back({program_.sourceFile, loc.line, loc.column, std::move(msg)});
    }

    // The ROM and shared memory the program needs, and the launch's share of dynamic shared memory.
    void checkFit() {
        int n = int(program_.blocks.size());
        if (n == 0) err({}, "the program has no blocks");
        if (n > spec_.romBlocks)
            err({}, "the program has " + std::to_string(n) + " blocks but the ROM holds " +
                        std::to_string(spec_.romBlocks) + "; simplify the kernel");
        int dynamicWords = (launch_.sharedBytes + 3) / 4;
        if (program_.sharedWords + dynamicWords > spec_.sharedWords)
            err({},
                "the program uses " + std::to_string(program_.sharedWords) + " shared words per block" +
                    (dynamicWords ? " and the launch's shared_bytes " + std::to_string(dynamicWords) + " more" : "") +
                    " but the machine has " + std::to_string(spec_.sharedWords));
        if (!program_.dynamicShared.empty() && launch_.sharedBytes == 0)
            diags_.push_back({launch_.file, 0, 0,
                              "the kernel declares extern __shared__ '" + program_.dynamicShared +
                                  "', sized by the launch: give \"shared_bytes\": N in the launch spec (CUDA's "
                                  "third launch parameter)"});
    }

    void linkBlock(Block& b) {
        if (int(b.body.size()) > spec_.slotsPerBlock)
            err(b.terminatorLoc,
                "block '" + b.label + "' has more than " + std::to_string(spec_.slotsPerBlock) + " instructions");
        for (size_t i = 0; i < b.body.size(); ++i) {
            SourceLoc loc = i < b.bodyLocs.size() ? b.bodyLocs[i] : SourceLoc{};
            std::string base = resolve(b.body[i], loc);
            if (!base.empty()) {
                b.bodySymbols.resize(b.body.size());
                b.bodySymbols[i] = std::move(base);
            }
            checkBodyInstruction(b.body[i], loc, b.label);
        }
        checkTerminator(b);
    }

    void checkBodyInstruction(const Instruction& in, SourceLoc loc, const std::string& label) {
        if (in.op >= Opcode::Count_ || opcodeInfo(in.op).terminator)
            err(loc, "block '" + label + "' has a terminator or invalid opcode among its body instructions");
        else if (in.op == Opcode::Sreg && in.imm >= uint32_t(SpecialReg::Count_))
            err(loc, "invalid special register number");
        if ((1 << in.aux) > spec_.lanesPerWarp) err(loc, "shuffle width exceeds the warp");
        checkRegisters(in, loc);
    }

    void checkTerminator(const Block& b) {
        const Instruction& t = b.terminator;
        checkRegisters(t, b.terminatorLoc);
        if (t.op >= Opcode::Count_ || !opcodeInfo(t.op).terminator)
            err(b.terminatorLoc, "block '" + b.label + "' does not end with a terminator");
        int n = int(program_.blocks.size());
        bool hasTarget = t.op == Opcode::Jmp || t.op == Opcode::Br || t.op == Opcode::Bar;
        if (hasTarget && (t.target() >= n || (t.op == Opcode::Br && t.elseTarget() >= n)))
            err(b.terminatorLoc, "block '" + b.label + "' branches past the last block");
    }

    void checkRegisters(const Instruction& in, SourceLoc loc) {
        for (int r : {in.rd, in.rs1, in.rs2, in.rc})
            if (r >= spec_.registers)
                err(loc, "register r" + std::to_string(r) + " does not exist (r0..r" +
                             std::to_string(spec_.registers - 1) + ")");
    }

    // Resolves in's symbol; returns the name of the placed array or variable whose base it now holds, if any.
    std::string resolve(Instruction& in, SourceLoc loc) {
        if (in.immSymbol.empty()) return {};
        bool high = in.immSymbol.size() > 3 && in.immSymbol.ends_with(kHighWordSuffix);
        if (high) in.immSymbol.resize(in.immSymbol.size() - 3);
        if (in.immSymbol[0] == '#' && !nameParameter(in, loc)) return {};
        std::string placed;
        if (in.immSymbol == kLocalMemorySymbol)
            in.imm += uint32_t(map_.localBase);
        else if (in.immSymbol == kWarpsPerBlockSymbol)
            in.imm += uint32_t(launch_.warpsPerBlock(spec_));
        else if (in.immSymbol == kFrameWordsSymbol)
            in.imm += uint32_t(program_.localWords);
        else if (const ArrayPlacement* p = map_.find(in.immSymbol)) {
            in.imm += uint32_t(p->base);
            if (!high) placed = in.immSymbol;
        } else if (const KernelArg* a = launch_.arg(in.immSymbol))
            in.imm += uint32_t(uint64_t(a->values.at(0)) >> (high ? 32 : 0));
        else
            err(loc, "the program uses $" + in.immSymbol + " but the launch has no argument of that name");
        in.immSymbol.clear();
        return placed;
    }

    // A positional symbol (#i, the kernel's i-th parameter) becomes the launch argument's name.
    bool nameParameter(Instruction& in, SourceLoc loc) {
        size_t i = std::stoul(in.immSymbol.substr(1));
        if (i >= launch_.args.size()) {
            err(loc, "the kernel uses parameter " + std::to_string(i) + " but the launch gives " +
                         std::to_string(launch_.args.size()) + " arguments");
            in.immSymbol.clear();
            return false;
        }
        in.immSymbol = launch_.args[i].name;
        return true;
    }
};

// What a fit error adds when printf's buffer takes part of global memory.
std::string printfBufferNote(const Program& program) {
    for (const auto& g : program.globals)
        if (g.name == kPrintfBufferName)
            return " (printf's buffer takes " + std::to_string(g.values.size()) +
                   " of the words: build with -D QGPU_PRINTF_WORDS=N for a smaller one)";
    return "";
}

}  // namespace

void placeProgramGlobals(MemoryMap& map, const Program& program, const LaunchSpec& launch, const MachineSpec& spec) {
    auto fail = [&](const std::string& msg) { throw DiagnosticError(Diagnostic{program.sourceFile, 0, 0, msg}); };
    for (const KernelArg& s : launch.symbols)
        if (std::none_of(program.globals.begin(), program.globals.end(),
                         [&](const ProgramGlobal& g) { return g.name == s.name; }))
            fail("the launch sets the symbol \"" + s.name + "\" but the kernel has no __device__ or __constant__ " +
                 "variable of that name in memory; check the name");
    for (const ProgramGlobal& g : program.globals) {
        if (launch.arg(g.name))
            fail("the kernel's global variable '" + g.name + "' has the name of the launch's argument \"" + g.name +
                 "\"; rename one of them");
        const KernelArg* set = launch.symbol(g.name);
        if (!set) {
            place(map, g.name, g.values, g.element);
            continue;
        }
        size_t bytes = g.values.size() * size_t(elementBytes(g.element));
        size_t given = set->values.size() * size_t(elementBytes(set->type));
        if (given != bytes)
            fail("the launch's symbol \"" + g.name + "\" holds " + std::to_string(given) +
                 " bytes but the kernel's variable '" + g.name + "' has " + std::to_string(bytes) +
                 "; give every element of it");
        place(map, g.name, set->values, set->type);
    }
    if (!program.globals.empty() && map.usedWords > spec.globalWords)
        fail("the launch's arrays and the kernel's global variables need " +
             std::to_string(map.usedWords - MemoryMap::kNullWords) + " words of global memory but the machine has " +
             std::to_string(spec.globalWords - MemoryMap::kNullWords) +
             " for them (word 0 is null); use smaller arrays or tables" + printfBufferNote(program));
    map.localBase = map.usedWords;
    int slots = launch.grid.count() * launch.warpsPerBlock(spec) * spec.lanesPerWarp;
    if (program.localWords == 0) return;
    map.usedWords += program.localWords * slots;
    if (map.usedWords > spec.globalWords)
        fail("the kernel's local memory (" + std::to_string(program.localWords) + " words a thread, for local arrays " +
             "and -O0's variables) needs " + std::to_string(program.localWords * slots) + " words for " +
             std::to_string(slots) + " threads, which with the arrays is more than the machine's " +
             std::to_string(spec.globalWords) + " words of global memory; launch fewer threads, use smaller local " +
             "arrays, or build with -O1 or higher" + printfBufferNote(program));
}

LinkedLaunch linkLaunch(const Program& program, const LaunchSpec& launch, const MachineSpec& spec) {
    MemoryMap map = validateLaunch(launch, spec);
    placeProgramGlobals(map, program, launch, spec);
    Program linked = ProgramLinker(program, launch, map, spec).link();
    return {std::move(linked), std::move(map)};
}

}  // namespace qgpu
