"""Random row programs (random_specs.py) through rkc.compile on the GPU,
each checked against its own float64 torch reference (not rkc's).

Every seed runs at three shapes drawn for it (one short row, one that
takes a warp or a block, one that takes a cluster or a stream) in one of
bf16 / f32 / f16, so the suite's 48 seeds reach every plan kind with
programs nobody wrote by hand. RKC_RANDOM_SPECS=A-B[,C...] runs those
seeds instead (e.g. 0-999 for a long hunt); a failure names its seed, and
`python3 test/gpu/random_specs.py SEED` prints the spec.
"""

import os
import random

import pytest

import random_specs

SHORT = [(1, 1), (3, 7), (5, 33), (64, 250), (2, 100)]
MIDDLE = [(64, 1000), (5, 4096), (33, 8191), (300, 2048), (7, 16384), (4, 12347)]
LONG = [(3, 65536), (2, 131075), (4, 262144), (2, 1000003), (3, 1048576), (300, 65536)]
DTYPES = ["bf16", "f32", "f16"]


def _seeds():
    """RKC_RANDOM_SPECS: comma-separated seeds and A-B ranges (default
    0-47). A program that found a bug is kept as a fixed spec in
    custom_specs.py (DOT_ROWS), since the generator's draws change."""
    spec = os.environ.get("RKC_RANDOM_SPECS")
    seeds = [] if spec else list(range(48))
    for part in (spec or "").split(","):
        if part.strip():
            a, _, b = part.strip().partition("-")
            seeds += range(int(a), int(b or a) + 1)
    return sorted(set(seeds))


# Programs the planner's registers edge takes (docs/planner.md rule 4: one
# CTA of 512 threads x 48-64 values in registers, async staging over many
# rows; 2 of seeds 0-1199), run with every suite; and one it declines
# (886 at 3 rows of 24576: about one wave, the cluster of 2 prefetches).
EDGE_CASES = [(266, "bf16", (4, 32768)), (266, "f16", (600, 24576)),
              (886, "bf16", (512, 32768)), (886, "f16", (100, 24576)),
              (886, "f16", (3, 24576))]
# Heavy streamed 16-bit rows (docs/planner.md rule 5: half the values per
# pass in the capped 512-thread CTAs; session 27), split and cluster forms.
HEAVY_STREAM_CASES = [(126, "bf16", (4, 1048576)), (100, "bf16", (4, 1048576)),
                      (18, "f16", (3, 1048576)), (73, "bf16", (64, 1048576))]


def _cases():
    out = []
    for seed in _seeds():
        rng = random.Random(10007 * seed + 1)
        dt = DTYPES[seed % 3]
        for shape in (rng.choice(SHORT), rng.choice(MIDDLE), rng.choice(LONG)):
            out.append((seed, dt, shape))
    return out + [c for c in EDGE_CASES + HEAVY_STREAM_CASES if c not in out]


@pytest.mark.parametrize("seed,dtype,shape", _cases(),
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v))
def test_random_program(seed, dtype, shape):
    import torch
    import rkc

    tdt = {"bf16": torch.bfloat16, "f32": torch.float32, "f16": torch.float16}[dtype]
    prog = random_specs.generate(seed)
    M, N = shape
    gen = torch.Generator(device="cuda").manual_seed(seed)
    inputs = random_specs.make_inputs(torch, prog, M, N, tdt, "cuda", gen)
    f = rkc.compile(prog.text, spec_name="random_%d.mlir" % seed)
    outs = f(*inputs.values())
    if not isinstance(outs, tuple):
        outs = (outs,)
    torch.cuda.synchronize()
    refs, tols = random_specs.tolerance(torch, prog, inputs, tdt)
    assert len(outs) == len(refs)
    for i, (got, ref, tol, (kind, elem)) in enumerate(zip(outs, refs, tols, prog.results)):
        where = "seed %d %s %dx%d result #%d (%s %s)" % (seed, dtype, M, N, i, kind, elem)
        assert tuple(got.shape) == tuple(ref.shape), where
        if elem == "i64":
            bad = (got != ref).nonzero()
            assert bad.numel() == 0, "%s: %d rows differ, first %s: %d vs %d" % (
                where, bad.shape[0], bad[0].tolist(), got[bad[0][0]].item(), ref[bad[0][0]].item())
            continue
        if elem == "dt":
            assert got.dtype == tdt, where
        assert torch.isfinite(got.float()).all(), "%s: non-finite values" % where
        err = random_specs.rel_err(torch, got, ref)
        assert err <= tol, "%s: rel. L2 error %.3g > %.3g\n%s" % (where, err, tol, prog.text)
