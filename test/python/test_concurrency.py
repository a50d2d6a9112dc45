"""16 threads compiling the same and different kernels through the C API
at once (ctypes releases the GIL during the call): every call succeeds,
calls for one request get the same kernel (single flight: one compile per
key, then the in-process cache), and different requests different ones.
Also two processes sharing one disk cache directory."""
import ctypes
import os
import pathlib
import subprocess
import sys
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB = os.environ.get("RKC_LIBRARY", str(ROOT / "build" / "lib" / "librkc.so"))
SPEC = (ROOT / "examples" / "softmax.mlir").read_bytes()

pytestmark = pytest.mark.skipif(not pathlib.Path(LIB).exists(), reason="needs librkc.so")


def test_sixteen_threads(tmp_path, monkeypatch):
    monkeypatch.setenv("RKC_CACHE_DIR", str(tmp_path / "cache"))
    lib = ctypes.CDLL(LIB)
    lib.rkcKernelPlan.restype = ctypes.c_char_p
    lib.rkcKernelPlan.argtypes = [ctypes.c_void_p]
    lib.rkcKernelCuda.restype = ctypes.c_char_p
    lib.rkcKernelCuda.argtypes = [ctypes.c_void_p]
    lib.rkcGetLastError.restype = ctypes.c_char_p
    shapes = [b"x=16x%d" % n for n in (1000 + 7 * (os.getpid() % 97), 2048, 3001, 4096)]
    results, errors = {}, []

    def work(i):
        shape = shapes[i % len(shapes)]
        k = ctypes.c_void_p()
        s = lib.rkcKernelCompile(SPEC, b"softmax.mlir", shape, b"bf16", b"sm_90a", None,
                                 ctypes.byref(k))
        if s != 0:
            errors.append(lib.rkcGetLastError())
            return
        results[i] = (shape, lib.rkcKernelPlan(k), lib.rkcKernelCuda(k))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 16
    by_shape = {}
    for shape, plan, cuda in results.values():
        by_shape.setdefault(shape, set()).add((plan, cuda))
    assert all(len(v) == 1 for v in by_shape.values())      # identical per request
    assert len({next(iter(v))[1] for v in by_shape.values()}) == len(shapes)  # distinct


def test_two_processes_share_a_cache(tmp_path):
    code = f"""
import ctypes
lib = ctypes.CDLL({LIB!r})
for n in range(1000, 1012):
    k = ctypes.c_void_p()
    assert lib.rkcKernelCompile({SPEC!r}, b's', b'x=4x%d' % n, b'f32', b'sm_90a', None,
                                ctypes.byref(k)) == 0
"""
    env = dict(os.environ, RKC_CACHE_DIR=str(tmp_path / "cache"), RKC_DISABLE_TUNING_DB="1")
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    entries = list((tmp_path / "cache" / "kernels").glob("*.rkc"))
    assert len(entries) == 12
    assert not list((tmp_path / "cache" / "kernels").glob("*.tmp"))
    # Every entry verifies: a third process loads them all without warnings.
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and "warning" not in r.stderr
