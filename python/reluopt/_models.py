"""Turns the model kinds reluopt.solve accepts into what reluopt._core reads: a path, ONNX bytes or layers."""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ._core import Error

Layers = list[tuple[np.ndarray, np.ndarray]]


def _is_torch_module(model: Any) -> bool:
    return any(c.__module__.startswith("torch.nn") and c.__name__ == "Module" for c in type(model).__mro__)


def _is_sklearn_mlp(model: Any) -> bool:
    return type(model).__name__ in ("MLPRegressor", "MLPClassifier") and type(model).__module__.startswith("sklearn")


def _is_onnx_model(model: Any) -> bool:
    return type(model).__name__ == "ModelProto" and hasattr(model, "SerializeToString")


def _array(value: Any, what: str, ndim: int) -> np.ndarray:
    try:
        out = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise Error(f"{what} is not an array of numbers ({e})") from None
    if out.ndim != ndim:
        raise Error(f"{what} must have {ndim} dimension{'s' if ndim > 1 else ''}, not {out.ndim} (shape {out.shape})")
    return out


def layers_from_list(model: list | tuple) -> Layers:
    """[(W, b), ...]: W of shape (outputs, inputs), b of shape (outputs,); ReLU between layers, none after the last."""
    layers = []
    for k, layer in enumerate(model, start=1):
        if not isinstance(layer, (tuple, list)) or len(layer) != 2:
            raise Error(f"layer {k} must be a pair (W, b), not {type(layer).__name__}")
        layers.append((_array(layer[0], f"layer {k} W", 2), _array(layer[1], f"layer {k} b", 1)))
    if not layers:
        raise Error("network has no layers")
    return layers


def _append_linear(layers: Layers, pending_relu: bool, w: np.ndarray, b: np.ndarray, where: str) -> None:
    """Adds an affine map; two in a row with no ReLU between them are folded into one."""
    if layers and not pending_relu:
        w0, b0 = layers.pop()
        if w.shape[1] != w0.shape[0]:
            raise Error(f"inconsistent shapes: {where} takes {w.shape[1]} inputs but the previous layer has {w0.shape[0]}")
        w, b = w @ w0, w @ b0 + b
    layers.append((w, b))


def layers_from_torch(model: Any) -> Layers:
    """A torch.nn.Sequential of Linear, ReLU and Flatten (a leading Flatten only), read from its weights."""
    import torch.nn as nn

    if any(p.is_meta for p in model.parameters()):
        raise Error("the torch model's parameters are on the meta device (shapes without values): materialize "
                    "them first, e.g. model.to_empty(device='cpu') and then load the weights")
    modules = list(model) if isinstance(model, nn.Sequential) else [model]
    layers: Layers = []
    relu_after = False  # the last affine map is followed by a ReLU
    for k, module in enumerate(modules):
        where = f"torch module {k} ({type(module).__name__})"
        if isinstance(module, nn.Linear):
            w = module.weight.detach().to("cpu").double().numpy().copy()
            b = (module.bias.detach().to("cpu").double().numpy().copy() if module.bias is not None
                 else np.zeros(w.shape[0]))
            _append_linear(layers, relu_after, w, b, where)
            relu_after = False
        elif isinstance(module, nn.ReLU):
            if not layers or relu_after:
                raise Error(f"{where}: a ReLU must follow a Linear layer")
            relu_after = True
        elif isinstance(module, (nn.Flatten, nn.Identity, nn.Dropout)):
            if isinstance(module, nn.Flatten) and layers:
                raise Error(f"{where}: Flatten is accepted only before the first Linear layer")
        else:
            raise Error(f"{where} is not supported: reluopt reads Linear, ReLU and Flatten (and Identity, Dropout)")
    if not layers:
        raise Error("the torch model has no Linear layer")
    if relu_after:
        raise Error("the torch model ends with a ReLU: the last layer must be Linear (the network's outputs)")
    return layers


def layers_from_sklearn(model: Any) -> Layers:
    """An MLPRegressor or MLPClassifier with activation='relu'; a classifier's outputs are its logits (before the
    softmax or logistic function), which order the classes the same way."""
    if not hasattr(model, "coefs_"):
        raise Error(f"the {type(model).__name__} is not fitted (call fit first)")
    if model.activation != "relu":
        raise Error(f"the {type(model).__name__} uses activation '{model.activation}'; reluopt needs 'relu'")
    return [(np.asarray(w, dtype=np.float64).T.copy(), np.asarray(b, dtype=np.float64).copy())
            for w, b in zip(model.coefs_, model.intercepts_)]


def to_core_model(model: Any) -> tuple[Any, str]:
    """(what reluopt._core.solve reads, the name the result JSON and error messages give the model)."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model), os.fspath(model)
    if _is_onnx_model(model):
        return model.SerializeToString(), "<onnx.ModelProto>"
    if _is_torch_module(model):
        return layers_from_torch(model), f"<torch {type(model).__name__}>"
    if _is_sklearn_mlp(model):
        return layers_from_sklearn(model), f"<sklearn {type(model).__name__}>"
    if isinstance(model, (list, tuple)):
        return layers_from_list(model), "<layers>"
    raise Error(f"cannot read a model of type {type(model).__module__}.{type(model).__name__}: give a path, an "
                "onnx.ModelProto, a torch.nn.Sequential, a scikit-learn MLP or a list of (W, b) arrays")
