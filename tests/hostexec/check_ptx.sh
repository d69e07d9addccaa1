#!/usr/bin/env bash
# Compiles every kernel of the suite for the device as the studio does (Clang, sm_75, qgpu_cuda.h, -O2)
# and checks that its PTX stays inside the machine: no float but f32 (and no approximate forms), no mad.hi or 24-bit multiplies, no
# calls through function pointers (the lowering inlines calls by name), no generic-space accesses but atom.inc/atom.dec and local memory's (Clang's builtins for atomicInc
# and atomicDec stay generic, address-space inference not seeing through them, and a local array's pointer
# is generic; the lowering finds the space from the pointer's origin; in a kernel without shared memory
# every access may be generic, the lowering taking it as global) (narrow and 64-bit accesses are bytes and halfwords or int2-like struct copies,
# which the lowering handles), no jump tables, no global data holding an address (global and constant
# tables are placed by the linker), static shared memory within 64 words, no exit/trap (what Clang makes of unreachable code), exactly one entry named like the file. Prints a size table (PTX instructions
# without ld.param/cvta/ret, basic blocks) and the opcodes used across the suite.
#   check_ptx.sh [--clang CLANG] [--keep DIR] KERNEL_DIR [NAME...]
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
clang=/usr/bin/clang-19
keep=""
while [[ $# -gt 0 && "$1" == --* ]]; do
  case "$1" in
    --clang) clang="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dir="${1:?usage: check_ptx.sh [--clang CLANG] [--keep DIR] KERNEL_DIR [NAME...]}"
shift
header="$root/resources/include/qgpu_cuda.h"
names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  for f in "$dir"/*.cu; do names+=("$(basename "$f" .cu)"); done
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
[[ -n "$keep" ]] && mkdir -p "$keep"

fail=0
printf '%-24s %6s %6s  %s\n' kernel instrs blocks notes
for name in "${names[@]}"; do
  ptx="$tmp/$name.ptx"
  if ! "$clang" -x cuda --cuda-device-only --cuda-gpu-arch=sm_75 -nocudainc -nocudalib --cuda-path=/nonexistent \
      --cuda-feature=+ptx70 -Xclang -fcuda-allow-variadic-functions -O2 -ffp-contract=fast -isystem "$root/resources/include" -include "$header" \
      -S "$dir/$name.cu" -o "$ptx" 2>"$tmp/err"; then
    echo "FAIL $name: does not compile"; sed 's/^/    /' "$tmp/err"; fail=1; continue
  fi
  [[ -s "$tmp/err" ]] && { echo "WARN $name: compiler warnings"; sed 's/^/    /' "$tmp/err"; }
  [[ -n "$keep" ]] && cp "$ptx" "$keep/"
  problems=()
  entries=$(grep -cE '^\.(visible )?\.?entry ' "$ptx")
  entry=$(grep -oE '\.entry [A-Za-z0-9_]+' "$ptx" | head -1 | cut -d' ' -f2)
  [[ "$entries" == 1 ]] || problems+=("$entries entries")
  [[ "$entry" == "$name" || "$entry" == "_Z${#name}${name}"* ]] || problems+=("entry $entry is not $name")
  # Instruction lines: a tab, an optional predicate guard, an opcode.
  body=$(grep -E $'^\t(@!?%p[0-9]+ )?[a-z]' "$ptx")
  grep -qE '\.(f16|f64|bf16)\b' "$ptx" && problems+=("floating point other than f32")
  grep -qE $'^\t(@!?%p[0-9]+ )?(ex2|lg2|[a-z]+\\.approx)\\.[a-z.]*f32' "$ptx" && problems+=("an approximate f32 form")
  grep -qE 'mad\.hi|mul24|mad24' <<<"$body" && problems+=("mad.hi/mul24")
  grep -qE 'prototype_[0-9]+' "$ptx" && problems+=("call through a function pointer")
  grep -qE '^\s*(@!?%p[0-9]+ )?(exit|trap);' "$ptx" && problems+=("exit or trap (unreachable code)")
  # Memory instructions, guard stripped: opcode first.
  mem=$(sed -E $'s/^\t(@!?%p[0-9]+ )?//' <<<"$body" | grep -E '^(ld|st|atom|red)\.' | grep -vE '^(ld|st)\.param\.' || true)
  # A kernel without shared memory may access memory generically (a pointer passed to a recursive device
  # function): the lowering takes such an access as global, which is then exact.
  if [[ -n "$mem" ]] && ! grep -q '\.local' "$ptx" && grep -q '\.shared' "$ptx"; then
    grep -vE '^atom\.(inc|dec)\.' <<<"$mem" | grep -qvE '^[a-z]+\.(global|shared|const)\.' && problems+=("generic-space access")
  fi
  grep -qE $'^\t(@!?%p[0-9]+ )?brx' <<<"$body" && problems+=("jump table")
  grep -qE '^\.(visible |extern )?\.?(global|const) .*(generic|\+)' "$ptx" && problems+=("global data holding an address")
  shared=$(grep -oE '\.shared \.align [0-9]+ \.b8 [A-Za-z0-9_$]+\[[0-9]+\]' "$ptx" | grep -oE '\[[0-9]+\]' | tr -d '[]' \
    | awk '{s+=$1} END {print s+0}')
  (( shared > 256 )) && problems+=("shared $shared bytes > 256")
  instrs=$(grep -vcE $'^\t(ld\.param|cvta|ret)' <<<"$body")
  blocks=$(( $(grep -cE '^\$L__BB' "$ptx") + 1 ))
  notes="shared=${shared}B"
  if [[ ${#problems[@]} -gt 0 ]]; then
    fail=1
    printf '%-24s %6s %6s  FAIL: %s\n' "$name" "$instrs" "$blocks" "$(IFS=,; echo "${problems[*]}")"
  else
    printf '%-24s %6s %6s  ok %s\n' "$name" "$instrs" "$blocks" "$notes"
  fi
  sed -E $'s/^\t(@!?%p[0-9]+ )?([a-z0-9_.]+).*/\\2/' <<<"$body" >>"$tmp/opcodes"
done
echo "opcodes used:"
sort "$tmp/opcodes" | uniq -c | sort -rn | awk '{printf "  %s %s\n", $2, $1}' | column -c 120
exit $fail
