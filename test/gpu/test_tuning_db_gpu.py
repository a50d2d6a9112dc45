"""The shipped tuning database is applied transparently on the GPU it was
measured on (issue #5): in a fresh process with the database enabled and an
empty user cache, the Python binding's kernel for each shipped shape has
the row's schedule. Rows measured on another GPU, driver, NVRTC or rkc
version must not apply (the key covers them); they are skipped here with
the reason."""

import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def shipped_rows():
    rows = []
    for path in sorted(glob.glob(os.path.join(REPO, "data", "tuning", "*.jsonl"))):
        with open(path) as f:
            rows += [json.loads(line) for line in f if line.strip()]
    return rows


def rkc_driver():
    """The rkc driver next to the library under test (bin/ beside lib/)."""
    lib = os.environ.get("RKC_LIBRARY", os.path.join(REPO, "build", "lib", "librkc.so"))
    exe = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(lib))), "bin", "rkc")
    if not os.path.exists(exe):
        pytest.skip("no rkc driver next to %s" % lib)
    return exe


def machine_signature(env):
    """GPU|SMs|memory clock|driver, NVRTC and rkc version of this machine, as
    `rkc tune --print-key` reports it, and the library's code revision."""
    exe = rkc_driver()
    out = subprocess.run([exe, "tune", os.path.join(REPO, "examples", "softmax.mlir"),
                          "--print-key", "--dtype", "bf16", "--shape", "x=1x256"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    fields = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
    return fields["machine"], int(fields["codegen"])


def plan_of(schedule):
    """The plan a kernel shows for a row's schedule: a row kernel's is the
    schedule itself; a column kernel's (KSplitPlan::schedule, it names
    mma) reads as KSplitPlan::str (acts=global included)."""
    f = dict(kv.split("=") for kv in schedule.split(","))
    if "mma" not in f:
        return schedule
    warps = int(f["threads"]) // 32
    s = "cols=%s,warps=%d,cluster=%s,unroll=%s" % (f["vector"], warps, f["cluster"], f["unroll"])
    if f["mma"] == "1":
        s += ",mma=1"
        if int(f.get("kwarps", warps)) != warps:
            s += ",kwarps=%s" % f["kwarps"]
        if f.get("acts") == "global":
            s += ",acts=global"
    return s


def test_shipped_rows_apply_here(tmp_path):
    env = dict(os.environ, RKC_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("RKC_DISABLE_TUNING_DB", None)
    env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", "")
    machine, codegen = machine_signature(env)
    rows = [r for r in shipped_rows()
            if "%s|nvrtc %s|rkc %s" % (r["gpu"], r["nvrtc"], r["rkc"]) == machine
            and r.get("codegen", 0) == codegen]
    if not rows:
        pytest.skip("no shipped tuning row was measured on this machine (%s)" % machine)
    code = """
import json, re, sys, torch, rkc
DT = {"bf16": torch.bfloat16, "f32": torch.float32, "f16": torch.float16}
for r in json.loads(sys.stdin.read()):
    op = r["name"][len("rkc_"):]
    m = re.match(r"gemv_w(4|8)a16_g(\\d+)$", op)
    if m:  # the binding's quantized GEMV: x, q, scales
        shapes = dict(s.split("=") for s in r["shapes"].split(";"))
        M, K = map(int, shapes["x"].split("x"))
        N = int(shapes["q"].split("x")[1])
        k = rkc.quant.precompile("gemv", (K, N), DT[r["dtype"]], bits=int(m.group(1)),
                                 group_size=int(m.group(2)), scale_dtype=torch.float16, rows=M)
    else:
        k = rkc.precompile(op, (r["M"], r["N"]), DT[r["dtype"]])
    print(json.dumps([r["key"], k.plan]))
"""
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(rows), env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    plans = dict(json.loads(line) for line in out.stdout.strip().splitlines())
    wrong = ["%s %s %s: plan %s, row %s" % (r["name"], r["dtype"], r["shapes"], plans.get(r["key"]),
                                            r["schedule"])
             for r in rows if plans.get(r["key"]) != plan_of(r["schedule"])]
    assert not wrong, "%d of %d shipped rows not applied:\n%s" % (len(wrong), len(rows),
                                                                  "\n".join(wrong[:10]))


def run_try(tmp_path, spec, dtype, shape, tries):
    """`rkc tune SPEC --try TRIES` with the database off: the report's
    lines (the heuristic's first), stripped, and the whole stdout."""
    env = dict(os.environ, RKC_CACHE_DIR=str(tmp_path / "cache"), RKC_DISABLE_TUNING_DB="1")
    out = subprocess.run([rkc_driver(), "tune", os.path.join(REPO, "examples", spec + ".mlir"),
                          "--dtype", dtype, "--shape", shape, "--try", tries],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [l.strip() for l in out.stdout.splitlines() if l.startswith("  ")]
    assert lines and lines[0].startswith("heuristic") and "TB/s" in lines[0], out.stdout
    return lines, out.stdout


def test_try_measures_given_schedules(tmp_path):
    """`rkc tune --try`: the heuristic and each given schedule measured with
    the tuner's harness (reference check included); an invalid schedule is
    reported as rejected, not measured; nothing is written to the database."""
    lines, text = run_try(tmp_path, "softmax", "bf16", "x=64x4096",
                          "threads=128,cluster=1;threads=256,cluster=1,min_blocks=2;"
                          "threads=2048,cluster=1")
    measured = [l for l in lines[1:] if "TB/s" in l]
    assert len(measured) == 2, text
    assert any("threads=128," in l for l in measured) and \
        any("threads=256," in l and "min_blocks=2" in l for l in measured), text
    assert any("threads=2048" in l and "rejected" in l for l in lines[1:]), text
    assert not (tmp_path / "cache" / "tuning.jsonl").exists()


def test_try_varies_a_streamed_heuristic(tmp_path):
    """`rkc tune --try` where the heuristic streams its rows (N = 1M): a try
    that names no staging is read as the planner reads an override, so
    `min_blocks=0` is the heuristic's streamed plan without the register
    cap (it was rejected as a registers layout of too many values)."""
    lines, text = run_try(tmp_path, "rms_norm", "bf16", "x=4x1048576", "min_blocks=0")
    assert "staging=stream" in lines[0] and "min_blocks=2" in lines[0], text
    tried = [l for l in lines[1:] if l.startswith("try")]
    assert len(tried) == 1 and "TB/s" in tried[0], text
    # Reported as the schedule it resolved to: the heuristic's, uncapped.
    assert "staging=stream" in tried[0] and "min_blocks=0" in tried[0], text


def test_try_takes_an_async_heuristic_staging(tmp_path):
    """`rkc tune --try` where the heuristic stages its cluster rows
    asynchronously (N = 65536): a try that names no staging is staged the
    same way (session 27 measured such tries as registers layouts by
    mistake), and the report shows the schedule it resolved to."""
    lines, text = run_try(tmp_path, "softmax", "bf16", "x=64x65536",
                          "threads=512,values=64,cluster=2;"
                          "threads=512,values=64,cluster=2,staging=registers")
    assert "staging=async" in lines[0], text
    tried = [l for l in lines[1:] if l.startswith("try")]
    assert len(tried) == 2 and all("TB/s" in l for l in tried), text
    assert "threads=512," in tried[0] and "staging=async" in tried[0], text
    assert "staging=registers" in tried[1], text


def test_try_varies_the_heuristic(tmp_path):
    """`rkc tune --try` fills the fields a try leaves unset from the
    heuristic's schedule: `min_blocks=2` alone is the heuristic's cluster
    layout with that launch bound (it was planned from the search's
    defaults, one CTA of 256 threads a row, and rejected as too many values
    a thread), and a try that names threads takes no min_blocks from it."""
    lines, text = run_try(tmp_path, "softmax", "bf16", "x=4096x65536",
                          "min_blocks=2;threads=512")
    fields = lambda l: dict(kv.split("=") for kv in l.split()[-1].split(","))
    heur = fields(lines[0])
    assert int(heur["cluster"]) > 1, text
    tried = [l for l in lines[1:] if l.startswith("try")]
    assert len(tried) == 2 and all("TB/s" in l for l in tried), text
    assert fields(tried[0]) == dict(heur, min_blocks="2"), text
    moved = fields(tried[1])
    assert moved["threads"] == "512" and moved["cluster"] == heur["cluster"], text
    assert moved["min_blocks"] == "0" and moved["staging"] == heur["staging"], text


def test_try_keeps_a_named_prefetch(tmp_path):
    """`rkc tune --try` honours `prefetch` (the search's layouts take the
    planner's rule, and a try's `prefetch=1` used to be dropped silently):
    many rows of LayerNorm, where the heuristic loads the weight and bias
    after the reductions, measured with them loaded with the row, and
    reported so."""
    lines, text = run_try(tmp_path, "layer_norm", "bf16", "x=8192x16384",
                          "threads=512,values=32,staging=async,prefetch=1;"
                          "threads=512,values=32,staging=async,prefetch=0")
    assert "prefetch=1" not in lines[0], text
    tried = [l for l in lines[1:] if l.startswith("try")]
    assert len(tried) == 2 and all("TB/s" in l for l in tried), text
    assert "prefetch=1" in tried[0] and "prefetch=1" not in tried[1], text


def test_try_keeps_named_values_and_unroll(tmp_path):
    """`rkc tune --try` honours `unroll` and `values` (the search derives
    both from the threads, and a try's `unroll=1` used to be timed as the
    heuristic's unroll silently, session 40): each try measured as the
    schedule it names, one whose values the layout cannot take rejected
    with the planner's reason."""
    lines, text = run_try(tmp_path, "rms_norm", "f32", "x=4096x4096",
                          "unroll=1;threads=512,values=8,unroll=2;threads=256,values=6")
    fields = lambda l: dict(kv.split("=") for kv in l.split()[-1].split(","))
    heur = fields(lines[0])
    assert heur["unroll"] != "1", text
    tried = [l for l in lines[1:] if l.startswith("try")]
    measured = [fields(l) for l in tried if "TB/s" in l]
    rejected = [l for l in tried if "rejected" in l]
    assert len(measured) == 2 and len(rejected) == 1, text
    assert dict(heur, unroll="1") in measured, text
    assert any((m["threads"], m["values"], m["unroll"]) == ("512", "8", "2")
               for m in measured), text
    assert "values=6" in rejected[0] and "multiple of vector" in rejected[0], text


def test_try_times_both_l2_hints(tmp_path):
    """`rkc tune --try` with `evict=normal` / `evict=last` (planner rule 8):
    each measured (reference-checked) as the same layout with the named
    hint; a streamed row's try with evict=last rejected with the planner's
    reason (session 41)."""
    lines, text = run_try(tmp_path, "rms_norm", "bf16", "x=16384x4096",
                          "evict=normal;evict=last")
    fields = lambda l: dict(kv.split("=") for kv in l.split()[-1].split(","))
    heur = fields(lines[0])
    assert heur["evict"] == "last", text  # the rule's shape
    measured = [fields(l) for l in lines[1:] if l.startswith("try") and "TB/s" in l]
    assert dict(heur, evict="normal") in measured and heur in measured, text
    lines, text = run_try(tmp_path, "rms_norm", "bf16", "x=128x1048576", "evict=last")
    tried = [l for l in lines[1:] if l.startswith("try")]
    assert len(tried) == 1 and "rejected" in tried[0] and "one sweep" in tried[0], text


def test_tune_times_the_best_with_the_other_l2_hint(tmp_path):
    """The row search's last step times its best schedule with the rows'
    L2 hint the other way (`rkc tune --candidates`: both hints of one
    layout among the timed candidates, no wrong result)."""
    env = dict(os.environ, RKC_CACHE_DIR=str(tmp_path / "cache"), RKC_DISABLE_TUNING_DB="1")
    out = subprocess.run([rkc_driver(), "tune", os.path.join(REPO, "examples", "softmax.mlir"),
                          "--dtype", "bf16", "--shape", "x=16384x4096", "--budget-ms", "3000",
                          "--candidates"], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "0 wrong" in out.stdout, out.stdout + out.stderr
    timed = [l.split()[-1] for l in out.stdout.splitlines()
             if l.strip().startswith(("heuristic", "candidate")) and "TB/s" in l]
    layouts = {}
    for sched in timed:
        f = dict(kv.split("=") for kv in sched.split(","))
        layouts.setdefault(tuple(sorted((k, v) for k, v in f.items() if k != "evict")),
                           set()).add(f.get("evict"))
    assert any(h == {"last", "normal"} for h in layouts.values()), out.stdout


def test_try_rejects_kept_passes_over_a_registers_heuristic(tmp_path):
    """`rkc tune --try keep=1` where the heuristic holds its rows in
    registers: rejected with the planner's reason (kept passes belong to
    streamed rows), not timed as the heuristic (session 40: it was)."""
    lines, text = run_try(tmp_path, "rms_norm", "f32", "x=4096x4096", "keep=1")
    assert "staging=registers" in lines[0], text
    tried = [l for l in lines[1:] if l.startswith("try")]
    assert len(tried) == 1 and "rejected" in tried[0] and "keep" in tried[0], text
    assert "TB/s" not in tried[0], text
