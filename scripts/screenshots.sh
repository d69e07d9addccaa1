#!/usr/bin/env bash
# Renders the studio mid-launch under Xvfb into docs/screenshots/studio.png (needs a built tree).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/docs/screenshots"
mkdir -p "$out"
example=${1:-$root/resources/kernels/tree_reduce.cu}
steps=${2:-12}
xvfb-run -a -s "-screen 0 1600x1000x24" bash -c "
  export QT_QPA_PLATFORM=xcb
  '$root/build/app/qgpu-studio' '$example' --steps $steps &
  pid=\$!
  sleep 4
  import -window root '$out/studio.png'
  kill \$pid
"
echo "wrote $out/studio.png"
