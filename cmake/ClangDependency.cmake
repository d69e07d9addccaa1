# Clang/LLVM 19 (Debian 12 packages). Clang's config refuses a version request, so locate it by path without one.
find_package(LLVM REQUIRED CONFIG PATHS /usr/lib/llvm-19/lib/cmake/llvm NO_DEFAULT_PATH)
find_package(Clang REQUIRED CONFIG PATHS /usr/lib/llvm-19/lib/cmake/clang NO_DEFAULT_PATH)
