# -*- Python -*-
# lit configuration of the rkc test suite. Features:
#   gpu       `nvidia-smi -L` succeeds (tests that launch kernels: REQUIRES: gpu)
#   ptxas     /usr/local/cuda/bin/ptxas exists (PTX assembly checks)
#   rkc-tool  build/bin/rkc exists (tests of the rkc driver)

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "rkc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.rkc_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "kernels"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP", "CUDA_HOME", "CXX"])
llvm_config.use_default_substitutions()

# PATH: the build's tools first, then LLVM's (FileCheck, not, count).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.rkc_tools_dir, append_path=True)

tool_dirs = [config.rkc_tools_dir, config.llvm_tools_dir]
tools = ["rk-opt", "split-file"]
if os.path.exists(os.path.join(config.rkc_tools_dir, "rkc")):
    tools.append("rkc")
    config.available_features.add("rkc-tool")
llvm_config.add_tool_substitutions(tools, tool_dirs)

config.substitutions.append(("%rkc_src", config.rkc_source_dir))
config.substitutions.append(("%examples", os.path.join(config.rkc_source_dir, "examples")))


def _gpu_present():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        r = subprocess.run([smi, "-L"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0


if _gpu_present():
    config.available_features.add("gpu")

if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
