"""CPU-side tests of the rkc Python binding (python/rkc): no GPU, no torch.

    PYTHONPATH=python python3 -m pytest test/python -q

librkc compiles to CUBIN without a GPU (NVRTC), so every shipped spec is
compiled here; launches stop at argument validation or at "no CUDA driver".
The library is RKC_LIBRARY, else build/lib/librkc.so.
"""

import ctypes
import importlib
import os
import re
import struct
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYDIR = os.path.join(REPO, "python")
if PYDIR not in sys.path:
    sys.path.insert(0, PYDIR)

import _support  # noqa: E402,F401  (sys.path)
import rkc  # noqa: E402
from rkc import _spec  # noqa: E402


_library_ok = _support.library_ok


needs_lib = pytest.mark.skipif(not _library_ok(), reason="librkc not found (set RKC_LIBRARY or build rkc)")


_has_cuda_driver = _support.has_cuda_driver


LOCATED = re.compile(r"[\w.<>-]+:\d+:\d+: error: ")

# spec -> (input names and kinds, number of outputs); kinds: "row" [M, N],
# "vec" [N], "tgt" [M] i64.
SPECS = {
    "rms_norm": ([("x", "row"), ("w", "vec")], 1),
    "rms_norm_residual": ([("x", "row"), ("w", "vec"), ("residual", "row")], 2),
    "layer_norm": ([("x", "row"), ("w", "vec"), ("b", "vec")], 1),
    "layer_norm_nobias": ([("x", "row"), ("w", "vec")], 1),
    "softmax": ([("x", "row")], 1),
    "log_softmax": ([("x", "row")], 1),
    "cross_entropy": ([("logits", "row"), ("target", "tgt")], 2),
}

SHAPES = [(4, 1024), (3, 33), (128, 4096), (1, 7)]


def builtin_text(name):
    return rkc.ops._builtin_text(name, {"cross_entropy": -100, "softmax": None,
                                        "log_softmax": None}.get(name, 1e-6))


# --- import and library ------------------------------------------------------

def test_import_without_torch():
    code = ("import sys; sys.modules['torch'] = None; sys.path.insert(0, %r); import rkc; "
            "print(rkc.__version__, sorted(n for n in rkc.__all__ if not n.startswith('RKC'))[:3]); "
            "f = rkc.compile(rkc.spec_text('softmax'))\n"
            "try:\n  rkc.softmax(None)\nexcept ImportError as e:\n  print('IMPORTERROR', e)\n" % PYDIR)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "IMPORTERROR" in out.stdout and "PyTorch" in out.stdout


def test_import_does_not_import_torch():
    code = "import sys; sys.path.insert(0, %r); import rkc; print('torch' in sys.modules)" % PYDIR
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_missing_library_raises_rkc_error_on_first_use():
    code = ("import sys; sys.path.insert(0, %r); import rkc\n"
            "try:\n  rkc.version()\nexcept rkc.RkcError as e:\n  print('RKCERROR', e)\n"
            "try:\n  rkc.Kernel('x', 'x=1x1')\nexcept rkc.RkcError as e:\n  print('RKCERROR2')\n" % PYDIR)
    env = dict(os.environ, RKC_LIBRARY="/nonexistent/librkc.so")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert "RKCERROR cannot load librkc" in out.stdout
    assert "/nonexistent/librkc.so" in out.stdout and "RKC_LIBRARY" in out.stdout
    assert "RKCERROR2" in out.stdout


@needs_lib
def test_version_and_path():
    assert re.match(r"\d+\.\d+", rkc.version())
    assert os.path.exists(rkc.library_path())


# --- spec helpers ------------------------------------------------------------

@pytest.mark.parametrize("v", [1e-6, 1e-5, 0.1, 1.0 / 3.0, 5e-324, 1e300, 0.0, 2.0, 123456789.0])
def test_mlir_float_is_exact(v):
    s = rkc.mlir_float(v)
    assert float(s) == v
    assert re.fullmatch(r"[-+]?\d+\.\d*([eE][-+]?\d+)?", s), s


@pytest.mark.parametrize("v", [float("nan"), float("inf"), -float("inf")])
def test_mlir_float_rejects_non_finite(v):
    with pytest.raises(ValueError):
        rkc.mlir_float(v)


def test_with_eps_and_ignore_index():
    t = _spec.with_eps(rkc.spec_text("rms_norm"), 1e-5)
    assert "eps = 1.0e-05 : f32" in t
    with pytest.raises(ValueError):
        _spec.with_eps(rkc.spec_text("rms_norm"), -1.0)
    with pytest.raises(ValueError):
        _spec.with_eps(rkc.spec_text("softmax"), 1e-5)  # no eps attribute
    t = _spec.with_ignore_index(rkc.spec_text("cross_entropy"), -7)
    assert "ignore_index = -7 : i64" in t
    with pytest.raises(TypeError):
        _spec.with_ignore_index(rkc.spec_text("cross_entropy"), 1.5)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_parse_signature_of_shipped_specs(name):
    fname, args = _spec.parse_signature(rkc.spec_text(name))
    assert fname == name
    ins, _ = SPECS[name]
    assert [a.name for a in args] == [n for n, _ in ins]
    for a, (_, kind) in zip(args, ins):
        assert a.rank == (2 if kind == "row" else 1)
        assert a.elem == ("i64" if kind == "tgt" else "!rk.dtype")


def test_parse_signature_custom():
    text = """
    // a comment with func.func @not_this(
    func.func @f(%a: tensor<?x8xf32> {rk.name = "act"}, %b: tensor<4xi64>,
                 %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0,
                     scale = f16, symmetric = true, packing = k8>>) -> tensor<?x8xf32> {
      return %a : tensor<?x8xf32>
    }"""
    fname, args = _spec.parse_signature(text)
    assert fname == "f"
    assert [a.name for a in args] == ["act", "arg1", "arg2"]
    assert args[0].dims == (None, 8) and args[0].elem == "f32"
    assert args[1].dims == (4,) and args[1].elem == "i64"
    assert args[2].dims == (4096, 4096) and args[2].elem == "i4"


def test_spec_files_are_shipped():
    for name in SPECS:
        assert os.path.exists(rkc.spec_path(name)), name
    assert set(rkc.SPEC_NAMES) == set(SPECS)


# --- compiles ----------------------------------------------------------------

@needs_lib
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%d" % s)
@pytest.mark.parametrize("dtype", ["bf16", "f32"])
@pytest.mark.parametrize("name", sorted(SPECS))
def test_compile_shipped_spec(name, dtype, shape):
    M, N = shape
    ins, nout = SPECS[name]
    k = rkc.Kernel(builtin_text(name), "%s=%dx%d" % (ins[0][0], M, N), dtype,
                   spec_name=name + ".mlir")
    assert re.match(r"threads=\d+,values=\d+,vector=\d+,rows=\d+,cluster=\d+", k.plan), k.plan
    assert k.num_args == len(ins) + nout
    names = [a.name for a in k.args]
    assert names[:len(ins)] == [n for n, _ in ins]
    assert names[len(ins):] == ["out%d" % i for i in range(nout)]
    for a, (_, kind) in zip(k.args, ins):
        assert not a.is_output
        assert a.shape == {"row": (M, N), "vec": (N,), "tgt": (M,)}[kind]
        assert a.dtype == ("i64" if kind == "tgt" else dtype)
    for a in k.outputs:
        assert a.is_output
        if name == "cross_entropy":
            assert a.shape == (M,) and a.dtype == "f32"
        else:
            assert a.shape == (M, N) and a.dtype == dtype
    V = k.vector_width
    # 16-byte vectors; a row shorter than one takes a width dividing N, a
    # longer one that N is not a multiple of is shifted (rkc/vec.cuh).
    elem = 2 if dtype == "bf16" else 4
    assert V * elem == 16 if N * elem >= 16 else (V >= 1 and N % V == 0 and V * elem < 16)
    assert (k.rows, k.cols) == (M, N)
    assert "__global__" in k.cuda and "rkc_" + name in k.cuda
    assert ".entry" in k.ptx or ".visible" in k.ptx


@needs_lib
@pytest.mark.parametrize("vec", [1, 2, 4])
def test_compile_vector_override(vec):
    k = rkc.Kernel(builtin_text("rms_norm"), "x=4x4096", "bf16", schedule="vector=%d" % vec)
    assert k.vector_width == vec
    assert "vector=%d" % vec in k.plan


@needs_lib
def test_row_l2_hint():
    # Planner rule 8: a row of one input with a result over many rows loads
    # x evict-last in L2 (the schedule says evict=last, the PTX carries the
    # policy); `evict=normal` takes it off; a streamed row refuses it.
    k = rkc.Kernel(rkc.spec_text("rms_norm"), "x=32768x4096", "f32", arch="sm_90a")
    assert k.plan.endswith(",evict=last"), k.plan
    assert "createpolicy.fractional.L2::evict_last" in k.ptx
    assert "ld.global.nc.L2::cache_hint.v4.u32" in k.ptx
    k = rkc.Kernel(rkc.spec_text("rms_norm"), "x=32768x4096", "f32", arch="sm_90a",
                   schedule="evict=normal")
    assert k.plan.endswith(",evict=normal") and "L2::cache_hint" not in k.ptx.split("rkc_rms_norm(")[1]
    with pytest.raises(rkc.RkcError, match="evict = last is for rows read in one sweep"):
        rkc.Kernel(rkc.spec_text("rms_norm"), "x=2x1048576", "bf16", arch="sm_90a",
                   schedule="evict=last")


@needs_lib
def test_split_plans():
    # The grid tier: the planner's split for two rows of 1M, a schedule's
    # on a row held on chip (its kernel takes the workspace parameter).
    k = rkc.Kernel(rkc.spec_text("softmax"), "x=2x1048576", "bf16", arch="sm_90a")
    assert ",split=128" in k.plan and "cluster=1," in k.plan
    # (one kept pass per CTA: its grid wait is deferred past the next row)
    assert "rkc::grid_arrive<" in k.cuda and "rkc::grid_wait<" in k.cuda and "rkc_ws" in k.cuda
    k = rkc.Kernel(rkc.spec_text("rms_norm"), "x=4x65536", "f32", arch="sm_90a",
                   schedule="split=8")
    assert ",split=8" in k.plan and "__cluster_dims__" not in k.cuda


@needs_lib
def test_plan_remarks():
    # The planner's decisions behind the plan, as `rkc compile --print-plan`
    # prints them; without a GPU the plan is for the arch's largest part
    # (no "for a device of N SMs" line).
    k = rkc.Kernel(rkc.spec_text("softmax"), "x=2x1048576", "bf16", arch="sm_90a")
    r = k.remarks
    assert r and all(line.startswith("plan: ") for line in r), r
    assert r[0] == "plan: vector = 8: 16-byte accesses of 2-byte elements", r
    assert any(line.startswith("plan: split = 128: the row is split over 128 CTAs") for line in r), r
    assert not any("for a device of" in line for line in r), r
    q = rkc.Kernel(rkc.spec_text("rms_norm"), "x=4x4096", "f32", arch="sm_90a")
    assert any("reductions climb to the block tier" in line for line in q.remarks), q.remarks


@needs_lib
@pytest.mark.parametrize("eps", [1e-5, 1e-6, 0.25])
def test_eps_reaches_the_kernel(eps):
    k = rkc.Kernel(_spec.with_eps(rkc.spec_text("rms_norm"), eps), "x=4x1024", "f32")
    f32 = struct.unpack("f", struct.pack("f", eps))[0]
    lit = "%.9g" % f32
    assert lit in k.cuda, (lit, k.cuda)


@needs_lib
def test_ignore_index_reaches_the_kernel():
    k = rkc.Kernel(_spec.with_ignore_index(rkc.spec_text("cross_entropy"), -12345),
                   "logits=4x1024", "bf16")
    assert "-12345LL" in k.cuda


@needs_lib
def test_compile_dict_shapes_and_repeat_is_cached():
    import time
    text = builtin_text("softmax")
    rkc.Kernel(text, {"x": (5, 2048)}, "f32")
    t0 = time.perf_counter()
    k = rkc.Kernel(text, {"x": (5, 2048)}, "f32")
    assert time.perf_counter() - t0 < 0.05  # librkc's in-process cache
    assert k.args[0].shape == (5, 2048)


# --- compile errors ----------------------------------------------------------

@needs_lib
@pytest.mark.parametrize("text,shapes,dtype,pattern", [
    ("func.func @f(%x: tensor<?x?xf32>) { rk.bogus }", "x=3x4", None, "rk.bogus"),
    ("garbage", "x=1x1", None, "garbage"),
    (None, "x=3x0", "bf16", "must be positive"),
    (None, "y=3x10", "f32", "unknown argument 'y'"),
    (None, "x=3", "f32", "rank"),
    (None, "x=3x10", None, "dtype-generic"),
    (None, "", "f32", "cannot infer dimension"),
], ids=["syntax", "garbage", "zero-dim", "unknown-arg", "rank", "no-dtype", "no-shape"])
def test_compile_error_has_location(text, shapes, dtype, pattern):
    text = text or rkc.spec_text("softmax")
    with pytest.raises(rkc.RkcError) as e:
        rkc.Kernel(text, shapes, dtype, spec_name="bad.mlir")
    assert e.value.status == rkc.RKC_ERROR_COMPILE
    msg = str(e.value)
    assert LOCATED.search(msg), msg
    assert pattern in msg


@needs_lib
@pytest.mark.parametrize("sched,pattern", [("vector=3", "power of two"), ("bogus=1", "unknown field"),
                                           ("bogus=x", "unknown field 'bogus'"),
                                           ("5", "'5' is not FIELD=VALUE"),
                                           ("unroll=100", "unroll = 100 must be in [1, 64]"),
                                           ("threads=x", "integer"),
                                           ("split=3", "split = 3 must be a power of two"),
                                           ("split=4,cluster=2", "takes cluster = 1")])
def test_bad_schedule(sched, pattern):
    with pytest.raises(rkc.RkcError) as e:
        rkc.Kernel(rkc.spec_text("softmax"), "x=3x1024", "f32", schedule=sched)
    assert e.value.status == rkc.RKC_ERROR_COMPILE
    assert pattern in str(e.value)


@needs_lib
def test_bad_dtype():
    with pytest.raises(rkc.RkcError) as e:
        rkc.Kernel(rkc.spec_text("softmax"), "x=3x10", "f64")
    assert "unsupported dtype 'f64'" in str(e.value)


@needs_lib
def test_rkc_compile_errors():
    with pytest.raises(rkc.RkcError) as e:
        rkc.compile("garbage")
    assert LOCATED.search(str(e.value))
    with pytest.raises(rkc.RkcError) as e:
        rkc.compile("")
    assert "empty" in str(e.value)
    with pytest.raises(TypeError):
        rkc.compile(rkc.spec_text("softmax"), y=(3, 4))


# --- custom specs ------------------------------------------------------------

def _gpu_module(name):
    """A spec module of the GPU suite (test/gpu), imported without torch."""
    sys.path.insert(0, os.path.join(REPO, "test", "gpu"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def _gpu_specs():
    """The custom specs of the GPU suite (test/gpu/custom_specs.py)."""
    return _gpu_module("custom_specs")


@needs_lib
@pytest.mark.parametrize("dtype", ["bf16", "f32"])
@pytest.mark.parametrize("N", [33, 4096, 65536])
def test_custom_l2_normalize_compiles(dtype, N):
    f = rkc.compile(_gpu_specs().L2_NORMALIZE)
    assert [a.name for a in f.args] == ["x"]
    k = f.kernel({"x": (3, N)}, dtype)
    assert [a.name for a in k.args] == ["x", "out0"]
    assert k.outputs[0].shape == (3, N) and k.outputs[0].dtype == dtype


@needs_lib
@pytest.mark.parametrize("dtype", ["bf16", "f32"])
@pytest.mark.parametrize("N", [7, 4096, 65536])
def test_custom_logsumexp_compiles(dtype, N):
    f = rkc.compile(_gpu_specs().ROW_LOGSUMEXP)
    k = f.kernel({"x": (3, N)}, dtype)
    assert [a.name for a in k.args] == ["x", "out0"]
    assert k.outputs[0].shape == (3,) and k.outputs[0].dtype == "f32"


def _all_gpu_spec_names():
    specs = _gpu_specs()
    return sorted(n for n in dir(specs) if n.isupper() and "func.func" in getattr(specs, n))


@needs_lib
@pytest.mark.parametrize("dtype", ["bf16", "f32"])
@pytest.mark.parametrize("shape", [(5, 8191), (4, 1048576)])
@pytest.mark.parametrize("name", _all_gpu_spec_names())
def test_every_custom_spec_compiles(name, dtype, shape):
    """Every spec of the GPU suite plans and compiles (to PTX, no GPU) at a
    shifted row and a streamed one: shared sweeps, elementwise rows, kept
    passes of read-only rows."""
    f = rkc.compile(getattr(_gpu_specs(), name), spec_name=name.lower() + ".mlir")
    k = f.kernel({"x": shape}, dtype)
    assert k.plan and all(o.shape[0] == shape[0] for o in k.outputs), k.plan


def _random_specs():
    """The random row programs of the GPU suite (test/gpu/random_specs.py)."""
    return _gpu_module("random_specs")


@needs_lib
@pytest.mark.parametrize("seed", range(48))
def test_random_program_compiles(seed):
    """The random row programs of the GPU suite (test/gpu/random_specs.py)
    plan and compile at a short row and at a cluster / streamed one, and
    their kernels take the spec's arguments and results in order."""
    rs = _random_specs()
    prog = rs.generate(seed)
    f = rkc.compile(prog.text, spec_name="random_%d.mlir" % seed)
    dtype = ["bf16", "f32", "f16"][seed % 3]
    for M, N in [(3, 7), (2, 262147) if seed % 2 else (3, 1048576)]:
        k = f.kernel(rs.input_shapes(prog, M, N), dtype)
        assert [a.name for a in k.inputs] == [i[0] for i in prog.inputs]
        assert len(k.outputs) == len(prog.results), prog.text
        for o, (kind, elem) in zip(k.outputs, prog.results):
            assert o.shape == ((M, N) if kind == "MN" else (M,)), (o.shape, prog.text)
            assert o.dtype == {"dt": dtype, "f32": "f32", "i64": "i64"}[elem], (o.dtype, prog.text)


@needs_lib
@pytest.mark.parametrize("arch", ["sm_80", "sm_89", "sm_100a"])
@pytest.mark.parametrize("seed", range(0, 48, 4))
def test_random_program_compiles_for_other_archs(seed, arch):
    """The same programs for GPUs without clusters or with other limits
    (sm_80 / sm_89: no clusters, no griddepcontrol; sm_100a): the plan
    adapts and the kernel compiles, at a block row and a 1M row."""
    prog = _random_specs().generate(seed)
    f = rkc.compile(prog.text, spec_name="random_%d.mlir" % seed)
    for M, N in [(3, 8192), (2, 1048576)]:
        k = f.kernel(_random_specs().input_shapes(prog, M, N), "bf16", arch=arch)
        assert len(k.outputs) == len(prog.results), prog.text
        if arch in ("sm_80", "sm_89"):
            assert "cluster=1" in k.plan, k.plan


def _ptxas_spills(ptx, tmp_path):
    """(registers, spill store bytes) of a kernel's PTX by ptxas -v (sm_90a)."""
    import shutil
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.exists(ptxas):
        pytest.skip("ptxas not found")
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    out = subprocess.run([ptxas, "-arch=sm_90a", "-v", str(path), "-o", os.devnull],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    regs = re.search(r"Used (\d+) registers", out.stderr)
    spills = re.search(r"(\d+) bytes spill stores", out.stderr)
    return int(regs.group(1)), int(spills.group(1))


@needs_lib
@pytest.mark.parametrize("seed,M,edge", [(266, 128, True), (886, 128, True), (886, 4, False),
                                         (61, 128, False), (68, 128, False), (100, 128, False),
                                         (270, 128, False), (344, 128, False)])
def test_registers_edge_rule_does_not_spill(seed, M, edge, tmp_path):
    """The planner's registers edge (docs/planner.md rule 4: one CTA of 512
    threads x 64 values where values x live fragments fill the 128
    registers) takes random programs whose epilogue consumes its fragments
    chunk by chunk (266, 886: no spills), and not those that spilled there
    (a result held across the reductions, exp / tanh / atan in the row's
    maps: 4-208 bytes), which keep their cluster. Over rows about one wave
    (886 at M = 4) the cluster of 2 prefetches its [N] operands and the
    planner declines the edge."""
    rs = _random_specs()
    prog = rs.generate(seed)
    f = rkc.compile(prog.text, spec_name="random_%d.mlir" % seed)
    k = f.kernel(rs.input_shapes(prog, M, 32768), "bf16", arch="sm_90a")
    took = "threads=512," in k.plan and "cluster=1," in k.plan
    assert took == edge, k.plan
    assert edge or "cluster=2," in k.plan, k.plan
    regs, spills = _ptxas_spills(k.ptx, tmp_path)
    # The prefetching cluster of 886 at M = 4: ptxas keeps 80 registers and
    # spills 8 bytes (ptxas 13.0; 121 registers and none without prefetch).
    assert spills <= (8 if "prefetch=1" in k.plan else 0), (k.plan, regs, spills)


@needs_lib
@pytest.mark.parametrize("seed,light", [(126, False), (18, False), (92, False), (149, False),
                                        (144, True), (148, True)])
def test_streamed_16bit_rows_halve_values_when_heavy(seed, light, tmp_path):
    """Streamed 16-bit rows (64 x 1M bf16) run in 512-thread CTAs held to 64
    registers (min_blocks = 2) with 32 values a thread when light
    (docs/planner.md rule 5: at most two live fragments, one 16-bit result,
    reductions waiting with the row alone), and with half that when heavy:
    the random programs that spilled 240-624 bytes with 32 (126, 18, 92,
    149) spill at most 48 bytes (ptxas -v)."""
    rs = _random_specs()
    prog = rs.generate(seed)
    f = rkc.compile(prog.text, spec_name="random_%d.mlir" % seed)
    k = f.kernel(rs.input_shapes(prog, 64, 1048576), "bf16", arch="sm_90a")
    assert "staging=stream" in k.plan, k.plan
    assert "threads=512," in k.plan and "min_blocks=2" in k.plan, k.plan
    assert ("values=32," in k.plan) == light, k.plan
    regs, spills = _ptxas_spills(k.ptx, tmp_path)
    assert spills <= 48, (k.plan, regs, spills)


# --- launch validation (no GPU needed: checked before the driver) -------------

@needs_lib
def test_launch_validation():
    k = rkc.Kernel(builtin_text("rms_norm"), "x=4x4096", "bf16")
    V = k.vector_width
    assert V == 8
    good = 1 << 20
    with pytest.raises(ValueError):
        k.launch([good, good], None, 4)
    with pytest.raises(rkc.RkcError) as e:
        k.launch([good, good, 0], None, 4)
    assert e.value.status == rkc.RKC_ERROR_INVALID_ARGUMENT and "null pointer" in str(e.value)
    with pytest.raises(rkc.RkcError) as e:
        k.launch([good, good, good], None, 0)
    assert "rows must be positive" in str(e.value)
    with pytest.raises(rkc.RkcError) as e:
        k.launch([good + 2, good, good], None, 4)
    assert e.value.status == rkc.RKC_ERROR_INVALID_ARGUMENT
    assert "not aligned" in str(e.value) and "vector=1" in str(e.value)
    with pytest.raises(rkc.RkcError) as e:
        k.launch([good, good + 2, good], None, 4)
    assert "'w' is not aligned" in str(e.value)
    with pytest.raises(rkc.RkcError) as e:
        k.launch([good, good, good], [4100, 0, 0], 4)
    assert "not aligned" in str(e.value)
    with pytest.raises(rkc.RkcError) as e:
        k.launch([good, good, good], [4000, 0, 0], 4)
    assert "smaller than its row length (4096)" in str(e.value)
    # Rows past one launch's grid: refused before the grid's arithmetic
    # could wrap (a cluster kernel launched one group for 2^62 + 1 rows).
    with pytest.raises(rkc.RkcError, match="too many rows for one launch"):
        k.launch([good, good, good], None, (1 << 62) + 1)
    # What ctypes would truncate or refuse without saying why.
    with pytest.raises(ValueError, match="rows must be below 2"):
        k.launch([good, good, good], None, 1 << 70)
    with pytest.raises(TypeError, match="rows must be an int, got 1.5"):
        k.launch([good, good, good], None, 1.5)
    with pytest.raises(ValueError, match="device pointer must be in 0..2"):
        k.launch([1 << 65, good, good], None, 4)
    with pytest.raises(ValueError, match="device pointer must be in 0..2"):
        k.launch([-good, good, good], None, 4)


@needs_lib
def test_request_checks():
    text = builtin_text("rms_norm")
    with pytest.raises(TypeError, match="shape of 'x' must be an int, got 4.7"):
        rkc.Kernel(text, {"x": (4.7, 4096)}, "bf16")
    with pytest.raises(ValueError, match="NUL"):
        rkc.Kernel(text + "\0garbage", "x=4x4096", "bf16")
    with pytest.raises(TypeError, match="the spec must be text"):
        rkc.Kernel(None, "x=4x4096", "bf16")
    with pytest.raises(TypeError, match="rkc.compile: the spec must be text"):
        rkc.compile(None)
    with pytest.raises(ValueError, match="unknown rkc spec"):
        rkc.spec_path("../__init__")


@needs_lib
@pytest.mark.skipif(_has_cuda_driver(), reason="this machine has a CUDA driver")
@pytest.mark.parametrize("name", ["rms_norm", "cross_entropy"])
def test_launch_without_driver(name):
    ins, nout = SPECS[name]
    k = rkc.Kernel(builtin_text(name), "%s=4x1024" % ins[0][0], "bf16")
    ptrs = [1 << 20] * k.num_args
    with pytest.raises(rkc.RkcError) as e:
        k.launch(ptrs, None, 4, None)
    assert e.value.status == rkc.RKC_ERROR_NO_DRIVER == 3
    assert str(e.value).startswith("no CUDA driver"), str(e.value)
    # The raw C call gives the same status and message.
    lib = rkc._lib.library()
    arr = (ctypes.c_void_p * k.num_args)(*ptrs)
    assert lib.rkcKernelLaunch(k._handle, arr, None, 4, None) == 3
    assert lib.rkcGetLastError().decode().startswith("no CUDA driver")


@needs_lib
def test_c_api_bad_handles():
    lib = rkc._lib.library()
    assert lib.rkcKernelNumArgs(None) == -1
    assert lib.rkcKernelArgName(None, 0) is None
    assert lib.rkcKernelArgDim(None, 0, 0) == -1
    assert lib.rkcKernelVectorWidth(None) == -1
    assert lib.rkcKernelLaunch(None, None, None, 1, None) == rkc.RKC_ERROR_INVALID_ARGUMENT
    assert "invalid kernel handle" in lib.rkcGetLastError().decode()
    assert lib.rkcKernelCompile(b"x", None, None, None, None, None, None) == rkc.RKC_ERROR_INVALID_ARGUMENT
    k = rkc.Kernel(builtin_text("softmax"), "x=2x64", "f32")
    assert lib.rkcKernelArgName(k._handle, 5) is None
    assert lib.rkcKernelArgDim(k._handle, 0, 2) == -1


@needs_lib
def test_launch_flags():
    """RKC_LAUNCH_PDL is a per-handle flag; unknown bits and bad handles
    are rejected with a message."""
    lib = rkc._lib.library()
    text = builtin_text("softmax")
    a = rkc.Kernel(text, "x=2x64", "f32", pdl=True)
    b = rkc.Kernel(text, "x=2x64", "f32")  # the same compiled kernel, another handle
    assert a.pdl and not b.pdl
    assert lib.rkcKernelLaunchFlags(a._handle) == rkc._lib.RKC_LAUNCH_PDL == 1
    assert lib.rkcKernelLaunchFlags(b._handle) == 0
    assert lib.rkcKernelSetLaunchFlags(b._handle, 6) == rkc.RKC_ERROR_INVALID_ARGUMENT
    assert "unknown flags 0x6" in lib.rkcGetLastError().decode()
    assert lib.rkcKernelLaunchFlags(b._handle) == 0
    assert lib.rkcKernelSetLaunchFlags(None, 1) == rkc.RKC_ERROR_INVALID_ARGUMENT
    assert "invalid kernel handle" in lib.rkcGetLastError().decode()
    assert lib.rkcKernelLaunchFlags(None) == 0
    assert lib.rkcKernelSetLaunchFlags(a._handle, 0) == rkc.RKC_OK
    assert lib.rkcKernelLaunchFlags(a._handle) == 0


def test_set_pdl():
    old = rkc.set_pdl(True)
    try:
        assert rkc.set_pdl(False) is True
        assert rkc.set_pdl(False) is False
        with pytest.raises(TypeError, match="True or False"):
            rkc.set_pdl(1)
    finally:
        rkc.set_pdl(old)


# --- tensor-op validation without torch ---------------------------------------

def test_ops_without_torch_raise_import_error():
    code = ("import sys; sys.modules['torch'] = None; sys.path.insert(0, %r); import rkc\n"
            "for f in (lambda: rkc.rms_norm(1, 2), lambda: rkc.softmax(1), lambda: rkc.compile("
            "rkc.spec_text('softmax'))(1), lambda: rkc.precompile('softmax', (2, 8), 'f32')):\n"
            "  try:\n    f()\n  except ImportError as e:\n    print('OK', e)\n" % PYDIR)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("OK ") == 4, out.stdout


def test_vector_alignment_rule_of_shifted_rows():
    # The launch rule the binding mirrors (rkcKernelLaunch): with N a
    # multiple of V, pointers and row strides are multiples of V; with N
    # not (shifted rows), the [M, N] row strides agree modulo V instead.
    ok = rkc.ops._strides_ok
    assert ok(8, 4096, [4096, 0]) and not ok(8, 4096, [4099, 0])
    assert ok(8, 4095, [4095, 0]) and ok(8, 4095, [4095 + 64, 0])
    assert not ok(8, 4095, [4098, 0]) and ok(1, 4095, [4098, 0])
    assert ok(2, 4095, [4095 + 66, 0]) and not ok(4, 4095, [4095 + 66, 0])
    # Pointers: 16-byte aligned for 16-byte vectors, whatever N.
    sizes, skip = [2, 2], ()
    assert rkc.ops._aligned(8, 4095, [4096, 8192], sizes, [4095, 0], skip)
    assert not rkc.ops._aligned(8, 4095, [4098, 8192], sizes, [4095, 0], skip)
    assert rkc.ops._aligned(1, 4095, [4098, 8192], sizes, [4095, 0], skip)


class _FakeCuda:
    """torch.cuda's device queries for four GPUs of sm_90: 0 and 2 with 132
    SMs, 1 with 114 (an H100 SXM and PCIe in one host), 3 an H200 (132 SMs,
    faster memory)."""

    SMS = {0: 132, 1: 114, 2: 132, 3: 132}
    NAMES = {0: "NVIDIA H100 80GB HBM3", 1: "NVIDIA H100 PCIe", 2: "NVIDIA H100 80GB HBM3",
             3: "NVIDIA H200"}

    def __init__(self):
        self.current = 0
        self.switches = []

    def get_device_capability(self, dev):
        return (9, 0)

    def get_device_properties(self, dev):
        class Props:
            multi_processor_count = self.SMS[dev]
            name = self.NAMES[dev]
        return Props()

    def current_device(self):
        return self.current

    def device(self, dev):
        cuda = self

        class Guard:
            def __enter__(self):
                self.prev, cuda.current = cuda.current, dev
                cuda.switches.append(dev)

            def __exit__(self, *exc):
                cuda.current = self.prev
        return Guard()


@pytest.fixture
def fake_gpus(monkeypatch):
    import types
    from rkc import ops
    cuda = _FakeCuda()
    monkeypatch.setattr(ops, "_torch", types.SimpleNamespace(cuda=cuda))
    monkeypatch.setattr(ops, "_arch_of", {})
    monkeypatch.setattr(ops, "_device_of", {})
    monkeypatch.setattr(ops, "_kernels", {})
    return cuda


def test_kernel_cache_keys_carry_the_devices_sm_count(fake_gpus):
    """librkc plans grids, splits and waves for the SMs of the device current
    when it compiles, and some row layouts for its DRAM bandwidth: the
    binding keys its kernels by (arch, SM count, device name) and compiles
    with the tensor's device current, so two GPUs of one arch with different
    SM counts, or an H100 and an H200 (same SMs, faster memory), get their
    own kernels and GPUs alike share them."""
    from rkc import ops
    assert ops._target(0) == ("sm_90a", 132, "NVIDIA H100 80GB HBM3")
    assert ops._target(1) == ("sm_90a", 114, "NVIDIA H100 PCIe")
    assert ops._target(2) == ops._target(0)
    assert ops._target(3) != ops._target(0)
    assert ops._compile_on(1, lambda: fake_gpus.current_device()) == 1
    assert fake_gpus.current_device() == 0  # restored
    assert ops._compile_on(0, lambda: "same") == "same" and fake_gpus.switches == [1]


@needs_lib
def test_builtin_kernels_per_sm_count(fake_gpus):
    from rkc import ops
    k0 = ops._builtin_kernel("softmax", None, 4, 4096, "bf16", 0)
    k1 = ops._builtin_kernel("softmax", None, 4, 4096, "bf16", 1)
    k2 = ops._builtin_kernel("softmax", None, 4, 4096, "bf16", 2)
    assert k0 is k2 and k1 is not k0
    # Device 1's kernel compiled with device 1 current; device 2 took 0's.
    assert fake_gpus.switches == [1]
    assert len(ops._kernels) == 2
