"""scripts/tuning-restamp without a GPU: rows whose PTX is the same under the
old and the new build take the new code revision, rows whose PTX differs
stay stale and are listed, unknown specs stop the script without writing.

The "old build" is a wrapper around the build's rkc that reports the
previous codegen revision and, for one schedule, emits different PTX (as
an emitter change would)."""
import json
import os
import pathlib
import stat
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB = os.environ.get("RKC_LIBRARY", str(ROOT / "build" / "lib" / "librkc.so"))
RKC = pathlib.Path(LIB).resolve().parent.parent / "bin" / "rkc"
RESTAMP = ROOT / "scripts" / "tuning-restamp"
SPEC = ROOT / "python" / "rkc" / "specs" / "softmax.mlir"

pytestmark = pytest.mark.skipif(not RKC.exists(), reason="needs the build's rkc")

CHANGED = "threads=256,values=16,vector=8,rows=1,cluster=1,staging=registers,unroll=2,min_blocks=0"
SAME = "threads=128,values=32,vector=8,rows=1,cluster=1,staging=registers,unroll=4,min_blocks=0"


def run(*args, env=None):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300,
                          env=env)


def key_fields(rkc, shape, cache):
    env = dict(os.environ, RKC_CACHE_DIR=str(cache))
    out = run(rkc, "tune", SPEC, "--print-key", "--dtype", "bf16", "--shape", shape, env=env)
    assert out.returncode == 0, out.stderr
    return dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())


def old_build(tmp_path, revision):
    """A wrapper: codegen revision - 1, and other PTX for the CHANGED schedule."""
    w = tmp_path / "old-rkc"
    w.write_text(f"""#!/usr/bin/env python3
import subprocess, sys
args = sys.argv[1:]
r = subprocess.run([{str(RKC)!r}] + args, capture_output=True, text=True)
out = r.stdout.replace("codegen {revision}", "codegen {revision - 1}")
sys.stdout.write(out)
sys.stderr.write(r.stderr)
if r.returncode == 0 and "compile" in args and {CHANGED!r} in args:
    with open(args[args.index("-o") + 1], "a") as f:
        f.write("// another emitter\\n")
sys.exit(r.returncode)
""")
    w.chmod(w.stat().st_mode | stat.S_IEXEC)
    return w


def row(key_info, shape, schedule, codegen):
    return {"M": int(shape.split("=")[1].split("x")[0]), "N": int(shape.split("x")[-1]),
            "arch": "sm_90a", "codegen": codegen, "dtype": "bf16", "format": 1,
            "gpu": "NVIDIA H100 80GB HBM3|132|2619000|13000", "heuristic_ms": 0.2,
            "key": key_info["key"], "ms": 0.1, "name": "rkc_softmax", "nvrtc": "13.0",
            "op": key_info["op"], "rkc": "0.1.0", "roofline_tbps": 3.0, "schedule": schedule,
            "shapes": shape, "tbps": 2.9}


def test_rows_with_the_same_ptx_take_the_new_revision(tmp_path):
    cache = tmp_path / "cache"
    new = key_fields(RKC, "x=64x4096", cache)
    revision = int(new["codegen"])
    old = old_build(tmp_path, revision)
    db = tmp_path / "db.jsonl"
    rows = [row(new, "x=64x4096", SAME, revision - 1),
            row(new, "x=64x4096", CHANGED, revision - 1),
            row(new, "x=64x4096", SAME, revision - 2)]  # older still: left alone
    db.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    r = run(sys.executable, RESTAMP, old, RKC, db, "-o", out,
            env=dict(os.environ, RKC_CACHE_DIR=str(cache)))
    assert r.returncode == 0, r.stderr
    assert "1 rows stamped (same PTX), 1 changed" in r.stdout, r.stdout
    assert CHANGED in r.stdout
    got = [json.loads(l) for l in out.read_text().splitlines()]
    assert [g["codegen"] for g in got] == [revision, revision - 1, revision - 2]
    assert [g["schedule"] for g in got] == [SAME, CHANGED, SAME]


def test_same_revision_and_unknown_specs_are_refused(tmp_path):
    cache = tmp_path / "cache"
    new = key_fields(RKC, "x=64x4096", cache)
    revision = int(new["codegen"])
    db = tmp_path / "db.jsonl"
    db.write_text(json.dumps(row(new, "x=64x4096", SAME, revision - 1)) + "\n")
    env = dict(os.environ, RKC_CACHE_DIR=str(cache))
    r = run(sys.executable, RESTAMP, RKC, RKC, db, env=env)
    assert r.returncode != 0 and "both builds are codegen revision" in r.stderr
    # A row whose spec is not in the repo: nothing is written.
    bad = row(new, "x=64x4096", SAME, revision - 1)
    bad["op"] = "0" * 32
    db.write_text(json.dumps(bad) + "\n")
    before = db.read_text()
    r = run(sys.executable, RESTAMP, old_build(tmp_path, revision), RKC, db, env=env)
    assert r.returncode == 1 and "no spec with op hash" in r.stderr, r.stderr
    assert db.read_text() == before


def test_rows_of_generated_quantized_specs_are_found(tmp_path):
    """A quantized GEMV row (the binding's generated spec, not a file of the
    repo) is found by its kernel name and op hash and stamped."""
    sys.path.insert(0, str(ROOT / "python"))
    from rkc import _spec
    spec = tmp_path / "w8.mlir"
    spec.write_text(_spec.quant_spec_text("gemv", 8, 128, True, "f16", 0, False))
    shapes = "x=1x4096;q=4096x4096;scales=32x4096"
    cache = tmp_path / "cache"
    out = run(RKC, "tune", spec, "--print-key", "--dtype", "f16", "--shape", "x=1x4096",
              "--shape", "q=4096x4096", "--shape", "scales=32x4096",
              env=dict(os.environ, RKC_CACHE_DIR=str(cache)))
    assert out.returncode == 0, out.stderr
    key = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
    revision = int(key["codegen"])
    r = row(key, "x=1x4096", "vector=2,threads=512,cluster=1,unroll=2,mma=1,kwarps=16",
            revision - 1)
    r.update(name="rkc_gemv_w8a16_g128", dtype="f16", shapes=shapes, N=4096)
    db = tmp_path / "db.jsonl"
    db.write_text(json.dumps(r) + "\n")
    res = run(sys.executable, RESTAMP, old_build(tmp_path, revision), RKC, db,
              env=dict(os.environ, RKC_CACHE_DIR=str(cache)))
    assert res.returncode == 0, res.stderr
    assert "1 rows stamped (same PTX), 0 changed" in res.stdout, res.stdout
    assert json.loads(db.read_text())["codegen"] == revision
