"""The grid tier (schedule split) on the GPU.

A row split over `split` CTAs that are not a cluster: the kernel runs as a
persistent, cooperative grid whose groups of `split` CTAs loop over the
rows and combine each reduction through a global-memory workspace and a
counter (templates/rkc/grid.cuh). The planner takes it for streamed rows
over few rows (each CTA a smaller part of the row, the rows spread over the
GPU) and for streamed 16-bit rows with a result; a schedule can ask for it
on any row with a reduction.

Checked against float64 references: the planner's choices at 1, 3 and 7
rows, rows of 2^22 and a shifted row, 128 rows (16 CTAs per row) and more
rows than resident groups (each group loops); split schedules on rows held
in registers; user-written combiners (logsumexp's online state, argmax's
(value, index)); repeated launches (the counters return to zero), launches
of other row counts, two streams at once; and the error for a split that
cannot be resident.
"""

import os
import re
import warnings

import pytest

torch = pytest.importorskip("torch")

import rkc  # noqa: E402
from conftest import gpu_unavailable  # noqa: E402
from test_staging_gpu import (EXAMPLES, _as_list, _assert_rel_close, _case_ids,  # noqa: E402
                              _generator, _inputs, _reference, _run_named, _spec, _tol)


def _skip():
    reason = gpu_unavailable()
    if reason:
        pytest.skip(reason)


def _split_of(plan):
    m = re.search(r"split=(\d+)", plan)
    return int(m.group(1)) if m else 1


# The planner's grid tier: op, dtype, M, N, schedule ("" = the planner's).
# (Cross-entropy at 2 rows: the inputs ignore every fifth row's target,
# row 0 included, and a single ignored row has a zero loss to compare.)
PLANNED_CASES = [(op, dt, M if op != "cross_entropy" else M + 1, 1048576, "") for op in
                 ("softmax", "layer_norm", "rms_norm", "cross_entropy")
                 for dt in ("f32", "bf16") for M in (1, 7)] + [
    ("log_softmax", "bf16", 3, 1 << 22, ""),
    ("rms_norm_residual", "bf16", 2, 1048576, ""),
    ("layer_norm", "bf16", 3, 1000003, ""),  # shifted rows
    ("softmax", "f32", 2, 2097152 + 4, ""),  # a partial last pass
    ("rms_norm", "bf16", 128, 1048576, ""),  # 16 CTAs per row, 8 rows per group
    ("layer_norm", "bf16", 300, 1048576, ""),  # more rows than groups
    ("softmax", "bf16", 1, 1 << 24, ""),  # one row over 128 CTAs
]


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N,sched", PLANNED_CASES, ids=_case_ids(PLANNED_CASES))
def test_planned_split(op, dt, M, N, sched):
    _skip()
    plan, ins, out = _run_named("split", op, dt, M, N, sched)
    assert _split_of(plan) >= 16 and "cluster=1," in plan, plan
    _assert_rel_close(out, _reference(op, ins), _tol(op, dt), plan)


# A schedule's split on rows the planner keeps on chip (registers or async
# staging) or would give a cluster.
SCHEDULED_CASES = [
    ("softmax", "bf16", 4, 65536, "split=8"),
    ("layer_norm", "f32", 3, 262144, "split=16"),
    ("rms_norm", "bf16", 5, 40000, "split=4,threads=256"),
    ("cross_entropy", "bf16", 9, 131072, "split=32,threads=128,values=32"),
    ("softmax", "f32", 2, 1048576, "split=2"),  # 64 passes of 2 CTAs
]


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N,sched", SCHEDULED_CASES, ids=_case_ids(SCHEDULED_CASES))
def test_scheduled_split(op, dt, M, N, sched):
    _skip()
    plan, ins, out = _run_named("split-sched", op, dt, M, N, sched)
    assert "split=%s" % re.search(r"split=(\d+)", sched).group(1) in plan, plan
    _assert_rel_close(out, _reference(op, ins), _tol(op, dt), plan)


def _example(name):
    with open(os.path.join(EXAMPLES, name + ".mlir")) as f:
        return rkc.compile(f.read(), spec_name=name + ".mlir")


@pytest.mark.gpu
@pytest.mark.parametrize("dt", ["f32", "bf16"])
def test_user_combiners_split(dt):
    # logsumexp's (max, sum) online state and argmax's (value, index) pass
    # through the workspace slots as they are.
    _skip()
    gen = _generator("split-user", dt)
    M, N = 3, 1048576 + 8
    x = (torch.randn(M, N, generator=gen, device="cuda") * 3.0).to(
        torch.float32 if dt == "f32" else torch.bfloat16)
    lse = _example("logsumexp")
    plan = lse.kernel("x=%dx%d" % (M, N), dtype=dt).plan
    assert _split_of(plan) > 1, plan
    y = lse(x)
    ref = torch.logsumexp(x.double(), -1)
    assert ((y.double() - ref).abs().max() / ref.abs().max()).item() <= 1e-5, plan
    am = _example("argmax")
    x[1, 777777] = 1e4  # a unique maximum far from the first CTA's part
    x[2, :] = 0.0  # ties everywhere: the lowest index wins
    idx, _ = _as_list(am(x))
    torch.cuda.synchronize()
    assert idx.tolist()[1] == 777777 and idx.tolist()[2] == 0
    assert idx[0].item() == torch.argmax(x[0].float()).item()


@pytest.mark.gpu
def test_repeated_launches_and_row_counts():
    # Every launch leaves the groups' counters at zero for the next one:
    # the same inputs give the same outputs launch after launch, and other
    # row counts (fewer groups, or more rows than groups) reuse the
    # workspace.
    _skip()
    f = rkc.compile(_spec("softmax"))
    gen = _generator("split-repeat")
    for M in (3, 300, 1, 3):
        x = (torch.randn(M, 1048576, generator=gen, device="cuda") * 3.0).to(torch.bfloat16)
        outs = [f(x) for _ in range(3)]
        torch.cuda.synchronize()
        plan = f.kernel("x=%dx%d" % (M, 1048576), dtype="bf16").plan
        assert _split_of(plan) > 1, plan
        assert torch.equal(outs[0], outs[1]) and torch.equal(outs[0], outs[2]), plan
        _assert_rel_close([outs[0]], [torch.softmax(x.double(), -1)], 8e-3, plan)


@pytest.mark.gpu
def test_two_streams():
    # Launches on two streams at once use workspaces of their own.
    _skip()
    f = rkc.compile(_spec("rms_norm"))
    gen = _generator("split-streams")
    xs = [(torch.randn(4, 1048576, generator=gen, device="cuda") * 2.0).to(torch.bfloat16)
          for _ in range(2)]
    w = torch.randn(1048576, generator=gen, device="cuda").to(torch.bfloat16)
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    torch.cuda.synchronize()
    outs = [[], []]
    for _ in range(5):
        for i in range(2):
            with torch.cuda.stream(streams[i]):
                outs[i].append(f(xs[i], w))
    torch.cuda.synchronize()
    for i in range(2):
        x = xs[i].double()
        ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w.double()
        for o in outs[i]:
            assert torch.equal(o, outs[i][0])
        _assert_rel_close([outs[i][0]], [ref], 8e-3, "stream %d" % i)


@pytest.mark.gpu
def test_split_not_resident_is_an_error():
    # 1024 CTAs of 1024 threads cannot all be resident (at most two per SM).
    _skip()
    f = rkc.compile(_spec("softmax"), schedule="split=1024,threads=1024,values=4,staging=registers")
    x = torch.randn(2, 1 << 22, device="cuda")
    with pytest.raises(RuntimeError, match=r"splits each row over 1024 CTAs that must all be "
                                           r"resident at once, but this GPU holds \d+ of them"):
        f(x)


@pytest.mark.gpu
def test_cuda_graph_capture():
    # The first launch on a stream allocates the workspace: refused inside
    # a capture, with the way out; after one launch on the capturing
    # stream, the captured kernel replays with the eager result.
    _skip()
    f = rkc.compile(_spec("softmax"))
    gen = _generator("split-graph")
    x = (torch.randn(3, 1048576, generator=gen, device="cuda") * 3.0).to(torch.bfloat16)
    assert _split_of(f.kernel("x=3x1048576", dtype="bf16").plan) > 1
    s = torch.cuda.Stream()
    g = torch.cuda.CUDAGraph()
    # The refused capture ends with nothing in it: torch warns that the
    # graph is empty, which is the point here.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The CUDA Graph is empty")
        with pytest.raises(RuntimeError, match="launch it once on this stream before capturing"):
            with torch.cuda.graph(g, stream=s):
                f(x)
    with torch.cuda.stream(s):
        eager = f(x)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        y = f(x)
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    assert torch.equal(y, eager)
    # The graph holds the kernel: a replay over new input gives its result.
    x.copy_((torch.randn(3, 1048576, generator=gen, device="cuda") * 3.0).to(torch.bfloat16))
    with torch.cuda.stream(s):
        eager = f(x)
        g.replay()
    torch.cuda.synchronize()
    assert torch.equal(y, eager)


def test_planned_for_the_devices_sms(tmp_path):
    """`rkc run` plans for the SMs of the device it runs on (the JIT passes
    the current device's count to the planner): the plan says so, and two
    rows of 1M are split over the largest power of two of CTAs that fits
    at one per SM, which the kernel's check against the reference and its
    cooperative launch (every CTA resident) then confirm."""
    _skip()
    import subprocess
    from test_column_tuning_gpu import env_for, rkc_exe
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    out = subprocess.run([rkc_exe(), "run", os.path.join(EXAMPLES, "softmax.mlir"), "--dtype",
                          "bf16", "--shape", "x=2x1048576", "--reps", "2", "--print-plan"],
                         env=env_for(tmp_path), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "PASS" in out.stdout, out.stdout + out.stderr
    assert "plan: for a device of %d SMs" % sms in out.stderr, out.stderr
    split = 1 << (sms.bit_length() - 1)
    assert "split=%d" % min(split, 128) in out.stdout, out.stdout


@pytest.mark.parametrize("arch", [None, "current"])
def test_binding_kernels_plan_for_the_devices_sms(arch):
    """Kernels compiled through the C API in a thread with a current context
    (PyTorch's) are planned for its device's SMs, whether the arch is left
    to librkc or named as the device's: the first remark says so."""
    _skip()
    torch.zeros(1, device="cuda")
    props = torch.cuda.get_device_properties(0)
    if arch == "current":
        arch = "sm_%d%d%s" % (props.major, props.minor, "a" if props.major in (9, 10) else "")
    k = rkc.Kernel(rkc.spec_text("softmax"), "x=3x1048576", "bf16", arch=arch)
    assert k.remarks[0] == "plan: for a device of %d SMs" % props.multi_processor_count, k.remarks


def test_binding_kernels_plan_for_the_devices_bandwidth():
    """The JIT also passes the device's DRAM bandwidth (memory clock x bus
    width from the driver) to the planner: the second remark says it, and
    where it is at least 32 GB/s an SM (docs/planner.md, "The device planned
    for") RMSNorm f32 at 4096 x 16384 runs two 512-thread CTAs an SM, the
    row staged asynchronously (session 42), else one of 1024 threads."""
    _skip()
    import re
    torch.zeros(1, device="cuda")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    # eps = 1e-5: a spec of its own meaning, which no shipped tuning row
    # (keyed by the spec's meaning) overrides.
    from rkc import _spec
    k = rkc.Kernel(_spec.with_eps(rkc.spec_text("rms_norm"), 1e-5), "x=4096x16384;w=16384",
                   "f32")
    m = re.fullmatch(r"plan: for a device of (\d+) GB/s( \(fast memory per SM\))?",
                     k.remarks[1])
    assert m, k.remarks
    gbs, fast = int(m.group(1)), m.group(2) is not None
    assert 500 <= gbs <= 100000, gbs
    assert fast == (gbs >= 32 * sms), (gbs, sms)
    plan = " ".join(k.remarks)
    if fast:
        assert "512 threads per row, 32 values per thread" in plan and \
            "staging = async without min_blocks" in plan, plan
    else:
        assert "1024 threads per row, 16 values per thread" in plan, plan
