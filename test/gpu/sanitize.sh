#!/usr/bin/env bash
# compute-sanitizer over a representative subset of the rkc row ops and the
# quantized column kernels (test/gpu/sanitize_cases.py; RKC_SANITIZE_CASES=quant:
# the quantized ones only, =split: the grid tier's only, =evict: rows loaded
# evict-last in L2 (planner rule 8), =epilogue: f32 cluster rows
# of 100000-262144 with their chunked epilogues):
#
#   bash test/gpu/sanitize.sh OUTDIR
#
# Runs the tools in $TOOLS (default: memcheck racecheck synccheck) one after
# another, each log in OUTDIR/sanitize-TOOL.log, and prints one verdict line
# per tool. PyTorch's caching allocator is turned off so that every tensor is
# its own allocation and memcheck sees accesses past its end. The library:
# RKC_LIBRARY, else $RKC_BUNDLE/lib/librkc.so, else build/lib/librkc.so.
# compute-sanitizer: $COMPUTE_SANITIZER, else PATH, else /usr/local/cuda*/bin.
# Exits 0 when every tool reports no error and every case passed.
set -u -o pipefail

if [ $# -lt 1 ]; then
  echo "usage: bash test/gpu/sanitize.sh OUTDIR" >&2
  exit 2
fi
OUT=$1
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2

if [ -z "${RKC_LIBRARY:-}" ]; then
  if [ -n "${RKC_BUNDLE:-}" ]; then
    RKC_LIBRARY=$RKC_BUNDLE/lib/librkc.so
  else
    RKC_LIBRARY=$ROOT/build/lib/librkc.so
  fi
fi
export RKC_LIBRARY
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
export PYTHONDONTWRITEBYTECODE=1
export PYTORCH_NO_CUDA_MEMORY_CACHING=1
PY=${PYTHON:-python3}

CS=${COMPUTE_SANITIZER:-}
if [ -z "$CS" ]; then
  CS=$(command -v compute-sanitizer 2>/dev/null || true)
fi
if [ -z "$CS" ]; then
  CS=$(ls -d /usr/local/cuda*/bin/compute-sanitizer /usr/local/cuda*/compute-sanitizer/compute-sanitizer \
       /opt/nvidia/*/compute-sanitizer 2>/dev/null | head -1)
fi
if [ -z "$CS" ] || [ ! -x "$CS" ]; then
  echo "compute-sanitizer not found (set COMPUTE_SANITIZER=/path/to/compute-sanitizer)" | tee "$OUT/sanitize-summary.txt"
  exit 2
fi
echo "== $("$CS" --version 2>&1 | tail -1)  ($CS)"
echo "== RKC_LIBRARY=$RKC_LIBRARY"

status=0
: > "$OUT/sanitize-summary.txt"
for tool in ${TOOLS:-memcheck racecheck synccheck}; do
  log=$OUT/sanitize-$tool.log
  extra=()
  case $tool in
    memcheck) extra=(--leak-check no --check-device-heap yes) ;;
    racecheck) extra=(--racecheck-report all) ;;
  esac
  start=$(date +%s)
  "$CS" --tool "$tool" --target-processes all --error-exitcode 99 --print-limit 200 \
    "${extra[@]}" "$PY" test/gpu/sanitize_cases.py > "$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -1 | sed 's/^=* *//')
  cases=$(grep -E "^[0-9]+ cases, [0-9]+ failed" "$log" | tail -1)
  [ -n "$summary" ] || summary="no sanitizer summary (see $log)"
  [ -n "$cases" ] || cases="the case script did not finish"
  verdict="$tool: $summary; $cases; exit $rc; ${secs} s"
  # Which kernels the displayed reports name (rkc_* are ours).
  by_kernel=$(grep -oE "(Write|Read) Thread \([0-9,]+\) at (void )?[A-Za-z_][A-Za-z_0-9:]*" "$log" |
              awk '{print $NF}' | sort | uniq -c | awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}')
  [ -z "$by_kernel" ] || verdict="$verdict; displayed reports by kernel: $by_kernel"
  echo "$verdict" | tee -a "$OUT/sanitize-summary.txt"
  if [ "$rc" -ne 0 ]; then
    status=1
    grep -E "^FAIL|^=+ (Invalid|Race|Barrier|Error|ERROR)" "$log" | head -20
  fi
done
exit $status
