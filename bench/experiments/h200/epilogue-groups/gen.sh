#!/usr/bin/env bash
# Builds the kernels run.sh times (session 36): each emitted kernel (rkc
# compile, planned for the H200 at min_blocks = 0, the code before the
# min_blocks = 3 rule) and its make_variants.py variants, compiled to CUBINs with
# NVRTC as librkc does (bench/experiments/nvrtc_cubin.cpp), and the harness
# (row_cubin_bench.cpp) into OUTDIR (default: this directory's cubin/).
# Usage: gen.sh [OUTDIR]   (repo root, rkc in build/bin; CUDA toolkit)
set -eu
d=bench/experiments/h200/epilogue-groups
out=${1:-$d/cubin}
bash bench/experiments/h200/build_cubin_tools.sh "$out"
gen() { # spec shape label K
  build/bin/rkc compile examples/$1.mlir --dtype bf16 --shape x=$2 --sms 132 --dram-gbs 4917 \
    --schedule min_blocks=0 --emit cuda -o "$out/$3.cu"
  python3 $d/make_variants.py "$out/$3.cu" "$out/$3" $4
}
gen layer_norm 8192x16384 ln16k 3
gen layer_norm 16384x8192 ln8k 6
gen layer_norm 2048x65536 ln64k 6
gen rms_norm 8192x16384 rms16k 3
for f in "$out"/*.cu; do
  "$out/nvrtc_cubin" "$f" "${f%.cu}.cubin" sm_90a templates 2>&1 | grep -o 'Used [0-9]* registers.*'
done
