#!/usr/bin/env bash
# One kernel of `rkc run` under ncu (its second launch; heuristic plan:
# tuning database off unless RKC_NCU_TUNED=1): the details page and the
# SASS source page (executed instructions and stall samples per
# instruction; summarise with sass_summary.py) into OUT/ncu-LABEL.txt and
# OUT/ncu-LABEL-sass.csv.
# Usage: kernel_ncu.sh OUT LABEL SPEC DTYPE SHAPE... [-- RKC RUN ARGS]
#   (repo root, bundle in .bundle; SHAPE as NAME=D0xD1)
set -u
out=$1 label=$2 spec=$3 dtype=$4
shift 4
args=()
for a in "$@"; do
  case $a in --) ;; *=*) args+=(--shape "$a") ;; *) args+=("$a") ;; esac
done
export PATH=$PWD/.bundle/bin:$PATH
[ "${RKC_NCU_TUNED:-0}" = 1 ] || export RKC_DISABLE_TUNING_DB=1
rep=/tmp/ncu-$label
timeout 200 ncu --clock-control none -k regex:rkc_ -c 1 --launch-skip 1 --set full \
  --import-source no -f -o "$rep" rkc run "$spec" --dtype "$dtype" "${args[@]}" --reps 5 \
  > "$out/ncu-$label-run.txt" 2>&1
ncu -i "$rep.ncu-rep" --page details > "$out/ncu-$label.txt" 2>&1
ncu -i "$rep.ncu-rep" --page source --print-source sass --csv > "$out/ncu-$label-sass.csv" 2>&1
