#!/usr/bin/env bash
# torch.compile's kernel for one bench op under ncu (its fourth launch),
# beside rkc's (kernel_ncu.sh), to read why one beats the other: the
# details page into OUT/ncu-tc-LABEL.txt, the SASS summary source page into
# OUT/ncu-tc-LABEL-sass.csv, Inductor's generated code into
# OUT/tc-LABEL-code.txt.
# Usage: torch_compile_ncu.sh OUT LABEL OP DTYPE M N   (OP: rms_norm, layer_norm,
#   softmax, log_softmax, cross_entropy; repo root)
set -u
out=$1 label=$2 op=$3 dt=$4 M=$5 N=$6
py=/tmp/tc-$label.py
cat > $py <<PY
import sys, torch, torch.nn.functional as F
op, dt, M, N = "$op", "$dt", $M, $N
t = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dt]
x = torch.randn(M, N, device="cuda", dtype=t)
w, b = torch.randn(N, device="cuda", dtype=t), torch.randn(N, device="cuda", dtype=t)
tg = torch.randint(0, N, (M,), device="cuda")
fns = {"rms_norm": (lambda: F.rms_norm(x, (N,), w, eps=1e-6)),
       "layer_norm": (lambda: F.layer_norm(x, (N,), w, b, eps=1e-5)),
       "softmax": (lambda: torch.softmax(x, -1)),
       "log_softmax": (lambda: torch.log_softmax(x, -1)),
       "cross_entropy": (lambda: F.cross_entropy(x, tg, reduction="none"))}
f = torch.compile(fns[op])
for _ in range(5):
    f()
torch.cuda.synchronize()
PY
TORCH_LOGS=output_code python3 $py > "$out/tc-$label-code.txt" 2>&1
rep=/tmp/ncu-tc-$label
timeout 200 ncu --clock-control none -k regex:triton -c 1 --launch-skip 3 --set full \
  --import-source no -f -o "$rep" python3 $py > "$out/ncu-tc-$label-run.txt" 2>&1
ncu -i "$rep.ncu-rep" --page details > "$out/ncu-tc-$label.txt" 2>&1
ncu -i "$rep.ncu-rep" --page source --print-source sass --csv > "$out/ncu-tc-$label-sass.csv" 2>&1
