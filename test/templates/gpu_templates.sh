#!/usr/bin/env bash
# Functional GPU test of the rkc device templates (needs an sm_90 GPU).
#
#   bash test/templates/gpu_templates.sh [--build-only] [BUILD_DIR]
#
# Builds, into BUILD_DIR (default: a temporary directory):
#   nvrtc_check          the NVRTC driver of compile_templates.sh
#   <kernel>.cubin       kernels/*.cu -> NVRTC (sm_90a PTX) -> ptxas -arch=sm_90a
#   gpu_check            driver-API runner comparing the kernels with host
#                        references (links only libcuda)
# then runs `gpu_check BUILD_DIR` unless --build-only is given. The build needs
# the CUDA toolkit, the run only a driver, so the two may happen on different
# machines: build with --build-only, then run BUILD_DIR/gpu_check BUILD_DIR.
#
# Environment: CUDA_HOME (default /usr/local/cuda), CXX (default g++).
set -eu -o pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
templates="$(cd "$here/../.." && pwd)/templates"
cuda="${CUDA_HOME:-/usr/local/cuda}"
cxx="${CXX:-g++}"

build_only=0
if [ "${1:-}" = "--build-only" ]; then
  build_only=1
  shift
fi
if [ $# -ge 1 ]; then
  out="$1"
  mkdir -p "$out"
else
  out="$(mktemp -d "${TMPDIR:-/tmp}/rkc-gpu-templates.XXXXXX")"
  trap 'rm -rf "$out"' EXIT
fi

"$cxx" -std=c++17 -O1 -Wall -Wextra -o "$out/nvrtc_check" "$here/nvrtc_check.cpp" \
  -I"$cuda/include" -L"$cuda/lib64" -lnvrtc -Wl,-rpath,"$cuda/lib64"
for src in "$here"/kernels/*.cu; do
  k="$(basename "$src" .cu)"
  "$out/nvrtc_check" "$src" sm_90a "$templates" "$here/kernels/common.cuh" >"$out/$k.ptx"
  "$cuda/bin/ptxas" -arch=sm_90a "$out/$k.ptx" -o "$out/$k.cubin"
done
"$cxx" -std=c++17 -O1 -Wall -Wextra -o "$out/gpu_check" "$here/gpu_check.cpp" \
  -I"$cuda/include" -L"$cuda/lib64/stubs" -lcuda
echo "gpu_templates: built into $out"

if [ "$build_only" -eq 0 ]; then
  "$out/gpu_check" "$out"
fi
