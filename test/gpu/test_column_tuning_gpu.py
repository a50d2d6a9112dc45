"""Column kernels (rk.gemv, rk.quantize / rk.dequantize along K) through
`rkc run` and `rkc tune` on the GPU: the harness checks them against the
host reference (lib/Runtime/ColumnReference.cpp), the tuner searches their
plans and writes a database row that the Python binding then applies, and
`--try` measures given schedules and rejects invalid ones."""

import json
import os
import re
import subprocess
import sys

import pytest

from test_tuning_db_gpu import plan_of

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(REPO, "examples")


def rkc_exe():
    lib = os.environ.get("RKC_LIBRARY", os.path.join(REPO, "build", "lib", "librkc.so"))
    exe = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(lib))), "bin", "rkc")
    if not os.path.exists(exe):
        pytest.skip("no rkc driver next to %s" % lib)
    return exe


def env_for(tmp_path, db=False):
    env = dict(os.environ, RKC_CACHE_DIR=str(tmp_path / "cache"))
    if db:
        env.pop("RKC_DISABLE_TUNING_DB", None)
    else:
        env["RKC_DISABLE_TUNING_DB"] = "1"
    env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def shape_args(shapes):
    out = []
    for s in shapes:
        out += ["--shape", s]
    return out


# (spec, dtype, shapes): odd and narrow N, int4 asymmetric, int8, M = 1..16.
RUNS = [
    ("gemv_w4a16.mlir", "f16", ["x=1x4096", "q=4096x4096", "scales=32x4096"]),
    ("gemv_w4a16.mlir", "bf16", ["x=4x2048", "q=2048x1000", "scales=16x1000"]),
    ("gemv_w4a16.mlir", "f16", ["x=16x1024", "q=1024x4100", "scales=8x4100"]),
    ("gemv_w4a16.mlir", "f16", ["x=3x512", "q=512x33", "scales=4x33"]),
    ("dequantize_int4.mlir", "f16", ["q=1024x1000", "scales=8x1000"]),
    ("dequantize_int4.mlir", "f32", ["q=256x4096", "scales=2x4096"]),
    ("quantize_int4.mlir", "f16", ["w=1024x1000"]),
    ("quantize_int4.mlir", "bf16", ["w=512x4096"]),
]


@pytest.mark.parametrize("spec,dtype,shapes", RUNS,
                         ids=["%s-%s-%s" % (r[0][:-5], r[1], r[2][0]) for r in RUNS])
def test_rkc_run_checks_column_kernels(tmp_path, spec, dtype, shapes):
    out = subprocess.run([rkc_exe(), "run", os.path.join(EXAMPLES, spec), "--dtype", dtype,
                          "--reps", "5"] + shape_args(shapes),
                         env=env_for(tmp_path), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "PASS" in out.stdout, out.stdout + out.stderr
    assert "TB/s" in out.stdout


@pytest.mark.parametrize("spec,dtype,shapes", [
    ("dequantize_per_token_int8.mlir", "f16", ["q=512x4096", "scales=512x1"]),
    ("dequantize_per_token_int8.mlir", "f32", ["q=1000x136", "scales=1000x1"]),
    ("quantize_per_token_int8.mlir", "bf16", ["x=512x4096"]),
], ids=["dequant-f16-4096", "dequant-f32-136", "quant-bf16-4096"])
def test_rkc_run_per_token_rows(tmp_path, spec, dtype, shapes):
    """Per-token int8 (row programs with int8 [M, N] operands): the harness
    fills int8 inputs with quantized values over [-127, 127] whatever N (it
    had used gather indices in [0, N), which wrap in int8 beyond 127)."""
    out = subprocess.run([rkc_exe(), "run", os.path.join(EXAMPLES, spec), "--dtype", dtype,
                          "--reps", "5"] + shape_args(shapes),
                         env=env_for(tmp_path), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "PASS" in out.stdout, out.stdout + out.stderr


def test_rkc_run_gemv_variants(tmp_path):
    """Asymmetric int4 with bias and int8 weights (specs generated as the
    binding generates them)."""
    from rkc import _spec
    cases = [
        (_spec.quant_spec_text("gemv", 4, 64, False, "f16", 0, True), "bf16",
         ["x=2x1024", "q=1024x1026", "scales=16x1026", "zeros=16x1026", "bias=1026"]),
        (_spec.quant_spec_text("gemv", 8, 128, True, "f16", 0, False), "f16",
         ["x=1x2048", "q=2048x4096", "scales=16x4096"]),
        (_spec.quant_spec_text("gemv", 8, 0, True, "bf16", 0, False), "bf16",
         ["x=8x1024", "q=1024x2048", "scales=1x2048"]),
    ]
    for i, (text, dtype, shapes) in enumerate(cases):
        path = tmp_path / ("spec%d.mlir" % i)
        path.write_text(text)
        out = subprocess.run([rkc_exe(), "run", str(path), "--dtype", dtype, "--reps", "5"] +
                             shape_args(shapes), env=env_for(tmp_path), capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0 and "PASS" in out.stdout, text + out.stdout + out.stderr


def test_tune_gemv_row_applies_in_the_binding(tmp_path):
    """rkc tune over a GEMV writes one row (a column schedule, checked and
    timed); a fresh Python process with the database finds that row for the
    same request (the binding's spec and shapes) and compiles its plan."""
    from rkc import _spec
    text = _spec.quant_spec_text("gemv", 4, 128, True, "f16", 0, False)
    spec = tmp_path / "gemv.mlir"
    spec.write_text(text)
    K, N, M = 2048, 4096, 1
    shapes = ["x=%dx%d" % (M, K), "q=%dx%d" % (K, N), "scales=%dx%d" % (K // 128, N)]
    env = env_for(tmp_path)
    out = subprocess.run([rkc_exe(), "tune", str(spec), "--dtype", "f16", "--budget-ms", "4000"]
                         + shape_args(shapes), env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 wrong" in out.stdout, out.stdout
    rows = [json.loads(l) for l in open(tmp_path / "cache" / "tuning.jsonl") if l.strip()]
    assert len(rows) == 1, rows
    row = rows[0]
    assert "mma=" in row["schedule"] and row["M"] == M and row["N"] == N, row
    assert row["shapes"] == ";".join(shapes), row
    assert 0 < row["ms"] <= row["heuristic_ms"], row
    code = """
import torch, rkc
k = rkc.quant.precompile("gemv", (%d, %d), torch.float16, bits=4, group_size=128,
                         scale_dtype=torch.float16, rows=%d)
print(k.plan)
""" % (K, N, M)
    py = subprocess.run([sys.executable, "-c", code], env=env_for(tmp_path, db=True),
                        capture_output=True, text=True, timeout=300)
    assert py.returncode == 0, py.stderr[-2000:]
    assert py.stdout.strip() == plan_of(row["schedule"]), (py.stdout, row)


def test_try_gemv_schedules(tmp_path):
    """--try on a GEMV: the heuristic, a valid schedule measured, an invalid
    one (2 KiB accesses) rejected with the planner's reason; no database row."""
    out = subprocess.run([rkc_exe(), "tune", os.path.join(EXAMPLES, "gemv_w4a16.mlir"),
                          "--dtype", "f16", "--try",
                          "vector=4,threads=256,cluster=1,unroll=2,mma=0;vector=512"] +
                         shape_args(["x=1x4096", "q=4096x4096", "scales=32x4096"]),
                         env=env_for(tmp_path), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = [l.strip() for l in out.stdout.splitlines() if l.startswith("  ")]
    assert lines[0].startswith("heuristic") and "TB/s" in lines[0], out.stdout
    assert any(l.startswith("try") and "TB/s" in l and "vector=4," in l for l in lines), out.stdout
    assert any("vector=512" in l and "TB/s" not in l for l in lines), out.stdout
    assert not (tmp_path / "cache" / "tuning.jsonl").exists()


@pytest.mark.parametrize("shapes,staged", [
    (["x=4x4096", "q=4096x4096", "scales=32x4096"], True),
    (["x=1x14336", "q=14336x4096", "scales=112x4096"], False),
], ids=["staged-heuristic", "global-heuristic"])
def test_tune_gemv_candidates_toggle_the_activations(tmp_path, shapes, staged):
    """--candidates lists every schedule the search timed (its time or why it
    failed), and the tensor-core search tries the activations' other source:
    global reads next to a staged heuristic (W4A16 M = 4 4096^2), staged
    next to the acts=global rule's plan (M = 1 14336 x 4096)."""
    out = subprocess.run([rkc_exe(), "tune", os.path.join(EXAMPLES, "gemv_w4a16.mlir"),
                          "--dtype", "f16", "--budget-ms", "2000", "--candidates"] +
                         shape_args(shapes), env=env_for(tmp_path), capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0 and "0 wrong" in out.stdout, out.stdout + out.stderr
    lines = [l.strip() for l in out.stdout.splitlines() if l.startswith("  ")]
    heur = [l for l in lines if l.startswith("heuristic")]
    cands = [l for l in lines if l.startswith("candidate")]
    assert len(heur) == 1 and "TB/s" in heur[0], out.stdout
    assert ("acts=global" in heur[0]) != staged, heur
    m = re.search(r"(\d+) candidates timed", out.stdout)
    assert m and int(m.group(1)) == len(cands) > 0, out.stdout
    timed = [l for l in cands if "TB/s" in l and "mma=1" in l]
    assert any(("acts=global" in l) == staged for l in timed), "\n".join(cands)


@pytest.mark.parametrize("spec,dtype,shapes", [
    ("dequantize_int4.mlir", "f16", ["q=4096x4096", "scales=32x4096"]),
    ("quantize_int4.mlir", "bf16", ["w=4096x4096"]),
], ids=["dequantize", "quantize"])
def test_tune_quantize_and_dequantize(tmp_path, spec, dtype, shapes):
    """The column search also takes rk.dequantize / rk.quantize along K
    (no cluster, no tensor cores: those candidates are pruned with the
    planner's reasons), checks every candidate and writes one row."""
    out = subprocess.run([rkc_exe(), "tune", os.path.join(EXAMPLES, spec), "--dtype", dtype,
                          "--budget-ms", "3000"] + shape_args(shapes), env=env_for(tmp_path),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 wrong" in out.stdout and "candidates timed" in out.stdout, out.stdout
    rows = [json.loads(l) for l in open(tmp_path / "cache" / "tuning.jsonl") if l.strip()]
    assert len(rows) == 1 and "mma=0" in rows[0]["schedule"], rows
