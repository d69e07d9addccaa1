// Scheduling gadgets into layers: a dataflow program of 32-bit words and bits is placed layer by layer
// (each gadget as early as its inputs exist and its neurons fit the layer's intermediate size), then
// emitted into a Circuit with residual slots reused: a value's slot is released after its last reader
// and handed to a value born later (docs/circuit.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "qgpu/compiler/circuit/Circuit.h"

namespace qgpu::circuit {

class Scheduler {
public:
    using Value = int;  // a handle: a 32-bit word or a single bit
    using Dims = std::vector<std::vector<int>>;
    // Emits a gadget whose first layer is `first`, reading `in` and writing `out` (feature dims). The
    // circuit already has the gadget's layers.
    using Emit = std::function<void(Circuit&, int first, const Dims& in, const Dims& out)>;

    explicit Scheduler(Geometry geometry);

    // A word (or bit) that the token embedding sets.
    Value input(const std::string& name, int bits = 32);
    Value add(Value a, Value b, const std::string& name);
    Value subtract(Value a, Value b, const std::string& name);
    Value multiply(Value a, Value b, const std::string& name);
    Value shift(Circuit::Shift kind, Value a, Value amount, const std::string& name);
    Value greaterOrEqual(Value a, Value b, bool isSigned, const std::string& name);  // a bit
    Value equal(Value a, Value b, const std::string& name);                          // a bit
    Value select(Value condition, Value x, Value y, const std::string& name);
    Value minMax(Value a, Value b, bool isMax, bool isSigned, const std::string& name);
    // Any gadget: `depth` layers, outputs of the given widths (bits).
    std::vector<Value> gadget(const std::string& name, int depth, const std::vector<Value>& inputs,
                              const std::vector<int>& outputWidths, Emit emit);
    // A gadget whose outputs are `count` integers (Encoding::Integer, one dim each, 0 on a fresh token).
    std::vector<Value> integerGadget(const std::string& name, int depth, const std::vector<Value>& inputs, int count,
                                     Emit emit);
    // A memory on one Gated DeltaNet head of some layer: a token whose bit r of `writeRows` (a one-hot
    // value, or -1 for none) is true overwrites row r with `data` (at most 32 bits); a token whose bit r
    // of `readRows` is true reads row r (after its own write). Returns the read bits, as wide as `data`. Every token
    // that writes or reads this memory meets it in the same layer, so its contents persist between tokens.
    // `writeSelect` / `readSelect` (1-bit values, or -1) gate every key / query (MemoryPort).
    // Rows may come as two one-hot factors: row = high * width(low) + low, keyed by their AND (MemoryPort).
    struct Rows {
        Value high = -1, low = -1;
        Rows(Value rows = -1) : high(rows) {}  // NOLINT: a plain one-hot value is the common case
        Rows(Value h, Value l) : high(h), low(l) {}
    };
    Value memory(const std::string& name, Rows writeRows, Value data, Rows readRows, Value writeSelect = -1,
                 Value readSelect = -1);
    // `banks` memories on as many heads of one layer, sharing the row one-hots: bank b is the one whose
    // bit of `writeBank` / `readBank` (one-hot values of width `banks`) is true. Only one bank answers a
    // query, so they share their read bits. Its ports are named name0, name1, ...
    Value bankedMemory(const std::string& name, int banks, Rows writeRows, Value data, Rows readRows, Value writeBank,
                       Value readBank);
    // The value `data` had one token earlier, at the layer that reads it: a one-row memory that every token
    // (`every` is a bit true on all of them) overwrites with the previous token's `data`, through the conv's
    // previous tap (MemoryPort::dataTap), and reads at once.
    Value previous(const std::string& name, Value data, Value every);
    // A result read after the layers: its slot is never reused.
    void keep(Value v);

    // Places every gadget and emits the circuit. Throws std::length_error when a gadget cannot fit a
    // layer at all or the residual runs out of room.
    const Circuit& build();
    const Circuit& circuit() const { return m_circuit; }
    Circuit& circuit() { return m_circuit; }  // after build: memory ports are placed by hand for now
    const std::vector<int>& dims(Value v) const { return m_values.at(size_t(v)).dims; }
    int firstLayer(const std::string& gadgetName) const;

private:
    struct ValueInfo {
        std::string name;
        int width = 32;
        int producer = -1;  // gadget index; -1: an input
        int lastReader = -1;
        bool kept = false;
        bool isRead = false;  // written by a memory read: read bits (base 64)
        std::vector<int> dims;
        bool isInteger = false;  // an integer feature (integerGadget)
    };
    struct Gadget {
        std::string name;
        int depth = 1;
        std::vector<Value> inputs, outputs;
        Emit emit;
        std::vector<int> neurons;  // per layer of the gadget (a dry run), clears of reused slots included
        int first = -1;
        bool isMemory = false;  // a memory port: placed in a layer's mixer, on a head of its own
        int head = -1;          // the first of its heads
        int banks = 1;          // heads a memory occupies
        int dataTap = 0;        // a memory's MemoryPort::dataTap
    };
    void place(Gadget& g, std::vector<int>& used, std::vector<int>& heads) const;
    std::vector<int> dryRun(const Gadget& g) const;
    // The first layer whose MLP (or, for a memory, whose mixer) may read v.
    int ready(Value v, bool forMixer) const;

    Geometry m_geometry;
    Circuit m_circuit;
    std::vector<ValueInfo> m_values;
    std::vector<Gadget> m_gadgets;
    bool m_built = false;
    Value m_false = -1;  // a bit no token sets: pads rows narrower than 32 bits
};

}  // namespace qgpu::circuit
