#include "FuzzTarget.h"
#include "qgpu/runtime/Safetensors.h"

void fuzzOne(const std::string& input) {
    qgpu::SafetensorsContents contents =
        qgpu::parseSafetensors(reinterpret_cast<const uint8_t*>(input.data()), input.size(), "fuzz.safetensors");
    for (const qgpu::TensorView& t : contents.tensors)
        if (t.numel() <= 4096) t.toFloat();  // every accepted tensor's bytes are readable
}
