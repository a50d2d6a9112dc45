"""argmax / argmin (builtin `rk.reduce` kinds) on the GPU, at every plan.

A thread folds its values to their extreme and the lowest column holding
it (rkc::fold_arg_extreme), then the tiers combine (value, index) states.
What must hold whatever the plan: the lowest index wins ties, NaN is the
extreme (for argmin too, as in PyTorch) and the lowest NaN wins, a row of
-inf (argmax) or +inf (argmin) gives index 0, and shifted rows (N not a
multiple of the vector: their first value slots hold the row's last
columns) still give the lowest column. Rows are drawn so that each of
these happens: small integers (many ties), random normals, NaNs at two
places, all-infinite rows, and equal extremes at the row's two ends.
"""

import os
import zlib

import pytest

torch = pytest.importorskip("torch")

import rkc  # noqa: E402
import custom_specs  # noqa: E402
from conftest import gpu_unavailable  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "examples")
DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}

ARGMIN = """
func.func @argmin(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> (tensor<?xi64>, tensor<?xf32>) {
  %v, %i = rk.reduce argmin %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>, tensor<?xi64>
  return %i, %v : tensor<?xi64>, tensor<?xf32>
}
"""

# M, N: several rows per CTA, sub-warp and single-element rows, shifted
# rows (odd N) held and streamed, clusters, rows of 1M streamed in a
# cluster, read-once rows streamed one per CTA (M >= 2 x 132).
SHAPES = [(4097, 1000), (64, 256), (5, 3), (1, 1), (37, 4095), (9, 50257), (3, 65536),
          (2, 262144), (2, 1048576), (2, 1000003), (300, 131080)]
CASES = [(op, dt, M, N) for op in ("argmax", "argmin") for dt in ("bf16", "f32", "f16")
         for (M, N) in SHAPES]


def _skip():
    reason = gpu_unavailable()
    if reason:
        pytest.skip(reason)


def _spec(op):
    if op == "argmin":
        return ARGMIN
    with open(os.path.join(EXAMPLES, "argmax.mlir")) as f:
        return f.read()


def _rows(op, dt, M, N, gen):
    """Rows cycling through the patterns of the module docstring."""
    ext = float("inf") if op == "argmax" else float("-inf")
    x = torch.randn(M, N, generator=gen, device="cuda") * 4.0
    # Few rows (the cluster and streamed shapes) take the patterns that
    # test the order first: equal extremes at both ends (a shifted row's
    # last column sits in its first slots), NaNs, then ties.
    order = torch.tensor([4, 2, 0, 5, 3, 1], device="cuda")
    kind = order[torch.arange(M, device="cuda") % 6]
    ints = torch.randint(-3, 4, (M, N), generator=gen, device="cuda").float()
    x = torch.where((kind == 0)[:, None], ints, x)
    if N >= 2:
        # Two NaNs (kind 2), the extreme at both ends (kind 4).
        i = torch.randint(0, N, (M, 2), generator=gen, device="cuda")
        rows = torch.nonzero(kind == 2).flatten()
        x[rows[:, None], i[rows]] = float("nan")
        rows = torch.nonzero(kind == 4).flatten()
        big = 1000.0 if op == "argmax" else -1000.0
        x[rows, 0] = big
        x[rows, N - 1] = big
    x[kind == 3] = -ext  # a row of -inf for argmax, +inf for argmin
    if N >= 3:
        rows = torch.nonzero(kind == 5).flatten()
        x[rows, N // 3] = ext  # an infinite extreme, twice
        x[rows, N - 1] = ext
    return x.to(DT[dt])


def _reference(op, x):
    """(index, value) per row: NaN first (the lowest NaN), else the lowest
    index of the extreme value."""
    xd = x.double().cpu()
    nan = torch.isnan(xd)
    fill = float("-inf") if op == "argmax" else float("inf")
    clean = xd.masked_fill(nan, fill)
    m = clean.max(-1).values if op == "argmax" else clean.min(-1).values
    first = lambda b: b.to(torch.int8).argmax(-1)  # the first True of each row
    has_nan = nan.any(-1)
    idx = torch.where(has_nan, first(nan), first(clean == m[:, None]))
    val = torch.where(has_nan, torch.full_like(m, float("nan")), m)
    return idx, val


@pytest.mark.gpu
@pytest.mark.parametrize("op,dt,M,N", CASES, ids=["%s-%s-%dx%d" % c for c in CASES])
def test_arg_reduce(op, dt, M, N):
    _skip()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(zlib.crc32(("%s %s %d %d" % (op, dt, M, N)).encode()))
    f = rkc.compile(_spec(op), spec_name=op + ".mlir")
    plan = f.kernel("x=%dx%d" % (M, N), dtype=dt).plan
    x = _rows(op, dt, M, N, gen)
    idx, val = f(x)
    torch.cuda.synchronize()
    ref_idx, ref_val = _reference(op, x)
    bad = torch.nonzero(idx.cpu() != ref_idx).flatten()
    assert bad.numel() == 0, "%d rows differ, first row %d: index %d, expected %d (%s)" % (
        bad.numel(), int(bad[0]), int(idx[bad[0]]), int(ref_idx[bad[0]]), plan)
    assert torch.equal(val.cpu().double().isnan(), ref_val.isnan()), plan
    ok = ~ref_val.isnan()
    assert torch.equal(val.cpu().double()[ok], ref_val[ok]), plan


# A product and an argmin of the same row in one kernel: held rows, and
# streamed rows (N >= 262144) where both fold in one sweep.
FUSED = [("bf16", 64, 4096), ("f32", 5, 8191), ("bf16", 3, 262144), ("f32", 2, 1048576),
         ("bf16", 2, 1000003), ("bf16", 300, 131080)]


@pytest.mark.gpu
@pytest.mark.parametrize("dt,M,N", FUSED, ids=["%s-%dx%d" % c for c in FUSED])
def test_product_and_argmin_share_the_row(dt, M, N):
    _skip()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(zlib.crc32(("fused %s %d %d" % (dt, M, N)).encode()))
    f = rkc.compile(custom_specs.PRODUCT_ARGMIN, spec_name="product_argmin.mlir")
    plan = f.kernel("x=%dx%d" % (M, N), dtype=dt).plan
    # Ones with a few halves and twos (1 in 1024 each): exact products in any
    # order while they stay in range (2^+-45 or so at 1M values), and ties
    # for the minimum; the argmin patterns of _rows (NaNs, infinities, equal
    # extremes at both ends) where it puts them.
    rows = _rows("argmin", "f32", M, N, gen)
    r = torch.rand(M, N, generator=gen, device="cuda")
    x = torch.ones(M, N, device="cuda")
    x[r < 2.0 ** -10] = 0.5
    x[r > 1.0 - 2.0 ** -10] = 2.0
    special = ~torch.isfinite(rows) | (rows.abs() >= 1000)
    x = torch.where(special, rows, x).to(DT[dt])
    p, val, idx = f(x)
    torch.cuda.synchronize()
    ref_idx, ref_val = _reference("argmin", x)
    assert torch.equal(idx.cpu(), ref_idx), plan
    assert torch.equal(val.cpu().double().isnan(), ref_val.isnan()), plan
    ref_p = x.double().prod(-1).cpu()
    got = p.cpu().double()
    fin = torch.isfinite(ref_p) & (ref_p.abs() < 1e30) & (ref_p.abs() > 1e-30)
    assert fin.any(), ref_p
    assert torch.equal(got[~fin].isnan(), ref_p[~fin].isnan()), plan
    assert torch.allclose(got[fin], ref_p[fin], rtol=1e-6, atol=0), (plan, got, ref_p)
