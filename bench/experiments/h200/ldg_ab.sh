#!/usr/bin/env bash
# Session 40: rkc's 16-byte row loads through the read-only path
# (ld.global.nc, LDG.E.128.CONSTANT: the emitted kernels' `const
# __restrict__` rows) against the coherent path Triton's kernels use
# (ld.global, LDG.E.128; ldg_coherent.patch on templates/rkc/vec.cuh),
# at the mid-length rows where torch.compile leads on the H200. bench.py's
# sweep (RMSNorm / LayerNorm, bf16 / f32, N = 2k-16k, rkc's heuristic):
# BASE = .bundle/lib, EXP = .bundle-exp/lib (the patched build), two
# interleaved rounds (lib_ab.sh).
# Usage: ldg_ab.sh OUT   (repo root; PyTorch on the machine)
exec "$(dirname "$0")/lib_ab.sh" "$1" ldg .bundle-exp \
  --ops rms_norm,layer_norm --dtypes bf16,f32 --ns 2k,4k,8k,16k
