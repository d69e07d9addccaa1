#!/usr/bin/env bash
# `qgpu bench-host` side by side with llama.cpp on the same weights, in one run: builds qgpu and llama.cpp's
# llama-bench (scripts/build-llama-cpp.sh, cached), writes the random-weight Qwen3.5-2B and its combined
# checkpoint once, converts the host to GGUF (bf16 and Q8_0) with llama.cpp's converter once, then prints
# one table. About 16 GB of disk under ${XDG_CACHE_HOME:-~/.cache}/qgpu/bench-host. Extra arguments go to
# qgpu bench-host (e.g. --runs 1, --weights bf16).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" --target qgpu >/dev/null
llama=$("$root/scripts/build-llama-cpp.sh")
python=$("$root/scripts/install-conformance.sh")
dir=${XDG_CACHE_HOME:-$HOME/.cache}/qgpu/bench-host
"$root/build/app/qgpu" bench-host --dir "$dir" --prepare
for type in bf16 q8_0; do
  gguf="$dir/qwen3.5-2b-random-$type.gguf"
  if [[ ! -f "$gguf" ]]; then
    echo "converting the host to $gguf with llama.cpp's converter..." >&2
    "$python" "$root/scripts/llama-convert.py" "$llama" "$dir/qwen3.5-2b-random" "$gguf.partial" "$type" >/dev/null 2>&1
    mv "$gguf.partial" "$gguf"
  fi
done
exec "$root/build/app/qgpu" bench-host --dir "$dir" --llama "$llama" "$@"
