#include "qgpu/runtime/Safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/JsonDocument.h"

namespace qgpu {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

float halfToFloat(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, mant = h & 0x3FF, bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {  // subnormal: normalise
            int e = -1;
            do {
                ++e;
                mant <<= 1;
            } while (!(mant & 0x400));
            bits = sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3FF) << 13;
        }
    } else if (exp == 31) {
        bits = sign | 0x7F800000u | mant << 13;
    } else {
        bits = sign | (exp + 127 - 15) << 23 | mant << 13;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t floatToHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t exp = int32_t((x >> 23) & 0xFF) - 127 + 15;
    uint32_t mant = x & 0x7FFFFF;
    if (((x >> 23) & 0xFF) == 0xFF) return uint16_t(sign | 0x7C00 | (mant ? 0x200 : 0));
    if (exp >= 31) return uint16_t(sign | 0x7C00);
    if (exp <= 0) {
        if (exp < -10) return uint16_t(sign);
        mant |= 0x800000;
        uint32_t shift = uint32_t(14 - exp), half = mant >> shift, rest = mant & ((1u << shift) - 1),
                 mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1))) ++half;
        return uint16_t(sign | half);
    }
    uint32_t half = sign | uint32_t(exp) << 10 | mant >> 13, rest = mant & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // may carry into the exponent: correct
    return uint16_t(half);
}

uint16_t floatToBf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFF) > 0x7F800000) return uint16_t((x >> 16) | 0x40);  // NaN stays NaN
    x += 0x7FFF + ((x >> 16) & 1);
    return uint16_t(x >> 16);
}

DType parseDtype(const std::string& s, const std::string& file, const std::string& tensor) {
    if (s == "F32") return DType::F32;
    if (s == "F16") return DType::F16;
    if (s == "BF16") return DType::BF16;
    failAt(file, "tensor '" + tensor + "' has dtype " + s + "; supported are F32, F16 and BF16");
}

}  // namespace

const char* dtypeName(DType t) { return t == DType::F32 ? "F32" : t == DType::F16 ? "F16" : "BF16"; }
size_t dtypeSize(DType t) { return t == DType::F32 ? 4 : 2; }

int64_t TensorView::numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

std::vector<float> TensorView::toFloat() const {
    std::vector<float> out(static_cast<size_t>(numel()));
    for (size_t i = 0; i < out.size(); ++i) {
        if (dtype == DType::F32) {
            std::memcpy(&out[i], data + 4 * i, 4);
            continue;
        }
        uint16_t h;
        std::memcpy(&h, data + 2 * i, 2);
        if (dtype == DType::F16) {
            out[i] = halfToFloat(h);
        } else {
            uint32_t bits = uint32_t(h) << 16;
            std::memcpy(&out[i], &bits, 4);
        }
    }
    return out;
}

namespace {

// Two tensors sharing bytes mean a corrupt or hostile file: writing one would change the other.
void checkNoOverlap(const std::vector<TensorView>& tensors, const std::string& path) {
    std::vector<const TensorView*> byOffset;
    for (const auto& t : tensors) byOffset.push_back(&t);
    std::sort(byOffset.begin(), byOffset.end(), [](auto* a, auto* b) {
        return a->data != b->data ? a->data < b->data : a->bytes < b->bytes;  // empty tensors first
    });
    for (size_t i = 1; i < byOffset.size(); ++i)
        if (byOffset[i]->data < byOffset[i - 1]->data + byOffset[i - 1]->bytes)
            failAt(path, "tensors '" + byOffset[i - 1]->name + "' and '" + byOffset[i]->name +
                             "' overlap in the file's data; the file is corrupt");
}

// A header field that must be an array of whole numbers from 0 up (a shape, data offsets); a float, a negative
// number or anything else is a located error, never a conversion of what the file holds.
std::vector<uint64_t> naturals(const Json& entry, const char* field, const std::string& name, const std::string& path) {
    const Json& array = entry.at(field);
    std::vector<uint64_t> out;
    if (!array.is_array()) failAt(path, "tensor '" + name + "': \"" + field + "\" is not an array");
    for (const Json& v : array) {
        if (!v.is_number_unsigned())
            failAt(path, "tensor '" + name + "': \"" + field + "\" holds something other than a whole number from 0");
        out.push_back(v.get<uint64_t>());
    }
    return out;
}

TensorView parseTensorEntry(const std::string& name, const Json& entry, const uint8_t* data, size_t dataSize,
                            const std::string& path) {
    TensorView v;
    v.name = name;
    v.dtype = parseDtype(entry.at("dtype").get<std::string>(), path, v.name);
    for (uint64_t d : naturals(entry, "shape", name, path)) {
        if (d > uint64_t(INT64_MAX)) failAt(path, "tensor '" + v.name + "' has an impossible shape");
        v.shape.push_back(int64_t(d));
    }
    std::vector<uint64_t> offsets = naturals(entry, "data_offsets", name, path);
    if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > dataSize)
        failAt(path, "tensor '" + v.name + "' lies outside the file's data (" + std::to_string(dataSize) +
                         " bytes); the file is truncated");
    v.data = data + offsets[0];
    v.bytes = size_t(offsets[1] - offsets[0]);
    uint64_t elements = 1;
    for (int64_t d : v.shape)
        if (d < 0 || __builtin_mul_overflow(elements, uint64_t(d), &elements))
            failAt(path, "tensor '" + v.name + "' has an impossible shape");
    if (__builtin_mul_overflow(elements, uint64_t(dtypeSize(v.dtype)), &elements) || v.bytes != elements)
        failAt(path,
               "tensor '" + v.name + "' has " + std::to_string(v.bytes) + " bytes, which disagrees with its shape");
    return v;
}

}  // namespace

SafetensorsContents parseSafetensors(const uint8_t* bytes, size_t size, const std::string& path) {
    if (size < 8) failAt(path, "the file is " + std::to_string(size) + " bytes, too short for a safetensors header");
    uint64_t headerLen;
    std::memcpy(&headerLen, bytes, 8);
    // The length is the file's own bytes: a message never shows them (the file may be anything).
    if (headerLen > size - 8)
        failAt(path, "the header's length is more than the file's " + std::to_string(size) +
                         " bytes; the file is truncated or not safetensors");
    constexpr uint64_t kMaxHeaderBytes = 100'000'000;  // the safetensors format's own limit
    if (headerLen > kMaxHeaderBytes)
        failAt(path, "the header's length is more than safetensors' limit of " + std::to_string(kMaxHeaderBytes) +
                         " bytes; the file is not safetensors");
    Json header = parseJsonDocument(std::string_view(reinterpret_cast<const char*>(bytes) + 8, headerLen),
                                    path + " (safetensors header)");
    if (!header.is_object()) failAt(path, "the safetensors header is not a JSON object");
    const uint8_t* data = bytes + 8 + headerLen;
    size_t dataSize = size - 8 - headerLen;
    SafetensorsContents out;
    try {
        for (auto it = header.begin(); it != header.end(); ++it) {
            if (it.key() != "__metadata__") {
                out.tensors.push_back(parseTensorEntry(it.key(), it.value(), data, dataSize, path));
                continue;
            }
            if (!it.value().is_object()) failAt(path, "the header's __metadata__ is not a JSON object");
            for (auto m = it.value().begin(); m != it.value().end(); ++m)
                if (m.value().is_string()) out.metadata[m.key()] = m.value().get<std::string>();
        }
    } catch (const Json::exception& e) {
        failAt(path, std::string("malformed tensor entry in the header: ") + e.what());
    }
    checkNoOverlap(out.tensors, path);
    return out;
}

SafetensorsFile::SafetensorsFile(const std::string& path) : m_path(path) {
    // Non-blocking: a FIFO in a file's place must not wait for a writer; it is refused below.
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) failAt(path, "cannot open the checkpoint file; check the path");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        failAt(path, "is not a regular file; a checkpoint's weights are plain files");
    }
    m_size = size_t(st.st_size);
    if (m_size < 8) {
        ::close(fd);
        failAt(path, "the file is " + std::to_string(m_size) + " bytes, too short for a safetensors header");
    }
    m_map = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (m_map == MAP_FAILED) {
        m_map = nullptr;
        failAt(path, "cannot map the file into memory");
    }
    try {
        SafetensorsContents contents = parseSafetensors(static_cast<const uint8_t*>(m_map), m_size, path);
        m_tensors = std::move(contents.tensors);
        m_metadata = std::move(contents.metadata);
    } catch (...) {
        unmap();
        throw;
    }
}

SafetensorsFile::~SafetensorsFile() { unmap(); }

void SafetensorsFile::unmap() {
    if (m_map) ::munmap(m_map, m_size);
    m_map = nullptr;
}

const TensorView* SafetensorsFile::find(const std::string& name) const {
    for (const auto& t : m_tensors)
        if (t.name == name) return &t;
    return nullptr;
}

void SafetensorsFile::releasePages(const uint8_t* data, size_t bytes) const {
    const auto* begin = static_cast<const uint8_t*>(m_map);
    if (!m_map || data < begin || data + bytes > begin + m_size) return;
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    size_t first = (size_t(data - begin) + page - 1) / page * page, last = size_t(data + bytes - begin) / page * page;
    if (last > first) ::madvise(const_cast<uint8_t*>(begin + first), last - first, MADV_DONTNEED);
}

TensorView TensorView::rows(int64_t first, int64_t count) const {
    if (shape.empty() || first < 0 || count < 0 || first + count > shape[0])
        throw std::out_of_range("rows " + std::to_string(first) + " + " + std::to_string(count) + " of " + name);
    size_t rowBytes = bytes / size_t(shape[0]);
    std::vector<int64_t> part = shape;
    part[0] = count;
    return TensorView{name, dtype, part, data + size_t(first) * rowBytes, size_t(count) * rowBytes};
}

std::vector<uint8_t> encodeFloats(const float* values, size_t count, DType dtype) {
    std::vector<uint8_t> bytes(count * dtypeSize(dtype));
    if (dtype == DType::F32) {
        std::memcpy(bytes.data(), values, bytes.size());
        return bytes;
    }
    for (size_t i = 0; i < count; ++i) {
        uint16_t h = dtype == DType::F16 ? floatToHalf(values[i]) : floatToBf16(values[i]);
        std::memcpy(&bytes[2 * i], &h, 2);
    }
    return bytes;
}

TensorData TensorData::fromFloat(std::string name, std::vector<int64_t> shape, const std::vector<float>& values,
                                 DType dtype) {
    return TensorData{std::move(name), dtype, std::move(shape), encodeFloats(values.data(), values.size(), dtype)};
}

size_t TensorSpec::bytes() const {
    size_t n = dtypeSize(dtype);
    for (int64_t d : shape) n *= size_t(d);
    return n;
}

SafetensorsWriter::SafetensorsWriter(std::string path, const std::vector<TensorSpec>& tensors,
                                     const std::map<std::string, std::string>& metadata)
    : m_path(std::move(path)), m_tmp(m_path + ".tmp") {
    Json header = Json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    for (const auto& t : tensors) {
        if (header.contains(t.name)) failAt(m_path, "two tensors are named " + t.name);
        header[t.name] = {
            {"dtype", dtypeName(t.dtype)}, {"shape", t.shape}, {"data_offsets", {m_expected, m_expected + t.bytes()}}};
        m_expected += t.bytes();
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data 8-byte aligned
    m_out = std::make_unique<std::ofstream>(m_tmp, std::ios::binary | std::ios::trunc);
    if (!*m_out) failAt(m_path, "cannot write here; check the directory exists and is writable");
    uint64_t len = text.size();
    m_out->write(reinterpret_cast<const char*>(&len), 8);
    m_out->write(text.data(), std::streamsize(text.size()));
}

SafetensorsWriter::~SafetensorsWriter() {
    if (!m_out) return;  // finished
    m_out.reset();
    std::remove(m_tmp.c_str());
}

void SafetensorsWriter::write(const uint8_t* data, size_t bytes) {
    if (!m_out) throw std::logic_error("SafetensorsWriter::write after finish");
    if (m_written + bytes > m_expected)
        throw std::logic_error("more tensor data than the header of " + m_path + " says");
    m_out->write(reinterpret_cast<const char*>(data), std::streamsize(bytes));
    m_written += bytes;
    if (!*m_out) failAt(m_path, "writing failed (disk full?)");
}

void SafetensorsWriter::finish() {
    if (m_written != m_expected)
        throw std::logic_error(m_path + ": " + std::to_string(m_written) + " of " + std::to_string(m_expected) +
                               " tensor bytes written");
    if (!m_out->flush()) failAt(m_path, "writing failed (disk full?)");
    m_out.reset();
    fs::rename(m_tmp, m_path);
}

void writeSafetensors(const std::string& path, const std::vector<TensorData>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    std::vector<TensorSpec> specs;
    for (const auto& t : tensors) {
        if (t.bytes.size() != TensorSpec{t.name, t.dtype, t.shape}.bytes())
            throw std::logic_error("tensor " + t.name + " holds a different byte count than its shape");
        specs.push_back({t.name, t.dtype, t.shape});
    }
    SafetensorsWriter out(path, specs, metadata);
    for (const auto& t : tensors) out.write(t.bytes);
    out.finish();
}

namespace {

// Four independent multiply-xorshift lanes over 32-byte blocks (each step is a bijection of the lane, so
// any change to one word changes that lane), folded together with the length and the tail bytes.
uint64_t hashBytes(const uint8_t* p, size_t n, uint64_t h, const ChunkRead& read = {}) {
    constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
    constexpr size_t kChunk = size_t(64) << 20;  // a multiple of 32
    uint64_t lanes[4] = {h ^ 0x243F6A8885A308D3ull, h ^ 0x13198A2E03707344ull, h ^ 0xA4093822299F31D0ull,
                         h ^ 0x082EFA98EC4E6C89ull};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        if (read && i > 0 && i % kChunk == 0) read(p + i - kChunk, kChunk);
        for (int l = 0; l < 4; ++l) {
            uint64_t w;
            std::memcpy(&w, p + i + 8 * size_t(l), 8);
            lanes[l] = (lanes[l] ^ w) * kMul;
            lanes[l] ^= lanes[l] >> 32;
        }
    }
    h = (h ^ n) * kMul;
    for (uint64_t lane : lanes) h = ((h ^ lane) * kMul) ^ (h >> 29);
    for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
    h ^= h >> 33;
    h *= kMul;
    return h ^ (h >> 29);
}

}  // namespace

std::string tensorChecksum(const TensorView& tensor, const ChunkRead& read) {
    std::string header = dtypeName(tensor.dtype);
    for (int64_t d : tensor.shape) header += "," + std::to_string(d);
    uint64_t h = hashBytes(reinterpret_cast<const uint8_t*>(header.data()), header.size(), 0);
    h = hashBytes(tensor.data, tensor.bytes, h, read);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

std::string normaliseTensorName(const std::string& name) {
    for (const char* skip : {"mtp.", "model.visual.", "visual.", "model.mtp."})
        if (name.rfind(skip, 0) == 0) return "";
    for (const char* prefix : {"model.language_model.", "model."})
        if (name.rfind(prefix, 0) == 0) return name.substr(std::strlen(prefix));
    return name;
}

std::string checkpointFile(const std::string& dir, const std::string& name, const std::string& missing) {
    fs::path relative(name), path = fs::path(dir) / relative;
    bool climbs = std::any_of(relative.begin(), relative.end(), [](const fs::path& part) { return part == ".."; });
    if (name.empty() || relative.is_absolute() || climbs)
        failAt(dir, "names the file '" + name + "', outside its folder; a checkpoint's files stay in its folder");
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec))) failAt(path.string(), "not found; " + missing);
    fs::path inside = fs::canonical(dir, ec), resolved = fs::weakly_canonical(path, ec);
    auto [end, at] = std::mismatch(inside.begin(), inside.end(), resolved.begin(), resolved.end());
    if (ec || end != inside.end())
        failAt(path.string(),
               "leads outside the checkpoint's folder (a symbolic link); copy the file into the folder (from a "
               "Hugging Face cache: download with --local-dir, which writes plain files)");
    if (!fs::is_regular_file(fs::status(path, ec)))
        failAt(path.string(), "is not a regular file (a FIFO, device or folder); a checkpoint's files are plain files");
    return path.string();
}

Checkpoint::Checkpoint(const std::string& dir) : m_dir(dir) {
    fs::path d(dir), single = d / "model.safetensors", index = d / "model.safetensors.index.json";
    std::vector<std::string> files;
    if (fs::exists(fs::symlink_status(index))) {
        std::string indexFile = checkpointFile(dir, index.filename().string(), "");
        Json j = parseJsonDocument(readFile(indexFile), indexFile);
        try {
            std::set<std::string> shards;
            for (auto it = j.at("weight_map").begin(); it != j.at("weight_map").end(); ++it)
                shards.insert(it.value().get<std::string>());
            for (const auto& s : shards)
                files.push_back(checkpointFile(dir, s, "a shard listed in model.safetensors.index.json is missing"));
        } catch (const Json::exception& e) {
            failAt(index.string(), std::string("malformed index: ") + e.what());
        }
    } else if (fs::exists(fs::symlink_status(single))) {
        files.push_back(checkpointFile(dir, single.filename().string(), ""));
    } else {
        failAt(dir,
               "no model.safetensors or model.safetensors.index.json here; point at a Qwen3.5 checkpoint directory");
    }
    for (const auto& f : files) {
        m_files.push_back(std::make_unique<SafetensorsFile>(f));
        for (const auto& t : m_files.back()->tensors()) {
            std::string n = normaliseTensorName(t.name);
            if (!n.empty()) m_byName[n] = &t;
        }
    }
}

const TensorView* Checkpoint::find(const std::string& name) const {
    auto it = m_byName.find(name);
    return it == m_byName.end() ? nullptr : it->second;
}

const TensorView& Checkpoint::require(const std::string& name, const std::vector<int64_t>& shape) const {
    const TensorView* t = find(name);
    if (!t) failAt(m_dir, "the checkpoint has no tensor '" + name + "'; is it a Qwen3.5 text model of this geometry?");
    if (t->shape != shape) {
        auto str = [](const std::vector<int64_t>& s) {
            std::string o = "[";
            for (size_t i = 0; i < s.size(); ++i) o += (i ? ", " : "") + std::to_string(s[i]);
            return o + "]";
        };
        failAt(m_dir, "tensor '" + name + "' has shape " + str(t->shape) + " but the config implies " + str(shape));
    }
    return *t;
}

std::vector<std::string> Checkpoint::names() const {
    std::vector<std::string> out;
    for (const auto& [n, t] : m_byName) out.push_back(n);
    return out;
}

void Checkpoint::releasePages(const TensorView& tensor) const {
    for (const auto& f : m_files) f->releasePages(tensor.data, tensor.bytes);
}

}  // namespace qgpu
