"""Programmatic dependent launch (PDL) on the GPU.

A PDL launch lets a kernel start while the previous kernel of the stream is
still running; every rkc kernel waits for that kernel (griddepcontrol.wait)
before its first access to anything it may have written, except a GEMV's
quantized weights, which it loads at once. So a chain of kernels in which
each one reads the previous one's output must give, bit for bit, what the
same chain gives with plain launches: eagerly and captured in a CUDA graph
(where the launches become programmatic graph edges), with torch kernels
interleaved (a PDL kernel after a non-PDL one), and with outputs allocated
from a pool that recycles the buffers of finished kernels (write-after-read
hazards: a kernel that writes before its wait would clobber data the
previous kernel still reads).
"""

import pytest

torch = pytest.importorskip("torch")

import rkc  # noqa: E402
from conftest import gpu_unavailable  # noqa: E402


def _skip():
    reason = gpu_unavailable()
    if reason:
        pytest.skip(reason)


def _row_chain(x, w, b, steps):
    """x -> rms_norm -> softmax -> * 4096 (torch) -> layer_norm -> log_softmax
    -> ... : each kernel reads the previous one's output."""
    outs = []
    for i in range(steps):
        x = rkc.rms_norm(x, w)
        x = rkc.softmax(x)
        if i % 2:
            x = x * float(x.shape[-1])  # a torch kernel between two rkc ones
        x = rkc.layer_norm(x, w, b)
        x = rkc.log_softmax(x)
        outs.append(x)
    return outs


def _run_rows(pdl, M, N, dt, graph, steps=6):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234 + M + N)
    x = torch.randn(M, N, generator=gen, device="cuda").to(dt)
    w = (torch.rand(N, generator=gen, device="cuda") + 0.5).to(dt)
    b = (torch.randn(N, generator=gen, device="cuda") * 0.1).to(dt)
    old = rkc.set_pdl(pdl)
    try:
        outs = _row_chain(x, w, b, 1)  # compile outside any capture
        torch.cuda.synchronize()
        if not graph:
            outs = _row_chain(x, w, b, steps)
            torch.cuda.synchronize()
            return [o.clone() for o in outs]
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            outs = _row_chain(x, w, b, steps)
        for _ in range(3):
            g.replay()
        torch.cuda.synchronize()
        return [o.clone() for o in outs]
    finally:
        rkc.set_pdl(old)


ROW_CASES = [(1, 4096, torch.bfloat16), (128, 8192, torch.bfloat16),
             (4096, 4096, torch.float32), (8, 65536, torch.bfloat16),
             (3, 262144, torch.float16)]


@pytest.mark.gpu
@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("M,N,dt", ROW_CASES,
                         ids=["M%d-N%d-%s" % (m, n, str(d).split(".")[-1]) for m, n, d in ROW_CASES])
def test_row_chain_pdl_equals_plain(M, N, dt, graph):
    _skip()
    plain = _run_rows(False, M, N, dt, graph)
    pdl = _run_rows(True, M, N, dt, graph)
    assert len(plain) == len(pdl)
    for i, (a, b) in enumerate(zip(plain, pdl)):
        assert torch.isfinite(a.float()).all(), "step %d: non-finite output" % i
        assert torch.equal(a, b), "step %d: PDL differs from a plain launch (max |d| %g)" % (
            i, (a.float() - b.float()).abs().max().item())


def _gemv_chain(x, qs, biases, pdl):
    """x -> gemv(q0) -> rms_norm -> gemv(q1) -> ...: each GEMV reads the
    previous kernel's output as its activations."""
    w = torch.ones(x.shape[-1], device="cuda", dtype=x.dtype)
    outs = []
    for q, bias in zip(qs, biases):
        x = rkc.gemv(x, q, bias=bias, pdl=pdl)
        outs.append(x)
        x = rkc.rms_norm(x, w)
    return outs


GEMV_CASES = [(4, 1, 4096, 128), (4, 1, 2048, 64), (8, 1, 4096, 128), (4, 4, 4096, 128),
              (4, 16, 1024, 32)]


@pytest.mark.gpu
@pytest.mark.parametrize("graph", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("bits,M,K,G", GEMV_CASES,
                         ids=["w%d-M%d-K%d-g%d" % c for c in GEMV_CASES])
def test_gemv_chain_pdl_equals_plain(bits, M, K, G, graph):
    _skip()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(99 + bits + M + K)
    steps = 8
    qs = [rkc.quantize(torch.randn(K, K, generator=gen, device="cuda").half() * 0.05,
                       bits=bits, group_size=G) for _ in range(steps)]
    biases = [None if i % 3 else torch.randn(K, generator=gen, device="cuda").half()
              for i in range(steps)]
    x = torch.randn(M, K, generator=gen, device="cuda").half()
    results = {}
    for pdl in (False, True):
        old = rkc.set_pdl(pdl)  # the rms_norm between the GEMVs too
        try:
            _gemv_chain(x, qs[:1], biases[:1], pdl)  # compile outside the capture
            torch.cuda.synchronize()
            if graph:
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    outs = _gemv_chain(x, qs, biases, pdl)
                for _ in range(3):
                    g.replay()
            else:
                outs = _gemv_chain(x, qs, biases, pdl)
            torch.cuda.synchronize()
            results[pdl] = [o.clone() for o in outs]
        finally:
            rkc.set_pdl(old)
    for i, (a, b) in enumerate(zip(results[False], results[True])):
        assert torch.isfinite(a.float()).all(), "step %d: non-finite output" % i
        assert torch.equal(a, b), "step %d: PDL differs from a plain launch (max |d| %g)" % (
            i, (a.float() - b.float()).abs().max().item())


@pytest.mark.gpu
def test_kernel_pdl_flag():
    """rkc.Kernel(pdl=True) sets the handle's launch flags; the flags are
    per handle."""
    _skip()
    text = rkc.spec_text("softmax")
    a = rkc.Kernel(text, "x=4x1024", "f32", pdl=True)
    b = rkc.Kernel(text, "x=4x1024", "f32")
    lib = rkc._lib.library()
    assert lib.rkcKernelLaunchFlags(a._handle) == rkc._lib.RKC_LAUNCH_PDL
    assert lib.rkcKernelLaunchFlags(b._handle) == 0
    x = torch.randn(4, 1024, device="cuda")
    ya, yb = torch.empty_like(x), torch.empty_like(x)
    a.launch([x.data_ptr(), ya.data_ptr()], stream=torch.cuda.current_stream().cuda_stream)
    b.launch([x.data_ptr(), yb.data_ptr()], stream=torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    assert torch.equal(ya, yb)
    assert torch.allclose(ya, torch.softmax(x, -1), atol=1e-6)
