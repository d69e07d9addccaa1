#!/usr/bin/env bash
# Creates (once) the Python environment of the conformance oracle: Hugging Face transformers and
# tokenizers, pinned, over the project's one torch (scripts/install-libtorch.sh), used on the CPU only. It
# lives outside the clone, under ${QGPU_VENV:-${XDG_CACHE_HOME:-~/.cache}/qgpu/venv}, so that later runs
# and CI reuse it; a second run only checks the pins and takes a few seconds. Prints the environment's python on its last line.
set -euo pipefail
venv=${QGPU_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/qgpu/venv}
PINS=(transformers==5.23.0 tokenizers==0.23.3 safetensors==0.8.0 jinja2==3.1.6 numpy==2.4.6 mpmath==1.3.0)
stamp="$venv/.qgpu-pins"
QGPU_VENV=$venv "$(dirname "$0")/install-libtorch.sh" >/dev/null

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "${PINS[*]}" ]]; then
  echo "install-conformance: $venv has ${PINS[*]}" >&2
  echo "$venv/bin/python"
  exit 0
fi

echo "install-conformance: installing ${PINS[*]} into $venv" >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${PINS[@]}" >&2
"$venv/bin/python" -c 'import torch, transformers, tokenizers, safetensors, jinja2, mpmath' >&2
echo "${PINS[*]}" > "$stamp"
echo "$venv/bin/python"
