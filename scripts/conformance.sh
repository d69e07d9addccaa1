#!/usr/bin/env bash
# Builds, sets up the reference implementation's Python environment (scripts/install-conformance.sh:
# about 3 GB once, seconds after) and runs the conformance tests: our runtime, the GPU's checkpoints,
# tokenizer and chat template against Hugging Face transformers and tokenizers (docs/conformance.md).
# One test at a time: each holds a model of several GB. Extra arguments go to ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
"$root/scripts/install-conformance.sh" >/dev/null
cd "$root/build"
# No test here opens a window; the offscreen platform lets ctest list the UI tests without a display.
QT_QPA_PLATFORM=offscreen exec ctest --output-on-failure -L conformance "$@"
