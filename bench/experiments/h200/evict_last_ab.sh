#!/usr/bin/env bash
# Session 41: Triton's first-sweep L2 / L1 policy on rkc's row loads.
# Inductor's RMSNorm / LayerNorm kernels load x with
# `ld.global.L1::evict_last.L2::cache_hint` (createpolicy evict_last 1.0)
# in their first sweep; rkc's registers rows load it with plain
# ld.global.nc and its staged rows with plain cp.async.cg.
# evict_last_rows.patch (templates/rkc/vec.cuh: Access<16>::load and
# cp_async_16 with the evict-last hints) built as .bundle-exp; bench.py's
# sweep at the rows where torch.compile leads on the H200, two
# interleaved rounds (lib_ab.sh).
# Usage: evict_last_ab.sh OUT   (repo root; PyTorch on the machine)
exec "$(dirname "$0")/lib_ab.sh" "$1" evl .bundle-exp \
  --ops rms_norm,layer_norm,softmax --dtypes bf16,f32 --ns 1k,2k,4k,8k,16k,32k,256k
