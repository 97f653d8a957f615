"""A torch model as ONNX bytes, for reluopt.solve, Model.add_network and reluopt.verify: one export at the call
(torch.onnx's TorchScript exporter, opset 17, in eval mode), read by the library's ONNX reader like any file.
torch is imported here only when a torch model is given."""
from __future__ import annotations

import copy
import io
import warnings
from typing import Any, Optional, Sequence

from ._core import Error

# The leaf modules whose ONNX the reader takes (docs/FORMATS.md); a container (Sequential, a residual block's
# own Module) is read through its forward, so it may add branches (x + f(x)) between them.
_SUPPORTED = ("Linear", "Conv2d", "AvgPool2d", "MaxPool2d", "BatchNorm1d", "BatchNorm2d", "ReLU", "LeakyReLU",
              "Hardtanh", "ReLU6", "Flatten", "Identity", "Dropout")


def _supported_classes() -> tuple:
    import torch.nn as nn

    return tuple(getattr(nn, name) for name in _SUPPORTED)


def check_modules(model: Any) -> None:
    """Raises Error naming the first leaf module (in registration order) that is not one reluopt reads."""
    supported = _supported_classes()
    for name, module in model.named_modules():
        if next(module.children(), None) is None and not isinstance(module, supported):
            where = name if name else "(the model itself)"
            raise Error(f"torch module {where} ({type(module).__name__}) is not supported: reluopt reads "
                        f"{', '.join(_SUPPORTED[:-2])} (and Identity, Dropout), in Sequential or residual blocks")


def _first_leaf(model: Any) -> Any:
    """The first leaf module that fixes a shape: activations, Identity, Dropout and Flatten (of one vector) do not."""
    import torch.nn as nn

    passing = (nn.Identity, nn.Dropout, nn.Flatten, nn.ReLU, nn.LeakyReLU, nn.Hardtanh)
    for module in model.modules():
        if next(module.children(), None) is None and not isinstance(module, passing):
            return module
    return None


def infer_input_shape(model: Any) -> tuple:
    """One input's shape (without the batch dimension) from the first layer that fixes it: Linear, BatchNorm1d."""
    import torch.nn as nn

    first = _first_leaf(model)
    if isinstance(first, nn.Linear):
        return (first.in_features,)
    if isinstance(first, nn.BatchNorm1d):
        return (first.num_features,)
    kind = type(first).__name__ if first is not None else "no layer"
    raise Error(f"the torch model starts with {kind}, which does not fix the input's shape: give input_shape, the "
                "shape of one input without the batch dimension, e.g. input_shape=(1, 28, 28)")


def _shape(input_shape: Optional[Sequence[int]], model: Any) -> tuple:
    if input_shape is None:
        return infer_input_shape(model)
    try:
        shape = tuple(int(d) for d in input_shape)
    except (TypeError, ValueError):
        shape = ()
    if not shape or any(d < 1 for d in shape) or any(isinstance(d, bool) for d in input_shape):
        raise Error(f"input_shape must be a tuple of positive integers (one input, without the batch dimension), "
                    f"not {input_shape!r}")
    return shape


def _exact_slopes(model: Any) -> Any:
    """The model with each LeakyReLU replaced by a PReLU of the same slope: ONNX's LeakyRelu holds its slope as a
    float32 attribute (0.1 becomes 0.10000000149), PRelu as a tensor, exported in double precision like the weights."""
    import torch
    import torch.nn as nn

    def prelu(leaky: Any) -> Any:
        replacement = nn.PReLU(1)
        replacement.weight = nn.Parameter(torch.tensor([leaky.negative_slope], dtype=torch.float64))
        return replacement

    if isinstance(model, nn.LeakyReLU):
        return prelu(model)
    for parent in model.modules():
        for name, child in list(parent.named_children()):
            if isinstance(child, nn.LeakyReLU):
                setattr(parent, name, prelu(child))
    return model


def onnx_bytes(model: Any, input_shape: Optional[Sequence[int]] = None) -> bytes:
    """The model exported to ONNX for an input of shape [1, *input_shape] (the batch dimension 1)."""
    import torch

    if any(p.is_meta for p in model.parameters()):
        raise Error("the torch model's parameters are on the meta device (shapes without values): materialize "
                    "them first, e.g. model.to_empty(device='cpu') and then load the weights")
    check_modules(model)
    shape = _shape(input_shape, model)
    # A double-precision copy on the CPU: float32 weights are exact in it, and what the exporter folds (a batch
    # norm into the convolution before it) is folded in double precision, as the library computes.
    exported = _exact_slopes(copy.deepcopy(model).to(device="cpu", dtype=torch.float64))
    dummy = torch.zeros((1, *shape), dtype=torch.float64)
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.onnx.export(exported, (dummy,), out, dynamo=False, opset_version=17, input_names=["input"],
                              output_names=["output"], training=torch.onnx.TrainingMode.EVAL,
                              do_constant_folding=True)
        except Exception as e:  # the forward failed on this shape, or an operation has no ONNX form
            first_line = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise Error(f"the torch model could not be exported to ONNX with an input of shape {list(dummy.shape)}: "
                        f"{first_line}") from None
    return out.getvalue()
