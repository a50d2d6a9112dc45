#!/usr/bin/env bash
# Session 42: the layouts of the three re-tuned rows the heuristic does
# not take (softmax bf16 64k in a cluster of 2 of 256 x 128 values; the
# f32 norms at 64k with 32 values a thread over more threads or CTAs),
# tried across ops, widths and N = 64k / 256k against the heuristic's
# async clusters (256 x 64), through the tuner's harness. Data for a rule;
# no plan changes with it.
# Usage: cluster_layouts_try.sh   (repo root, bundle in .bundle)
. "$(dirname "$0")/try_lib.sh"
for spec in softmax rms_norm layer_norm; do
  try_rows $spec bf16 65536 'values=128,cluster=2,staging=async;threads=512,values=64,cluster=2,staging=async;values=32,cluster=8,staging=async'
  try_rows $spec bf16 262144 'values=128,cluster=8,staging=async;threads=512,values=64,cluster=8,staging=async;threads=512,values=32,cluster=16,staging=async'
  try_rows $spec f32 65536 'values=128,cluster=2,staging=async;threads=512,values=32,cluster=4,staging=async;values=32,cluster=8,staging=async'
  try_rows $spec f32 262144 'values=128,cluster=8,staging=async;threads=512,values=32,cluster=16,staging=async;threads=512,values=64,cluster=8,staging=async'
done
