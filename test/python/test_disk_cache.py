"""The on-disk kernel cache without a GPU: entries written once and reused,
corrupt or truncated entries rebuilt, untrusted or unusable directories
ignored with a warning (never a failure).

Each case compiles through the C API in a fresh process (the in-process
cache would hide the disk) with RKC_CACHE_DIR pointing at a temporary
directory.
"""
import os
import pathlib
import stat
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB = os.environ.get("RKC_LIBRARY", str(ROOT / "build" / "lib" / "librkc.so"))
SPEC = ROOT / "examples" / "softmax.mlir"

pytestmark = pytest.mark.skipif(not pathlib.Path(LIB).exists(), reason="needs librkc.so")

CODE = f"""
import ctypes, sys, time
lib = ctypes.CDLL({LIB!r})
lib.rkcKernelPlan.restype = ctypes.c_char_p
lib.rkcGetLastError.restype = ctypes.c_char_p
k = ctypes.c_void_p()
t = time.perf_counter()
s = lib.rkcKernelCompile(open({str(SPEC)!r}, 'rb').read(), b'softmax.mlir', b'x=8x1000',
                         b'bf16', b'sm_90a', None, ctypes.byref(k))
if s != 0:
    sys.exit(lib.rkcGetLastError().decode())
print(lib.rkcKernelPlan(k).decode())
print('ms', (time.perf_counter() - t) * 1e3)
"""


def compile_once(cache, shape="x=8x1000"):
    env = dict(os.environ, RKC_CACHE_DIR=str(cache), RKC_DISABLE_TUNING_DB="1")
    code = CODE.replace("b'x=8x1000'", repr(shape.encode()))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr + r.stdout
    return r.stdout, r.stderr


def entries(cache):
    return sorted((cache / "kernels").glob("*.rkc"))


def test_entry_written_once_and_reused(tmp_path):
    cache = tmp_path / "c"
    out1, _ = compile_once(cache)
    files = entries(cache)
    assert len(files) == 1
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
    before = files[0].stat().st_mtime_ns
    out2, err2 = compile_once(cache)
    assert out2.splitlines()[0] == out1.splitlines()[0]
    assert files[0].stat().st_mtime_ns == before  # a hit: not rewritten
    assert "warning" not in err2


def test_entry_keeps_the_grid_tier(tmp_path):
    # A split kernel (two rows of 1M: the grid tier) is launched with its
    # CTAs per row and a workspace per group: both are in the entry's
    # launch line, and a disk hit gives the same plan.
    cache = tmp_path / "c"
    out1, _ = compile_once(cache, "x=2x1048576")
    assert ",split=128" in out1.splitlines()[0]
    data = entries(cache)[0].read_bytes()
    info = data[data.index(b"\ninfo ") + 1:].split(b"\n")
    launch = [int(v) for v in info[2].split()]  # after "info N" and the name
    split, workspace = launch[-2:]
    assert split == 128 and workspace > 0 and workspace % 128 == 0, launch
    out2, _ = compile_once(cache, "x=2x1048576")
    assert out2.splitlines()[0] == out1.splitlines()[0]


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_damaged_entry_is_rebuilt(tmp_path, damage):
    cache = tmp_path / "c"
    compile_once(cache)
    f = entries(cache)[0]
    data = f.read_bytes()
    if damage == "truncate":
        f.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        i = len(data) - 100
        f.write_bytes(data[:i] + bytes([data[i] ^ 0xFF]) + data[i + 1:])
    else:
        f.write_bytes(b"\x00" * 64)
    out, err = compile_once(cache)
    assert "threads=" in out
    assert "ignoring the corrupt or foreign kernel cache entry" in err
    # Rebuilt: the entry verifies again (the next run is a silent hit).
    _, err = compile_once(cache)
    assert "warning" not in err


def test_world_writable_directory_is_not_trusted(tmp_path):
    cache = tmp_path / "c"
    compile_once(cache)
    os.chmod(cache / "kernels", 0o777)
    out, err = compile_once(cache)
    assert "threads=" in out
    assert "writable by others; not trusting it" in err


def test_unusable_directory_means_no_disk_cache(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    out, err = compile_once(blocker)
    assert "threads=" in out
    assert "compiling without a disk cache" in err


RKC = pathlib.Path(LIB).resolve().parent.parent / "bin" / "rkc"


@pytest.mark.skipif(not RKC.exists(), reason="needs the rkc tool")
@pytest.mark.parametrize("spec,shapes,schedule", [
    (SPEC, ["x=8x1000"], "threads=128"),
    (ROOT / "examples" / "gemv_w4a16.mlir", ["x=1x4096", "q=4096x1024", "scales=32x1024"],
     "vector=1,threads=256,cluster=2,unroll=4,mma=1,kwarps=8"),
], ids=["row", "column"])
def test_tuner_after_a_disk_hit_sees_the_problem(tmp_path, spec, shapes, schedule):
    # The tuner searches from what the planner saw (the row or column
    # problem); a kernel read back from the disk cache must carry it.
    # Without a GPU the tuner stops at the driver, after that check.
    cache = tmp_path / "c"
    env = dict(os.environ, RKC_CACHE_DIR=str(cache), RKC_DISABLE_TUNING_DB="1")
    cmd = [str(RKC), "tune", str(spec), "--dtype", "f16", "--arch", "sm_90a", "--try", schedule]
    for s in shapes:
        cmd += ["--shape", s]
    for _ in range(2):
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert "the tuner takes" not in r.stderr + r.stdout
        assert r.returncode != 0 and "driver" in r.stderr  # no GPU here: stopped there
    assert len(entries(cache)) == 1  # the second run was a disk hit
