"""scripts/spill-sweep (ptxas spills of the planner's kernels over random
programs, CPU only): it runs, prints a case line per compile and the
summary by plan kind, and reports a bad argument as an error."""

import os
import re
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "spill-sweep")


def _rkc():
    lib = os.environ.get("RKC_LIBRARY", os.path.join(REPO, "build", "lib", "librkc.so"))
    return os.path.join(os.path.dirname(os.path.dirname(lib)), "bin", "rkc")


needs_tools = pytest.mark.skipif(
    not os.access(_rkc(), os.X_OK) or not (shutil.which("ptxas") or
                                          os.path.exists("/usr/local/cuda/bin/ptxas")),
    reason="needs the rkc tool and ptxas")


@needs_tools
def test_spill_sweep_reports_cases_and_summary():
    out = subprocess.run([sys.executable, SCRIPT, "--seeds", "0-1", "--ns", "4096,1048576",
                          "--ms", "4", "--dtypes", "bf16", "--jobs", "2", "--rkc", _rkc()],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    cases = [l for l in out.stdout.splitlines() if re.match(r"\d+ bf16 4x\d+ \d+ \d+ threads=", l)]
    assert len(cases) == 4, out.stdout
    assert "== 4 cases, 0 errors" in out.stdout, out.stdout


def test_spill_sweep_rejects_bad_arguments():
    out = subprocess.run([sys.executable, SCRIPT, "--seeds", "x", "--rkc", sys.executable],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "spill-sweep:" in out.stderr, out.stderr
