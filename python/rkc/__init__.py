"""rkc: memory-bound row kernels (RMSNorm, LayerNorm, softmax, log-softmax,
cross-entropy, custom rk specs) and quantized ops (int4 / int8 quantize,
dequantize, the W4A16 / W8A16 decode GEMV; see rkc.quant) compiled by librkc
and launched on PyTorch CUDA tensors.

    import torch, rkc
    y = rkc.rms_norm(x, w, eps=1e-6)
    y, h = rkc.rms_norm(x, w, residual=r)
    loss = rkc.cross_entropy(logits, target, reduction="mean")
    f = rkc.compile(open("my_op.mlir").read()); out = f(x)
    qw = rkc.quantize(w, bits=4, group_size=128); y = rkc.gemv(x, qw)   # W4A16

``import rkc`` needs neither torch nor the library: librkc is loaded on first
use (env RKC_LIBRARY, else <repo>/build/lib/librkc.so) and a missing library
raises rkc.RkcError then; torch is imported on first use of a tensor op.
"""

from ._lib import (RkcError, Kernel, library_path, version, RKC_OK,
                   RKC_ERROR_INVALID_ARGUMENT, RKC_ERROR_COMPILE,
                   RKC_ERROR_NO_DRIVER, RKC_ERROR_CUDA)
from ._spec import spec_text, spec_path, SPEC_NAMES, mlir_float, quant_spec_text
from .ops import (rms_norm, layer_norm, softmax, log_softmax, cross_entropy,
                  compile, CompiledSpec, precompile, clear_cache,
                  register_torch_ops, set_pdl)
from . import quant
from .quant import QuantizedTensor, quantize, dequantize, gemv, linear

__version__ = "0.1.0"

__all__ = [
    "RkcError", "Kernel", "library_path", "version",
    "rms_norm", "layer_norm", "softmax", "log_softmax", "cross_entropy",
    "compile", "CompiledSpec", "precompile", "clear_cache", "register_torch_ops", "set_pdl",
    "QuantizedTensor", "quantize", "dequantize", "gemv", "linear", "quant",
    "spec_text", "spec_path", "SPEC_NAMES", "mlir_float", "quant_spec_text",
    "RKC_OK", "RKC_ERROR_INVALID_ARGUMENT", "RKC_ERROR_COMPILE",
    "RKC_ERROR_NO_DRIVER", "RKC_ERROR_CUDA",
]
