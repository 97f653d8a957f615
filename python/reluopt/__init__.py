"""reluopt: optimize over trained ReLU networks (docs/PYTHON.md).

    res = reluopt.solve(model, lower=..., upper=..., objective=0, sense="max")

``model`` is a path (ONNX, NNet), an ``onnx.ModelProto``, a ``torch.nn.Sequential`` of Linear/ReLU/Flatten, a
scikit-learn ``MLPRegressor``/``MLPClassifier`` with ReLU, or a list of ``(W, b)`` arrays. ``reluopt.Model``
states a model around networks: variables, networks fed by them, linear constraints and objective.
"""
from ._core import Error, __version__, abandoned_solver_threads
from ._evt import EvtReport, evt
from ._expr import Constraint, LinearExpr, MaxMinExpr, Vector, maximum, minimum
from ._model import Model, ModelResult, read_problem
from ._solve import Result, method_names, option_names, option_table, solve

__all__ = ["Constraint", "Error", "EvtReport", "LinearExpr", "MaxMinExpr", "Model", "ModelResult", "Result",
           "Vector", "__version__", "abandoned_solver_threads", "evt", "maximum", "method_names", "minimum",
           "option_names", "option_table", "read_problem", "solve"]
