#include "qgpu/core/TokenTrace.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>

namespace qgpu {

namespace {

// "alu.31" -> ("alu", 31); "x7" -> ("x", 7); "t_exec" -> ("t_exec", 0); "load_address.c31" stays whole.
std::pair<std::string, int> splitName(const std::string& name) {
    size_t dot = name.rfind('.');
    if (dot != std::string::npos) {
        std::string tail = name.substr(dot + 1);
        if (!tail.empty() && std::all_of(tail.begin(), tail.end(), [](char c) { return std::isdigit(uint8_t(c)); }))
            return {name.substr(0, dot), std::stoi(tail)};
        return {name, 0};
    }
    size_t digits = name.size();
    while (digits > 0 && std::isdigit(uint8_t(name[digits - 1]))) --digits;
    if (digits == 0 || digits == name.size()) return {name, 0};
    return {name.substr(0, digits), std::stoi(name.substr(digits))};
}

std::string number(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", double(v));
    return buf;
}

void describe(LayerField& f, const std::vector<ResidualField::Encoding>& encodings, const std::vector<float>& bases) {
    if (encodings.front() == ResidualField::Encoding::Integer) {
        for (size_t i = 0; i < f.raw.size(); ++i) f.value += (i ? ", " : "") + number(f.raw[i]);
        return;
    }
    std::vector<int> set;
    for (size_t i = 0; i < f.raw.size(); ++i) {
        float t = (bases[i] - f.raw[i]) / 2;  // docs/circuit.md: +base false, base - 2 true
        if (t != 0 && t != 1) f.clean = false;
        if (t == 1) set.push_back(f.index[i]);
    }
    if (!f.clean) {
        f.value = "not bits:";
        for (float v : f.raw) f.value += " " + number(v);
        return;
    }
    if (f.raw.size() == 1) {
        f.value = set.empty() ? "0" : "1";
        return;
    }
    int top = *std::max_element(f.index.begin(), f.index.end());
    if (top < 32) {
        uint32_t word = 0;
        for (int b : set) word |= uint32_t(1) << b;
        char buf[64];
        std::snprintf(buf, sizeof buf, "0x%08x = %u", word, word);
        f.value = buf;
        if (set.size() == 1) f.value += " (only bit " + std::to_string(set[0]) + ")";
        return;
    }
    f.value = set.empty() ? "no bit set" : "bits";
    for (size_t i = 0; i < set.size(); ++i) f.value += (i ? ", " : " ") + std::to_string(set[i]);
}

}  // namespace

std::vector<LayerField> decodeFields(const std::vector<ResidualField>& fields, const TokenTrace& trace) {
    std::vector<LayerField> out;
    if (trace.layers.empty()) return out;
    const int last = int(trace.layers.size()) - 1;
    std::map<std::string, size_t> byName;
    std::vector<std::vector<const ResidualField*>> members;
    for (size_t k = 0; k < fields.size(); ++k) {
        const ResidualField& r = fields[k];
        auto [name, index] = splitName(r.name);
        auto [it, added] = byName.emplace(name, out.size());
        if (added) {
            out.push_back(LayerField{name, r.born, r.released});
            out.back().input = r.born == 0 && r.name.find('.') == std::string::npos;
            members.emplace_back();
        }
        LayerField& f = out[it->second];
        f.born = std::min(f.born, r.born);
        f.released = f.released < 0 || r.released < 0 ? -1 : std::max(f.released, r.released);
        f.index.push_back(index);
        f.dims.push_back(r.dim);
        f.features.push_back(k);
        members[it->second].push_back(&r);
    }
    // Where each dim's owners clear it: a read bit's slot in the MLP of the layer before it lands, any other
    // in its own layer (circuit::Circuit::allocate).
    std::map<int, std::vector<int>> clearedAt;
    for (const ResidualField& r : fields)
        clearedAt[r.dim].push_back(r.encoding == ResidualField::Encoding::ReadBit ? r.born - 1 : r.born);
    for (size_t i = 0; i < out.size(); ++i) {
        LayerField& f = out[i];
        std::vector<ResidualField::Encoding> encodings;
        std::vector<float> bases;
        for (const ResidualField* r : members[i]) {
            int at = std::min(r->released < 0 ? last : r->released, last);
            const std::vector<int>& cleared = clearedAt[r->dim];
            int ownClear = r->encoding == ResidualField::Encoding::ReadBit ? r->born - 1 : r->born;
            bool mixer = std::any_of(cleared.begin(), cleared.end(), [&](int c) { return c == at && c != ownClear; });
            const LayerTrace& layer = trace.layers[size_t(at)];
            const std::vector<float>& x = mixer ? layer.afterMixer : layer.afterLayer;
            f.readAt.push_back(at);
            f.readAfterMixer.push_back(mixer);
            f.raw.push_back(size_t(r->dim) < x.size() ? x[size_t(r->dim)] : 0.f);
            encodings.push_back(r->encoding);
            bases.push_back(r->base);
        }
        describe(f, encodings, bases);
    }
    std::stable_sort(out.begin(), out.end(), [](const LayerField& a, const LayerField& b) {
        return a.born != b.born ? a.born < b.born : a.input > b.input;
    });
    return out;
}

}  // namespace qgpu
