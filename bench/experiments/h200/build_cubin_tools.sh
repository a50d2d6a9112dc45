#!/usr/bin/env bash
# Builds the edited-kernel experiment tools into OUTDIR: nvrtc_cubin (a CUDA
# file to a CUBIN with librkc's NVRTC options) and row_cubin_bench (times
# row kernels from CUBINs). Used by the gen.sh of epilogue-groups/ and
# fold-as-staged/.
# Usage: build_cubin_tools.sh OUTDIR   (repo root; CUDA toolkit)
set -eu
out=$1
cuda=/usr/local/cuda
mkdir -p "$out"
g++ -O2 -std=c++17 -I$cuda/include bench/experiments/nvrtc_cubin.cpp -L$cuda/lib64 -lnvrtc \
  -o "$out/nvrtc_cubin"
g++ -O2 -std=c++17 -I$cuda/include bench/experiments/row_cubin_bench.cpp -L$cuda/lib64/stubs \
  -lcuda -o "$out/row_cubin_bench"
