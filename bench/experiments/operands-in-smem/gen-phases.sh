#!/usr/bin/env bash
# Session 30 (docs/performance-notes.md): the split tier's phases at 128 x 1M.
# rkc's heuristic kernels (no schedule given) for LayerNorm / RMSNorm f32 and
# LayerNorm bf16, then make_phases.py's variants: "_ph" stamps each row's
# sweep, grid barrier and epilogue; "_stK_NS" also starts group g
# (g % K) * NS / K ns late. run.sh builds (BUILD=1) and times them; with
# PH_DIR set the harness also writes the raw stamps there.
# Then one kept pass a CTA (split 128 / 256, "k1"): "_pl" copies the next
# row by cp.async before the barrier (make_pipelined.py), "_df" defers the
# wait past the next row's sweep (make_deferred.py), "_df_ph" stamps that.
# The session's kernels came from the emitter of 235d77d: since 181b3fc
# the emitter defers the k1 schedules' waits itself, and make_pipelined.py /
# make_deferred.py refuse such input (use RKC=an rkc built at 235d77d).
# Usage: RKC=path/to/rkc gen-phases.sh   (default: build/bin/rkc)
set -euo pipefail
cd "$(dirname "$0")"; root=$(cd ../../.. && pwd)
rkc=${RKC:-$root/build/bin/rkc}
gen() { "$rkc" compile "$root/examples/$1.mlir" --dtype "$2" --shape "x=$3" --sms 132 --emit cuda -o "$4.cu" ${5:+--schedule $5}; }
gen layer_norm f32 128x1048576 ln_f32_1m
gen rms_norm f32 128x1048576 rms_f32_1m
gen layer_norm bf16 128x1048576 ln_bf16_1m
for b in ln_f32_1m rms_f32_1m; do
  python3 make_phases.py $b.cu ${b}_ph.cu
  for kn in "2 20000" "3 21000" "6 21000"; do set -- $kn; python3 make_phases.py $b.cu ${b}_st$1_$2.cu $1 $2; done
done
python3 make_phases.py ln_bf16_1m.cu ln_bf16_1m_ph.cu
for kn in "2 28000" "4 28000"; do set -- $kn; python3 make_phases.py ln_bf16_1m.cu ln_bf16_1m_st$1_$2.cu $1 $2; done
gen layer_norm f32 128x1048576 ln_f32_s128k1 split=128,keep=1
gen rms_norm f32 128x1048576 rms_f32_s128k1 split=128,keep=1
gen layer_norm f32 128x1048576 ln_f32_s256k1 threads=128,values=32,vector=4,staging=stream,split=256,keep=1
gen layer_norm bf16 128x1048576 ln_bf16_s64k1 threads=512,values=32,vector=8,staging=stream,split=64,keep=1
gen layer_norm bf16 128x1048576 ln_bf16_s128k1 threads=256,values=32,vector=8,staging=stream,split=128,keep=1
for b in ln_f32_s128k1 rms_f32_s128k1 ln_f32_s256k1 ln_bf16_s64k1 ln_bf16_s128k1; do
  python3 make_pipelined.py $b.cu ${b}_pl.cu && python3 make_phases.py ${b}_pl.cu ${b}_pl_ph.cu
  python3 make_deferred.py $b.cu ${b}_df.cu && python3 make_phases.py ${b}_df.cu ${b}_df_ph.cu
done
