"""Shared by the CPU tests of the Python binding: the package on sys.path and
the two environment probes they skip on."""
import ctypes
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for _p in (os.path.join(REPO, "python"), os.path.join(REPO, "test", "gpu")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import rkc  # noqa: E402


def library_ok():
    """True if librkc can be loaded."""
    try:
        rkc.version()
        return True
    except rkc.RkcError:
        return False


def has_cuda_driver():
    """True if librkc would find a CUDA driver (host-pointer tests must not
    run). librkc loads RKC_CUDA_DRIVER_LIBRARY if set, else libcuda.so.1: a
    GPU machine runs these tests (with its torch) by pointing it at no
    library (scripts/gpu-run's pycpu step)."""
    try:
        ctypes.CDLL(os.environ.get("RKC_CUDA_DRIVER_LIBRARY") or "libcuda.so.1")
        return True
    except OSError:
        return False
