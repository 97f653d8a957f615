"""reluopt.Model: a model around networks (docs/PROBLEM.md, docs/PYTHON.md "Models around networks")."""
from __future__ import annotations

import math
import os
from typing import Any, Callable, Iterable, Optional, Sequence, Union

import numpy as np

from . import _core
from ._core import Error
from ._expr import OUTPUT, VARIABLE, Constraint, LinearExpr, MaxMinExpr, Vector, as_expr, optional_name
from ._models import to_core_model
from ._progress import make_progress
from ._solve import _SENSES, Result, returned, run_settings


# The largest block, as in the problem file ('size', src/io/problem_json.cc): a larger one would only fail to
# allocate.
MAX_BLOCK_SIZE = 100_000_000


def _bounds(value: Any, size: int, what: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise Error(f"{what} must be a number or an array of numbers, not {value!r}") from None
    if array.ndim == 0:
        return np.full(size, float(array))
    if array.shape != (size,):
        raise Error(f"{what} has shape {array.shape}, the block {size} entries")
    return array.copy()


def _flags(value: Any, size: int, what: str) -> list[bool]:
    if isinstance(value, (bool, np.bool_)):
        return [bool(value)] * size
    flags = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if flags is None or len(flags) != size or not all(isinstance(f, (bool, np.bool_)) for f in flags):
        raise Error(f"{what} must be True, False or one bool per entry ({size}), not {value!r}")
    return [bool(f) for f in flags]


class Model:
    """Variables, networks fed by them, linear constraints and a linear objective over both (docs/PYTHON.md)."""

    def __init__(self, sense: str = "max"):
        self._sense = self._checked_sense(sense)
        self._blocks: list[dict] = []
        self._uses: list[dict] = []
        self._constraints: list[Constraint] = []
        self._objective = LinearExpr(self, {})
        self.variables: dict[str, Vector] = {}  #: the blocks by name
        self.networks: dict[str, Vector] = {}  #: the network outputs by name
        self.source = "<reluopt.Model>"  #: the problem file a model was read from

    @staticmethod
    def _checked_sense(sense: Any) -> str:
        if sense not in _SENSES:
            raise Error(f'sense must be "max" or "min", not {sense!r}')
        return _SENSES[sense]

    def _entry_name(self, kind: int, index: int) -> str:
        return (self._blocks if kind == VARIABLE else self._uses)[index]["name"]

    def _entry_size(self, kind: int, index: int) -> int:
        if kind == VARIABLE:
            return len(self._blocks[index]["lower"])
        return self._uses[index]["network"].output_dim

    def _fresh_name(self, stem: str) -> str:
        k = len(self._blocks) + len(self._uses)
        while f"{stem}{k}" in self.variables or f"{stem}{k}" in self.networks:
            k += 1
        return f"{stem}{k}"

    def _claim(self, name: Optional[str], stem: str, what: str) -> str:
        name = optional_name(name, f"the name of {what}") or self._fresh_name(stem)
        if name in self.variables or name in self.networks:
            owner = "variables" if name in self.variables else "network"
            raise Error(f"{what} '{name}': the name is already used by {owner} '{name}'")
        return name

    def add_variables(self, size: Optional[int] = None, lower: Any = 0.0, upper: Any = None, integer: Any = False,
                      name: Optional[str] = None) -> Vector:
        """A block of `size` variables, lower <= x <= upper (finite; a number for every entry or an array), some or
        all integer. `size` may be left out when lower or upper is an array."""
        if size is None:
            size = next((len(np.atleast_1d(b)) for b in (lower, upper) if np.ndim(b) == 1), 1)
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= MAX_BLOCK_SIZE:
            raise Error(f"add_variables: size must be an integer from 1 to 1e8, not {size!r}")
        name = self._claim(name, "x", "variables")
        if upper is None:
            raise Error(f"variables '{name}': upper is required (every variable has finite bounds)")
        block = {"name": name, "lower": _bounds(lower, size, f"variables '{name}': lower"),
                 "upper": _bounds(upper, size, f"variables '{name}': upper"),
                 "integer": _flags(integer, size, f"variables '{name}': integer")}
        _core.validate_model(self._spec(variables=[block], networks=[], constraints=[], objective=False))
        self._blocks.append(block)
        self.variables[name] = Vector(self, VARIABLE, len(self._blocks) - 1, list(range(size)))
        return self.variables[name]

    def _input_indices(self, inputs: Any, name: str) -> list[int]:
        """The positions in v (the blocks concatenated) of a Vector of variables, or of a list of them and of
        single variables (x[0])."""
        parts = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        offsets = np.cumsum([0] + [len(b["lower"]) for b in self._blocks])
        indices: list[int] = []
        for part in parts:
            if isinstance(part, Vector) and part.kind == VARIABLE and part.model is self:
                indices += [int(offsets[part.index]) + c for c in part.coordinates]
            elif (isinstance(part, LinearExpr) and part.model is self and len(part.terms) == 1
                  and part.constant == 0.0 and list(part.terms.values()) == [1.0]
                  and next(iter(part.terms))[0] == VARIABLE):
                _, block, coordinate = next(iter(part.terms))
                indices.append(int(offsets[block]) + coordinate)
            else:
                raise Error(f"network '{name}': its input must be variables of this model (a block, a slice x[0:2], "
                            f"or a list of them and of single variables x[0]), not {part!r}")
        return indices

    def add_network(self, network: Any, inputs: Any, name: Optional[str] = None,
                    input_shape: Optional[Sequence[int]] = None) -> Vector:
        """Feeds `inputs` to a network (any model reluopt.solve takes: a path, an onnx.ModelProto, a torch
        Module, a scikit-learn MLP, a list of (W, b)); returns its outputs. `input_shape`: as in reluopt.solve."""
        name = self._claim(name, "network", "network")
        core, label = to_core_model(network, input_shape)
        handle = _core.load_network(core, label)
        indices = self._input_indices(inputs, name)
        if len(indices) != handle.input_dim:
            raise Error(f"network '{name}': the input has {len(indices)} variables, the network "
                        f"({handle.describe()}) takes {handle.input_dim}")
        source = os.fspath(network) if isinstance(network, (str, os.PathLike)) else ""
        use = {"name": name, "network": handle, "input": indices, "source": source}
        _core.validate_model(self._spec(networks=[use], constraints=[], objective=False))
        self._uses.append(use)
        self.networks[name] = Vector(self, OUTPUT, len(self._uses) - 1, list(range(handle.output_dim)))
        return self.networks[name]

    def add_constraint(self, constraint: Union[Constraint, Iterable[Constraint]], name: Optional[str] = None) -> Any:
        """Adds `expr <= rhs`, `>=` or `==` (or each of a list of them)."""
        if isinstance(constraint, (list, tuple)):
            return [self.add_constraint(c, name) for c in constraint]
        if not isinstance(constraint, Constraint):
            raise Error(f"add_constraint takes a constraint such as x[0] + y[1] <= 3, not {constraint!r}")
        if constraint.model is not self:
            raise Error("the constraint is over the variables of another model")
        constraint.name = optional_name(name, "the name of a constraint") or ""
        self._constraints.append(constraint)
        return constraint

    add_constraints = add_constraint

    def set_objective(self, expr: Any, sense: Optional[str] = None) -> None:
        """The objective, a linear expression (a number: find a feasible point) or a max-min of them
        (reluopt.minimum, reluopt.maximum), and optionally the sense."""
        if isinstance(expr, MaxMinExpr):
            if expr.model is not None and expr.model is not self:
                raise Error("the objective is over the variables of another model")
            self._objective = MaxMinExpr([[LinearExpr(self, dict(t.terms), t.constant) for t in d]
                                          for d in expr.disjuncts])
        else:
            expr = as_expr(expr)
            if expr.model is not None and expr.model is not self:
                raise Error("the objective is over the variables of another model")
            self._objective = LinearExpr(self, dict(expr.terms), expr.constant)
        if sense is not None:
            self._sense = self._checked_sense(sense)

    def maximize(self, expr: Any) -> None:
        self.set_objective(expr, "max")

    def minimize(self, expr: Any) -> None:
        self.set_objective(expr, "min")

    @property
    def sense(self) -> str:
        return self._sense

    @property
    def objective(self) -> Union[LinearExpr, MaxMinExpr]:
        return self._objective

    @property
    def constraints(self) -> list[Constraint]:
        return list(self._constraints)

    def _spec(self, variables: Optional[list] = None, networks: Optional[list] = None,
              constraints: Optional[list] = None, objective: bool = True) -> dict:
        """The model as _core takes it (python/src/model_binding.h)."""
        def terms(expr: LinearExpr) -> list:
            return [(kind, index, coordinate, c) for (kind, index, coordinate), c in expr.terms.items()]
        rows = self._constraints if constraints is None else constraints
        return {"sense": self._sense,
                "variables": self._blocks if variables is None else variables,
                "networks": self._uses if networks is None else networks,
                "constraints": [{"name": c.name, "terms": terms(c.expr), "sense": c.sense, "rhs": c.rhs}
                                for c in rows],
                "objective": self._objective_spec(terms) if objective else {"terms": [], "constant": 0.0}}

    def _objective_spec(self, terms: Callable[[LinearExpr], list]) -> dict:
        if isinstance(self._objective, MaxMinExpr):
            return {"terms": [], "constant": 0.0,
                    "disjuncts": [[{"terms": terms(t), "constant": t.constant} for t in d]
                                  for d in self._objective.disjuncts]}
        return {"terms": terms(self._objective), "constant": self._objective.constant}

    def solve(self, method: str = "enhanced", time_limit: Optional[float] = None, threads: Optional[int] = None,
              seed: int = 0, progress: Union[None, bool, Callable[[dict], Any]] = None, record_values: bool = False,
              **options: Any) -> "ModelResult":
        """Optimizes the objective; the arguments and options are reluopt.solve's, and every method takes every
        model (docs/PROBLEM.md says how each finds its first feasible point). Ctrl-C stops the run and raises
        KeyboardInterrupt with the incumbent as ``e.result``."""
        spec = self._spec()
        settings = run_settings(method, threads, seed, record_values)
        settings["model_name"] = self.source
        limit = math.inf if time_limit is None else float(time_limit)
        with make_progress(progress, time_limit) as callback:
            out = _core.solve_model(spec, settings, options, limit, callback)
        return returned(ModelResult(out, self), out)

    def write(self, path: Union[str, os.PathLike]) -> None:
        """Writes the problem file (docs/PROBLEM.md). A network read from a file names that file (relative to
        `path`'s folder when inside it); one built in memory is written beside it as ONNX, P.<network>.onnx."""
        path = os.fspath(path)
        directory = os.path.dirname(os.path.abspath(path))
        stem = os.path.splitext(os.path.basename(path))[0]
        uses = []
        for use in self._uses:
            if not use["source"]:
                onnx_path = os.path.join(directory, f"{stem}.{use['name']}.onnx")
                write_onnx(use["network"].layers(), onnx_path, use["name"])
                use = dict(use, source=onnx_path)
            uses.append(use)
        text = _core.model_to_json(self._spec(networks=uses), directory)
        try:
            with open(path, "w") as f:
                f.write(text)
        except OSError as e:
            raise Error(f"cannot write the problem file '{path}': {e.strerror}") from None

    def __repr__(self) -> str:
        n = sum(len(b["lower"]) for b in self._blocks)
        return (f"Model({self._sense}, {len(self._blocks)} blocks of {n} variables, {len(self._uses)} networks, "
                f"{len(self._constraints)} constraints)")


def write_onnx(layers: list, path: str, name: str) -> None:
    """The network as ONNX: Gemm(transB=1) and Relu on float64 tensors, which reluopt reads back exactly; a layer
    with linear neurons passes relu(h) r + h l on (r, l the 0/1 masks of its ReLU and linear neurons)."""
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        raise Error(f"writing network '{name}' needs the onnx package (pip install onnx)") from None
    nodes, weights, current = [], [], "x"
    for k, (w, b, linear) in enumerate(layers):
        weights += [numpy_helper.from_array(np.asarray(w, np.float64), f"W{k}"),
                    numpy_helper.from_array(np.asarray(b, np.float64), f"b{k}")]
        out = "y" if k == len(layers) - 1 else f"h{k}"
        nodes.append(helper.make_node("Gemm", [current, f"W{k}", f"b{k}"], [out], transB=1))
        current = out
        if k < len(layers) - 1:
            current = f"a{k}"
            nodes.append(helper.make_node("Relu", [out], [current]))
        if k < len(layers) - 1 and np.any(linear):
            mask = np.asarray(linear, np.float64)
            weights += [numpy_helper.from_array(1.0 - mask, f"r{k}"), numpy_helper.from_array(mask, f"l{k}")]
            nodes += [helper.make_node("Mul", [current, f"r{k}"], [f"ar{k}"]),
                      helper.make_node("Mul", [out, f"l{k}"], [f"hl{k}"]),
                      helper.make_node("Add", [f"ar{k}", f"hl{k}"], [f"m{k}"])]
            current = f"m{k}"
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [1, layers[0][0].shape[1]])],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [1, layers[-1][0].shape[0]])], weights)
    model = helper.make_model(graph, producer_name="reluopt", opset_imports=[helper.make_opsetid("", 13)])
    try:
        onnx.save(model, path)
    except OSError as e:
        raise Error(f"cannot write network '{name}' to '{path}': {e.strerror}") from None


def read_problem(path: Union[str, os.PathLike]) -> Model:
    """The Model of a problem file (docs/PROBLEM.md); its blocks and networks by name in ``m.variables`` and
    ``m.networks``."""
    spec = _core.read_problem(os.fspath(path))
    model = Model(spec["sense"])
    model.source = os.fspath(path)
    for block in spec["variables"]:
        model.add_variables(len(block["lower"]), block["lower"], block["upper"], block["integer"], block["name"])
    model._uses = spec["networks"]
    for k, use in enumerate(model._uses):
        model.networks[use["name"]] = Vector(model, OUTPUT, k, list(range(use["network"].output_dim)))
    for c in spec["constraints"]:
        model._constraints.append(_constraint(model, c))
    objective = spec["objective"]
    model._objective = LinearExpr(model, _terms(objective["terms"]), objective["constant"])
    if "disjuncts" in objective:
        model._objective = MaxMinExpr([[LinearExpr(model, _terms(t["terms"]), t["constant"]) for t in d]
                                       for d in objective["disjuncts"]])
    return model


def _terms(terms: list) -> dict:
    out: dict = {}
    for kind, index, coordinate, c in terms:
        out[(kind, index, coordinate)] = out.get((kind, index, coordinate), 0.0) + c
    return out


def _constraint(model: Model, spec: dict) -> Constraint:
    out = Constraint(LinearExpr(model, _terms(spec["terms"]), -spec["rhs"]), spec["sense"])
    out.name = spec["name"]
    return out


class ModelResult(Result):
    """A Result of Model.solve: ``res[x]`` is the values of a block, a slice of one or a network's outputs (the
    network's own forward pass at the point), ``res[expr]`` an expression's value; empty arrays (and None) when
    there is no point (status 'infeasible' or 'no_solution')."""

    def __init__(self, core: dict, model: Model):
        self._variables = [np.asarray(v, dtype=np.float64) for v in core["variables"]]
        self._outputs = [np.asarray(v, dtype=np.float64) for v in core["networks"]]
        core = dict(core, outputs=np.concatenate(self._outputs) if self._outputs else np.zeros(0))
        super().__init__(core)
        self._model = model
        self._sizes = (len(model._blocks), len(model._uses))

    def _values(self, kind: int, index: int) -> np.ndarray:
        if index >= self._sizes[0 if kind == VARIABLE else 1]:
            raise Error("the block or network was added to the model after this solve")
        values = self._variables if kind == VARIABLE else self._outputs
        return values[index] if values else np.zeros(0)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            name, key = key, self._model.variables.get(key) or self._model.networks.get(key)
            if key is None:
                raise Error(f"the model has no variables or network named {name!r}")
        if isinstance(key, (Vector, LinearExpr)) and key.model is not self._model:
            raise Error("the result is of another model")
        if isinstance(key, Vector):
            values = self._values(key.kind, key.index)
            return values[key.coordinates] if values.size else values
        if isinstance(key, LinearExpr):
            if not self._variables:
                return None
            return key.constant + sum(c * self._values(kind, index)[coordinate]
                                      for (kind, index, coordinate), c in key.terms.items())
        raise Error(f"a result is indexed by variables, network outputs or an expression, not {key!r}")
