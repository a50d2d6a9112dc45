"""Generic row specs that no bundled example covers, through `rkc run` on
the GPU: each kernel is checked by the driver's harness against the
double-precision reference of the spec (lib/Runtime/Reference.cpp), at
shapes that reach every plan kind (one thread per row, warp and block rows,
odd N, a streamed row, a cluster row). A new spec must get a correct kernel
with no new template or C++; these are the specs a user would write first."""

import os
import subprocess

import pytest

import custom_specs
from test_column_tuning_gpu import env_for, rkc_exe

# (constant in custom_specs, dtypes, shapes of x)
CASES = [
    ("TEMPERATURE_SOFTMAX", ["f32", "bf16"], ["1x1", "3x7", "5x8191", "300x65536", "2x262144"]),
    ("ROW_MEAN_VARIANCE", ["f32", "bf16"], ["1x33", "64x4096", "7x1000003", "2x262144"]),
    ("ROW_MAX_MIN", ["f16"], ["3x7", "5x8191", "7x1000003"]),
    # Rows that would need a cluster: 16-bit ones streamed in one sweep
    # (no reduction), shifted (odd N) included.
    ("GELU_TANH", ["bf16"], ["1x1", "64x4096", "5x8191", "300x65536", "7x262144", "2x1000003"]),
    # (f32 from 64 x 4096: the relative L2 error of a single value of
    # GELU(x) for x << 0 is the f32 cancellation in 1 + tanh, 6e-5 at 1 x 1.)
    ("GELU_TANH", ["f32"], ["64x4096", "300x65536", "7x262144", "2x1000003"]),
    # f16 sums that overflow (N >= 65536) are inf in kernel and reference:
    # the check compares non-finite values exactly instead of failing on
    # inf - inf.
    ("ABS_SUM_F16", ["f32", "bf16"], ["3x7", "300x65536", "2x262144"]),
    ("PRODUCT_ARGMIN", ["f32", "bf16"], ["3x7", "5x8191", "7x1000003", "2x262144"]),
    ("ARG_EXTREMES_AND_SPREAD", ["bf16", "f32"], ["3x7", "5x8191", "300x65536", "7x1000003",
                                                  "4x1048576"]),
    ("SCALE_BIAS", ["bf16", "f16"], ["3x7", "64x4096", "300x65536", "7x262144", "2x1000003"]),
    # Two rows read once, staged by each thread (the hinted-copy fault).
    ("DOT_ROWS", ["bf16", "f16", "f32"], ["4x4096", "64x4096", "4x12347", "300x2048", "3x262144",
                                          "2x1000003"]),
]

PARAMS = [(name, dt, shape) for name, dts, shapes in CASES for dt in dts for shape in shapes]


@pytest.mark.parametrize("name,dtype,shape", PARAMS,
                         ids=["%s-%s-%s" % p for p in PARAMS])
def test_rkc_run_generic_spec(tmp_path, name, dtype, shape):
    path = tmp_path / ("%s.mlir" % name.lower())
    path.write_text(getattr(custom_specs, name))
    out = subprocess.run([rkc_exe(), "run", str(path), "--dtype", dtype, "--shape", "x=" + shape,
                          "--reps", "3"], env=env_for(tmp_path), capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and "PASS" in out.stdout, out.stdout + out.stderr
    assert "non-finite mismatches 0" in out.stdout, out.stdout


def test_overflowing_f16_sum_is_inf():
    """The overflow those cases rely on is real: the kernel's f16 row sum of
    262144 ones is +inf (beyond f16's 65504), and of 1000 ones exactly
    1000."""
    import torch
    import rkc
    f = rkc.compile(custom_specs.ABS_SUM_F16)
    x = torch.ones(2, 262144, device="cuda", dtype=torch.float32)
    x[1, 1000:] = 0
    out = f(x)
    assert out.dtype == torch.float16 and out.shape == (2,)
    assert torch.isinf(out[0]) and out[0] > 0, out
    assert out[1].item() == 1000.0, out


def test_tune_accepts_a_product_that_overflows_in_another_order(tmp_path):
    """The tuner checks 64 rows of 2^20 values of N(0, 4): every product
    overflows, and in the kernel's tree of partial products rows 5 and 39
    meet inf * 0 (NaN), as a float32 simulation of that order gives. The
    check accepts a NaN where the reference overflows; the argmin (value
    and index, ties included) must still match exactly."""
    path = tmp_path / "product_argmin.mlir"
    path.write_text(custom_specs.PRODUCT_ARGMIN)
    env = env_for(tmp_path)
    env["RKC_DISABLE_TUNING_DB"] = "1"
    out = subprocess.run([rkc_exe(), "tune", str(path), "--dtype", "bf16", "--shape",
                          "x=128x1048576", "--try", "unroll=4"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "heuristic" in out.stdout and "wrong result" not in out.stdout, out.stdout
