"""Linear expressions over a Model's variables and network outputs, built by operator overloading."""
from __future__ import annotations

import math
import numbers
from typing import Any, Iterator, Optional, Union

import numpy as np

from ._core import Error

VARIABLE, OUTPUT = 0, 1  # the kinds of a reference (model_binding.h)
Key = tuple[int, int, int]  # (kind, block or network, coordinate)


def is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _number(value: Any, what: str) -> float:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not is_number(value) or not _finite(value):
        raise Error(f"{what} must be a finite number, not {_short(value)}")
    return float(value)


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond the range of a double
        return False


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."



def _model_of(a: Any, b: Any) -> Any:
    if a is not None and b is not None and a is not b:
        raise Error("the expression mixes variables or network outputs of two models")
    return a if a is not None else b


def as_expr(value: Any) -> "LinearExpr":
    """A LinearExpr of an expression, a number or one entry of a Vector; anything else is an Error."""
    if isinstance(value, LinearExpr):
        return value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if is_number(value):
        return LinearExpr(None, {}, _number(value, "a number in an expression"))
    if isinstance(value, Vector):
        raise Error(f"{value!r} has {len(value)} entries: take one ({value.name}[0]), or {value.name}.sum() or "
                    f"{value.name} @ coefficients")
    raise Error(f"a linear expression takes numbers, variables and network outputs, not {type(value).__name__}")


class LinearExpr:
    """sum of coefficient * (variable or network output) + constant. ``+``, ``-``, ``*`` and ``/`` by numbers build
    expressions; ``<=``, ``>=`` and ``==`` build constraints for Model.add_constraint."""

    __array_ufunc__ = None  # numpy scalars and arrays defer to these operators
    __hash__ = None  # type: ignore[assignment]  (== builds a constraint)

    def __init__(self, model: Any, terms: dict[Key, float], constant: float = 0.0):
        self.model = model
        self.terms = terms
        self.constant = constant

    def _combine(self, other: Any, sign: float) -> "LinearExpr":
        other = as_expr(other)
        terms = dict(self.terms)
        for key, c in other.terms.items():
            terms[key] = terms.get(key, 0.0) + sign * c
        return LinearExpr(_model_of(self.model, other.model), terms, self.constant + sign * other.constant)

    def _is_linear(self) -> bool:
        """Whether some term has a coefficient other than 0 (else the expression is its constant)."""
        return any(c != 0.0 for c in self.terms.values())

    def _scaled(self, factor: float) -> "LinearExpr":
        return LinearExpr(self.model, {k: factor * c for k, c in self.terms.items()}, factor * self.constant)

    def __add__(self, other: Any) -> "LinearExpr":
        return self._combine(other, 1.0)

    def __radd__(self, other: Any) -> "LinearExpr":
        return self._combine(other, 1.0)

    def __sub__(self, other: Any) -> "LinearExpr":
        return self._combine(other, -1.0)

    def __rsub__(self, other: Any) -> "LinearExpr":
        return as_expr(other)._combine(self, -1.0)

    def __neg__(self) -> "LinearExpr":
        return self._scaled(-1.0)

    def __pos__(self) -> "LinearExpr":
        return self

    def __mul__(self, other: Any) -> "LinearExpr":
        if isinstance(other, (LinearExpr, Vector)):
            other = as_expr(other)
            if self._is_linear() and other._is_linear():
                raise Error("the product of two expressions is not linear: multiply by numbers only")
            return self._scaled(other.constant) if self._is_linear() else other._scaled(self.constant)
        return self._scaled(_number(other, "a factor of an expression"))

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> "LinearExpr":
        if isinstance(other, (LinearExpr, Vector)):
            raise Error("dividing by an expression is not linear: divide by numbers only")
        divisor = _number(other, "a divisor of an expression")
        if divisor == 0.0:
            raise Error("division of an expression by zero")
        return self._scaled(1.0 / divisor)

    def __rtruediv__(self, other: Any) -> "LinearExpr":
        raise Error("dividing by an expression is not linear: divide by numbers only")

    def __le__(self, other: Any) -> "Constraint":
        return Constraint(self - other, "<=")

    def __ge__(self, other: Any) -> "Constraint":
        return Constraint(self - other, ">=")

    def __eq__(self, other: Any) -> "Constraint":  # type: ignore[override]
        return Constraint(self - other, "==")

    def __lt__(self, other: Any) -> "Constraint":
        raise Error("strict inequalities (<, >) are not supported: use <= or >=")

    __gt__ = __lt__

    def __ne__(self, other: Any) -> "Constraint":  # type: ignore[override]
        raise Error("!= is not a constraint: use <=, >= or ==")

    def __bool__(self) -> bool:
        raise Error("an expression has no truth value")

    def __repr__(self) -> str:
        parts = [(c, _key_name(self.model, k)) for k, c in self.terms.items()]
        if self.constant or not parts:
            parts.append((self.constant, ""))
        text = ""
        for c, name in parts:
            shown = f"{abs(c):g}" if not name or abs(c) != 1.0 else ""
            sign = ("-" if c < 0 else "") if not text else (" - " if c < 0 else " + ")
            text += sign + " ".join(p for p in (shown, name) if p)
        return text


class Constraint:
    """expr <= rhs, expr >= rhs or expr == rhs, the constant moved to the right-hand side."""

    def __init__(self, difference: LinearExpr, sense: str):
        terms = {k: c for k, c in difference.terms.items() if c != 0.0}
        if not terms:
            raise Error("the constraint has no variable or network output (it compares numbers, or its terms "
                        "cancel)")
        self.model = difference.model
        self.expr = LinearExpr(difference.model, terms)
        self.sense = sense
        self.rhs = -difference.constant + 0.0  # never -0.0
        self.name = ""

    def __bool__(self) -> bool:
        raise Error("a constraint has no truth value: pass it to Model.add_constraint (a <= x <= b is two "
                    "constraints)")

    def __repr__(self) -> str:
        return f"Constraint({self.expr!r} {self.sense} {self.rhs:g})"


class MaxMinExpr:
    """max_k min_l of linear expressions (disjunct k, term l): a safety margin, or the worst case over scenarios.
    Built by reluopt.minimum and reluopt.maximum; Model.maximize and Model.minimize take it."""

    def __init__(self, disjuncts: list[list[LinearExpr]]):
        self.disjuncts = disjuncts
        self.model = None
        for disjunct in disjuncts:
            for term in disjunct:
                self.model = _model_of(self.model, term.model)

    def __repr__(self) -> str:
        return "max(" + ", ".join("min(" + ", ".join(repr(t) for t in d) + ")" for d in self.disjuncts) + ")"


def _expressions(args: tuple, what: str) -> list:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if not args:
        raise Error(f"{what} needs at least one expression")
    return list(args)


def minimum(*exprs: Any) -> MaxMinExpr:
    """min of linear expressions (or numbers), for an objective: ``m.maximize(reluopt.minimum(y[0] - y[1],
    y[0] - y[2]))`` maximizes the margin of output 0 over the others."""
    terms = []
    for e in _expressions(exprs, "reluopt.minimum"):
        if isinstance(e, MaxMinExpr):
            if len(e.disjuncts) != 1:
                raise Error("reluopt.minimum takes linear expressions and minimum(...) of them, not a maximum")
            terms.extend(e.disjuncts[0])
        else:
            terms.append(as_expr(e))
    return MaxMinExpr([terms])


def maximum(*exprs: Any) -> MaxMinExpr:
    """max of linear expressions and of reluopt.minimum(...) of them, for an objective."""
    disjuncts = []
    for e in _expressions(exprs, "reluopt.maximum"):
        disjuncts.extend(e.disjuncts if isinstance(e, MaxMinExpr) else [[as_expr(e)]])
    return MaxMinExpr(disjuncts)


def _key_name(model: Any, key: Key) -> str:
    kind, index, coordinate = key
    if model is None:
        return f"?[{coordinate}]"
    return f"{model._entry_name(kind, index)}[{coordinate}]"


class Vector:
    """A block of variables or a network's outputs (or a part of one): ``v[i]`` is an expression, ``v[a:b]`` a
    Vector; ``v.sum()`` and ``v @ coefficients`` are expressions."""

    __array_ufunc__ = None

    def __init__(self, model: Any, kind: int, index: int, coordinates: list[int]):
        self.model = model
        self.kind = kind
        self.index = index
        self.coordinates = coordinates

    @property
    def name(self) -> str:
        return self.model._entry_name(self.kind, self.index)

    def __len__(self) -> int:
        return len(self.coordinates)

    def _entry(self, i: int) -> LinearExpr:
        return LinearExpr(self.model, {(self.kind, self.index, self.coordinates[i]): 1.0})

    def __iter__(self) -> Iterator[LinearExpr]:
        return (self._entry(i) for i in range(len(self)))

    def __getitem__(self, key: Union[int, slice, Any]) -> Union[LinearExpr, "Vector"]:
        if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            if not -len(self) <= key < len(self):
                raise Error(f"index {int(key)} is outside {self!r} ({len(self)} entries)")
            return self._entry(int(key))
        if isinstance(key, slice):
            return Vector(self.model, self.kind, self.index, self.coordinates[key])
        try:
            picks = list(key)
        except TypeError:
            picks = [None]
        # bools and floats are no positions: int(True) and int(0.5) would pick an entry the caller did not mean
        if not all(isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)) for i in picks):
            raise Error(f"{self!r} takes an int, a slice or a list of ints as index, not {_short(key)}")
        return Vector(self.model, self.kind, self.index, [self.coordinates[self._checked(i)] for i in picks])

    def _checked(self, i: int) -> int:
        if not -len(self) <= i < len(self):
            raise Error(f"index {i} is outside {self!r} ({len(self)} entries)")
        return i

    def sum(self) -> LinearExpr:
        return self @ np.ones(len(self))

    def __matmul__(self, coefficients: Any) -> LinearExpr:
        c = np.asarray(coefficients, dtype=np.float64) if not isinstance(coefficients, Vector) else None
        if c is None or c.shape != (len(self),):
            raise Error(f"{self!r} @ c needs one number per entry ({len(self)})")
        out = LinearExpr(self.model, {})
        for k, coefficient in enumerate(c):
            key = (self.kind, self.index, self.coordinates[k])
            out.terms[key] = out.terms.get(key, 0.0) + float(coefficient)
        return out

    __rmatmul__ = __matmul__

    def _not_scalar(self, *_: Any) -> Any:
        as_expr(self)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __neg__ = _not_scalar
    __le__ = __ge__ = __lt__ = __gt__ = _not_scalar

    def __repr__(self) -> str:
        full = self.model._entry_size(self.kind, self.index)
        if self.coordinates == list(range(full)):
            return self.name
        first, end = (self.coordinates[0], self.coordinates[-1] + 1) if self.coordinates else (0, 0)
        if self.coordinates and self.coordinates == list(range(first, end)):
            return f"{self.name}[{first}:{end}]"
        return f"{self.name}{self.coordinates}"


def optional_name(value: Optional[str], what: str) -> Optional[str]:
    if value is not None and not isinstance(value, str):
        raise Error(f"{what} must be a str, not {type(value).__name__}")
    return value
