// The process's memory as the kernel counts it (Linux), for the figures the tools print.
#pragma once

namespace qgpu {

double residentMemoryGiB();  // resident now, from /proc/self/statm
double peakMemoryGiB();      // the peak resident memory so far (getrusage)

}  // namespace qgpu
