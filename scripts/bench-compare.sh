#!/usr/bin/env bash
# Speed against an earlier commit, side by side: builds OLD_REV's qgpu (its own install-deps first, into
# build-compare/REV, kept for later runs) and this checkout's, then runs `qgpu bench --suite` with each,
# alternating, ROUNDS times, and prints per-kernel medians, the suite medians and their ratio over the
# kernels both suites have (scripts/bench_compare.py).
#   scripts/bench-compare.sh OLD_REV [--rounds N] [--kernels a,b,c]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: scripts/bench-compare.sh OLD_REV [--rounds N] [--kernels a,b,c]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
rev=$(git -C "$root" rev-parse --short "$1^{commit}" 2>/dev/null) || { echo "bench-compare: no commit '$1'" >&2; exit 2; }
shift
rounds=3
kernels=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage; rounds=$2; shift 2 ;;
    --kernels) [[ -n "${2:-}" ]] || usage; kernels=(--kernels "$2"); shift 2 ;;
    *) usage ;;
  esac
done

old=$root/build-compare/$rev
if [[ ! -x "$old/build/app/qgpu" ]]; then
  echo "bench-compare: building $rev's qgpu in $old (once)" >&2
  rm -rf "$old/src" && mkdir -p "$old/src"
  git -C "$root" archive "$rev" | tar -x -C "$old/src"
  "$old/src/scripts/install-deps.sh"
  libtorch=$("$root/scripts/install-libtorch.sh")  # older commits use Debian's LibTorch and ignore it
  cmake -S "$old/src" -B "$old/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQGPU_LIBTORCH="$libtorch" \
    -Wno-dev >/dev/null
  cmake --build "$old/build" -j"$(nproc)" --target qgpu
fi
"$root/scripts/build.sh" --target qgpu

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((r = 1; r <= rounds; ++r)); do
  echo "bench-compare: round $r of $rounds" >&2
  (cd "$old/src" && "$old/build/app/qgpu" bench --suite "${kernels[@]}" --runs 1 >"$out/old.$r")
  (cd "$root" && "$root/build/app/qgpu" bench --suite "${kernels[@]}" --runs 1 >"$out/new.$r")
done
python3 "$root/scripts/bench_compare.py" --old-name "$rev" \
  --new-name "$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo +changes)" \
  --old "$out"/old.* --new "$out"/new.*
