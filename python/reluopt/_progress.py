"""The progress= argument of reluopt.solve and reluopt.verify: None/False (quiet), True (a tqdm bar when tqdm is
installed, else a line on stderr), or a callable that receives a dict {seconds, samples, lps, nodes, incumbent,
bound} (verify: {seconds, margin, bound})."""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator, Optional


def _describe(p: dict) -> str:
    if "margin" in p:  # reluopt.verify's margins
        return (f"best margin {'none' if p['margin'] is None else format(p['margin'], '.6g')}, "
                f"bound {'none' if p['bound'] is None else format(p['bound'], '.6g')}")
    text = f"{p['samples']} samples, {p['lps']} LPs"
    if p["nodes"]:
        text += f", {p['nodes']} nodes"
    if p["incumbent"] is not None:
        text += f", best {p['incumbent']:.6g}"
    if p["bound"] is not None:
        text += f", bound {p['bound']:.6g}"
    return text


@contextlib.contextmanager
def _bar(time_limit: Optional[float]) -> Iterator[Callable[[dict], None]]:
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    if tqdm is None:
        def line(p: dict) -> None:
            print(f"\r{p['seconds']:.1f} s, {_describe(p)}", end="", file=sys.stderr, flush=True)
        yield line
        print(file=sys.stderr)
        return
    total = float(time_limit) if time_limit is not None else None
    with tqdm(total=total, unit="s", bar_format="{l_bar}{bar}| {n:.1f}/{total_fmt} s {postfix}" if total
              else "{n:.1f} s {postfix}") as bar:
        def update(p: dict) -> None:
            bar.n = min(p["seconds"], total) if total else p["seconds"]
            bar.set_postfix_str(_describe(p), refresh=True)
        yield update


@contextlib.contextmanager
def make_progress(progress: Any, time_limit: Optional[float]) -> Iterator[Optional[Callable[[dict], Any]]]:
    if progress is None or progress is False:
        yield None
    elif progress is True:
        with _bar(time_limit) as update:
            yield update
    elif callable(progress):
        yield progress
    else:
        from ._core import Error
        raise Error(f"progress must be None, True or a callable, not {progress!r}")
