"""Turns the model kinds reluopt.solve accepts into what reluopt._core reads: a path, ONNX bytes or layers."""
from __future__ import annotations

import os
from typing import Any, Optional, Sequence

import numpy as np

from ._core import Error
from ._torch import onnx_bytes

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


def layers_from_sklearn(model: Any) -> Layers:
    """An MLPRegressor or MLPClassifier with activation='relu'; a classifier's outputs are its logits (before the
    softmax or logistic function), which order the classes the same way."""
    if not hasattr(model, "coefs_"):
        raise Error(f"the {type(model).__name__} is not fitted (call fit first)")
    if model.activation != "relu":
        raise Error(f"the {type(model).__name__} uses activation '{model.activation}'; reluopt needs 'relu'")
    return [(np.asarray(w, dtype=np.float64).T.copy(), np.asarray(b, dtype=np.float64).copy())
            for w, b in zip(model.coefs_, model.intercepts_)]


def to_core_model(model: Any, input_shape: Optional[Sequence[int]] = None) -> tuple[Any, str]:
    """(what reluopt._core.solve reads, the name the result JSON and error messages give the model). A torch model
    is exported to ONNX for an input of `input_shape` (inferred from a leading Linear or BatchNorm1d)."""
    if input_shape is not None and not _is_torch_module(model):
        raise Error("input_shape applies to a torch model only (the other kinds fix their input's shape)")
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model), os.fspath(model)
    if _is_onnx_model(model):
        return model.SerializeToString(), "<onnx.ModelProto>"
    if _is_torch_module(model):
        return onnx_bytes(model, input_shape), f"<torch {type(model).__name__}>"
    if _is_sklearn_mlp(model):
        return layers_from_sklearn(model), f"<sklearn {type(model).__name__}>"
    if isinstance(model, (list, tuple)):
        return layers_from_list(model), "<layers>"
    raise Error(f"cannot read a model of type {type(model).__module__}.{type(model).__name__}: give a path, an "
                "onnx.ModelProto, a torch.nn.Module, a scikit-learn MLP or a list of (W, b) arrays")
