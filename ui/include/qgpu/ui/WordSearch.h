// Search by meaning in the model's viewers: "lane 2 r1" finds "warp 0, lane 2, r1" and "warp 3, lane 2, r1".
#pragma once

#include <string>
#include <string_view>

namespace qgpu {

// True when every word of `search` is a whole word of `text`, a name with the number after it counting as one
// ("lane 2": so "warp 0 lane 2" does not find "warp 2, lane 0"). Words are letters, digits and '_', case
// ignored, a trailing "'s" dropped ("lane 2's r1" reads as "lane 2 r1"). An empty search matches everything.
bool containsWords(std::string_view text, std::string_view search);

}  // namespace qgpu
