"""bench/report.py's in-process cache-hit rows: a run that timed the C API's
hit (cache_hit_lib) and the Python Kernel object (cache_hit_kernel_obj) gets
both labels; an older run, whose cache_hit_lib records timed rkc.Kernel,
keeps that meaning instead of being shown as the C API's figure."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import report  # noqa: E402


def rec(what, run, us, **extra):
    r = {"kind": "latency", "what": what, "op": "rms_norm", "impl": "rkc", "dtype": "bf16",
         "M": 32768, "N": 4096, "us": us, "ms": us * 1e-3, "run_id": run, "error": None}
    r.update(extra)
    return r


def test_old_and_new_runs_are_told_apart():
    old = rec("cache_hit_lib", "old", 42.0)
    new_lib = rec("cache_hit_lib", "new", 2.0)
    new_obj = rec("cache_hit_kernel_obj", "new", 30.0)
    tagged = rec("cache_hit_lib", "other", 1.5, path="rkcKernelCompile")
    what = report.hit_kinds([old, new_lib, new_obj, tagged])
    assert what(old) == "cache_hit_kernel_obj"
    assert what(new_lib) == "cache_hit_lib"
    assert what(new_obj) == "cache_hit_kernel_obj"
    assert what(tagged) == "cache_hit_lib"
    assert "rkcKernelCompile" in report.HIT_LABEL[what(new_lib)]
    assert "rkc.Kernel" in report.HIT_LABEL[what(old)]
