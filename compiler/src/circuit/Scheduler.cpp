#include "qgpu/compiler/circuit/Scheduler.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace qgpu::circuit {

Scheduler::Scheduler(Geometry geometry) : m_geometry(geometry), m_circuit(geometry) {}

Scheduler::Value Scheduler::input(const std::string& name, int bits) {
    ValueInfo v{name, bits, -1, -1, false, false, {}};
    for (int i = 0; i < bits; ++i) v.dims.push_back(m_circuit.addFeature(bits == 1 ? name : name + std::to_string(i)));
    m_values.push_back(std::move(v));
    return Value(m_values.size() - 1);
}

std::vector<Scheduler::Value> Scheduler::gadget(const std::string& name, int depth, const std::vector<Value>& inputs,
                                                const std::vector<int>& outputWidths, Emit emit) {
    if (m_built) throw std::logic_error("the schedule is already built");
    Gadget g{name, depth, inputs, {}, std::move(emit), {}, -1};
    for (Value in : inputs) m_values.at(size_t(in));  // throws for an unknown value
    for (size_t i = 0; i < outputWidths.size(); ++i) {
        std::string out = outputWidths.size() == 1 ? name : name + "." + std::to_string(i);
        m_values.push_back({out, outputWidths[i], int(m_gadgets.size()), -1, false, false, {}});
        g.outputs.push_back(Value(m_values.size() - 1));
    }
    m_gadgets.push_back(std::move(g));
    return m_gadgets.back().outputs;
}

std::vector<Scheduler::Value> Scheduler::integerGadget(const std::string& name, int depth,
                                                       const std::vector<Value>& inputs, int count, Emit emit) {
    auto outputs = gadget(name, depth, inputs, std::vector<int>(size_t(count), 1), std::move(emit));
    for (Value v : outputs) m_values[size_t(v)].isInteger = true;
    return outputs;
}

Scheduler::Value Scheduler::add(Value a, Value b, const std::string& name) {
    return gadget(name, 3, {a, b}, {32}, [name](Circuit& c, int first, const Dims& in, const Dims& out) {
        c.add32(first, in[0], in[1], out[0], false, name);
    })[0];
}

Scheduler::Value Scheduler::subtract(Value a, Value b, const std::string& name) {
    return gadget(name, 3, {a, b}, {32}, [name](Circuit& c, int first, const Dims& in, const Dims& out) {
        c.add32(first, in[0], in[1], out[0], true, name);
    })[0];
}

Scheduler::Value Scheduler::multiply(Value a, Value b, const std::string& name) {
    return gadget(name, 3, {a, b}, {32}, [name](Circuit& c, int first, const Dims& in, const Dims& out) {
        c.multiply32(first, in[0], in[1], out[0], name);
    })[0];
}

Scheduler::Value Scheduler::shift(Circuit::Shift kind, Value a, Value amount, const std::string& name) {
    return gadget(name, 2, {a, amount}, {32}, [name, kind](Circuit& c, int first, const Dims& in, const Dims& out) {
        c.shift32(first, kind, in[0], in[1], out[0], name);
    })[0];
}

Scheduler::Value Scheduler::greaterOrEqual(Value a, Value b, bool isSigned, const std::string& name) {
    return gadget(name, 2, {a, b}, {1}, [name, isSigned](Circuit& c, int first, const Dims& in, const Dims& out) {
        c.greaterOrEqual32(first, in[0], in[1], out[0][0], isSigned, name);
    })[0];
}

Scheduler::Value Scheduler::equal(Value a, Value b, const std::string& name) {
    return gadget(name, 2, {a, b}, {1}, [name](Circuit& c, int first, const Dims& in, const Dims& out) {
        c.equal32(first, in[0], in[1], out[0][0], name);
    })[0];
}

Scheduler::Value Scheduler::select(Value condition, Value x, Value y, const std::string& name) {
    if (m_values.at(size_t(condition)).width != 1) throw std::invalid_argument(name + ": the condition is no bit");
    return gadget(name, 1, {condition, x, y}, {m_values.at(size_t(x)).width},
                  [](Circuit& c, int first, const Dims& in, const Dims& out) {
                      c.select(first, in[0][0], in[1], in[2], out[0]);
                  })[0];
}

Scheduler::Value Scheduler::minMax(Value a, Value b, bool isMax, bool isSigned, const std::string& name) {
    return gadget(name, 3, {a, b}, {32},
                  [name, isMax, isSigned](Circuit& c, int first, const Dims& in, const Dims& out) {
                      c.minMax32(first, in[0], in[1], out[0], isMax, isSigned, name);
                  })[0];
}

void Scheduler::keep(Value v) { m_values.at(size_t(v)).kept = true; }

int Scheduler::ready(Value v, bool forMixer) const {
    const ValueInfo& info = m_values[size_t(v)];
    if (info.producer < 0) return 0;
    const Gadget& p = m_gadgets[size_t(info.producer)];
    if (p.isMemory) return forMixer ? p.first + 1 : p.first;  // a read lands before its layer's MLP
    return p.first + p.depth;                                 // the layer after its producer's last
}

Scheduler::Value Scheduler::memory(const std::string& name, Rows writeRows, Value data, Rows readRows,
                                   Value writeSelect, Value readSelect) {
    return bankedMemory(name, 1, writeRows, data, readRows, writeSelect, readSelect);
}

Scheduler::Value Scheduler::bankedMemory(const std::string& name, int banks, Rows writeRows, Value data, Rows readRows,
                                         Value writeBank, Value readBank) {
    int width = m_values.at(size_t(data)).width;
    if (m_values[size_t(data)].isInteger) throw std::invalid_argument(name + ": a memory row holds bits, not integers");
    if (width > 32) throw std::invalid_argument(name + ": a memory row holds at most 32 bits");
    if (width < 32 && m_false < 0) m_false = input("never_true", 1);  // pads narrow rows
    for (Value bank : {writeBank, readBank})
        if (bank >= 0 && m_values.at(size_t(bank)).width != banks)
            throw std::invalid_argument(name + ": one select bit per bank");
    // Inputs in a fixed order; -1 entries stay out and their places are remembered.
    std::vector<Value> roles = {writeRows.high, data, readRows.high, writeBank, readBank, writeRows.low, readRows.low},
                       inputs;
    std::vector<int> at;
    for (Value v : roles) {
        at.push_back(v >= 0 ? int(inputs.size()) : -1);
        if (v >= 0) inputs.push_back(v);
    }
    Value result = gadget(name, 1, inputs, {width}, {})[0];
    Gadget& g = m_gadgets.back();
    g.isMemory = true;
    g.banks = banks;
    g.emit = [this, name, banks, index = m_gadgets.size() - 1, at](Circuit& c, int first, const Dims& in,
                                                                   const Dims& out) {
        for (int bank = 0; bank < banks; ++bank) {  // the banks share their read bits: one query is live
            MemoryPort port;
            port.name = banks == 1 ? name : name + std::to_string(bank);
            port.head = m_gadgets[index].head + bank;
            if (at[0] >= 0) port.writeRows = in[size_t(at[0])];
            port.dataBits = in[size_t(at[1])];
            if (at[2] >= 0) port.readRows = in[size_t(at[2])];
            if (at[3] >= 0) port.writeSelect = in[size_t(at[3])][size_t(bank)];
            if (at[4] >= 0) port.readSelect = in[size_t(at[4])][size_t(bank)];
            if (at[5] >= 0) port.writeRowsLow = in[size_t(at[5])];
            if (at[6] >= 0) port.readRowsLow = in[size_t(at[6])];
            port.outBits = out[0];
            port.dataTap = m_gadgets[index].dataTap;
            if (port.dataBits.size() < 32) {  // padding bits are never true, so their reads never land anywhere
                int sink = c.feature("read_sink") >= 0 ? c.feature("read_sink") : c.addReadBit("read_sink");
                port.dataBits.resize(32, m_values[size_t(m_false)].dims[0]);
                port.outBits.resize(32, sink);
            }
            c.memoryPort(first, port);
        }
    };
    m_values[size_t(result)].isRead = true;
    return result;
}

Scheduler::Value Scheduler::previous(const std::string& name, Value data, Value every) {
    Value result = memory(name, every, data, every);
    m_gadgets.back().dataTap = 1;
    return result;
}

// The gadget's neurons per layer, from emitting it into a scratch circuit of the same geometry with room
// for any features, plus one clear per slot it allocates (in case each one is reused).
std::vector<int> Scheduler::dryRun(const Gadget& g) const {
    if (g.isMemory) return {0};
    Geometry roomy = m_geometry;
    roomy.hiddenSize = 1 << 16;
    Circuit scratch(roomy);
    Dims in, out;
    for (Value v : g.inputs) {
        in.emplace_back();
        for (int i = 0; i < m_values[size_t(v)].width; ++i) {
            std::string bit = "in" + std::to_string(in.size()) + "." + std::to_string(i);
            in.back().push_back(m_values[size_t(v)].isInteger ? scratch.addInteger(bit) : scratch.addFeature(bit));
        }
    }
    int allocations = 0;
    for (Value v : g.outputs) {
        out.emplace_back();
        for (int i = 0; i < m_values[size_t(v)].width; ++i, ++allocations) {
            std::string bit = "out" + std::to_string(out.size()) + "." + std::to_string(i);
            out.back().push_back(m_values[size_t(v)].isInteger ? scratch.addInteger(bit) : scratch.addFeature(bit));
        }
    }
    size_t before = scratch.features().size();
    while (scratch.layerCount() < g.depth) scratch.addLayer();
    g.emit(scratch, 0, in, out);
    allocations += int(scratch.features().size() - before);
    std::vector<int> neurons;
    for (int l = 0; l < scratch.layerCount(); ++l) neurons.push_back(int(scratch.layer(l).mlp.size()));
    if (neurons.size() != size_t(g.depth)) throw std::logic_error(g.name + ": the gadget's depth is declared wrong");
    neurons[0] += allocations;
    return neurons;
}

void Scheduler::place(Gadget& g, std::vector<int>& used, std::vector<int>& heads) const {
    int first = 0;
    for (Value v : g.inputs) first = std::max(first, ready(v, g.isMemory));
    if (g.isMemory) {  // the first layer with a free head
        while (size_t(first) < heads.size() && heads[size_t(first)] + g.banks > m_geometry.linearNumValueHeads) ++first;
        if (heads.size() <= size_t(first)) heads.resize(size_t(first) + 1, 0);
        g.head = heads[size_t(first)];
        heads[size_t(first)] += g.banks;
        g.first = first;
        if (used.size() <= size_t(first)) used.resize(size_t(first) + 1, 0);
        return;
    }
    for (size_t l = 0; l < g.neurons.size(); ++l)
        if (g.neurons[l] > m_geometry.intermediateSize)
            throw std::length_error(g.name + " needs " + std::to_string(g.neurons[l]) +
                                    " MLP neurons in one layer, more than intermediate_size " +
                                    std::to_string(m_geometry.intermediateSize));
    auto fits = [&](int at) {
        for (size_t l = 0; l < g.neurons.size(); ++l) {
            size_t layer = size_t(at) + l;
            int already = layer < used.size() ? used[layer] : 0;
            if (already + g.neurons[l] > m_geometry.intermediateSize) return false;
        }
        return true;
    };
    while (!fits(first)) ++first;
    g.first = first;
    if (used.size() < size_t(first + g.depth)) used.resize(size_t(first + g.depth), 0);
    for (size_t l = 0; l < g.neurons.size(); ++l) used[size_t(first) + l] += g.neurons[l];
}

const Circuit& Scheduler::build() {
    if (m_built) return m_circuit;
    m_built = true;
    // Placement, in program order (every input is produced by an earlier gadget).
    std::vector<int> used, heads;
    for (Gadget& g : m_gadgets) {
        g.neurons = dryRun(g);
        place(g, used, heads);
        for (Value v : g.inputs)
            m_values[size_t(v)].lastReader = std::max(m_values[size_t(v)].lastReader, g.first + g.depth - 1);
    }
    // Emission by first layer, so slots released early are free for values born later.
    std::vector<size_t> order(m_gadgets.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return m_gadgets[x].first < m_gadgets[y].first; });
    auto releaseIfDone = [&](ValueInfo& v) {
        if (!v.kept && v.lastReader >= 0)
            for (int d : v.dims) m_circuit.release(d, v.lastReader);
    };
    for (ValueInfo& v : m_values)
        if (v.producer < 0) releaseIfDone(v);
    for (size_t index : order) {
        Gadget& g = m_gadgets[index];
        Dims in, out;
        for (Value v : g.inputs) in.push_back(m_values[size_t(v)].dims);
        for (Value v : g.outputs) {
            ValueInfo& info = m_values[size_t(v)];
            for (int i = 0; i < info.width; ++i) {
                std::string bit = info.width == 1 ? info.name : info.name + "." + std::to_string(i);
                info.dims.push_back(info.isRead      ? m_circuit.addReadBit(bit, g.first)
                                    : info.isInteger ? m_circuit.addInteger(bit, g.first)
                                                     : m_circuit.addFeature(bit, g.first));
            }
            out.push_back(info.dims);
        }
        while (m_circuit.layerCount() < g.first + g.depth) m_circuit.addLayer();
        g.emit(m_circuit, g.first, in, out);
        for (Value v : g.outputs) releaseIfDone(m_values[size_t(v)]);
    }
    return m_circuit;
}

int Scheduler::firstLayer(const std::string& gadgetName) const {
    for (const Gadget& g : m_gadgets)
        if (g.name == gadgetName) return g.first;
    throw std::invalid_argument("no gadget named " + gadgetName);
}

}  // namespace qgpu::circuit
