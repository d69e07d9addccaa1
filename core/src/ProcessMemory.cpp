#include "qgpu/core/ProcessMemory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

namespace qgpu {

double residentMemoryGiB() {
    long pages = 0, resident = 0;
    std::ifstream("/proc/self/statm") >> pages >> resident;
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0 * 1024.0);
}

double peakMemoryGiB() {
    struct rusage r {};
    getrusage(RUSAGE_SELF, &r);
    return double(r.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB on Linux
}

}  // namespace qgpu
