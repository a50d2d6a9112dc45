# The `rkc tune --try` helpers of this directory's row experiments (the
# heuristic against given schedules, reference-checked, no database, M x N
# = 2^27). Sourced by the scripts; run them from the repo root with the
# bundle in .bundle.
export RKC_DISABLE_TUNING_DB=1 PATH=$PWD/.bundle/bin:$PATH

# try_rows SPEC DTYPE N 'SCHEDULE;SCHEDULE...' [rkc args...]: examples/SPEC
# on x = M x N; "@M" in the extra arguments stands for M.
try_rows() {
  local spec=$1 dt=$2 n=$3 tries=$4 m=$((134217728 / $3))
  shift 4
  echo "-- $spec $dt N=$n"
  rkc tune examples/$spec.mlir --dtype $dt --shape x=${m}x$n "${@//@M/$m}" --try "$tries" 2>&1 |
    grep -E '^  (heuristic|try)|error'
}

# try_vectors SPEC DTYPE N V...: read-only rows at V 16-byte vector loads a
# thread each (threads = N / (V x elements a vector)).
try_vectors() {
  local spec=$1 dt=$2 n=$3 vec v t tries=()
  shift 3
  vec=$([ "$dt" = f32 ] && echo 4 || echo 8)
  for v in "$@"; do
    t=$((n / vec / v))
    [ $t -ge 1 ] && tries+=("threads=$t,values=$((v * vec))")
  done
  try_rows "$spec" "$dt" "$n" "$(IFS=';'; echo "${tries[*]}")"
}
