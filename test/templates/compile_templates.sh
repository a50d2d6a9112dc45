#!/usr/bin/env bash
# Compile-only checks of the rkc device templates (templates/rkc/*.cuh); no GPU
# needed.
#
#   bash test/templates/compile_templates.sh
#
# 1. Builds nvrtc_check (links libnvrtc), which compiles a kernel the way rkc
#    does at run time: NVRTC, no include path, no CUDA headers, the templates
#    registered as in-memory headers "rkc/<file>".
# 2. Compiles every header on its own, and every kernel in kernels/, for
#    sm_90a and sm_80 (cluster_reduce.cu: sm_90a only); NVRTC warnings fail.
#    (gpu_templates.sh runs the same kernels on an sm_90 GPU.)
# 3. Greps the PTX for the instructions the primitives must produce.
# 4. Assembles each PTX with `ptxas -v` for its architecture and fails on
#    spills, a stack frame, or any ptxas warning.
#
# Environment: CUDA_HOME (default /usr/local/cuda), CXX (default g++).
# Exits non-zero if any check fails; every failed check is printed.
set -u -o pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
templates="$root/templates"
kernels="$here/kernels"
cuda="${CUDA_HOME:-/usr/local/cuda}"
cxx="${CXX:-g++}"
ptxas="$cuda/bin/ptxas"

work="$(mktemp -d "${TMPDIR:-/tmp}/rkc-templates.XXXXXX")"
trap 'rm -rf "$work"' EXIT

failures=0
checks=0
pass() { checks=$((checks + 1)); echo "PASS  $1"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL  $1"; }

echo "== building nvrtc_check"
if ! "$cxx" -std=c++17 -O1 -Wall -Wextra -o "$work/nvrtc_check" "$here/nvrtc_check.cpp" \
    -I"$cuda/include" -L"$cuda/lib64" -lnvrtc -Wl,-rpath,"$cuda/lib64"; then
  echo "FAIL  build nvrtc_check"
  exit 1
fi

# compile <source> <arch> <ptx-out>: NVRTC, then ptxas -v on the PTX.
compile() {
  local src="$1" arch="$2" ptx="$3" name
  name="$(basename "$src") [$arch]"
  if ! "$work/nvrtc_check" "$src" "$arch" "$templates" "$kernels/common.cuh" \
      >"$ptx" 2>"$work/nvrtc.log"; then
    cat "$work/nvrtc.log"
    fail "$name: NVRTC compile (warnings count as errors)"
    return 1
  fi
  pass "$name: NVRTC compile, no warnings"
  if ! "$ptxas" -arch="$arch" -v "$ptx" -o "$work/out.cubin" >"$work/ptxas.log" 2>&1; then
    cat "$work/ptxas.log"
    fail "$name: ptxas"
    return 1
  fi
  if grep -Eq '[1-9][0-9]* bytes spill' "$work/ptxas.log"; then
    grep -E 'Compiling|spill' "$work/ptxas.log"
    fail "$name: ptxas reports register spills"
  elif grep -Eq '[1-9][0-9]* bytes stack frame' "$work/ptxas.log"; then
    grep -E 'Compiling|stack frame' "$work/ptxas.log"
    fail "$name: ptxas reports a stack frame"
  elif grep -qi 'warning' "$work/ptxas.log"; then
    grep -i 'warning' "$work/ptxas.log"
    fail "$name: ptxas warnings"
  else
    pass "$name: ptxas -v: 0 bytes spill, 0 bytes stack frame, no warnings"
  fi
}

# has <ptx> <what> <ERE>: the PTX contains a line matching ERE.
has() {
  if grep -Eq -- "$3" "$1"; then pass "$2"; else fail "$2 (no match for /$3/)"; fi
}

# lacks <ptx> <what> <ERE>: no line of the PTX matches ERE.
lacks() {
  if grep -Eq -- "$3" "$1"; then
    grep -En -- "$3" "$1" | head -5
    fail "$2"
  else
    pass "$2"
  fi
}

# count <ptx> <what> <ERE> <n>: exactly n lines match ERE.
count() {
  local c
  c="$(grep -Ec -- "$3" "$1")"
  if [ "$c" -eq "$4" ]; then pass "$2 (= $4)"; else fail "$2: found $c, expected $4"; fi
}

echo "== each header on its own"
for header in "$templates"/rkc/*.cuh; do
  h="$(basename "$header")"
  printf '#include "rkc/%s"\n' "$h" >"$work/only_$h.cu"
  for arch in sm_90a sm_80; do
    if "$work/nvrtc_check" "$work/only_$h.cu" "$arch" "$templates" >/dev/null 2>"$work/nvrtc.log"; then
      pass "rkc/$h alone [$arch]: NVRTC compile, no warnings"
    else
      cat "$work/nvrtc.log"
      fail "rkc/$h alone [$arch]: NVRTC compile"
    fi
  done
done

vec_ld_global='ld\.global(\.[a-z0-9:_]+)*\.v4\.(u32|b32|f32)'
vec_st_global='st\.global(\.[a-z0-9:_]+)*\.v4\.(u32|b32|f32)'

for arch in sm_90a sm_80; do
  echo "== rowsum_bf16.cu [$arch]"
  p="$work/rowsum_bf16.$arch.ptx"
  if compile "$kernels/rowsum_bf16.cu" "$arch" "$p"; then
    has "$p" "rowsum_bf16 [$arch]: 16-byte global load (ld.global*.v4)" "$vec_ld_global"
    has "$p" "rowsum_bf16 [$arch]: warp butterfly (shfl.sync.bfly.b32)" 'shfl\.sync\.bfly\.b32'
    count "$p" "rowsum_bf16 [$arch]: one barrier per block_reduce (bar.sync)" '^[[:space:]]*bar\.sync' 1
    lacks "$p" "rowsum_bf16 [$arch]: no local memory" '\.local'
  fi

  echo "== warp_combiners.cu [$arch]"
  p="$work/warp_combiners.$arch.ptx"
  if compile "$kernels/warp_combiners.cu" "$arch" "$p"; then
    # (m, l) x 5 steps + (v, i) x 4 steps + (m, l) x 3 steps, 2 words each.
    count "$p" "warp_combiners [$arch]: word-wise shuffles (shfl.sync.bfly.b32)" 'shfl\.sync\.bfly\.b32' 24
    count "$p" "warp_combiners [$arch]: one barrier per block_reduce (bar.sync)" '^[[:space:]]*bar\.sync' 1
    lacks "$p" "warp_combiners [$arch]: no local memory" '\.local'
  fi

  echo "== vec_copy.cu [$arch]"
  p="$work/vec_copy.$arch.ptx"
  if compile "$kernels/vec_copy.cu" "$arch" "$p"; then
    has "$p" "vec_copy [$arch]: 16-byte global load (ld.global*.v4)" "$vec_ld_global"
    has "$p" "vec_copy [$arch]: 16-byte global store (st.global*.v4)" "$vec_st_global"
    has "$p" "vec_copy [$arch]: streaming load (ld.global.cs.v4)" 'ld\.global\.cs\.v4\.u32'
    has "$p" "vec_copy [$arch]: packed bf16 narrowing (cvt.rn.bf16x2.f32)" 'cvt\.rn\.bf16x2\.f32'
    has "$p" "vec_copy [$arch]: packed f16 narrowing (cvt.rn.f16x2.f32)" 'cvt\.rn\.f16x2\.f32'
    has "$p" "vec_copy [$arch]: f16 widening (cvt.f32.f16)" 'cvt\.f32\.f16'
    has "$p" "vec_copy [$arch]: async copy (cp.async.cg.shared.global)" 'cp\.async\.cg\.shared\.global'
    has "$p" "vec_copy [$arch]: cp.async.commit_group" 'cp\.async\.commit_group'
    has "$p" "vec_copy [$arch]: cp.async.wait_group 0" 'cp\.async\.wait_group 0'
    has "$p" "vec_copy [$arch]: 16-byte shared load (ld.shared.v4)" 'ld\.shared\.v4\.u32'
    has "$p" "vec_copy [$arch]: 64-bit index load" 'ld\.global(\.nc)?\.(u64|s64|b64)'
    lacks "$p" "vec_copy [$arch]: no local memory" '\.local'
  fi
done

for arch in sm_90a sm_80; do
  echo "== convert.cu [$arch]"
  p="$work/convert.$arch.ptx"
  if compile "$kernels/convert.cu" "$arch" "$p"; then
    has "$p" "convert [$arch]: cvt.rn.bf16.f32" 'cvt\.rn\.bf16\.f32'
    has "$p" "convert [$arch]: cvt.rn.f16.f32" 'cvt\.rn\.f16\.f32'
    has "$p" "convert [$arch]: cvt.f32.f16" 'cvt\.f32\.f16'
    has "$p" "convert [$arch]: fast_exp (ex2.approx.ftz.f32)" 'ex2\.approx\.ftz\.f32'
    has "$p" "convert [$arch]: fast_log (lg2.approx.ftz.f32)" 'lg2\.approx\.ftz\.f32'
    has "$p" "convert [$arch]: rsqrt (rsqrt.approx)" 'rsqrt\.approx(\.ftz)?\.f32'
    has "$p" "convert [$arch]: div_approx (div.approx)" 'div\.approx(\.ftz)?\.f32'
  fi
done

for arch in sm_90a sm_80; do
  echo "== int8.cu [$arch]"
  p="$work/int8.$arch.ptx"
  if compile "$kernels/int8.cu" "$arch" "$p"; then
    has "$p" "int8 [$arch]: 16-byte store of 16 int8 (st.global*.v4)" "$vec_st_global"
    has "$p" "int8 [$arch]: narrowing by the 1.5 * 2^23 addition (add.rn.f32)" 'add\.rn\.f32'
    has "$p" "int8 [$arch]: bytes gathered / widened by PRMT (prmt.b32)" 'prmt\.b32'
    lacks "$p" "int8 [$arch]: no float-to-int conversion instructions" 'cvt\.rni|cvt\.rzi'
    lacks "$p" "int8 [$arch]: no local memory" '\.local'
  fi
done

echo "== cluster_reduce.cu [sm_90a]"
p="$work/cluster_reduce.sm_90a.ptx"
if compile "$kernels/cluster_reduce.cu" sm_90a "$p"; then
  has "$p" "cluster_reduce: mapa.shared::cluster" 'mapa\.shared::cluster\.u32'
  has "$p" "cluster_reduce: st.shared::cluster pushes" 'st\.shared::cluster\.u32'
  lacks "$p" "cluster_reduce: no st.async / mbarrier (racecheck-visible barrier form)" 'st\.async|mbarrier'
  has "$p" "cluster_reduce: barrier.cluster.arrive.relaxed" 'barrier\.cluster\.arrive\.relaxed\.aligned'
  has "$p" "cluster_reduce: barrier.cluster.arrive (release)" 'barrier\.cluster\.arrive\.release\.aligned'
  has "$p" "cluster_reduce: barrier.cluster.wait" 'barrier\.cluster\.wait\.acquire\.aligned'
  has "$p" "cluster_reduce: %cluster_ctarank" '%cluster_ctarank'
  lacks "$p" "cluster_reduce: no bar.sync (cluster tier needs no CTA barrier)" '^[[:space:]]*bar\.sync'
  lacks "$p" "cluster_reduce: no local memory" '\.local'
fi

echo "== sm_80 PTX has no sm_90 cluster instructions"
for p in "$work"/*.sm_80.ptx; do
  lacks "$p" "$(basename "$p"): no mapa / st.async / barrier.cluster / mbarrier" \
    'mapa|st\.async|barrier\.cluster|mbarrier|cluster_ctarank'
done

echo
if [ "$failures" -ne 0 ]; then
  echo "compile_templates: $failures of $checks checks FAILED"
  exit 1
fi
echo "compile_templates: all $checks checks passed"
