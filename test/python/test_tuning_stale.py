"""Rows whose heuristic changed since they were tuned, without a GPU: `rkc
tune --print-key` names the heuristic's schedule for a device given by its
SMs and DRAM bandwidth, rows keep the heuristic they were timed against
through import and export, and scripts/tuning-stale lists the rows whose
heuristic now differs (exit 1 with --strict)."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB = os.environ.get("RKC_LIBRARY", str(ROOT / "build" / "lib" / "librkc.so"))
RKC = pathlib.Path(LIB).resolve().parent.parent / "bin" / "rkc"
STALE = ROOT / "scripts" / "tuning-stale"
SPEC = ROOT / "python" / "rkc" / "specs" / "layer_norm.mlir"
SHAPE = "x=8192x16384"
H200 = "NVIDIA H200|132|3201000|13000"

pytestmark = pytest.mark.skipif(not RKC.exists(), reason="needs the build's rkc")


def run(*args, cache):
    env = dict(os.environ, RKC_CACHE_DIR=str(cache))
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300,
                          env=env)


def key(cache, *device):
    out = run(RKC, "tune", SPEC, "--print-key", "--dtype", "bf16", "--shape", SHAPE, *device,
              cache=cache)
    assert out.returncode == 0, out.stderr
    return dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())


def test_print_key_names_the_heuristic_for_the_device(tmp_path):
    # LayerNorm bf16 at N = 16384 takes three CTAs an SM only where memory
    # is fast per SM (the H200's bandwidth), not on the H100's.
    fast = key(tmp_path, "--sms", "132", "--dram-gbs", "4917")["heuristic"]
    slow = key(tmp_path, "--sms", "132", "--dram-gbs", "3352")["heuristic"]
    assert "staging=async" in fast and "min_blocks=3" in fast.split(","), fast
    assert fast != slow and "min_blocks=3" not in slow, slow
    # A column kernel's heuristic is given in the override syntax its rows use.
    spec = ROOT / "examples" / "gemv_w4a16.mlir"
    out = run(RKC, "tune", spec, "--print-key", "--dtype", "f16", "--shape", "x=1x4096",
              "--shape", "q=4096x4096", "--shape", "scales=32x4096", cache=tmp_path)
    assert out.returncode == 0, out.stderr
    heur = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())["heuristic"]
    assert "kwarps=" in heur or "mma=0" in heur, heur
    again = run(RKC, "compile", spec, "--dtype", "f16", "--shape", "x=1x4096", "--shape",
                "q=4096x4096", "--shape", "scales=32x4096", "--schedule", heur, "--emit", "cuda",
                "-o", tmp_path / "g.cu", cache=tmp_path)
    assert again.returncode == 0, again.stderr
    # A device the planner cannot take is refused.
    bad = run(RKC, "tune", SPEC, "--print-key", "--dtype", "bf16", "--shape", SHAPE,
              "--dram-gbs", "0", cache=tmp_path)
    assert bad.returncode != 0 and "--dram-gbs needs" in bad.stderr
    # Tuning plans for the GPU it times on: a device given there is refused.
    tune = run(RKC, "tune", SPEC, "--dtype", "bf16", "--shape", SHAPE, "--sms", "132",
               cache=tmp_path)
    assert tune.returncode != 0 and "describe a device for --print-key" in tune.stderr


def row(fields, schedule, **extra):
    r = {"M": 8192, "N": 16384, "arch": "sm_90a", "codegen": int(fields["codegen"]),
         "dtype": "bf16", "format": 1, "gpu": H200, "heuristic_ms": 0.14,
         "key": fields["key"], "ms": 0.14, "name": "rkc_layer_norm", "nvrtc": "13.0",
         "op": fields["op"], "rkc": "0.1.0", "roofline_tbps": 4.2, "schedule": schedule,
         "shapes": SHAPE, "tbps": 3.9}
    r.update(extra)
    return r


def test_stale_rows_are_listed(tmp_path):
    f = key(tmp_path, "--sms", "132", "--dram-gbs", "4917")
    now = f["heuristic"]
    old = "threads=256,values=64,vector=8,rows=1,cluster=1,staging=registers,unroll=8,min_blocks=2"
    db = tmp_path / "db.jsonl"
    rows = [row(f, now, heuristic=now, dram_gbs=4917),   # tuned against today's heuristic
            row(f, old, heuristic=old, dram_gbs=4917),   # the heuristic has moved since
            row(f, old)]                                 # predates the fields
    db.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = run(sys.executable, STALE, "--rkc", RKC, db, cache=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "2 rows checked, 1 stale, 1 predate the heuristic field" in r.stdout, r.stdout
    assert "heuristic now " + now in r.stdout and "tuned against " + old in r.stdout
    strict = run(sys.executable, STALE, "--rkc", RKC, "--strict", db, cache=tmp_path)
    assert strict.returncode == 1, strict.stdout
    # Planned for the H100's bandwidth, today's H200 heuristic is the stale one.
    rows = [row(f, now, heuristic=now, dram_gbs=3352)]
    db.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = run(sys.executable, STALE, "--rkc", RKC, db, cache=tmp_path)
    assert "1 rows checked, 1 stale" in r.stdout, r.stdout


def test_rows_keep_their_heuristic_through_import_and_export(tmp_path):
    f = key(tmp_path)
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(row(f, f["heuristic"], heuristic=f["heuristic"],
                                  dram_gbs=4917)) + "\n")
    assert run(RKC, "tune", "--import", src, cache=tmp_path).returncode == 0
    out = tmp_path / "out.jsonl"
    assert run(RKC, "tune", "--export", out, cache=tmp_path).returncode == 0
    got = [json.loads(line) for line in out.read_text().splitlines() if f["key"] in line]
    assert got and got[-1]["heuristic"] == f["heuristic"] and got[-1]["dram_gbs"] == 4917
