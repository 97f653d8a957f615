#!/usr/bin/python3
"""Reference implementation of Algorithm 1 ("sampling algorithm") on scipy's HiGHS.

The baseline that bench_sampling.py measures `reluopt solve --method sampling` against: what a
careful user would write by hand with numpy + scipy.optimize.linprog(method="highs"), nothing
exotic (no private scipy APIs, no warm starts, one process, one thread).

Problem (MATH.md section 1, the paper's experiments): maximise the single output y(x) of a ReLU
network over P = [0,1]^d.

Per sample (MATH.md section 2, the "input space" fixed-pattern LP):
  1. x ~ U[0,1]^d (numpy default_rng(seed)); forward pass; pattern s_{k,j} = [h_{k,j} > 0].
  2. If this exact pattern (all hidden layers) was already solved, count a duplicate and skip the
     LP: it would return the same optimum.
  3. Compose the network on the pattern into affine maps of x:
        G_1 = W_1, g_1 = b_1;  G_{k+1} = W_{k+1} D_k G_k,  g_{k+1} = W_{k+1} D_k g_k + b_{k+1}
     (D_k = diag(s_k), done by column selection), so h_k = G_k x + g_k on the region, and the
     output is c^T x + c_0 = G_K x + g_K.
  4. LP:  max G_K x   s.t.  active   j:  -(G_k x)_j <= (g_k)_j      (h >= 0)
                            inactive j:   (G_k x)_j <= -(g_k)_j     (h <= 0)
                            0 <= x <= 1.
     Rows of neurons that interval bounds over [0,1]^d prove stable (u <= 0 or l >= 0) are left
     out (MATH.md section 2): on the region they hold automatically. --no-prune keeps them.
     The sampled x is feasible, so the LP is feasible and (box) bounded. It is solved by
     linprog(method="highs", options={"presolve": False}): on these small dense LPs HiGHS's
     presolve finds nothing to remove and costs 20-50% of the time (measured on this project's
     2-core machine, scipy 1.10.1: d=100, 1 layer: 222 -> 333 LP/s), so a user who measures turns
     it off. --presolve restores scipy's defaults.
  5. The LP optimum is clipped to [0,1]^d and re-evaluated by a forward pass; the best forward
     value is kept (it equals the LP value up to solver tolerances; the largest gap is reported).
Stops after `samples` samples or when `time_limit` seconds have passed (checked before each
sample, so the run can overrun by one LP; `seconds` is measured after the last one).

Counts: samples = points drawn, duplicates = samples whose pattern had been solved already,
lps = LPs that HiGHS solved to optimality, lp_failures = LPs that ended otherwise. Throughput
is lps / seconds.

    from sampling_reference import run
    r = run(layers, samples=10**6, time_limit=20, seed=1)

CLI:  /usr/bin/python3 bench/sampling_reference.py --model net.onnx --time-limit 10 --seed 1
      /usr/bin/python3 bench/sampling_reference.py --d 100 --hidden 100 100 --net-seed 7 --samples 500
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
from scipy.optimize import linprog

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netgen  # noqa: E402


def interval_bounds(layers, lo, hi):
    """Pre-activation bounds [l_k, u_k] of every hidden layer by interval arithmetic (MATH.md 4)."""
    bounds = []
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    for W, b in layers[:-1]:
        Wp, Wn = np.maximum(W, 0.0), np.minimum(W, 0.0)
        l = Wp @ lo + Wn @ hi + b
        u = Wp @ hi + Wn @ lo + b
        bounds.append((l, u))
        lo, hi = np.maximum(l, 0.0), np.maximum(u, 0.0)
    return bounds


DEFAULT_HIGHS_OPTIONS = {"presolve": False}


def run(layers, samples, time_limit, seed, prune_stable=True, record_values=False,
        highs_options=DEFAULT_HIGHS_OPTIONS):
    """Algorithm 1 over [0,1]^d. layers = [(W, b)] float64 (netgen layout), one output.
    highs_options: linprog options= (default presolve off, see the module docstring; None or {}
    gives scipy's defaults).
    Returns dict(objective, x, lps, samples, seconds, duplicates, ...)."""
    if layers[-1][0].shape[0] != 1:
        raise ValueError("the reference handles one output only")
    d = layers[0][0].shape[1]
    hidden = layers[:-1]
    W_out, b_out = layers[-1]
    if prune_stable:
        keep = [(u > 0.0) & (l < 0.0) for l, u in interval_bounds(layers, np.zeros(d), np.ones(d))]
    else:
        keep = [np.ones(W.shape[0], dtype=bool) for W, _ in hidden]
    rows_per_lp = int(sum(k.sum() for k in keep))
    bounds = (0.0, 1.0)
    opts = dict(highs_options or {})

    rng = np.random.default_rng(seed)
    seen = set()
    n = dup = lps = fails = 0
    best_val, best_x, best_lp = -math.inf, None, -math.inf
    max_gap = 0.0
    values = [] if record_values else None

    t0 = time.perf_counter()
    deadline = t0 + float(time_limit)
    while n < samples and time.perf_counter() < deadline:
        x = rng.random(d)
        n += 1
        # forward pass and activation pattern
        pats = []
        h = x
        for W, b in hidden:
            h = W @ h + b
            s = h > 0.0
            pats.append(s)
            h = np.where(s, h, 0.0)
        key = np.packbits(np.concatenate(pats)).tobytes()
        if key in seen:
            dup += 1
            continue
        seen.add(key)
        sample_val = float(W_out[0] @ h + b_out[0])

        # compose the network on this pattern: h_k = G x + g
        A_parts, rhs_parts = [], []
        G, g = hidden[0][0], hidden[0][1]
        for k, s in enumerate(pats):
            kk = keep[k]
            sign = np.where(s[kk], 1.0, -1.0)
            A_parts.append(-sign[:, None] * G[kk])
            rhs_parts.append(sign * g[kk])
            Wn, bn = layers[k + 1]
            Wa = Wn[:, s]
            G = Wa @ G[s]
            g = Wa @ g[s] + bn
        c = G[0]  # output = c x + g[0]
        if rows_per_lp:
            A_ub, b_ub = np.vstack(A_parts), np.concatenate(rhs_parts)
        else:
            A_ub = b_ub = None
        res = linprog(-c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs", options=opts)
        if res.status != 0:
            fails += 1
            cand_x, cand_val = x, sample_val  # the sample itself is still a valid point
        else:
            lps += 1
            lp_val = -float(res.fun) + float(g[0])
            cand_x = np.clip(res.x, 0.0, 1.0)
            cand_val = float(netgen.forward(layers, cand_x)[0])
            max_gap = max(max_gap, abs(cand_val - lp_val) / max(1.0, abs(lp_val)))
            if record_values:
                values.append(lp_val)
            if lp_val > best_lp:
                best_lp = lp_val
        if cand_val > best_val:
            best_val, best_x = cand_val, cand_x
    seconds = time.perf_counter() - t0

    return dict(
        objective=best_val if best_x is not None else None,
        x=best_x.tolist() if best_x is not None else None,
        lps=lps,
        samples=n,
        seconds=seconds,
        duplicates=dup,
        lp_failures=fails,
        best_lp_value=best_lp if lps else None,
        max_lp_forward_gap=max_gap,
        rows_per_lp=rows_per_lp,
        lps_per_second=lps / seconds if seconds > 0 else None,
        stopped_by="samples" if n >= samples else "time",
        values=values,
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description="Algorithm 1 (sampling) on scipy HiGHS, the Python reference.")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="ONNX file (Gemm/Relu chain)")
    src.add_argument("--d", type=int, help="generate a Xavier network with this input dimension")
    ap.add_argument("--hidden", type=int, nargs="+", default=[100], help="hidden widths with --d")
    ap.add_argument("--net-seed", type=int, default=0, help="network seed with --d")
    ap.add_argument("--samples", type=int, default=10**9)
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds")
    ap.add_argument("--seed", type=int, default=1, help="sampling seed")
    ap.add_argument("--no-prune", action="store_true", help="keep rows of interval-stable neurons")
    ap.add_argument("--presolve", action="store_true",
                    help="scipy's default options (presolve on) instead of options={'presolve': False}")
    ap.add_argument("--json", help="write the result here")
    a = ap.parse_args(argv)
    layers = netgen.load_onnx(a.model) if a.model else netgen.make_network(a.d, a.hidden, a.net_seed)
    r = run(layers, a.samples, a.time_limit, a.seed, prune_stable=not a.no_prune,
            highs_options=None if a.presolve else DEFAULT_HIGHS_OPTIONS)
    r.pop("values")
    print("network %s: %d samples, %d LPs (%d duplicates, %d failed) in %.2f s = %.1f LP/s; "
          "best %.9g (LP rows %d, max LP/forward gap %.2g)"
          % (netgen.describe(layers), r["samples"], r["lps"], r["duplicates"], r["lp_failures"],
             r["seconds"], r["lps_per_second"] or 0.0, r["objective"], r["rows_per_lp"],
             r["max_lp_forward_gap"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
