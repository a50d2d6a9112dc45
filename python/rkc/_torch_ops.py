"""torch.library custom ops over the rkc row ops (torch.ops.rkc.*).

They make the ops opaque to torch.compile / torch.export (with fake
implementations for shapes). Imported by rkc.ops once torch is available.
"""

from typing import Optional, Tuple


def register(torch):
    from torch.library import custom_op

    from . import ops

    Tensor = torch.Tensor

    @custom_op("rkc::rms_norm", mutates_args=())
    def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
        return ops._rms_norm(x, weight, eps, None)

    @rms_norm.register_fake
    def _(x, weight, eps=1e-6):
        return x.new_empty(x.shape)

    @custom_op("rkc::rms_norm_residual", mutates_args=())
    def rms_norm_residual(x: Tensor, weight: Tensor, residual: Tensor,
                          eps: float = 1e-6) -> Tuple[Tensor, Tensor]:
        return ops._rms_norm(x, weight, eps, residual)

    @rms_norm_residual.register_fake
    def _(x, weight, residual, eps=1e-6):
        return x.new_empty(x.shape), x.new_empty(x.shape)

    @custom_op("rkc::layer_norm", mutates_args=())
    def layer_norm(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                   eps: float = 1e-5) -> Tensor:
        return ops._layer_norm(x, weight, bias, eps)

    @layer_norm.register_fake
    def _(x, weight, bias=None, eps=1e-5):
        return x.new_empty(x.shape)

    @custom_op("rkc::softmax", mutates_args=())
    def softmax(x: Tensor) -> Tensor:
        return ops._softmax_like("softmax", x)

    @softmax.register_fake
    def _(x):
        return x.new_empty(x.shape)

    @custom_op("rkc::log_softmax", mutates_args=())
    def log_softmax(x: Tensor) -> Tensor:
        return ops._softmax_like("log_softmax", x)

    @log_softmax.register_fake
    def _(x):
        return x.new_empty(x.shape)

    @custom_op("rkc::cross_entropy", mutates_args=())
    def cross_entropy(logits: Tensor, target: Tensor, ignore_index: int = -100,
                      reduction: str = "mean") -> Tensor:
        return ops._cross_entropy(logits, target, ignore_index, reduction)

    @cross_entropy.register_fake
    def _(logits, target, ignore_index=-100, reduction="mean"):
        if reduction == "none":
            return logits.new_empty(logits.shape[:-1], dtype=torch.float32)
        return logits.new_empty((), dtype=torch.float32)
