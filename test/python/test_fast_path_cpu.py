"""The prepared-launcher fast path of rkc's tensor ops (rkc.ops._fast), on a
machine without a GPU.

The first call with a layout takes the checked path (its submission is
recorded as in test_ops_logic_cpu.py) and registers a launcher; later calls
with that layout take the fast path, whose C call is replaced by a recorder
that still hands the very same arguments to librkc's rkcKernelLaunch, which
validates them (vector alignment, strides, null pointers) and stops with "no
CUDA driver". Every fast launch must equal the checked one: kernel, input
pointers, strides, rows.
"""

import ctypes
import os
import struct
import sys

import pytest

torch = pytest.importorskip("torch")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.join(REPO, "python") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "python"))

import _support  # noqa: E402,F401  (sys.path)
import rkc  # noqa: E402
from rkc import ops  # noqa: E402


_library_ok = _support.library_ok


_has_cuda_driver = _support.has_cuda_driver


pytestmark = [
    pytest.mark.skipif(not _library_ok(), reason="librkc not found"),
    pytest.mark.skipif(_has_cuda_driver(), reason="a CUDA driver is present: host pointers "
                       "must not reach it (run test/gpu instead)"),
]

STREAM = 0x5000


class Rec(object):
    def __init__(self):
        self.slow, self.fast = [], []

    def clear(self):
        del self.slow[:], self.fast[:]


@pytest.fixture
def rec(monkeypatch):
    r = Rec()
    ops._t()
    real_check = ops._check_tensor
    lib = rkc._lib.library()
    real_launch = lib["rkcKernelLaunch"]
    real_launch.restype = ctypes.c_int

    def check_tensor(op, what, t):
        if isinstance(t, torch.Tensor) and t.device.type == "cpu":
            return
        real_check(op, what, t)

    def submit(k, ptrs, strides, M, dev):
        with pytest.raises(rkc.RkcError) as e:
            k.launch(ptrs, strides, M, None)
        assert e.value.status == rkc.RKC_ERROR_NO_DRIVER, str(e.value)
        r.slow.append({"handle": k._handle.value, "ptrs": list(ptrs),
                       "strides": list(strides), "M": M})

    def c_launch(h, packed, strides, rows, stream):
        n = len(packed) // 8
        st = real_launch(h, packed, strides, rows, stream)
        assert st == rkc.RKC_ERROR_NO_DRIVER, lib.rkcGetLastError()
        r.fast.append({"handle": h.value, "ptrs": list(struct.unpack("%dQ" % n, packed)),
                       "strides": [0] * n if strides is None else list(strides),
                       "M": rows.value, "stream": stream.value})
        return 0

    monkeypatch.setattr(ops, "_check_tensor", check_tensor)
    monkeypatch.setattr(ops, "_submit", submit)
    monkeypatch.setattr(ops, "_arch", lambda dev: "sm_90a")
    monkeypatch.setattr(ops, "_FAST_DEVICES", ("cpu",))
    monkeypatch.setattr(ops, "_current_device", lambda: None)  # CPU tensors: index None
    monkeypatch.setattr(ops, "_raw_stream", lambda dev: STREAM)
    monkeypatch.setattr(ops, "_launch_fn", c_launch)
    monkeypatch.setattr(ops, "_fast", {})
    return r


def randn(shape, dtype=torch.float32):
    return torch.randn(shape).to(dtype)


def kernel_of(handle):
    for k in list(ops._kernels.values()):
        if k._handle.value == handle:
            return k
    raise AssertionError("no cached kernel has handle %#x" % handle)


def _same_outputs(a, b):
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert (u.shape, u.dtype, u.stride()) == (v.shape, v.dtype, v.stride())
        assert u.data_ptr() != v.data_ptr()


def _cases():
    N = 512
    c = []
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        x = randn((6, N), dt)
        w, b = randn((N,), dt), randn((N,), dt)
        c += [
            ("softmax-%s" % dt, lambda x=x: rkc.softmax(x), 1),
            ("log_softmax-%s" % dt, lambda x=x: rkc.log_softmax(x, dim=1), 1),
            ("rms_norm-%s" % dt, lambda x=x, w=w: rkc.rms_norm(x, w), 2),
            ("rms_norm_residual-%s" % dt,
             lambda x=x, w=w, r=randn((6, N), dt): rkc.rms_norm(x, w, residual=r), 3),
            ("layer_norm-%s" % dt, lambda x=x, w=w, b=b: rkc.layer_norm(x, w, b), 3),
            ("layer_norm_nobias-%s" % dt, lambda x=x, w=w: rkc.layer_norm(x, w), 2),
        ]
    t = torch.tensor([0, 3, -100, 7, 1, 2])
    x = randn((6, N), torch.bfloat16)
    c += [
        ("softmax-1d", lambda x=randn((N,)): rkc.softmax(x), 1),
        ("softmax-3d", lambda x=randn((2, 3, N), torch.bfloat16): rkc.softmax(x), 1),
        ("softmax-padded", lambda x=randn((5, N + 64))[:, :N]: rkc.softmax(x), 1),
        ("softmax-row-of-padded", lambda x=randn((3, N + 3))[1:2, :N]: rkc.softmax(x), 1),
        ("rms_norm-eps", lambda x=x, w=randn((N,), torch.bfloat16): rkc.rms_norm(x, w, eps=1e-5), 2),
        ("rms_norm-f32-weight", lambda x=x, w=randn((N,)): rkc.rms_norm(x, w), 2),
        ("rms_norm-4d", lambda x=randn((2, 2, 3, N)), w=randn((N,)): rkc.rms_norm(x, w), 2),
        ("layer_norm-f32-params",
         lambda x=x, w=randn((N,)), b=randn((N,)): rkc.layer_norm(x, w, b, eps=1e-6), 3),
        ("ce-none", lambda x=x, t=t: rkc.cross_entropy(x, t, reduction="none"), 2),
        ("ce-mean", lambda x=x, t=t: rkc.cross_entropy(x, t), 2),
        ("ce-sum-lse", lambda x=x, t=t: rkc.cross_entropy(x, t, reduction="sum",
                                                          return_lse=True), 2),
        ("ce-ignore", lambda x=x, t=t: rkc.cross_entropy(x, t, ignore_index=3), 2),
        ("ce-int32-nd", lambda x=randn((2, 3, N)), t=t.view(2, 3).int():
         rkc.cross_entropy(x, t, reduction="none", return_lse=True), 2),
        ("ce-1d", lambda x=randn((N,)), t=torch.tensor(5): rkc.cross_entropy(x, t), 2),
    ]
    return c


CASES = _cases()


@pytest.mark.parametrize("name,call,n_in", CASES, ids=[c[0] for c in CASES])
def test_fast_launch_equals_checked(rec, name, call, n_in):
    out0 = call()
    assert len(rec.slow) == 1 and not rec.fast, "the first call takes the checked path"
    assert len(ops._fast) == 1
    out1 = call()
    out2 = call()
    assert len(rec.slow) == 1 and len(rec.fast) == 2, "repeat calls take the fast path"
    s = rec.slow[0]
    for f in rec.fast:
        assert f["handle"] == s["handle"]
        assert f["strides"] == [v or 0 for v in s["strides"]]
        assert f["M"] == s["M"]
        assert f["stream"] == STREAM
        # Inputs cast on every call (a weight to x's dtype, int32 targets to
        # int64) have a new pointer each time; the others are passed as given.
        cast = "f32-weight" in name or "f32-params" in name or "int32" in name
        assert f["ptrs"][:1 if cast else n_in] == s["ptrs"][:1 if cast else n_in]
        assert all(f["ptrs"])
    _same_outputs(out0, out1)
    _same_outputs(out1, out2)


LAYOUTS = {"pad64": (64, 0), "pad3": (3, 0), "off1": (64, 1), "off2": (66, 2)}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_fast_alignment_fallback(rec, dtype):
    M, N = 5, 4096
    full = 4 if dtype == torch.float32 else 8

    def x_of(layout):
        pad, off = LAYOUTS[layout]
        return randn((M, N + pad), dtype)[:, off:off + N]

    w = randn((N,), dtype)
    t = torch.zeros(M, dtype=torch.int64)
    # pad64 and off1 share shape and strides: one layout, one launcher;
    # off1's pointers are not aligned for full vectors.
    for layout, want in (("pad64", full), ("off1", 1), ("pad64", full), ("off1", 1),
                         ("pad3", 1), ("pad3", 1), ("off2", 2), ("off2", 2)):
        rec.clear()
        x = x_of(layout)
        rkc.rms_norm(x, w)
        rkc.softmax(x)
        rkc.cross_entropy(x, t)
        launches = rec.slow + rec.fast
        assert len(launches) == 3
        for l in launches:
            k = kernel_of(l["handle"])
            assert k.vector_width == want, (layout, k.plan)
            assert l["strides"][0] == N + LAYOUTS[layout][0]
    # A misaligned weight with an aligned x, in a known layout.
    rec.clear()
    x = x_of("pad64")
    rkc.rms_norm(x, randn((N + 1,), dtype)[1:])
    assert len(rec.fast) == 1 and kernel_of(rec.fast[0]["handle"]).vector_width == 1
    rec.clear()
    rkc.rms_norm(x, w)
    assert len(rec.fast) == 1 and kernel_of(rec.fast[0]["handle"]).vector_width == full


def test_copies_take_the_checked_path(rec):
    N = 256
    calls = [
        lambda: rkc.softmax(randn((1, N)).expand(4, N)),              # broadcast rows
        lambda: rkc.softmax(randn((4, 3, N)).transpose(0, 1)),        # dims do not collapse
        lambda: rkc.rms_norm(randn((4, N)), randn((2 * N,))[::2]),    # strided weight
        lambda: rkc.cross_entropy(randn((4, N)), torch.zeros(8, dtype=torch.int64)[::2]),
        lambda: rkc.rms_norm(randn((4, N)), randn((N,)), eps=torch.tensor(1e-6)),
    ]
    for f in calls:
        rec.clear()
        f()
        f()
        assert len(rec.slow) == 2 and not rec.fast
    assert not ops._fast


def _prime():
    N = 64
    x, w, b = randn((4, N)), randn((N,)), randn((N,))
    t = torch.zeros(4, dtype=torch.int64)
    rkc.softmax(x)
    rkc.log_softmax(x)
    rkc.rms_norm(x, w)
    rkc.rms_norm(x, w, residual=x)
    rkc.layer_norm(x, w, b)
    rkc.layer_norm(x, w)
    rkc.cross_entropy(x, t, ignore_index=1)
    rkc.cross_entropy(x, t, reduction="none")
    return x, w, b, t


def test_errors_after_registration(rec):
    x, w, b, t = _prime()
    n = len(ops._fast)
    assert n == 8
    N = x.shape[1]
    errors = [
        (lambda: rkc.softmax(x.to(torch.int32)), TypeError, "float32, bfloat16 or float16"),
        (lambda: rkc.softmax(x.double()), TypeError, "float64"),
        (lambda: rkc.softmax("x"), TypeError, "must be a torch.Tensor"),
        (lambda: rkc.log_softmax(x, dim=0), ValueError, "last dimension"),
        (lambda: rkc.rms_norm(x, w, eps=-1.0), ValueError, "eps"),
        (lambda: rkc.rms_norm(x, w, eps="a"), TypeError, "eps"),
        (lambda: rkc.rms_norm(x, w, eps=float("nan")), ValueError, "eps"),
        (lambda: rkc.rms_norm(x, randn((N + 1,))), ValueError, r"shape \(64,\)"),
        (lambda: rkc.rms_norm(x, t), TypeError, "float tensor"),
        (lambda: rkc.rms_norm(x, None), TypeError, "must be a torch.Tensor"),
        (lambda: rkc.rms_norm(x, w, residual=randn((2, N))), ValueError, "residual"),
        (lambda: rkc.rms_norm(x, w, residual=x.half()), TypeError, "dtype of x"),
        (lambda: rkc.layer_norm(x, None), TypeError, "weight is required"),
        (lambda: rkc.layer_norm(x, w, t), TypeError, "float tensor"),
        (lambda: rkc.cross_entropy(x, t, ignore_index=1.0), TypeError, "ignore_index"),
        (lambda: rkc.cross_entropy(x, t, reduction="avg"), ValueError, "reduction"),
        (lambda: rkc.cross_entropy(x, t.float()), TypeError, "integer"),
        (lambda: rkc.cross_entropy(x, t[:3]), ValueError, "target must have shape"),
    ]
    rec.clear()
    for f, exc, pattern in errors:
        with pytest.raises(exc, match=pattern):
            f()
    assert not rec.slow and not rec.fast
    assert len(ops._fast) == n


def test_cpu_tensors_get_no_launcher_by_default(rec, monkeypatch):
    monkeypatch.setattr(ops, "_FAST_DEVICES", ("cuda",))
    _prime()
    _prime()
    assert not ops._fast and not rec.fast and len(rec.slow) == 16


def test_output_hook_and_device_switch(rec, monkeypatch):
    x, w, b, t = _prime()
    made = []

    def empty(shape, dtype, device):
        made.append(tuple(shape))
        return torch.full(shape, float("nan"), dtype=dtype, device=device)

    monkeypatch.setattr(ops, "_empty", empty)
    rec.clear()
    y = rkc.softmax(x)
    assert made == [(4, 64)] and torch.isnan(y).all() and len(rec.fast) == 1
    rkc.cross_entropy(x, t, reduction="none")
    assert made[1:] == [(4,), (4,)]
    # The current device differs from the tensors': launched under a device
    # guard for the tensors' device, still on the fast path.
    import contextlib
    guards = []

    @contextlib.contextmanager
    def device(idx):
        guards.append(idx)
        yield

    monkeypatch.setattr(torch.cuda, "device", device)
    monkeypatch.setattr(ops, "_current_device", lambda: 7)
    rec.clear()
    rkc.rms_norm(x, w)
    assert len(rec.fast) == 1 and not rec.slow and guards == [x.device.index]


def test_clear_cache_forgets_launchers(rec):
    _prime()
    assert ops._fast
    rkc.clear_cache()
    assert not ops._fast and not ops._kernels
    rec.clear()
    _prime()
    assert len(rec.slow) == 8 and not rec.fast


def test_fast_map_is_bounded(rec, monkeypatch):
    monkeypatch.setattr(ops, "_FAST_MAX", 3)
    for M in range(1, 8):
        rkc.softmax(randn((M, 32)))
    assert 1 <= len(ops._fast) <= 3


# --- rkc.Kernel.launch (raw) --------------------------------------------------

def test_raw_launch_argument_forms():
    k = rkc.Kernel(ops._builtin_text("softmax", None), "x=4x256", "f32")
    good = 1 << 20
    for ptrs, strides, rows, stream in [
            ([good, good], None, None, None),
            ([good, good], [256, 0], 4, 0),
            ((good, good), None, 2, 1 << 40),                        # rows != k.rows
            ([ctypes.c_void_p(good), good], None, None, None),       # not plain ints
            ([good, good], None, None, ctypes.c_void_p(1 << 40))]:  # a ctypes stream
        with pytest.raises(rkc.RkcError) as e:
            k.launch(ptrs, strides, rows, stream)
        assert e.value.status == rkc.RKC_ERROR_NO_DRIVER, str(e.value)
    with pytest.raises(rkc.RkcError, match="rows must be positive"):
        k.launch([good, good], None, 0)
    with pytest.raises(rkc.RkcError, match="null pointer"):
        k.launch([good, None], None, 4)
    with pytest.raises(rkc.RkcError, match="null pointer"):
        k.launch([good, 0], None, 4)
    with pytest.raises(ValueError, match="takes 2 pointers"):
        k.launch([good], None, 4)


def test_torch_compile_uses_the_custom_ops(rec):
    """Under torch.compile the ops are opaque custom ops (no graph break); their
    implementations at run time take the launchers too."""
    if not hasattr(torch, "compile"):
        pytest.skip("no torch.compile")

    def f(x, w, t):
        y, h = rkc.rms_norm(x, w, residual=x)
        return rkc.softmax(x), rkc.layer_norm(x, w, w), rkc.cross_entropy(x, t), y, h

    g = torch.compile(f, backend="aot_eager", fullgraph=True)
    x, w, t = randn((4, 64)), randn((64,)), torch.zeros(4, dtype=torch.int64)
    outs = g(x, w, t)
    assert [tuple(o.shape) for o in outs] == [(4, 64), (4, 64), (), (4, 64), (4, 64)]
    assert len(rec.slow) == 4 and not rec.fast
    g(x, w, t)
    assert len(rec.slow) == 4 and len(rec.fast) == 4
