// Safetensors checkpoints: a memory-mapped reader, an atomic writer, and sharded checkpoint directories
// (model.safetensors or model.safetensors.index.json). Torch-free, so any layer can read weights.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace qgpu {

enum class DType { F32, F16, BF16 };

const char* dtypeName(DType t);  // "F32", "F16", "BF16" as safetensors spells them
size_t dtypeSize(DType t);

// A file of the checkpoint in `dir`, checked before it is opened: `name` is relative and stays inside the
// folder (no "..", no absolute path), the path resolves (symlinks followed) inside the folder, and it is a
// regular file (no FIFO or device). Returns the path; throws DiagnosticError naming the file otherwise, and
// "not found" with `missing` (what to do) when it does not exist.
std::string checkpointFile(const std::string& dir, const std::string& name, const std::string& missing);

// A tensor inside a mapped file; valid while its file is open.
struct TensorView {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    const uint8_t* data = nullptr;
    size_t bytes = 0;

    int64_t numel() const;
    std::vector<float> toFloat() const;  // bf16 and fp16 widen exactly
    // Rows [first, first + count) along the first dim, as a view of the same bytes.
    TensorView rows(int64_t first, int64_t count) const;
};

// What a safetensors file's bytes hold: its tensors (views into those bytes) and its string metadata.
struct SafetensorsContents {
    std::vector<TensorView> tensors;
    std::map<std::string, std::string> metadata;
};
// Parses a whole safetensors file held in `bytes`. Throws DiagnosticError naming `path` for anything
// malformed: a header longer than the file, bad JSON, an unknown dtype, offsets that disagree with the shape
// or the file size, tensors that overlap.
SafetensorsContents parseSafetensors(const uint8_t* bytes, size_t size, const std::string& path);

// An open .safetensors file. Throws DiagnosticError naming the file for anything malformed: a header
// longer than the file, bad JSON, an unknown dtype, offsets that disagree with the shape or the file size.
class SafetensorsFile {
public:
    explicit SafetensorsFile(const std::string& path);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const std::string& path() const { return m_path; }
    const std::vector<TensorView>& tensors() const { return m_tensors; }
    const TensorView* find(const std::string& name) const;
    const std::map<std::string, std::string>& metadata() const { return m_metadata; }
    // Drops this process's mapping of the whole pages inside [data, data + bytes) (they stay in the page
    // cache; a later read maps them again), so a tensor already copied elsewhere stops counting towards
    // the resident memory. Does nothing for a range outside this file.
    void releasePages(const uint8_t* data, size_t bytes) const;

private:
    void unmap();  // also before a constructor throws, which skips the destructor

    std::string m_path;
    void* m_map = nullptr;
    size_t m_size = 0;
    std::vector<TensorView> m_tensors;
    std::map<std::string, std::string> m_metadata;
};

// A tensor to write: raw little-endian bytes in `dtype`.
struct TensorData {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;

    // Rounds fp32 values to `dtype` (round to nearest even for bf16 and fp16).
    static TensorData fromFloat(std::string name, std::vector<int64_t> shape, const std::vector<float>& values,
                                DType dtype = DType::F32);
};

// A tensor's name, dtype and shape: what a file's header says before any data.
struct TensorSpec {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    size_t bytes() const;
};

// Little-endian bytes of fp32 values in `dtype` (round to nearest even for bf16 and fp16).
std::vector<uint8_t> encodeFloats(const float* values, size_t count, DType dtype);

// Writes a safetensors file without holding its tensors: the header (every name and shape) first, then
// the data in header order, in chunks of any size (a tensor may come row block by row block). Writes
// PATH.tmp; finish() checks that every byte came and renames it over PATH. A writer destroyed before
// finish() removes PATH.tmp, so a failure never leaves a half-written file.
class SafetensorsWriter {
public:
    SafetensorsWriter(std::string path, const std::vector<TensorSpec>& tensors,
                      const std::map<std::string, std::string>& metadata = {});
    ~SafetensorsWriter();
    SafetensorsWriter(const SafetensorsWriter&) = delete;
    SafetensorsWriter& operator=(const SafetensorsWriter&) = delete;
    void write(const uint8_t* data, size_t bytes);
    void write(const std::vector<uint8_t>& chunk) { write(chunk.data(), chunk.size()); }
    void finish();

private:
    std::string m_path, m_tmp;
    std::unique_ptr<std::ofstream> m_out;
    uint64_t m_expected = 0, m_written = 0;
};

// Writes PATH.tmp and renames it over PATH, so a failure never leaves a half-written file.
void writeSafetensors(const std::string& path, const std::vector<TensorData>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

// A checkpoint directory: one file or shards listed by model.safetensors.index.json. Tensor names are
// normalised to the text model's own (`layers.0.mlp.up_proj.weight`, `embed_tokens.weight`, `norm.weight`,
// `lm_head.weight`): the `model.language_model.` and `model.` prefixes are dropped and `mtp.*` and
// `visual.*` tensors are skipped.
class Checkpoint {
public:
    explicit Checkpoint(const std::string& dir);
    const TensorView* find(const std::string& name) const;
    // Throws DiagnosticError naming the tensor and the directory when it is missing or mis-shaped.
    const TensorView& require(const std::string& name, const std::vector<int64_t>& shape) const;
    std::vector<std::string> names() const;
    const std::string& dir() const { return m_dir; }
    void releasePages(const TensorView& tensor) const;  // SafetensorsFile::releasePages of its file

private:
    std::string m_dir;
    std::vector<std::unique_ptr<SafetensorsFile>> m_files;
    std::map<std::string, const TensorView*> m_byName;
};

std::string normaliseTensorName(const std::string& name);  // "" for tensors to skip

// A 64-bit checksum of a tensor's dtype, shape and bytes, as 16 hex digits: any change to one of them
// (a flipped bit, bf16 data relabelled F16, another shape) changes it. Fast enough to run over gigabytes.
// `read`, when given, is told of each 64 MiB the hash has gone past (to release a mapped file's pages).
using ChunkRead = std::function<void(const uint8_t* data, size_t bytes)>;
std::string tensorChecksum(const TensorView& tensor, const ChunkRead& read = {});

}  // namespace qgpu
