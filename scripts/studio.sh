#!/usr/bin/env bash
# The main job: set up, build, then open qgpu studio on the CUDA dot-product kernel, running inside the GPU
# model (built from code in about 0.3 s). Without a display, run the same launch in the model headless: the
# tokens it wrote, tokens/s, the result, and the check against the interpreter.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
example="$root/resources/examples/dot_product"
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  exec "$root/build/app/qgpu-studio" "$example.cu" --backend model
fi
echo "No display found: running the dot-product launch inside the GPU model headless (qgpu run)."
exec "$root/build/app/qgpu" run "$example.cu" --launch "$example.json" --backend model --check
