#!/usr/bin/env bash
# The 16-bit rows with a result where the H200's heuristic is slower than
# torch.compile (session 34's bench: RMSNorm bf16 at N = 8192 0.95x,
# LayerNorm bf16 at 16384 0.93x): the heuristic (asynchronous staging, one
# row a CTA) against other thread counts, staging in registers and two CTAs
# an SM. `rkc tune --try`, no database, M x N = 2^27.
# Usage: bf16_rows_ab.sh   (repo root, bundle in .bundle)
set -u
. bench/experiments/h200/try_lib.sh
nvidia-smi -L
try_rows rms_norm bf16 8192 "threads=512,values=16;threads=512,values=16,staging=registers;threads=1024,values=8;threads=256,values=32,staging=registers;threads=256,values=32,min_blocks=2;threads=128,values=64"
try_rows layer_norm bf16 16384 "threads=1024,values=16;threads=1024,values=16,staging=registers;threads=512,values=32,staging=registers;threads=512,values=32,min_blocks=2;threads=256,values=64"
