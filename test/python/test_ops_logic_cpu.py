"""The Python launch logic of rkc's tensor ops, on a machine without a GPU.

Needs torch (skipped without it). CPU tensors stand in for CUDA tensors: the
device check is relaxed and the final submission is replaced by a call of
the C launch with the real (host) pointers, which validates the arguments
exactly as on a GPU (vector alignment, strides, null pointers) and then stops
with "no CUDA driver". So everything except the kernel's execution is real:
the argument checks, flattening, strides, the compiled kernels and the
alignment fallback.
"""

import ctypes
import os
import sys

import pytest

torch = pytest.importorskip("torch")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in (os.path.join(REPO, "python"), os.path.join(REPO, "test", "gpu")):
    if p not in sys.path:
        sys.path.insert(0, p)

import _support  # noqa: E402,F401  (sys.path)
import rkc  # noqa: E402
import custom_specs  # noqa: E402


_library_ok = _support.library_ok


_has_cuda_driver = _support.has_cuda_driver


pytestmark = [
    pytest.mark.skipif(not _library_ok(), reason="librkc not found"),
    pytest.mark.skipif(_has_cuda_driver(), reason="a CUDA driver is present: host pointers "
                       "must not reach it (run test/gpu instead)"),
]


class Launches(list):
    pass


@pytest.fixture
def launches(monkeypatch):
    rec = Launches()
    real_check = rkc.ops._check_tensor

    def check_tensor(op, what, t):
        if isinstance(t, torch.Tensor) and t.device.type == "cpu":
            return
        real_check(op, what, t)

    def submit(k, ptrs, strides, M, dev):
        with pytest.raises(rkc.RkcError) as e:
            k.launch(ptrs, strides, M, None)
        # Validation passed: the launch stopped at the driver.
        assert e.value.status == rkc.RKC_ERROR_NO_DRIVER, str(e.value)
        rec.append({"kernel": k, "ptrs": list(ptrs), "strides": list(strides), "M": M})

    rkc.ops._t()
    monkeypatch.setattr(rkc.ops, "_check_tensor", check_tensor)
    monkeypatch.setattr(rkc.ops, "_submit", submit)
    monkeypatch.setattr(rkc.ops, "_arch", lambda dev: "sm_90a")
    # CPU tensors have no device index: one target for them and for the
    # "cuda:0" of rkc.precompile, whatever GPU the machine has (or none).
    monkeypatch.setattr(rkc.ops, "_target", lambda dev: ("sm_90a", None))
    monkeypatch.setattr(rkc.ops, "_compile_on", lambda dev, make: make())
    return rec


def randn(shape, dtype=torch.float32):
    return torch.randn(shape).to(dtype)


@pytest.mark.parametrize("dtype,V", [(torch.float32, 4), (torch.bfloat16, 8), (torch.float16, 8)])
def test_contiguous_ops(launches, dtype, V):
    M, N = 6, 1024
    x, w, b = randn((M, N), dtype), randn((N,), dtype), randn((N,), dtype)
    y = rkc.rms_norm(x, w)
    assert y.shape == (M, N) and y.dtype == dtype
    y, h = rkc.rms_norm(x, w, residual=randn((M, N), dtype))
    assert h.shape == (M, N)
    assert rkc.layer_norm(x, w, b).shape == (M, N)
    assert rkc.layer_norm(x, w).shape == (M, N)
    assert rkc.softmax(x).shape == (M, N)
    assert rkc.log_softmax(x).shape == (M, N)
    loss, lse = rkc.cross_entropy(x, torch.zeros(M, dtype=torch.int64), reduction="none",
                                  return_lse=True)
    assert loss.shape == (M,) and loss.dtype == torch.float32 and lse.shape == (M,)
    assert rkc.cross_entropy(x, torch.zeros(M, dtype=torch.int64)).shape == ()
    assert len(launches) == 8
    names = [l["kernel"].args[0].name for l in launches]
    assert names == ["x"] * 6 + ["logits"] * 2
    for l in launches:
        assert l["kernel"].vector_width == V
        assert l["M"] == M and l["strides"][0] == N
        assert all(s == 0 for s in l["strides"][1:] if True) or l["kernel"].num_args == 5
    res = launches[1]  # the residual variant: x, w, residual strides
    assert res["strides"] == [N, 0, N, 0, 0]


LAYOUTS = {"pad64": (64, 0), "pad3": (3, 0), "off1": (64, 1), "off2": (66, 2)}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_alignment_fallback(launches, dtype, layout):
    M, N = 5, 4096
    pad, off = LAYOUTS[layout]
    big = randn((M, N + pad), dtype)
    x = big[:, off:off + N]
    w = randn((N + off,), dtype)[off:]
    rkc.rms_norm(x, w)
    rkc.softmax(x)
    rkc.cross_entropy(x, torch.zeros(M, dtype=torch.int64))
    full = 4 if dtype == torch.float32 else 8
    want = {"pad64": full, "pad3": 1, "off1": 1, "off2": 2}[layout]
    for l in launches:
        assert l["kernel"].vector_width == want, (layout, l["kernel"].plan)
        assert l["strides"][0] == N + pad
    if want != full:
        assert "vector=%d" % want in launches[0]["kernel"].request[4]


def test_rows_flattening(launches):
    N = 256
    x = randn((2, 3, 4, N))
    w = randn((N,))
    assert rkc.rms_norm(x, w).shape == x.shape
    assert launches[-1]["M"] == 24 and launches[-1]["strides"][0] == N
    xt = randn((4, 3, N)).transpose(0, 1)
    assert rkc.softmax(xt).shape == (3, 4, N)
    assert launches[-1]["M"] == 12 and launches[-1]["strides"][0] == N
    x1 = randn((N,))
    assert rkc.log_softmax(x1).shape == (N,)
    assert launches[-1]["M"] == 1 and launches[-1]["strides"][0] == 0
    xb = randn((1, N)).expand(5, N)
    assert rkc.softmax(xb).shape == (5, N)
    assert launches[-1]["strides"][0] == N  # broadcast rows were copied
    # A single row of a padded parent: its stride does not matter.
    xs = randn((3, N + 3))[0:1, :N]
    rkc.softmax(xs)
    assert launches[-1]["strides"][0] == 0 and launches[-1]["kernel"].vector_width == 4
    # N-D cross-entropy with int32 targets.
    loss = rkc.cross_entropy(randn((2, 3, N)), torch.zeros((2, 3), dtype=torch.int32),
                             reduction="none")
    assert loss.shape == (2, 3)
    # Weight cast to the input dtype, strided weight made contiguous.
    rkc.rms_norm(randn((4, N), torch.bfloat16), randn((2 * N,))[::2])
    assert launches[-1]["kernel"].args[1].dtype == "bf16"


def test_eps_and_ignore_index_select_kernels(launches):
    x, w = randn((4, 512)), randn((512,))
    rkc.rms_norm(x, w, eps=1e-5)
    rkc.rms_norm(x, w, eps=1e-6)
    rkc.rms_norm(x, w, eps=1e-5)
    assert launches[0]["kernel"] is launches[2]["kernel"]
    assert launches[0]["kernel"] is not launches[1]["kernel"]
    assert "9.99999975e-06f" in launches[0]["kernel"].cuda
    rkc.cross_entropy(x, torch.zeros(4, dtype=torch.int64), ignore_index=-3)
    assert "-3LL" in launches[-1]["kernel"].cuda


def _errors():
    N = 64
    x = randn((4, N))
    w = randn((N,))
    t = torch.zeros(4, dtype=torch.int64)
    return [
        ("int-x", lambda: rkc.softmax(x.to(torch.int32)), TypeError, "float32, bfloat16 or float16"),
        ("f64-x", lambda: rkc.rms_norm(x.double(), w), TypeError, "float64"),
        ("weight-size", lambda: rkc.rms_norm(x, randn((N + 1,))), ValueError, r"shape \(64,\)"),
        ("int-weight", lambda: rkc.rms_norm(x, t), TypeError, "float tensor"),
        ("strided-last", lambda: rkc.softmax(randn((N, 4)).t()), ValueError, "contiguous last"),
        ("zero", lambda: rkc.softmax(randn((0, N))), ValueError, "zero-size"),
        ("residual-shape", lambda: rkc.rms_norm(x, w, residual=randn((2, N))), ValueError, "residual"),
        ("eps", lambda: rkc.rms_norm(x, w, eps=-1), ValueError, "eps"),
        ("eps-type", lambda: rkc.rms_norm(x, w, eps="a"), TypeError, "eps"),
        ("target-size", lambda: rkc.cross_entropy(x, t[:3]), ValueError, "target must have shape"),
        ("target-float", lambda: rkc.cross_entropy(x, t.float()), TypeError, "integer"),
        ("target-bool", lambda: rkc.cross_entropy(x, t.bool()), TypeError, "integer"),
        ("reduction", lambda: rkc.cross_entropy(x, t, reduction="avg"), ValueError, "reduction"),
        ("ignore-index", lambda: rkc.cross_entropy(x, t, ignore_index=1.5), TypeError, "ignore_index"),
        ("dim", lambda: rkc.log_softmax(x, dim=0), ValueError, "last dimension"),
        ("no-weight", lambda: rkc.layer_norm(x, None), TypeError, "weight is required"),
    ]


ERRORS = _errors()


@pytest.mark.parametrize("fn,exc,pattern", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors(launches, fn, exc, pattern):
    with pytest.raises(exc, match=pattern):
        fn()
    assert not launches


def test_cpu_tensor_rejected_without_patch():
    with pytest.raises(ValueError, match="must be a CUDA tensor"):
        rkc.rms_norm(randn((4, 8)), randn((8,)))
    with pytest.raises(ValueError, match="must be a CUDA tensor"):
        rkc.compile(custom_specs.L2_NORMALIZE)(randn((4, 8)))


@pytest.mark.parametrize("layout", ["pad64", "off1", "off2"])
def test_custom_spec_launch(launches, layout):
    N, M = 4096, 5
    pad, off = LAYOUTS[layout]
    f = rkc.compile(custom_specs.SCALE_AND_SUM, w=(N,))
    x = randn((M, N + pad), torch.bfloat16)[:, off:off + N]
    w = randn((N + off,), torch.bfloat16)[off:]
    y, s = f(x, w)
    assert y.shape == (M, N) and y.dtype == torch.bfloat16
    assert s.shape == (M,) and s.dtype == torch.float32
    l = launches[-1]
    assert l["strides"] == [N + pad, 0, 0, 0]
    assert l["kernel"].vector_width == {"pad64": 8, "off1": 1, "off2": 2}[layout]
    y3, s3 = f(randn((2, 3, N), torch.bfloat16), w)
    assert y3.shape == (2, 3, N) and s3.shape == (2, 3)
    with pytest.raises(ValueError, match="must have shape"):
        f(x, randn((N // 2,), torch.bfloat16))
    with pytest.raises(TypeError, match="takes 2 tensors"):
        f(x)
    with pytest.raises(TypeError, match="share one dtype"):
        f(x, randn((N,)))


def test_custom_spec_l2(launches):
    f = rkc.compile(custom_specs.L2_NORMALIZE)
    for dtype in (torch.float32, torch.bfloat16):
        for N in (1, 33, 4096):
            y = f(randn((3, N), dtype))
            assert y.shape == (3, N) and y.dtype == dtype
    assert len(launches) == 6


def test_precompile(launches):
    k = rkc.precompile("rms_norm", (8, 4096), torch.bfloat16, device="cuda:0", residual=True, eps=1e-5)
    assert [a.name for a in k.args] == ["x", "w", "residual", "out0", "out1"]
    x = randn((8, 4096), torch.bfloat16)
    rkc.rms_norm(x, randn((4096,), torch.bfloat16), eps=1e-5, residual=x)
    assert launches[-1]["kernel"] is k
    assert rkc.precompile("cross_entropy", (2, 3, 1000), "bf16", "cuda:0").args[0].shape == (6, 1000)
    with pytest.raises(TypeError):
        rkc.precompile("softmax", (2, 8), torch.float32, eps=1.0)
    with pytest.raises(TypeError):
        rkc.precompile("softmax", (2, 8), torch.int32)


def test_torch_library_registered():
    rkc.ops._t()
    for name in ("rms_norm", "rms_norm_residual", "layer_norm", "softmax", "log_softmax",
                 "cross_entropy"):
        assert hasattr(torch.ops.rkc, name)
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        a = torch.empty(4, 8)
        w = torch.empty(8)
        t = torch.zeros(4, dtype=torch.long)
        assert torch.ops.rkc.rms_norm(a, w).shape == (4, 8)
        assert [o.shape for o in torch.ops.rkc.rms_norm_residual(a, w, a)] == [(4, 8), (4, 8)]
        assert torch.ops.rkc.layer_norm(a, w).shape == (4, 8)
        assert torch.ops.rkc.cross_entropy(a, t).shape == ()
        assert torch.ops.rkc.cross_entropy(a, t, -100, "none").shape == (4,)
        assert torch.ops.rkc.cross_entropy(a, t, -100, "none").dtype == torch.float32
