#!/usr/bin/env bash
# Builds llama.cpp's llama-bench, a benchmark tool only (never part of the product), from the source
# distribution of PyPI's llama-cpp-python, which vendors llama.cpp and its convert_hf_to_gguf.py. Cached
# under ${XDG_CACHE_HOME:-~/.cache}/qgpu/llama: a second run takes a second. About 10 minutes on 2 cores the
# first time. Prints the llama.cpp source directory (llama-bench is in its build/bin) on its last line.
set -euo pipefail
PIN=0.3.36
cache=${XDG_CACHE_HOME:-$HOME/.cache}/qgpu/llama
src=$cache/llama_cpp_python-$PIN/vendor/llama.cpp
python=$("$(dirname "$0")/install-conformance.sh")  # torch, transformers and numpy for the converter

if [[ ! -x "$src/build/bin/llama-bench" ]]; then
  mkdir -p "$cache"
  if [[ ! -f "$cache/llama_cpp_python-$PIN.tar.gz" ]]; then
    "$python" -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
      "llama-cpp-python==$PIN" -d "$cache" >&2
  fi
  [[ -d "$src" ]] || tar xzf "$cache/llama_cpp_python-$PIN.tar.gz" -C "$cache"
  cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF >&2
  cmake --build "$src/build" -j"$(nproc)" --target llama-bench >&2
fi
"$python" -m pip install -q --disable-pip-version-check pyyaml==6.0.3 sentencepiece==0.2.1 >&2
echo "$src"
