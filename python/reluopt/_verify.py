"""reluopt.verify and its VerifyResult: a property of a network decided as `reluopt verify` decides it
(docs/VERIFY.md): sat with a re-checked counterexample, unsat only with a proof, else timeout or unknown."""
from __future__ import annotations

import json
import math
import os
import time
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from . import _core
from ._core import Error
from ._models import _array, to_core_model
from ._progress import make_progress
from ._solve import run_settings

# The most numbers a property given as a dict may hold in A and its C matrices: the reader of VNN-LIB text takes
# its rows one comparison at a time, and a dense matrix beyond this (128 MB of doubles) is no longer a property.
MAX_PROPERTY_ENTRIES = 2**24


class VerifyResult:
    """The answer: ``status`` ("sat", "unsat", "timeout", "unknown"); with sat, ``x`` (the counterexample, in the
    order of the network's inputs, X_0, X_1, ...) and ``y`` (the network's outputs at x by a double-precision forward
    pass), numpy arrays; ``cases``: per input box of the property, its best margin, proven bound and time."""

    def __init__(self, core: dict):
        self.status: str = core["status"]
        sat = self.status == "sat"
        self.x: np.ndarray = np.asarray(core["x"], dtype=np.float64) if sat else np.zeros(0)
        self.y: np.ndarray = np.asarray(core["y"], dtype=np.float64) if sat else np.zeros(0)
        self.cases: list = list(core["cases"])
        self.seconds: float = float(core["seconds"])
        self.unsat_margin: float = float(core["unsat_margin"])

    def to_dict(self) -> dict:
        """The fields of `reluopt verify --json` that the call has (no model or property name, no version)."""
        out = {"status": self.status, "seconds": self.seconds, "unsat_margin": self.unsat_margin,
               "cases": self.cases}
        if self.status == "sat":
            out["counterexample"] = {"x": self.x.tolist(), "y": self.y.tolist()}
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def __repr__(self) -> str:
        parts = [f"status={self.status!r}", f"seconds={self.seconds:.3f}"]
        if self.status == "sat":
            with np.printoptions(precision=4, threshold=8, edgeitems=3):
                parts += [f"x={np.array2string(self.x, separator=', ')}", f"y={np.array2string(self.y, separator=', ')}"]
        return f"VerifyResult({', '.join(parts)})"


def _bounds(spec: dict, key: str) -> np.ndarray:
    if key not in spec:
        raise Error(f'the property needs "{key}": every input needs a finite lower and upper bound')
    values = _array(spec[key], key, 1)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise Error(f"{key}[{bad[0]}] is {values[bad[0]]}: every input needs a finite lower and upper bound (verify "
                    "searches a bounded box)")
    return values


def _conjunction(pair: Any, k: int) -> tuple:
    """(C, d) of one conjunction C y <= d: C of shape (rows, outputs), or (outputs,) for one row."""
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise Error(f"unsafe[{k}] must be a pair (C, d): the outputs y with C y <= d are unsafe")
    try:
        c, d = np.asarray(pair[0], dtype=np.float64), np.asarray(pair[1], dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise Error(f"unsafe[{k}] is not a pair of arrays of numbers ({e})") from None
    c, d = (c[None, :] if c.ndim == 1 else c), (d[None] if d.ndim == 0 else d)
    if c.ndim != 2 or d.ndim != 1:
        raise Error(f"unsafe[{k}]: C must be a matrix (or one row) and d a vector (or one number)")
    if c.shape[0] != d.shape[0]:
        raise Error(f"unsafe[{k}]: C has {c.shape[0]} rows but d has {d.shape[0]} entries")
    if not (np.isfinite(c).all() and np.isfinite(d).all()):
        raise Error(f"unsafe[{k}] holds a value that is not finite")
    return c, d


def _spec(spec: dict) -> dict:
    """The property given as {"lower", "upper", "A", "b", "unsafe"}, checked (docs/PYTHON.md)."""
    known = ("lower", "upper", "A", "b", "unsafe")
    unknown = [key for key in spec if key not in known]
    if unknown:
        raise Error(f"the property has unknown key {unknown[0]!r} (known: {', '.join(map(repr, known))})")
    out = {"lower": _bounds(spec, "lower"), "upper": _bounds(spec, "upper"), "A": None, "b": None,
           "description": "the box lower <= x <= upper given to reluopt.verify"}
    if ("A" in spec) != ("b" in spec):
        raise Error("A and b go together: give both")
    if "A" in spec:
        out["A"], out["b"] = _array(spec["A"], "A", 2), _array(spec["b"], "b", 1)
        out["description"] = "the box lower <= x <= upper cut by A x <= b given to reluopt.verify"
    unsafe = spec.get("unsafe")
    if unsafe is None:
        raise Error('the property needs "unsafe": a list of pairs (C, d), the outputs y with C y <= d for one pair')
    if not isinstance(unsafe, list) or not unsafe:
        raise Error('"unsafe" must be a non-empty list of pairs (C, d), one per unsafe conjunction C y <= d')
    out["unsafe"] = [_conjunction(pair, k) for k, pair in enumerate(unsafe)]
    entries = (out["A"].size if out["A"] is not None else 0) + sum(c.size for c, _ in out["unsafe"])
    if entries > MAX_PROPERTY_ENTRIES:
        raise Error(f"the property's A and C hold {entries} numbers, more than {MAX_PROPERTY_ENTRIES} (2**24): "
                    "split it, or give it as a VNN-LIB file")
    return out


def _property(prop: Any) -> tuple:
    """(what _core.verify reads, its kind, its name in messages)."""
    if isinstance(prop, os.PathLike):
        return os.fspath(prop), "path", os.fspath(prop)
    if isinstance(prop, bytes):
        prop = prop.decode("utf-8", errors="replace")
        return prop, "text", "<VNN-LIB text>"
    if isinstance(prop, str):
        if not os.path.exists(prop) and "(" in prop:
            return prop, "text", "<VNN-LIB text>"
        return prop, "path", prop
    if isinstance(prop, dict):
        return _spec(prop), "spec", "<property dict>"
    raise Error(f"the property must be a VNN-LIB path, VNN-LIB text or a dict {{lower, upper, unsafe}}, not "
                f"{type(prop).__name__}")


def _margin_progress(callback: Callable[[dict], Any], interval: float) -> Callable[[dict], Any]:
    """The search's and the prover's snapshots as one: {seconds (since the call), margin (the best found so far),
    bound (the latest proven bound on the margin of the run going on)}, at most every `interval` seconds."""
    start = time.monotonic()
    seen = {"margin": None, "bound": None, "last": -math.inf}

    def update(p: dict) -> Any:
        if p["incumbent"] is not None and (seen["margin"] is None or p["incumbent"] > seen["margin"]):
            seen["margin"] = p["incumbent"]
        if p["bound"] is not None:
            seen["bound"] = p["bound"]
        now = time.monotonic() - start
        if now - seen["last"] >= interval:
            seen["last"] = now
            return callback({"seconds": now, "margin": seen["margin"], "bound": seen["bound"]})
        return None
    return update


def verify(model: Any, property_or_path: Union[str, os.PathLike, bytes, dict], time_limit: Optional[float] = None,
           threads: Optional[int] = None, seed: int = 0, progress: Union[None, bool, Callable[[dict], Any]] = None,
           input_shape: Optional[Sequence[int]] = None) -> VerifyResult:
    """Decides whether some input of the property's domain makes the network's outputs unsafe: "sat" (``x``, ``y``
    the counterexample, re-checked by a forward pass), "unsat" (proven), "timeout" or "unknown". The property is a
    VNN-LIB path, VNN-LIB text, or a dict {"lower", "upper", "A" and "b" (optional), "unsafe": [(C, d), ...]} whose
    outputs y are unsafe where C y <= d for one pair. ``model`` is any model reluopt.solve takes (docs/PYTHON.md).

    Raises reluopt.Error on bad input. Ctrl-C stops the run within a second and raises KeyboardInterrupt with the
    answer so far ("unknown" unless decided) as ``e.result``."""
    core_model, name = to_core_model(model, input_shape)
    prop, kind, prop_name = _property(property_or_path)
    settings = run_settings("enhanced", threads, seed, False)
    limit = math.inf if time_limit is None else float(time_limit)
    if not limit >= 0.0:
        raise Error(f"time_limit must be a number of seconds >= 0 (None: none), not {time_limit!r}")
    with make_progress(progress, time_limit) as callback:
        hook = None if callback is None else _margin_progress(callback, settings["progress_interval"])
        out = _core.verify(core_model, name, prop, kind, prop_name, settings, limit, hook)
    result = VerifyResult(out)
    if out["exception"] is not None:
        error = out["exception"]
        error.result = result
        raise error
    return result
