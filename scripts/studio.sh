#!/usr/bin/env bash
# The main job: set up, build, then open qgpu studio on the CUDA dot-product kernel. Without a display,
# compile and run the same launch headless and print its result.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
example="$root/resources/examples/dot_product"
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  exec "$root/build/app/qgpu-studio" "$example.cu"
fi
echo "No display found: running the dot-product launch headless (qgpu run)."
exec "$root/build/app/qgpu" run "$example.cu" --launch "$example.json" --check
