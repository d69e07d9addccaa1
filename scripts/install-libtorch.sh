#!/usr/bin/env bash
# Installs (once) the project's one LibTorch: PyPI's torch wheel, pinned, in a Python environment outside
# the clone (${QGPU_VENV:-${XDG_CACHE_HOME:-~/.cache}/qgpu/venv}) that later builds, CI and the conformance
# oracle share. The wheel carries LibTorch's headers and libraries (CPU kernels for bf16 and int8 weights,
# and CUDA, loaded only when a GPU is present). About 4 GB once; a second run checks the pin in a second.
# Prints the torch package directory (what CMake's QGPU_LIBTORCH wants) on its last line.
set -euo pipefail
venv=${QGPU_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/qgpu/venv}
TORCH_PIN=torch==2.15.0
stamp="$venv/.qgpu-torch"

if [[ ! -x "$venv/bin/python" || ! -f "$stamp" || "$(cat "$stamp")" != "$TORCH_PIN" ]]; then
  echo "install-libtorch: installing $TORCH_PIN into $venv (about 4 GB with its CUDA libraries)" >&2
  mkdir -p "$(dirname "$venv")"
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "$TORCH_PIN" >&2
  echo "$TORCH_PIN" > "$stamp"
fi
"$venv/bin/python" -c 'import os, torch; print(os.path.dirname(torch.__file__))'
