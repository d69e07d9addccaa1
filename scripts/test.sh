#!/usr/bin/env bash
# Set up, build, and run the test suite (everything but the `slow` and `conformance` labels; the
# conformance tests run with scripts/conformance.sh). GUI tests that need OpenGL
# run under xvfb-run when no display is present; -noreset keeps Xvfb from resetting (and refusing
# connections for a moment) each time the last test client disconnects, which failed a UI test at random.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
cd "$root/build"
if [[ -z "${DISPLAY:-}" ]] && command -v xvfb-run >/dev/null; then
  exec xvfb-run -a -s "-screen 0 1600x1000x24 -noreset" ctest --output-on-failure -LE "slow|conformance" -j"$(nproc)" "$@"
fi
exec ctest --output-on-failure -LE "slow|conformance" -j"$(nproc)" "$@"
