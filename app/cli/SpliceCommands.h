// The CLI's commands for the host splice: wiring over runtime/HostSplice.h.
#pragma once

#include <optional>
#include <string>

#include "qgpu/runtime/Safetensors.h"

namespace qgpu::cli {

// `qgpu build --host DIR --out DIR [--dtype]`: the compiled GPU's layers in front of the host's, with
// progress on stderr.
int buildHost(const std::string& host, const std::string& out, std::optional<DType> dtype);

// `qgpu check-splice --host DIR --combined DIR [--prompt TEXT]`: the combined model against the host on
// text (KL, chip-token mass), and the dot-product launch teacher-forced in the combined model. Exits 1
// when the KL exceeds 1e-5 or a record is mispredicted.
int checkSplice(const std::string& host, const std::string& combined, const std::string& prompt,
                const std::string& resourceDir);

}  // namespace qgpu::cli
