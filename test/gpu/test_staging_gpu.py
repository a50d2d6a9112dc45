"""staging = async on the GPU.

An async plan holds the row in registers exactly like a registers plan of
the same layout; only the way the row gets there differs (cp.async copies
into thread-private shared-memory slots, then 128-bit shared loads). So the
two kernels must agree bit for bit on the same inputs, and both must match
the float64 reference. The cases cover the heuristic's registers layouts
(for rows the planner would stage, with other values per thread), rows with
two [M, N] inputs, partial rows (N not a multiple of the layout), several
rows per CTA, sub-warp rows and rows past M in the last CTA.
"""

import os
import re
import zlib

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import rkc  # noqa: E402
from conftest import gpu_unavailable  # noqa: E402

SPECS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "python", "rkc", "specs")
DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
TOL = {"f32": 1e-5, "bf16": 8e-3, "f16": 8e-3}

# op, dtype, M, N, layout fields of the schedule ("" = the heuristic's).
CASES = [
    ("softmax", "bf16", 3, 65536, ""),
    ("softmax", "f16", 2, 262144, ""),
    ("softmax", "f32", 3, 65536, ""),
    ("log_softmax", "bf16", 5, 131072, ""),
    ("layer_norm", "bf16", 3, 65536, ""),
    ("layer_norm", "f32", 2, 262144, ""),
    ("cross_entropy", "bf16", 4, 262144, ""),
    ("cross_entropy", "f32", 33, 50000, "cluster=2"),
    ("rms_norm", "bf16", 3, 65536, ""),
    ("rms_norm_residual", "bf16", 3, 32768, "threads=256,cluster=4"),
    ("rms_norm_residual", "f32", 7, 4096, ""),
    ("softmax", "bf16", 4097, 1000, ""),
    ("rms_norm", "f32", 4097, 64, ""),
    ("softmax", "bf16", 130, 4096, "threads=128,rows=2"),
    ("layer_norm", "f16", 129, 16384, ""),
    # One CTA of 512 threads x 64 values at the registers' edge (the
    # planner's LayerNorm 16-bit plan at N = 32768: registers at a few
    # rows, async over many; docs/planner.md rule 4).
    ("layer_norm", "bf16", 16, 32768, "threads=512,values=64,vector=8,rows=1,cluster=1"),
    ("layer_norm", "f16", 512, 32768, "threads=512,values=64,vector=8,rows=1,cluster=1"),
]


def _skip():
    reason = gpu_unavailable()
    if reason:
        pytest.skip(reason)


def _spec(op):
    with open(os.path.join(SPECS, op + ".mlir")) as f:
        return f.read()


def _inputs(op, dt, M, N, gen):
    d = DT[dt]

    def randn(*shape, scale=1.0):
        return (torch.randn(shape, generator=gen, device="cuda") * scale).to(d)

    if op in ("softmax", "log_softmax"):
        return [randn(M, N, scale=3.0)]
    if op == "cross_entropy":
        t = torch.randint(0, N, (M,), generator=gen, device="cuda")
        t[::5] = -100
        return [randn(M, N, scale=3.0), t]
    if op == "layer_norm":
        return [randn(M, N, scale=2.0) + 0.5, randn(N), randn(N)]
    if op == "rms_norm":
        return [randn(M, N, scale=2.0), randn(N)]
    if op == "rms_norm_residual":
        return [randn(M, N, scale=2.0), randn(N), randn(M, N)]
    raise AssertionError(op)


def _reference(op, ins):
    x = ins[0].double()
    if op == "softmax":
        return [torch.softmax(x, -1)]
    if op == "log_softmax":
        return [torch.log_softmax(x, -1)]
    if op == "cross_entropy":
        t = ins[1]
        loss = F.cross_entropy(x, t, ignore_index=-100, reduction="none")
        return [loss, torch.logsumexp(x, -1)]
    if op == "layer_norm":
        return [F.layer_norm(x, (x.shape[-1],), ins[1].double(), ins[2].double(), 1e-5)]
    if op == "rms_norm":
        return [x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * ins[1].double()]
    if op == "rms_norm_residual":
        h = x + ins[2].double()
        return [h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6) * ins[1].double(), h]
    raise AssertionError(op)


def _registers_layout(text, op, dt, M, N):
    """threads, values, vector, rows and cluster of the registers plan."""
    arg = "logits" if op == "cross_entropy" else "x"
    plan = rkc.compile(text, schedule="staging=registers").kernel(
        "%s=%dx%d" % (arg, M, N), dtype=dt).plan
    fields = dict(kv.split("=") for kv in plan.split(","))
    return ",".join("%s=%s" % (k, fields[k]) for k in ("threads", "values", "vector", "rows", "cluster"))


def _as_list(out):
    return list(out) if isinstance(out, tuple) else [out]


def _read_once_tol(dt):
    """Relative error bound of the f32 results of a read-once row
    (cross-entropy, logsumexp) from dt inputs."""
    return 1e-5 if dt == "f32" else 1e-4


def _tol(op, dt):
    """Relative error bound of op's results from dt inputs."""
    return _read_once_tol(dt) if op == "cross_entropy" else TOL[dt]


def _assert_rel_close(outs, refs, tol, plan):
    """Each output within `tol` of its float64 reference (relative 2-norm)."""
    for i, (o, ref) in enumerate(zip(outs, refs)):
        err = ((o.double() - ref).norm() / ref.norm()).item()
        assert err <= tol, "output %d: relative error %.3e > %.0e (%s)" % (i, err, tol, plan)


def _run_named(tag, op, dt, M, N, sched):
    """Compiles op's shipped spec (`sched`: the schedule, "" for the
    planner's) and runs it on seeded [M, N] inputs; (plan, inputs, outputs)."""
    gen = _generator(tag, op, dt, M, N)
    f = rkc.compile(_spec(op), schedule=sched or None)
    arg = "logits" if op == "cross_entropy" else "x"
    plan = f.kernel("%s=%dx%d" % (arg, M, N), dtype=dt).plan
    ins = _inputs(op, dt, M, N, gen)
    out = _as_list(f(*ins))
    torch.cuda.synchronize()
    return plan, ins, out


def _case_ids(cases):
    return ["%s-%s-M%d-N%d%s" % (c[0], c[1], c[2], c[3], "-" + c[4] if c[4] else "")
            for c in cases]


def _generator(*key):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(zlib.crc32("-".join(str(k) for k in key).encode()))
    return gen


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N,layout", CASES, ids=_case_ids(CASES))
def test_async_equals_registers(op, dt, M, N, layout):
    _skip()
    gen = _generator(op, dt, M, N)
    text = _spec(op)
    if not layout:
        # The heuristic's registers layout (cluster rows are staged with
        # more values per thread by default: another layout, another
        # reduction order), for both plans.
        layout = _registers_layout(text, op, dt, M, N)
    sched = layout + ","
    f_async = rkc.compile(text, schedule=sched + "staging=async")
    f_regs = rkc.compile(text, schedule=sched + "staging=registers")
    ins = _inputs(op, dt, M, N, gen)
    a = _as_list(f_async(*ins))
    r = _as_list(f_regs(*ins))
    torch.cuda.synchronize()
    refs = _reference(op, ins)
    assert len(a) == len(r) == len(refs)
    for i, (oa, orr, ref) in enumerate(zip(a, r, refs)):
        assert not torch.isnan(oa).any(), "output %d: NaN (unwritten?)" % i
        assert torch.equal(oa, orr), (
            "output %d: async and registers plans differ (max |diff| %g)"
            % (i, (oa.double() - orr.double()).abs().max().item()))
        tol = TOL[dt] if oa.dtype != torch.float32 or dt != "f32" else TOL["f32"]
        if op == "cross_entropy":
            tol = 1e-5 if dt == "f32" else 1e-4
        err = ((oa.double() - ref).norm() / ref.norm()).item()
        assert err <= tol, "output %d: relative error %.3e > %.0e" % (i, err, tol)


# Streamed rows (staging = stream, N = 1M and beyond: the row is swept in
# passes by a cluster of 16, the second sweep backwards; softmax's max and
# sum are one online reduction, LayerNorm's mean and variance one Welford
# reduction). op, dtype, M, N, schedule ("" = the heuristic's).
STREAM_CASES = [(op, dt, 2, 1048576, "") for op in
                ("softmax", "log_softmax", "layer_norm", "rms_norm", "cross_entropy",
                 "rms_norm_residual") for dt in ("f32", "bf16")] + [
    ("layer_norm", "bf16", 3, 1048576 + 8, ""),  # a partial last pass
    ("softmax", "f32", 3, 2097152 + 4, ""),
    ("layer_norm", "f32", 2, 1048576, "threads=1024,values=16,staging=stream"),
    ("layer_norm", "bf16", 2, 1048576, "threads=512,values=32,staging=stream"),
    ("softmax", "bf16", 2, 1048576, "threads=512,values=32,staging=stream"),
]


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N,sched", STREAM_CASES, ids=_case_ids(STREAM_CASES))
def test_streamed_rows(op, dt, M, N, sched):
    _skip()
    plan, ins, out = _run_named("stream", op, dt, M, N, sched)
    assert "staging=stream" in plan, plan
    _assert_rel_close(out, _reference(op, ins), _tol(op, dt), plan)


# Kept passes (schedule keep, the planner's default for streamed rows with
# a result on sm_90): the first sweep keeps its first passes in shared
# memory and the second reads them back from there. Same arithmetic, same
# order: the results equal keep = 0's bit for bit. A partial last pass
# (600000), every pass kept (524288, 2 passes), shifted rows (1000003 bf16:
# 8 passes of 256 threads, 6 kept; f32 2 rows of an odd stride), two [M, N]
# inputs kept (RMSNorm with a residual) and a schedule's keep = 1.
KEEP_CASES = [(op, dt, 2, 1048576, "") for op in
              ("softmax", "log_softmax", "layer_norm", "rms_norm") for dt in ("f32", "bf16")] + [
    ("rms_norm", "bf16", 3, 600000, ""),
    ("layer_norm", "f32", 3, 600000, ""),
    ("softmax", "bf16", 2, 524288 + 8, ""),
    ("layer_norm", "bf16", 2, 1000003, ""),
    # 48 KiB kept + static shared memory (a cluster of 16: 8 passes; the
    # planner's split over 128 CTAs sweeps one)
    ("layer_norm", "bf16", 2, 1000003, "cluster=16,keep=3"),
    ("log_softmax", "f32", 3, 1000003, ""),
    ("rms_norm_residual", "bf16", 2, 1048576, ""),
    ("softmax", "f32", 2, 1048576, "keep=1"),
]


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N,sched", KEEP_CASES, ids=_case_ids(KEEP_CASES))
def test_kept_passes(op, dt, M, N, sched):
    _skip()
    plan, ins, out = _run_named("keep", op, dt, M, N, sched)
    assert "staging=stream" in plan and ",keep=" in plan, plan
    f0 = rkc.compile(_spec(op), schedule=(sched + "," if sched else "") + "keep=0")
    base = _as_list(f0(*ins))
    torch.cuda.synchronize()
    for i, (o, b) in enumerate(zip(out, base)):
        assert torch.equal(o, b), "output %d: kept passes change the result (%s)" % (i, plan)
    _assert_rel_close(out, _reference(op, ins), _tol(op, dt), plan)


def _large_mean_layer_norm(dt, M, N, sched, seed):
    """LayerNorm of rows of std 2 around a large mean (1000 in f32; 100 in
    16-bit types, whose spacing at 1000 is 8): (plan, relative error
    against float64)."""
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    mean = 1000.0 if dt == "f32" else 100.0
    x = (torch.randn(M, N, generator=gen, device="cuda") * 2.0 + mean).to(DT[dt])
    w = torch.randn(N, generator=gen, device="cuda").to(DT[dt])
    b = torch.randn(N, generator=gen, device="cuda").to(DT[dt])
    f = rkc.compile(_spec("layer_norm"), schedule=sched or None)
    plan = f.kernel("x=%dx%d" % (M, N), dtype=dt).plan
    y = f(x, w, b)
    ref = F.layer_norm(x.double(), (N,), w.double(), b.double(), 1e-5)
    return plan, ((y.double() - ref).norm() / ref.norm()).item()


@pytest.mark.gpu
def test_streamed_layer_norm_large_mean():
    # Rows of mean 1000 and std 2 in f32: the variance from one Welford
    # reduction keeps the two-pass accuracy (the f32 mean itself is off by
    # ~ulp(1000) = 6e-5, so ~1e-4 relative in y); sum(x^2) - N mean^2 in f32
    # would lose the variance to cancellation (~10 % off).
    _skip()
    plan, err = _large_mean_layer_norm("f32", 2, 1048576, "", 11)
    assert "staging=stream" in plan, plan
    assert err <= 1e-3, "relative error %.3e (%s)" % (err, plan)


# LayerNorm rows split over a cluster of 4 or more, on chip: the mean and
# the variance are one Welford state (one cluster barrier), each thread
# folding groups of its values as two-pass statistics; rows of a large
# mean keep the two-pass accuracy. N off the layout's coverage leaves
# partial and empty groups (counts other than the group size), and 40000 /
# 100000 / 70001 give groups of 8 / 8 / 12 values (40000 names its
# cluster: the database's 32768 row, a cluster of 2, is its nearest tuned
# shape).
CLUSTER_LN_CASES = [("f32", 64, 40000, "threads=256,cluster=4"), ("bf16", 64, 100000, ""),
                    ("f32", 16, 262144, ""), ("bf16", 256, 65536, ""), ("f32", 300, 70001, "")]


@pytest.mark.gpu
@pytest.mark.parametrize("dt,M,N,sched", CLUSTER_LN_CASES,
                         ids=["%s-M%d-N%d" % c[:3] for c in CLUSTER_LN_CASES])
def test_cluster_layer_norm_welford(dt, M, N, sched):
    _skip()
    plan, err = _large_mean_layer_norm(dt, M, N, sched, 12)
    assert re.search(r"cluster=(4|8|16),", plan) and "staging=stream" not in plan, plan
    assert err <= (1e-3 if dt == "f32" else 1e-2), "relative error %.3e (%s)" % (err, plan)


# Read-once rows (no [M, N] result, one reduction deep once the online
# combiner is formed) that would need a cluster, over enough rows to fill
# the GPU (M >= 2 x 132): streamed in one 512-thread CTA per row, folded
# into independent states (four, or two for wider states) combined after
# the sweep. Cross-entropy, and the user-written logsumexp (its own online
# combiner) and argmax (ties to the lowest index, whatever the fold order)
# of examples/; N off the pass size leaves a partial last pass.
EXAMPLES = os.path.join(os.path.dirname(SPECS), "..", "..", "examples")
READ_ONCE_CASES = [
    ("cross_entropy", "bf16", 300, 131072 + 8, ""),
    ("cross_entropy", "f32", 264, 65536 + 4, ""),
    ("cross_entropy", "bf16", 512, 262144, ""),
    ("logsumexp", "f32", 270, 98304 + 4, ""),
    ("argmax", "bf16", 280, 131072 + 8, ""),
]


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N,sched", READ_ONCE_CASES, ids=_case_ids(READ_ONCE_CASES))
def test_read_once_rows_streamed(op, dt, M, N, sched):
    _skip()
    gen = _generator("read-once", op, dt, M, N)
    plan, out, refs = _read_only_row(op, dt, M, N, sched, gen)
    assert "staging=stream" in plan and "cluster=1," in plan, plan
    if op == "argmax":
        assert torch.equal(out[0].cpu(), refs[0].cpu()), plan
        return
    _assert_rel_close(out, refs, _read_once_tol(dt), plan)


def _read_only_row(op, dt, M, N, sched, gen):
    """Compiles a read-only row op (cross_entropy's shipped spec, examples'
    argmax / logsumexp) with `sched` ("" for the planner's), runs it on
    seeded [M, N] rows (argmax's with a repeated maximum in some rows: the
    lowest index must win); (plan, outputs, float64 references)."""
    if op in ("logsumexp", "argmax"):
        with open(os.path.join(EXAMPLES, op + ".mlir")) as f:
            text = f.read()
    else:
        text = _spec(op)
    f = rkc.compile(text, spec_name=op + ".mlir", schedule=sched or None)
    arg = "logits" if op == "cross_entropy" else "x"
    plan = f.kernel("%s=%dx%d" % (arg, M, N), dtype=dt).plan
    if op == "cross_entropy":
        ins = _inputs(op, dt, M, N, gen)
        refs = _reference(op, ins)
    else:
        x = (torch.randn(M, N, generator=gen, device="cuda") * 3.0).to(DT[dt])
        x[::7, N // 3] = 100.0
        x[::7, N - 2] = 100.0
        ins = [x]
        xd = x.double()
        refs = [torch.logsumexp(xd, -1)] if op == "logsumexp" else [torch.argmax(xd, -1)]
    out = _as_list(f(*ins))
    torch.cuda.synchronize()
    return plan, out, refs


# The same read-once rows with N odd: shifted rows (each read from the
# 16-byte-aligned address before it, rkc/vec.cuh) keep 16-byte vectors, so
# they are streamed like the aligned ones; must match too.
ODD_READ_ONCE_CASES = [
    ("cross_entropy", "f32", 300, 50257, ""),
    ("cross_entropy", "bf16", 280, 131071, ""),
]


def _full_vector(plan, dt):
    return "vector=%d," % (16 // (4 if dt == "f32" else 2)) in plan


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N,sched", ODD_READ_ONCE_CASES, ids=_case_ids(ODD_READ_ONCE_CASES))
def test_read_once_rows_odd_n(op, dt, M, N, sched):
    _skip()
    plan, ins, out = _run_named("read-once-odd", op, dt, M, N, sched)
    assert _full_vector(plan, dt) and "staging=stream" in plan, plan
    _assert_rel_close(out, _reference(op, ins), _read_once_tol(dt), plan)


# Shifted rows (N not a multiple of the 16-byte vector) under every
# staging: registers, async (cp.async of aligned chunks, element-wise at
# the row's two ends), streamed sweeps (forwards and backwards), shared-
# memory staging; [N] operands read element by element; several rows per
# CTA (each with its own shift), rows past M in the last CTA.
SHIFTED_CASES = [
    ("softmax", "bf16", 3, 50257, ""),
    ("softmax", "f16", 2, 1000003, ""),
    ("softmax", "bf16", 5, 65539, "staging=smem"),
    ("log_softmax", "f32", 4097, 1001, ""),
    ("layer_norm", "bf16", 3, 262147, ""),
    ("layer_norm", "f32", 2, 1000003, ""),
    ("layer_norm", "f16", 129, 16387, ""),
    ("rms_norm", "bf16", 7, 4095, "staging=registers"),
    ("rms_norm", "f32", 3, 131071, ""),
    ("rms_norm_residual", "bf16", 3, 32771, ""),
    ("rms_norm_residual", "f32", 130, 4093, "threads=128,rows=2"),
    ("cross_entropy", "bf16", 33, 50257, "cluster=2"),
    ("softmax", "bf16", 130, 4095, "threads=128,rows=2"),
]


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N,sched", SHIFTED_CASES, ids=_case_ids(SHIFTED_CASES))
def test_shifted_rows(op, dt, M, N, sched):
    _skip()
    plan, ins, out = _run_named("shifted", op, dt, M, N, sched)
    # Shifted: a vector that does not divide N (16 bytes from the planner;
    # a tuned row of a nearby N may carry a narrower one).
    vector = int(dict(kv.split("=") for kv in plan.split(","))["vector"])
    assert vector > 1 and N % vector, plan
    _assert_rel_close(out, _reference(op, ins), _tol(op, dt), plan)


# Read-only 16-bit rows at 8 vectors a thread (planner rule 3 on fast
# memory, session 43: 128 threads in registers, 256-512 staged): the
# heuristic's plan (which takes the rule on an H200, not on an H100) and
# the rule's layouts forced by schedule in both stagings, so that every
# device runs them; more than a wave of rows, whole, partial (12000) and
# shifted (16001) rows, bf16 and f16. argmax must match exactly (a repeated
# maximum: the lowest index), cross-entropy and logsumexp within 1e-4.
DEEP_READ_ONLY_CASES = [(op, dt, 264, N, "") for op in ("cross_entropy", "argmax", "logsumexp")
                        for dt in ("bf16", "f16") for N in (8192, 16384, 32768)] + [
    (op, "bf16", 264, N, "") for op in ("cross_entropy", "argmax", "logsumexp")
    for N in (12000, 16001)]


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N,sched", DEEP_READ_ONLY_CASES,
                         ids=_case_ids(DEEP_READ_ONLY_CASES))
def test_deep_read_only_rows(op, dt, M, N, sched):
    _skip()
    threads = min(512, 1 << ((N + 63) // 64 - 1).bit_length())
    _check_read_only_schedules("deep-read-only", op, dt, M, N, (
        "", "threads=%d,values=64,staging=registers" % threads,
        "threads=%d,values=64,staging=async" % threads))


# Read-only 16-bit rows several to a CTA (N = 256-2k; planner rule 5 on
# fast memory, session 44: in registers on an H200, staged on an H100):
# the heuristic's plan and both stagings forced, more than a wave of rows
# (4099: the last CTA's rows partly past M), whole and partial (1000) rows.
SHORT_READ_ONLY_CASES = [(op, dt, 4099, N, "") for op in ("cross_entropy", "argmax", "logsumexp")
                         for dt in ("bf16", "f16") for N in (256, 640, 2048)] + [
    (op, "bf16", 4099, 1000, "") for op in ("cross_entropy", "argmax", "logsumexp")]


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N,sched", SHORT_READ_ONLY_CASES,
                         ids=_case_ids(SHORT_READ_ONLY_CASES))
def test_short_read_only_rows(op, dt, M, N, sched):
    _skip()
    _check_read_only_schedules("short-read-only", op, dt, M, N,
                               ("", "staging=registers", "staging=async"))


def _check_read_only_schedules(tag, op, dt, M, N, scheds):
    """_read_only_row under each schedule of `scheds` ("": the planner's):
    a forced schedule's fields must be in the plan; argmax must match
    exactly, cross-entropy and logsumexp within _read_once_tol."""
    for s in scheds:
        gen = _generator(tag, op, dt, M, N)
        plan, out, refs = _read_only_row(op, dt, M, N, s, gen)
        if s:
            assert all(f + "," in plan + "," for f in s.split(",")), (s, plan)
        if op == "argmax":
            assert torch.equal(out[0].cpu(), refs[0].cpu()), plan
        else:
            _assert_rel_close(out, refs, _read_once_tol(dt), plan)
