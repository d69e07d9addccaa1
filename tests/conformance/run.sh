#!/usr/bin/env bash
# Runs one conformance script in the oracle's Python environment (scripts/install-conformance.sh creates
# it on first use; later calls only check it). Usage: run.sh SCRIPT.py [ARGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=$("$here/../../scripts/install-conformance.sh" | tail -n 1)
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
# The oracle runs on the CPU only, on both cores, and never reaches a model hub.
export CUDA_VISIBLE_DEVICES="" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec "$python" "$@"
