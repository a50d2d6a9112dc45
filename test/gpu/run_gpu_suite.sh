#!/usr/bin/env bash
# The GPU test suite of the rkc Python binding (test/gpu), in one command:
#
#   bash test/gpu/run_gpu_suite.sh OUTDIR
#
# Run from anywhere (it works in the repo root). Needs python3 with torch
# (CUDA), pytest and a GPU. The library: RKC_LIBRARY if set, else
# $RKC_BUNDLE/lib/librkc.so if RKC_BUNDLE is set, else build/lib/librkc.so.
# Writes OUTDIR/gpu-junit.xml, OUTDIR/gpu-summary.json (date, device,
# commit, counts) and OUTDIR/gpu-pytest.log; exits with pytest's code.
# Extra arguments after OUTDIR go to pytest (e.g. -k softmax -x).
set -u -o pipefail

if [ $# -lt 1 ]; then
  echo "usage: bash test/gpu/run_gpu_suite.sh OUTDIR [pytest args...]" >&2
  exit 2
fi
OUT=$1
shift
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
export RKC_GPU_SUMMARY="$OUT/gpu-summary.json"
# The commit of the library under test: a bundle records its own (the GPU
# machine's copy of .git can be older than the tree it was sent with).
lib_dir=$(dirname "$(dirname "$RKC_LIBRARY")")
if [ -z "${RKC_COMMIT:-}" ] && [ -f "$lib_dir/COMMIT" ]; then
  RKC_COMMIT=$(cat "$lib_dir/COMMIT")
fi
if [ -z "${RKC_COMMIT:-}" ]; then
  RKC_COMMIT=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)
fi
export RKC_COMMIT
PY=${PYTHON:-python3}
rm -f "$RKC_GPU_SUMMARY"

echo "== rkc GPU suite: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $RKC_COMMIT"
echo "== RKC_LIBRARY=$RKC_LIBRARY"
nvidia-smi -L 2>&1 || echo "(nvidia-smi not available)"
"$PY" - <<'PYEOF'
import os, sys
print("python", sys.version.split()[0], sys.executable)
for mod in ("torch", "triton", "pytest"):
    try:
        m = __import__(mod)
        print(mod, m.__version__)
    except Exception as e:
        print(mod, "not importable:", e)
try:
    import torch
    print("torch CUDA", torch.version.cuda, "available:", torch.cuda.is_available())
    if torch.cuda.is_available():
        print("device:", torch.cuda.get_device_name(), "sm_%d%d" % torch.cuda.get_device_capability())
except Exception as e:
    print("torch CUDA check failed:", e)
try:
    import rkc
    print("librkc", rkc.version(), "at", rkc.library_path())
except Exception as e:
    print("librkc NOT LOADABLE:", e)
PYEOF

START=$(date +%s)
"$PY" -m pytest test/gpu -q -rs -p no:cacheprovider --durations=15 \
  --junitxml="$OUT/gpu-junit.xml" "$@" 2>&1 | tee "$OUT/gpu-pytest.log"
rc=${PIPESTATUS[0]}
echo "== pytest finished in $(( $(date +%s) - START )) s with exit code $rc"

if [ ! -s "$RKC_GPU_SUMMARY" ]; then
  # pytest did not reach the end of its session: summarise the junit file.
  "$PY" - "$OUT/gpu-junit.xml" "$RKC_GPU_SUMMARY" "$rc" <<'PYEOF'
import datetime, json, os, sys
import xml.etree.ElementTree as ET
junit, path, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
info = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": os.environ.get("RKC_COMMIT"), "exit_status": rc, "from": "junit"}
try:
    root = ET.parse(junit).getroot()
    s = root if root.tag == "testsuite" else root.find("testsuite")
    tests, fail, err, skip = (int(s.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
    info.update(passed=tests - fail - err - skip, failed=fail + err, skipped=skip)
except Exception as e:
    info["error"] = "no junit results: %s" % e
try:
    import torch
    info["device"] = torch.cuda.get_device_name() if torch.cuda.is_available() else None
except Exception:
    info["device"] = None
json.dump(info, open(path, "w"), indent=2)
PYEOF
fi
echo "== $RKC_GPU_SUMMARY"
cat "$RKC_GPU_SUMMARY" 2>/dev/null || echo "(no summary)"
exit "$rc"
