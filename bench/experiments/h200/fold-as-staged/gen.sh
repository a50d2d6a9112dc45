#!/usr/bin/env bash
# Builds what run.sh times (session 37): emitted async-staged row kernels
# (rkc compile, planned for the H200) and their fold-as-staged variants
# (make_variant.py), compiled to CUBINs with NVRTC as librkc does, and the
# harness, into OUTDIR (default: this directory's cubin/, git-ignored).
# Usage: gen.sh [OUTDIR]   (repo root, rkc in build/bin; CUDA toolkit)
set -eu
d=bench/experiments/h200/fold-as-staged
out=${1:-$d/cubin}
bash bench/experiments/h200/build_cubin_tools.sh "$out"
gen() { # spec shape label
  build/bin/rkc compile examples/$1.mlir --dtype bf16 --shape x=$2 --sms 132 --dram-gbs 4917 \
    --print-plan --emit cuda -o "$out/$3.cu" 2>&1 | grep '^kernel' | sed "s/^/$3: /"
  python3 $d/make_variant.py "$out/$3.cu" "$out/$3-fold.cu"
}
gen layer_norm 2048x65536 ln64k
gen layer_norm 512x262144 ln256k
gen layer_norm 8192x16384 ln16k
gen rms_norm 2048x65536 rms64k
gen rms_norm 512x262144 rms256k
for f in "$out"/*.cu; do
  echo "$(basename $f): $("$out/nvrtc_cubin" "$f" "${f%.cu}.cubin" sm_90a templates 2>&1 | grep -o 'Used [0-9]* registers.*')"
done
