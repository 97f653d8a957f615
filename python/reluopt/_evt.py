"""reluopt.evt: the library's extreme-value analysis of the values X_i a sampling run reaches (MATH.md section 8)."""
from __future__ import annotations

import json
from typing import Any, Optional, Sequence

import numpy as np

from . import _core
from ._core import Error


class EvtReport:
    """The report of ``reluopt evt`` as attributes (``n``, ``fits``, ``gamma``, ``endpoint``,
    ``sample_complexity`` ...); ``to_dict()``/``to_json()`` give its JSON, ``plot()`` draws it."""

    def __init__(self, text: str, values: np.ndarray):
        self._json = text
        self._fields: dict = json.loads(text)
        self.values = values

    def __getattr__(self, name: str) -> Any:
        fields = self.__dict__.get("_fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(f"EvtReport has no field '{name}'")

    def to_dict(self) -> dict:
        return json.loads(self._json)

    def to_json(self) -> str:
        return self._json

    def __repr__(self) -> str:
        best = self._fields["fits"][0]["family"] if self._fields["fits"] else None
        end = self._fields["endpoint"]
        estimate = end["estimate"] if end else None
        return (f"EvtReport(n={self._fields['n']}, max={self._fields['max']!r}, best_fit={best!r}, "
                f"endpoint={estimate!r}, gamma={self._fields['gamma']['best_fit']!r})")

    def plot(self, ax: Any = None, top: int = 3) -> Any:
        """The histogram of the values with the densities of the `top` best fits (needs matplotlib)."""
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("EvtReport.plot needs matplotlib (pip install matplotlib)") from None
        if ax is None:
            _, ax = plt.subplots()
        ax.hist(self.values, bins=self._fields["histogram"]["bins"], density=True, alpha=0.4, label="values")
        xs = np.linspace(self._fields["min"], self._fields["max"], 400)
        for fit in self._fields["fits"][:top]:
            params = dict(fit["params"])
            loc, scale = params.pop("loc"), params.pop("scale")
            ys = _core.evt_pdf(fit["family"], list(params.values()), loc, scale, xs.tolist())
            ax.plot(xs, ys, label=f"{fit['family']} (RSS {fit['rss']:.3g})")
        ax.set_xlabel("value")
        ax.set_ylabel("density")
        ax.legend()
        return ax


def evt(values: Sequence[float], eps: Optional[float] = None, delta: float = 0.05, confidence: float = 0.95,
        seed: int = 1, threads: int = 0) -> EvtReport:
    """Fits the right tail of `values` (at least 30 finite numbers, not all equal) as ``reluopt evt`` does: the
    candidate families ranked, the extreme value index, the estimated maximum with its interval, and the samples
    needed for the best value to be within `eps` (default 1% of the range) of it with probability 1 - `delta`.
    For a minimization, pass the negated values."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 2 and array.shape[1] == 2:
        array = array[:, 1]  # Result.sample_values: (index, value) rows
    if array.ndim != 1:
        raise Error(f"values must be one-dimensional, not of shape {array.shape}")
    return EvtReport(_core.evt(array.tolist(), eps, delta, confidence, seed, threads), array)
