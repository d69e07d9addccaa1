#!/usr/bin/env bash
# Installs missing packages, then configures and builds qgpu studio into build/ (ccache-backed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
libtorch=$("$root/scripts/install-libtorch.sh")
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQGPU_LIBTORCH="$libtorch" >/dev/null
cmake --build "$root/build" -j"$(nproc)" "$@"
