"""bench/bench_quant.py without a GPU (--dry-run: fake timings): the records
carry the fields of BENCH.md, rkc's speedups are against cuBLAS in the same
mode, and --tuned labels rkc's records "rkc-tuned" (the tuning database
applied) in the records and the summary."""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "bench_quant.py"
FIELDS = {"op", "impl", "dtype", "M", "N", "ms", "tbps", "roofline_tbps", "frac_roofline",
          "device", "commit", "date"}


def run(tmp_path, *extra):
    out = tmp_path / "q.jsonl"
    r = subprocess.run([sys.executable, str(SCRIPT), "--dry-run", "--quick", "--skip", "per_token",
                        "--shapes", "4096x4096", "--out", str(out)] + list(extra),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    recs = [json.loads(l) for l in out.read_text().splitlines() if l.strip()]
    summary = (tmp_path / "q-summary.txt").read_text()
    return recs, summary


def test_heuristic_records(tmp_path):
    recs, summary = run(tmp_path)
    gemv = [r for r in recs if r.get("op") == "gemv"]
    assert {r["impl"] for r in gemv} == {"cublas", "rkc"}
    for r in gemv:
        assert FIELDS <= set(r), sorted(FIELDS - set(r))
    for r in gemv:
        if r["impl"] == "rkc":
            cublas = [c for c in gemv if c["impl"] == "cublas" and c["mode"] == r["mode"]][0]
            assert abs(r["speedup_vs_cublas"] - cublas["ms"] / r["ms"]) < 1e-9
    assert "tuning database" not in summary


def test_tuned_records(tmp_path):
    recs, summary = run(tmp_path, "--tuned")
    gemv = [r for r in recs if r.get("op") == "gemv"]
    assert {r["impl"] for r in gemv} == {"cublas", "rkc-tuned"}
    assert all(r["speedup_vs_cublas"] for r in gemv if r["impl"] == "rkc-tuned")
    assert "tuning database: rkc-tuned" in summary
    assert "\nrkc-tuned 4" in summary and "\nrkc-tuned 8" in summary
