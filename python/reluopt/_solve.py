"""reluopt.solve and its Result."""
from __future__ import annotations

import json
import math
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from . import _core
from ._core import Error
from ._models import _array, to_core_model
from ._progress import make_progress

_SENSES = {"max": "max", "maximize": "max", "min": "min", "minimize": "min"}


class Result:
    """What a run found. ``x``, ``outputs`` and ``trajectory`` are numpy arrays; every field of the command line's
    result JSON is an attribute (``status``, ``objective``, ``bound``, ``gap``, ``stopped_by``, ``samples`` ...);
    ``to_dict()`` and ``to_json()`` give that JSON exactly."""

    def __init__(self, core: dict):
        self._json: str = core["json"]
        self._fields: dict = json.loads(self._json)
        found = self._fields["status"] not in ("no_solution", "infeasible")
        self.x: np.ndarray = np.asarray(core["x"], dtype=np.float64) if found else np.zeros(0)
        self.outputs: np.ndarray = np.asarray(core["outputs"], dtype=np.float64) if found else np.zeros(0)
        self.trajectory: np.ndarray = np.asarray(self._fields["trajectory"], dtype=np.float64).reshape(-1, 2)
        self.bound_trajectory: np.ndarray = np.asarray(self._fields["bound_trajectory"],
                                                       dtype=np.float64).reshape(-1, 2)
        #: (sample index, X_i) rows when the run kept the sample values (record_values=True)
        self.sample_values: np.ndarray = np.asarray(core["sample_values"], dtype=np.float64).reshape(-1, 2)

    def __getattr__(self, name: str) -> Any:
        fields = self.__dict__.get("_fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(f"Result has no field '{name}'")

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._fields))

    def to_dict(self) -> dict:
        """The command line's result JSON (reluopt solve --json) as a dict."""
        return json.loads(self._json)

    def to_json(self) -> str:
        """The command line's result JSON text, written by the library's own writer."""
        return self._json

    def __repr__(self) -> str:
        f = self._fields
        parts = [f"status={f['status']!r}", f"objective={f['objective']!r}"]
        if f["bound"] is not None:
            parts += [f"bound={f['bound']!r}", f"gap={f['gap']!r}"]
        parts += [f"method={f['method']!r}", f"stopped_by={f['stopped_by']!r}", f"seconds={f['seconds']:.3f}"]
        with np.printoptions(precision=4, threshold=8, edgeitems=3):
            parts.append(f"x={np.array2string(self.x, separator=', ')}")
        return f"Result({', '.join(parts)})"


def option_names() -> list[str]:
    """The options reluopt.solve takes by name, sorted: the command line's flags without ``--`` and with ``_`` for
    ``-`` (``method``, ``threads`` and ``seed`` are named arguments, the rest keywords; docs/PYTHON.md)."""
    return list(_core.option_names())


def option_table() -> list[dict]:
    """The library's option table: one dict per option with ``name``, ``flag``, ``type``, ``choices``,
    ``default``, ``accepts`` (the range), ``help`` and ``methods`` (empty: every method)."""
    return list(_core.option_table())


def method_names() -> list[str]:
    """The names ``method`` takes (docs/PYTHON.md has what each finds or proves)."""
    return list(_core.method_names())


def _domain_spec(lower, upper, A, b) -> dict:
    spec = {"lower": None, "upper": None, "A": None, "b": None, "description": "lower/upper given to reluopt.solve"}
    if lower is not None:
        spec["lower"] = _array(lower, "lower", 1)
    if upper is not None:
        spec["upper"] = _array(upper, "upper", 1)
    if A is not None:
        spec["A"] = _array(A, "A", 2)
        spec["description"] = "lower/upper and A x <= b given to reluopt.solve"
    if b is not None:
        spec["b"] = _array(b, "b", 1)
    return spec


def _shown(value: Any) -> str:
    """`value` as a message shows it: an array by its shape, anything else by a repr cut to 60 characters."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _finite(value: Any, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, (bool, np.bool_)) or not math.isfinite(number):
        raise Error(f"{what} must be a finite number, not {_shown(value)}")
    return number


def _term(term: Any, where: str) -> tuple:
    """A term of a max-min objective: {"weights": [...], "constant": c} as in the objective JSON, or (w, c)."""
    if isinstance(term, dict):
        weights, constant = term.get("weights"), term.get("constant", 0.0)
    elif isinstance(term, (tuple, list)) and len(term) == 2 and np.ndim(term[1]) == 0:
        weights, constant = term
    else:
        weights, constant = term, 0.0
    if weights is None:
        raise Error(f"{where} needs \"weights\"")
    return _array(weights, f"\"weights\" of {where}", 1), _finite(constant, f"\"constant\" of {where}")


def _disjuncts(disjuncts: Any) -> list:
    if not isinstance(disjuncts, (list, tuple)) or not disjuncts:
        raise Error('"disjuncts" must be a non-empty list of lists of terms')
    out = []
    for k, disjunct in enumerate(disjuncts):
        if not isinstance(disjunct, (list, tuple)) or not disjunct:
            raise Error(f"disjunct {k} must be a non-empty list of terms")
        out.append([_term(term, f"term {l} of disjunct {k}") for l, term in enumerate(disjunct)])
    return out


_OBJECTIVE_KEYS = ("weights", "constant", "disjuncts", "sense")
_OBJECTIVE_FORMS = ('an output index (an int), one weight per output (a 1-dimensional array), or a dict '
                    '{"weights": [...], "constant": c} or {"disjuncts": [[term, ...], ...]}')


def _weights(value: Any, what: str) -> np.ndarray:
    """One weight per output: a 1-dimensional array of numbers, else an Error saying what `what` may be."""
    try:
        return _array(value, "weights", 1)
    except Error:
        raise Error(f"{what}, not {_shown(value)}") from None


def _objective_dict(objective: dict) -> None:
    unknown = [key for key in objective if key not in _OBJECTIVE_KEYS]
    if unknown:
        raise Error(f"the objective has unknown key{'s' if len(unknown) > 1 else ''} "
                    f"{', '.join(repr(k) for k in unknown)} (known: {', '.join(map(repr, _OBJECTIVE_KEYS))})")
    if "disjuncts" in objective and ("weights" in objective or "constant" in objective):
        raise Error('the objective gives "disjuncts" together with "weights" or "constant": give one form')
    if "disjuncts" not in objective and "weights" not in objective:
        raise Error('the objective needs "weights" (one weight per output) or "disjuncts" (a max-min objective)')


def _objective_spec(objective, constant: float, sense: str) -> dict:
    if isinstance(objective, dict):  # the objective JSON's form: {"weights", "constant"} or {"disjuncts"}
        _objective_dict(objective)
        sense = objective.get("sense", sense)
        if "disjuncts" not in objective:
            constant = objective.get("constant", constant)
            objective = _weights(objective["weights"], '"weights" of the objective must be one weight per output '
                                                       "(a 1-dimensional array)")
    if sense not in _SENSES:
        raise Error(f'"sense" must be "max" or "min", not {sense!r}')
    sense = _SENSES[sense]
    spec = {"index": None, "weights": None, "disjuncts": None, "constant": _finite(constant, "constant"),
            "sense": sense}
    if isinstance(objective, dict):
        if constant != 0.0:
            raise Error("constant applies to a linear objective: give each term of a max-min objective its own")
        spec["disjuncts"] = _disjuncts(objective["disjuncts"])
        spec["description"] = f"{sense}imize the max-min objective given to reluopt.solve"
    elif isinstance(objective, (int, np.integer)) and not isinstance(objective, bool):
        spec["index"] = int(objective)
        spec["description"] = f"{sense}imize output {int(objective)}"
    else:
        spec["weights"] = _weights(objective, f"objective must be {_OBJECTIVE_FORMS}")
        spec["description"] = f"{sense}imize the weighted outputs given to reluopt.solve"
    return spec


def solve(model: Any, lower: Optional[Sequence[float]] = None, upper: Optional[Sequence[float]] = None,
          A: Optional[Any] = None, b: Optional[Sequence[float]] = None,
          objective: Union[int, Sequence[float], dict] = 0, sense: str = "max", method: str = "enhanced",
          time_limit: Optional[float] = None, threads: Optional[int] = None, seed: int = 0,
          progress: Union[None, bool, Callable[[dict], Any]] = None, constant: float = 0.0,
          record_values: bool = False, input_shape: Optional[Sequence[int]] = None, **options: Any) -> Result:
    """Optimize ``objective`` (an output index, or one weight per output, plus ``constant``; or a dict in the form
    of the objective JSON, ``{"disjuncts": [[term, ...], ...]}`` for max_k min_l (c_kl^T y + d_kl)) of the
    network's outputs over ``{x : lower <= x <= upper, A x <= b}``. See docs/PYTHON.md for the options;
    ``input_shape`` is the shape of one input of a torch model that does not start with a Linear layer.

    Raises reluopt.Error (a ValueError) on bad input, with the command line's message. Ctrl-C stops the run within
    a second and raises KeyboardInterrupt with the incumbent as ``e.result``."""
    core_model, name = to_core_model(model, input_shape)
    settings = run_settings(method, threads, seed, record_values)
    limit = math.inf if time_limit is None else float(time_limit)
    with make_progress(progress, time_limit) as callback:
        out = _core.solve(core_model, name, _domain_spec(lower, upper, A, b), _objective_spec(objective, constant, sense),
                          settings, options, limit, callback)
    return returned(Result(out), out)


def run_settings(method: Any, threads: Any, seed: Any, record_values: bool) -> dict:
    """The named arguments of a run, checked, as _core takes them."""
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 0):
        raise Error(f"threads must be an integer >= 0 (0 or None: all cores), not {threads!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise Error(f"seed must be an integer in [0, 2**64), not {seed!r}")
    if not isinstance(method, str):
        raise Error(f"method must be a name such as 'enhanced', not {method!r}")
    return {"method": method, "threads": int(threads or 0), "seed": int(seed), "record_values": bool(record_values),
            "progress_interval": 0.5}


def returned(result: Result, out: dict) -> Result:
    """The result, or the exception that stopped the run (Ctrl-C, a progress callback) raised with it attached."""
    if out["exception"] is not None:
        error = out["exception"]
        error.result = result
        raise error
    return result
