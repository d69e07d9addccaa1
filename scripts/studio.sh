#!/usr/bin/env bash
# The main job: set up, build, then open qgpu studio on the dot-product example. Without a display,
# run the same launch headless and print its result.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
example="$root/resources/examples/dot_product"
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  exec "$root/build/app/qgpu-studio" "$example.qasm"
fi
echo "No display found: running the dot-product launch headless (qgpu asm)."
exec "$root/build/app/qgpu" asm "$example.qasm" --launch "$example.json" --check
