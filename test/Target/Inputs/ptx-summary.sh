#!/usr/bin/env bash
# ptx-summary.sh SPEC DTYPE N ARCH: compiles SPEC for x=[8, N] and prints one
# line that FileCheck can match:
#   N=<n> dtype=<d> cluster=<c> ld128=<k> st128=<k> shfl=<k> bar=<k> mapa=<k>
#   st_async=<k> cluster_ops=ok|MISMATCH spill=<bytes>
# ld128/st128 count 128-bit global accesses in the PTX (cp.async 16-byte
# copies of shared-memory staging count as loads); spill is the sum of
# ptxas' spill stores and loads for the target arch.
set -euo pipefail
spec=$1 dtype=$2 n=$3 arch=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rkc compile "$spec" --dtype "$dtype" --shape "x=8x$n" --arch "$arch" --emit ptx \
  -o "$tmp/k.ptx" --print-plan 2> "$tmp/plan"
cluster=$(sed -n 's/.*cluster=\([0-9]*\),.*/\1/p' "$tmp/plan" | head -1)
ptxarch=$arch
spill=$(/usr/local/cuda/bin/ptxas -arch="$ptxarch" -v "$tmp/k.ptx" -o "$tmp/k.cubin" 2>&1 |
        sed -n 's/.*, \([0-9]*\) bytes spill stores, \([0-9]*\) bytes spill loads/\1 \2/p' |
        awk '{s += $1 + $2} END {print s + 0}')
count() { grep -cE "$1" "$tmp/k.ptx" || true; }
mapa=$(count 'mapa\.shared::cluster')
# Cluster instructions must appear exactly when the plan picks a cluster.
if { [ "$cluster" -gt 1 ] && [ "$mapa" -gt 0 ]; } || { [ "$cluster" -eq 1 ] && [ "$mapa" -eq 0 ]; }; then
  match=ok
else
  match=MISMATCH
fi
echo "N=$n dtype=$dtype cluster=$cluster ld128=$(count 'ld\.global(\.nc|\.cs)?(\.L1::no_allocate)?(\.L2::cache_hint)?\.v4|cp\.async\.cg\.shared\.global') st128=$(count 'st\.global(\.cs)?\.v4') shfl=$(count 'shfl\.sync\.bfly') bar=$(count 'bar\.sync') mapa=$mapa st_async=$(count 'st\.async') cluster_ops=$match spill=$spill"
