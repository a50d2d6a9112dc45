"""GPU test suite of the rkc Python binding.

Every test here is marked `gpu` and skipped, with the reason shown by
`pytest -rs`, when torch is missing, CUDA is not available or librkc cannot
be loaded. With RKC_GPU_SUMMARY=/path/summary.json, a JSON summary (date,
device, commit, counts) is written at the end of the session.
"""

import datetime
import json
import os
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
_py = os.path.join(REPO, "python")
if _py not in sys.path:
    sys.path.insert(0, _py)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

_config = None
_unavailable = None  # reason to skip, or "" when the GPU tests can run


def gpu_unavailable():
    global _unavailable
    if _unavailable is not None:
        return _unavailable
    reason = ""
    try:
        import torch
    except Exception as e:
        reason = "torch is not installed (%s)" % e
    else:
        if not torch.cuda.is_available():
            reason = "torch.cuda.is_available() is False (no GPU or no driver)"
    if not reason:
        try:
            import rkc
            rkc.version()
        except Exception as e:
            reason = "librkc cannot be loaded: %s" % e
    _unavailable = reason
    return reason


def precompile_selected(request, case_type, compile_one):
    """Compiles, on several threads (RKC_TEST_COMPILE_THREADS, default the
    CPU count up to 16), the kernels (`case.kernels()`: (op, shape, dtype,
    params) tuples) of every selected test parametrised with a `case_type`,
    with compile_one(op, shape, dtype, params). A kernel that fails to
    compile is left to its case to report. Returns the summary recorded in
    gpu-summary.json: kernels, threads, seconds, errors."""
    from concurrent.futures import ThreadPoolExecutor

    import torch

    reqs = set()
    for item in request.session.items:
        cs = getattr(item, "callspec", None)
        if cs is None:
            continue
        for v in cs.params.values():
            if isinstance(v, case_type):
                reqs.update(v.kernels())
    threads = int(os.environ.get("RKC_TEST_COMPILE_THREADS", min(16, os.cpu_count() or 1)))
    torch.cuda.init()
    torch.cuda.get_device_capability()
    errors = []

    def one(r):
        op, shape, dt, params = r
        try:
            compile_one(op, shape, dt, params)
        except Exception as e:  # the case itself reports it
            errors.append("%s: %s" % (r, str(e).splitlines()[0] if str(e) else e))

    t0 = time.time()
    with ThreadPoolExecutor(max(1, threads)) as ex:
        list(ex.map(one, sorted(reqs, key=repr)))
    return {"kernels": len(reqs), "threads": threads,
            "seconds": round(time.time() - t0, 1), "errors": len(errors)}


def pytest_configure(config):
    global _config
    _config = config
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU, torch and librkc")
    config._rkc_counts = {"passed": 0, "failed": 0, "skipped": 0, "xfailed": 0,
                          "xpassed": 0, "errors": 0}
    config._rkc_failed = []
    config._rkc_start = time.time()


def pytest_report_header(config):
    lines = []
    reason = gpu_unavailable()
    if reason:
        return ["rkc gpu suite: SKIPPED: " + reason]
    import torch
    import rkc
    lines.append("rkc gpu suite: device %s (sm_%d%d), torch %s, CUDA %s"
                 % (torch.cuda.get_device_name(), *torch.cuda.get_device_capability(),
                    torch.__version__, torch.version.cuda))
    lines.append("librkc %s at %s" % (rkc.version(), rkc.library_path()))
    return lines


def pytest_collection_modifyitems(config, items):
    reason = gpu_unavailable()
    for item in items:
        if not str(item.fspath).startswith(HERE):
            continue
        item.add_marker(pytest.mark.gpu)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_runtest_logreport(report):
    config = _config
    if config is None:
        return
    c = config._rkc_counts
    if report.when == "call":
        if hasattr(report, "wasxfail"):
            c["xpassed" if report.passed else "xfailed"] += 1
        elif report.passed:
            c["passed"] += 1
        elif report.failed:
            c["failed"] += 1
            config._rkc_failed.append(report.nodeid)
        elif report.skipped:
            c["skipped"] += 1
    elif report.failed:  # setup / teardown errors
        c["errors"] += 1
        config._rkc_failed.append(report.nodeid + " (" + report.when + ")")
    elif report.when == "setup" and report.skipped:
        if hasattr(report, "wasxfail"):
            c["xfailed"] += 1
        else:
            c["skipped"] += 1


def pytest_collectreport(report):
    config = _config
    if config is None:
        return
    if report.failed:
        config._rkc_counts["errors"] += 1
        config._rkc_failed.append(report.nodeid + " (collection)")
    elif report.skipped:
        config._rkc_counts["skipped"] += 1


def _commit():
    c = os.environ.get("RKC_COMMIT")
    if c:
        return c
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or None
    except Exception:
        return None


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("RKC_GPU_SUMMARY")
    if not path:
        return
    config = session.config
    info = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": _commit(),
        "exit_status": int(exitstatus),
        "duration_s": round(time.time() - config._rkc_start, 1),
        "counts": dict(config._rkc_counts),
        "failed_tests": config._rkc_failed[:200],
        "skip_reason": gpu_unavailable() or None,
        "precompile": getattr(config, "_rkc_precompile", None),
    }
    try:
        import torch
        info["torch"] = torch.__version__
        info["cuda"] = torch.version.cuda
        if torch.cuda.is_available():
            info["device"] = torch.cuda.get_device_name()
            info["capability"] = "sm_%d%d" % torch.cuda.get_device_capability()
    except Exception:
        pass
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception:
        pass
    try:
        import rkc
        info["rkc"] = rkc.version()
        info["librkc"] = rkc.library_path()
    except Exception:
        pass
    c = info["counts"]
    info["passed"], info["failed"] = c["passed"], c["failed"] + c["errors"]
    info["skipped"] = c["skipped"]
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    with open(path, "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
