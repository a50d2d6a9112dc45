"""The tuning database without a GPU: import/export round trip, rejected
rows, exact and nearest-shape lookups through the C API, key sensitivity,
corruption recovery and concurrent writers.

Uses the rkc driver and librkc of the build (RKC_LIBRARY, as ctest sets it).
On a machine without a GPU the machine signature is "no-gpu|nvrtc ...|rkc
...", which is what the keys below are computed for.
"""
import ctypes
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB = os.environ.get("RKC_LIBRARY", str(ROOT / "build" / "lib" / "librkc.so"))
RKC = pathlib.Path(LIB).resolve().parent.parent / "bin" / "rkc"
SPEC = ROOT / "examples" / "softmax.mlir"

pytestmark = pytest.mark.skipif(not RKC.exists() or not pathlib.Path(LIB).exists(),
                                reason="needs the build's rkc and librkc.so")


def rkc(*args, cache, check=True):
    env = dict(os.environ, RKC_CACHE_DIR=str(cache))
    env.pop("RKC_DISABLE_TUNING_DB", None)
    r = subprocess.run([str(RKC), *map(str, args)], env=env, capture_output=True, text=True,
                       timeout=120)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def print_key(cache, shape, dtype="bf16", spec=SPEC):
    out = rkc("tune", spec, "--print-key", "--dtype", dtype, "--shape", shape, cache=cache).stdout
    return dict(line.split(" ", 1) for line in out.strip().splitlines())


OP = None  # the spec signature of SPEC (set by key_and_machine)


CODEGEN = None  # the library's kCodegenRevision (set by key_and_machine)


def key_and_machine(cache, shape, dtype="bf16"):
    global OP, CODEGEN
    fields = print_key(cache, shape, dtype)
    OP = fields["op"]
    CODEGEN = int(fields["codegen"])
    return fields["key"], fields["machine"]


def test_key_follows_the_spec_meaning_not_its_spelling(tmp_path):
    """Comments, layout and float spelling do not change the op signature or
    the key (the Python binding's specs and examples/ share rows); a
    different attribute value does."""
    cache = tmp_path / "cache"
    rms = (ROOT / "examples" / "rms_norm.mlir").read_text()
    respelled = "// another comment\n" + rms.replace("1.0e-6", "1.0e-06").replace("\n  %y", "\n\n    %y")
    other = rms.replace("1.0e-6", "1.0e-5")
    paths = []
    for i, text in enumerate((rms, respelled, other)):
        p = tmp_path / ("rms%d.mlir" % i)
        p.write_text(text)
        paths.append(p)
    f = [print_key(cache, "x=8x4096", spec=p) for p in paths]
    assert f[0]["op"] == f[1]["op"] and f[0]["key"] == f[1]["key"]
    assert f[2]["op"] != f[0]["op"] and f[2]["key"] != f[0]["key"]
    # The binding's shipped spec is the same op as the example.
    shipped = ROOT / "python" / "rkc" / "specs" / "rms_norm.mlir"
    assert print_key(cache, "x=8x4096", spec=shipped)["op"] == f[0]["op"]


def row(key, machine, shape, n, schedule, dtype="bf16", version=None, codegen=None, m=64):
    gpu = machine.split("|nvrtc ")[0]
    nvrtc = machine.split("|nvrtc ")[1].split("|rkc ")[0]
    rkcv = version or machine.split("|rkc ")[1]
    r = {"format": 1, "key": key, "op": OP, "name": "rkc_softmax", "dtype": dtype,
         "shapes": shape, "M": m, "N": n, "gpu": gpu, "nvrtc": nvrtc, "rkc": rkcv,
         "arch": "sm_90a", "schedule": schedule, "ms": 0.01, "tbps": 1.0,
         "heuristic_ms": 0.02, "roofline_tbps": 3.0}
    if codegen != "absent":
        r["codegen"] = CODEGEN if codegen is None else codegen
    return r


def plan_of(cache, shape, dtype="bf16"):
    """Compiles through the C API in a fresh process (the database is read
    once per process) and returns the kernel's plan."""
    code = f"""
import ctypes, sys
lib = ctypes.CDLL({LIB!r})
lib.rkcKernelPlan.restype = ctypes.c_char_p
lib.rkcGetLastError.restype = ctypes.c_char_p
k = ctypes.c_void_p()
s = lib.rkcKernelCompile(open({str(SPEC)!r}, 'rb').read(), b'softmax.mlir', {shape!r}.encode(),
                         {dtype!r}.encode(), None, None, ctypes.byref(k))
if s != 0:
    sys.exit(lib.rkcGetLastError().decode())
print(lib.rkcKernelPlan(k).decode())
"""
    env = dict(os.environ, RKC_CACHE_DIR=str(cache))
    env.pop("RKC_DISABLE_TUNING_DB", None)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr + r.stdout
    return r.stdout.strip(), r.stderr


TUNED = "threads=64,values=64,vector=8,rows=2,cluster=1,staging=registers,unroll=8,min_blocks=0,evict=normal"


def test_import_export_round_trip_and_rejected_rows(tmp_path):
    cache = tmp_path / "cache"
    key, machine = key_and_machine(cache, "x=64x4096")
    good = [row(key, machine, "x=64x4096", 4096, TUNED),
            row("k2", machine, "x=64x8192", 8192, TUNED)]
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in good) + "\n"
                   + "{not json\n"
                   + json.dumps(row("k3", machine, "x=1x1", 1, TUNED, version="0.0.0-other")) + "\n")
    r = rkc("tune", "--import", src, cache=cache)
    assert "imported 2 entries" in r.stdout
    assert "ignored 1 malformed and 1 foreign-version rows" in r.stderr
    report = rkc("tune", "--report", cache=cache).stdout
    # (the built-in H100 rows have other shapes)
    assert sum(("x=64x4096 " in l or "x=64x8192 " in l) for l in report.splitlines()) == 2
    out = tmp_path / "out.jsonl"
    rkc("tune", "--export", out, cache=cache)
    # The export holds the built-in rows (data/tuning) and the imported ones.
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    keys = {r["key"] for r in good}
    mine = [(r["key"], r["schedule"]) for r in rows if r["key"] in keys]
    assert mine == [(r["key"], r["schedule"]) for r in good]


def test_rows_whose_content_rkc_tune_cannot_write_are_malformed(tmp_path):
    """Rows of the right JSON shape with numbers or a schedule no tuning run
    writes (an edited or corrupted file) are malformed, not imported; a file
    with nothing importable is an error."""
    cache = tmp_path / "cache"
    key, machine = key_and_machine(cache, "x=64x4096")
    good = row(key, machine, "x=64x4096", 4096, TUNED)
    bad = []
    for change in [dict(M=0), dict(M=-1), dict(M=2 ** 70), dict(M=1.5), dict(N=0), dict(ms=-1),
                   dict(ms=0), dict(heuristic_ms=float("inf")), dict(schedule="values=0"),
                   dict(schedule="xxx"), dict(dtype="f64"), dict(arch="10")]:
        r = dict(good)
        r.update(change)
        bad.append(json.dumps(r))
    src = tmp_path / "bad.jsonl"
    src.write_text("\n".join(bad) + "\n")
    r = rkc("tune", "--import", src, cache=cache, check=False)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "ignored %d malformed" % len(bad) in r.stderr
    assert "no row of" in r.stderr and "can be imported" in r.stderr
    src.write_text("\n".join(bad + [json.dumps(good)]) + "\n")
    r = rkc("tune", "--import", src, cache=cache)
    assert "imported 1 entries" in r.stdout


def test_exact_entry_is_used_and_other_machine_is_not(tmp_path):
    cache = tmp_path / "cache"
    heuristic, _ = plan_of(cache, "x=64x4096")
    assert heuristic != TUNED
    key, machine = key_and_machine(cache, "x=64x4096")
    # A row of another GPU (another key and gpu field) is not used.
    other = row("0" * 32, machine.replace("no-gpu", "NVIDIA H100 80GB HBM3|132|2619000|13000"),
                "x=64x4096", 4096, TUNED)
    (tmp_path / "other.jsonl").write_text(json.dumps(other) + "\n")
    rkc("tune", "--import", tmp_path / "other.jsonl", cache=cache)
    assert plan_of(cache, "x=64x4096")[0] == heuristic
    # This machine's exact row is.
    (tmp_path / "mine.jsonl").write_text(json.dumps(row(key, machine, "x=64x4096", 4096, TUNED)) + "\n")
    rkc("tune", "--import", tmp_path / "mine.jsonl", cache=cache)
    assert plan_of(cache, "x=64x4096")[0] == TUNED
    # Another dtype is another key.
    assert plan_of(cache, "x=64x4096", dtype="f32")[0] != TUNED


def test_rows_of_other_generated_code_are_stale(tmp_path):
    """A row timed with another kCodegenRevision (or before the field
    existed) chose its schedule for other code: never used, reported."""
    cache = tmp_path / "cache"
    heuristic, _ = plan_of(cache, "x=64x4096")
    key, machine = key_and_machine(cache, "x=64x4096")
    stale = [row(key, machine, "x=64x4096", 4096, TUNED, codegen=CODEGEN - 1),
             row(key, machine, "x=64x4096", 4096, TUNED, codegen="absent")]
    src = tmp_path / "stale.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in stale))
    r = rkc("tune", "--import", src, cache=cache)
    assert "imported 0 entries" in r.stdout
    assert "ignored 2 rows timed with other generated code" in r.stderr
    assert plan_of(cache, "x=64x4096")[0] == heuristic
    # Written to the user database directly, they are skipped when it loads.
    (cache / "tuning.jsonl").write_text(src.read_text())
    plan, err = plan_of(cache, "x=64x4096")
    assert plan == heuristic
    assert "ignored 2 rows timed with other generated code" in err
    # The same row with this revision is used.
    (cache / "tuning.jsonl").write_text(json.dumps(row(key, machine, "x=64x4096", 4096, TUNED)) + "\n")
    assert plan_of(cache, "x=64x4096")[0] == TUNED


def test_nearest_shape_bucket(tmp_path):
    cache = tmp_path / "cache"
    key, machine = key_and_machine(cache, "x=64x4096")
    (tmp_path / "db.jsonl").write_text(json.dumps(row(key, machine, "x=64x4096", 4096, TUNED)) + "\n")
    rkc("tune", "--import", tmp_path / "db.jsonl", cache=cache)
    # N = 8192 is within a factor of two of the tuned 4096: its layout
    # choices are used and values follow from the new N; N = 65536 is not.
    near, _ = plan_of(cache, "x=64x8192")
    assert near.startswith("threads=64,values=128,vector=8,rows=2,cluster=1")
    far, _ = plan_of(cache, "x=64x65536")
    assert not far.startswith("threads=64,")
    # An odd N near the tuned one keeps the layout and the 8-wide vectors:
    # its rows are shifted (read from the aligned address before each).
    odd, _ = plan_of(cache, "x=64x4095")
    assert odd.startswith("threads=64,") and ",vector=8," in odd


def test_streamed_bucket_row_carries_to_odd_n(tmp_path):
    # A streamed row (read once, 16-byte accesses) carries over to an N
    # near it, odd ones included: shifted rows keep the 16-byte accesses
    # that the streamed plan was chosen for.
    cache = tmp_path / "cache"
    key, machine = key_and_machine(cache, "x=64x4096")
    streamed = "threads=512,values=8,vector=8,rows=1,cluster=1,staging=stream,unroll=1,min_blocks=0"
    (tmp_path / "db.jsonl").write_text(json.dumps(row(key, machine, "x=64x4096", 4096, streamed)) + "\n")
    rkc("tune", "--import", tmp_path / "db.jsonl", cache=cache)
    near, _ = plan_of(cache, "x=64x8192")
    assert near.startswith("threads=512,") and "staging=stream" in near
    odd, _ = plan_of(cache, "x=64x4095")
    assert odd.startswith("threads=512,") and "vector=8" in odd and "staging=stream" in odd


def test_bucket_row_recomputes_kept_passes(tmp_path):
    # A streamed row tuned with kept passes (keep=2 of N = 8192's two
    # passes) carries its layout to N = 4096 (one pass): the planner
    # recomputes keep there instead of the row failing to plan.
    cache = tmp_path / "cache"
    key, machine = key_and_machine(cache, "x=64x8192")
    streamed = ("threads=512,values=8,vector=8,rows=1,cluster=1,staging=stream,unroll=1,"
                "min_blocks=0,keep=2")
    (tmp_path / "db.jsonl").write_text(json.dumps(row(key, machine, "x=64x8192", 8192, streamed)) + "\n")
    rkc("tune", "--import", tmp_path / "db.jsonl", cache=cache)
    assert plan_of(cache, "x=64x8192")[0] == streamed
    near, _ = plan_of(cache, "x=64x4096")
    assert near.startswith("threads=512,values=8,") and "staging=stream" in near, near
    assert "keep=2" not in near, near


def test_bucket_row_keeps_its_grid_regime(tmp_path):
    # A streamed row tuned at 512 rows with one CTA per row carries to 512
    # rows of a nearby N, not to 4 rows of it: there its schedule would
    # run 4 CTAs, where the planner spreads each row over many (the
    # heuristic's plan is used, as with no database).
    cache = tmp_path / "cache"
    key, machine = key_and_machine(cache, "x=512x262144")
    streamed = "threads=512,values=32,vector=8,rows=1,cluster=1,staging=stream,unroll=4,min_blocks=0"
    (tmp_path / "db.jsonl").write_text(
        json.dumps(row(key, machine, "x=512x262144", 262144, streamed, m=512)) + "\n")
    rkc("tune", "--import", tmp_path / "db.jsonl", cache=cache)
    many, _ = plan_of(cache, "x=512x300000")
    assert many.startswith("threads=512,") and "cluster=1,staging=stream" in many, many
    assert "split=" not in many, many  # the row's cluster = 1: one CTA per row
    few, _ = plan_of(cache, "x=4x300000")
    heuristic, _ = plan_of(tmp_path / "empty", "x=4x300000")
    assert few == heuristic, (few, heuristic)
    assert "split=" in few, few  # (the carried schedule's cluster = 1 cannot split)
    # 264 rows of the same N: 264 CTAs, the tuned rows' two per SM (132
    # SMs planned for without a GPU): carried; 263 are not.
    carried = plan_of(cache, "x=264x300000")[0]
    assert carried.startswith("threads=512,") and "split=" not in carried, carried
    kept = plan_of(cache, "x=263x300000")[0]
    assert kept == plan_of(tmp_path / "empty", "x=263x300000")[0] and "split=" in kept, kept


def test_corrupt_database_is_ignored_with_a_warning(tmp_path):
    cache = tmp_path / "cache"
    heuristic, _ = plan_of(cache, "x=64x4096")
    (cache / "tuning.jsonl").write_bytes(b"\x00\xff\x13 garbage\n{\"format\": 1}\n")
    plan, err = plan_of(cache, "x=64x4096")
    assert plan == heuristic
    assert "tuning database" in err and "ignored 2 malformed" in err


def test_concurrent_writers_leave_whole_rows(tmp_path):
    cache = tmp_path / "cache"
    key, machine = key_and_machine(cache, "x=64x4096")
    n = 40
    files = []
    for w in range(2):
        f = tmp_path / f"w{w}.jsonl"
        f.write_text(json.dumps(row(f"{w:032d}", machine, "x=64x4096", 4096, TUNED)) + "\n")
        files.append(f)
    env = dict(os.environ, RKC_CACHE_DIR=str(cache))
    procs = [subprocess.Popen(["bash", "-c", f"for i in $(seq {n}); do {RKC} tune --import {f} >/dev/null 2>&1; done"],
                              env=env) for f in files]
    for p in procs:
        assert p.wait(timeout=300) == 0
    lines = (cache / "tuning.jsonl").read_text().splitlines()
    assert len(lines) == 2 * n
    for l in lines:
        assert json.loads(l)["schedule"] == TUNED


def test_column_rows_match_exactly_only(tmp_path):
    """A GEMV row (a column schedule, which names mma) applies to its exact
    request only: a request of another N within a factor of two gets the
    heuristic, not the row's layout (no shape bucket for column kernels)."""
    cache = tmp_path / "cache"
    spec = ROOT / "examples" / "gemv_w4a16.mlir"

    def fields(n):
        out = rkc("tune", spec, "--print-key", "--dtype", "f16", "--shape", "x=1x4096",
                  "--shape", "q=4096x%d" % n, "--shape", "scales=32x%d" % n, cache=cache).stdout
        return dict(line.split(" ", 1) for line in out.strip().splitlines())

    f = fields(4096)
    schedule = "vector=1,threads=128,cluster=1,unroll=8,mma=1,kwarps=4"
    r = row(f["key"], f["machine"], "x=1x4096;q=4096x4096;scales=32x4096", 4096, schedule,
            dtype="f16")
    r.update(op=f["op"], name="rkc_gemv_w4a16", M=1, codegen=int(f["codegen"]))
    (tmp_path / "db.jsonl").write_text(json.dumps(r) + "\n")
    rkc("tune", "--import", tmp_path / "db.jsonl", cache=cache)
    assert fields(4096)["lookup"] == schedule
    assert fields(6144)["lookup"] == "miss"
