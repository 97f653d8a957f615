#!/usr/bin/python3
"""An independent big-M MIP of a ReLU network on HiGHS (scipy.optimize.milp): the solver that
certifies optima for the acceptance benchmarks, and the "HiGHS on the big-M MIP" baseline.

Nothing here shares code with reluopt: the formulation is written from MATH.md, the solver is
HiGHS (scipy 1.10's milp / linprog), the networks come from bench/netgen.py (or any ONNX file that
netgen.load_onnx reads).

Problem (MATH.md section 1): maximise or minimise g(x) = c^T y(x) + c_0 over
P = {x : lo <= x <= hi, A x <= b}, y the outputs of the network (no ReLU on the last layer).

Formulation (MATH.md section 3). Variables: x (d), and per hidden layer k the post-activations a_k
(continuous) and one binary z_{k,j} per unstable neuron. With h = W_k a_{k-1} + b_k (a_0 = x) and
pre-activation bounds l <= h <= u:
    u <= 0 (stable inactive):  a = 0                      (the variable is fixed at 0)
    l >= 0 (stable active):    a = h,  l <= a <= u
    l < 0 < u:                 a >= 0, a >= h, a <= u z, a <= h - l (1 - z), z in {0,1}, a <= u
The objective c^T (W_K a_{K-1} + b_K) + c_0 is linear in a_{K-1}.

Neuron bounds (MATH.md section 4):
    interval  interval arithmetic, layer by layer;
    lp        optimisation-based (Fischetti & Jo): for layer k, max and min of every h_{k,j} over the
              LP relaxation (z in [0,1]) of layers < k and P, with linprog(method="highs"); the first
              layer over a plain box is exactly its interval bound, so it gets no LPs. Every LP bound
              is widened by 1e-7 + 1e-7 |value| (solver tolerance) and intersected with the interval
              bound (both are valid, so is their intersection). A neuron whose LP does not end optimal
              keeps its interval bound. With bounds_time_limit, neurons left when it runs out keep
              interval bounds (propagated from the tightened earlier layers): still valid.
The bound LPs and the MIP share one wall-clock time limit: the MIP gets what the bounds left.

Answer: status (optimal | feasible | no_solution | infeasible | error), objective = g at x, where x
is HiGHS's incumbent clipped to the box and re-evaluated by a numpy forward pass (netgen.forward), so
it is a true feasible value; objective_solver = HiGHS's own value; bound = HiGHS's mip_dual_bound
in the problem's sense (an upper bound for max, lower for min); gap; x; nodes; seconds.
"optimal" means HiGHS proved |bound - objective| <= mip_rel_gap * |objective| (default 1e-6;
HiGHS's mip_abs_gap default 1e-6 also ends the search).

    import highs_mip
    r = highs_mip.solve(layers, lo, hi, A=None, b=None, weights=[1.0], constant=0.0, sense="max",
                        bounds="lp", time_limit=60)

CLI:  /usr/bin/python3 bench/highs_mip.py --model net.onnx [--domain D.json] [--objective O.json]
                     [--bounds lp|interval] [--time-limit S] [--json OUT]
      /usr/bin/python3 bench/highs_mip.py --d 5 --hidden 20 20 --net-seed 3 --time-limit 60
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netgen  # noqa: E402

LP_BOUND_SLACK = 1e-7


# ------------------------------------------------------------------------------------------ problem data

def box_domain(d, lo=0.0, hi=1.0):
    return dict(lower=[float(lo)] * d, upper=[float(hi)] * d)


def load_domain(path, d):
    """A domain JSON {"lower", "upper", "A", "b"} (A, b optional), or [0,1]^d for None."""
    if path is None:
        return box_domain(d)
    with open(path) as f:
        return json.load(f)


def load_objective(path, m):
    """An objective JSON {"sense", "weights", "constant"}, or maximise output 0 for None."""
    if path is None:
        return dict(sense="max", weights=[1.0] + [0.0] * (m - 1), constant=0.0)
    with open(path) as f:
        o = json.load(f)
    o.setdefault("sense", "max")
    o.setdefault("constant", 0.0)
    return o


def domain_arrays(dom, d):
    lo = np.asarray(dom["lower"], dtype=np.float64).reshape(-1)
    hi = np.asarray(dom["upper"], dtype=np.float64).reshape(-1)
    if lo.size != d or hi.size != d:
        raise ValueError("domain bounds have %d/%d entries, the network has d = %d" % (lo.size, hi.size, d))
    A = dom.get("A")
    b = dom.get("b")
    if A is not None and len(A):
        A = np.asarray(A, dtype=np.float64).reshape(-1, d)
        b = np.asarray(b, dtype=np.float64).reshape(-1)
        if b.size != A.shape[0]:
            raise ValueError("domain A has %d rows, b has %d entries" % (A.shape[0], b.size))
    else:
        A, b = None, None
    return lo, hi, A, b


def objective_value(layers, weights, constant, x):
    """g(x) = c^T y(x) + c_0 (float64, numpy forward pass)."""
    return float(np.dot(np.asarray(weights, dtype=np.float64), netgen.forward(layers, x)) + float(constant))


def domain_violation(x, lo, hi, A=None, b=None):
    """Largest violation of lo <= x <= hi and A x <= b (0 when inside)."""
    x = np.asarray(x, dtype=np.float64)
    v = max(0.0, float(np.max(lo - x)), float(np.max(x - hi)))
    if A is not None:
        v = max(v, float(np.max(A @ x - b)))
    return v


def interval_step(W, b, lo, hi):
    Wp, Wn = np.maximum(W, 0.0), np.minimum(W, 0.0)
    return Wp @ lo + Wn @ hi + b, Wp @ hi + Wn @ lo + b


# ------------------------------------------------------------------------------------------ the MIP model

class Model:
    """Columns and rows of the big-M formulation, built layer by layer (so that the LP bounds of
    layer k can be computed on the relaxation of the layers already added)."""

    def __init__(self, lo, hi, A, b):
        d = lo.size
        self.lb = list(lo)
        self.ub = list(hi)
        self.integ = [0] * d
        self.rows, self.cols, self.vals = [], [], []
        self.rlo, self.rhi = [], []
        self.nrows = 0
        self.layer_vars = [np.arange(d)]  # variable indices of x, a_1, ...
        if A is not None:
            for i in range(A.shape[0]):
                nz = np.nonzero(A[i])[0]
                self._row(nz, A[i, nz], -np.inf, b[i])

    @property
    def nvars(self):
        return len(self.lb)

    def _var(self, lb, ub, integer=False):
        self.lb.append(float(lb))
        self.ub.append(float(ub))
        self.integ.append(1 if integer else 0)
        return len(self.lb) - 1

    def _row(self, idx, coef, rlo, rhi):
        r = self.nrows
        self.rows.extend([r] * len(idx))
        self.cols.extend(int(i) for i in idx)
        self.vals.extend(float(c) for c in coef)
        self.rlo.append(float(rlo))
        self.rhi.append(float(rhi))
        self.nrows += 1

    def add_layer(self, W, bias, l, u):
        """Add a hidden layer with pre-activation bounds [l, u]; returns counts."""
        inp = self.layer_vars[-1]
        out = np.empty(W.shape[0], dtype=np.int64)
        n_on = n_off = n_unstable = 0
        for j in range(W.shape[0]):
            w = W[j]
            nz = np.nonzero(w)[0]
            if u[j] <= 0.0:
                out[j] = self._var(0.0, 0.0)
                n_off += 1
            elif l[j] >= 0.0:
                a = self._var(l[j], u[j])
                out[j] = a
                # a - w.in = b
                self._row(np.concatenate([[a], inp[nz]]), np.concatenate([[1.0], -w[nz]]), bias[j], bias[j])
                n_on += 1
            else:
                a = self._var(0.0, u[j])
                z = self._var(0.0, 1.0, integer=True)
                out[j] = a
                # w.in - a <= -b          (a >= h)
                self._row(np.concatenate([inp[nz], [a]]), np.concatenate([w[nz], [-1.0]]), -np.inf, -bias[j])
                # a - u z <= 0            (a <= u z)
                self._row([a, z], [1.0, -u[j]], -np.inf, 0.0)
                # a - w.in - l z <= b - l (a <= h - l (1 - z))
                self._row(np.concatenate([[a], inp[nz], [z]]), np.concatenate([[1.0], -w[nz], [-l[j]]]),
                          -np.inf, bias[j] - l[j])
                n_unstable += 1
        self.layer_vars.append(out)
        return dict(active=n_on, inactive=n_off, unstable=n_unstable)

    def matrix(self):
        return sp.csr_matrix((self.vals, (self.rows, self.cols)), shape=(self.nrows, self.nvars))


def lp_bounds_layer(model, W, bias, l_int, u_int, deadline):
    """LP bounds of h = W a_{k-1} + b over the relaxation in `model`. Starts from the interval bounds
    [l_int, u_int]; returns (l, u, lps, lp_failures, complete)."""
    inp = model.layer_vars[-1]
    n = model.nvars
    l, u = l_int.copy(), u_int.copy()
    M = model.matrix()
    rlo, rhi = np.asarray(model.rlo), np.asarray(model.rhi)
    eq = rlo == rhi
    A_eq = M[eq] if eq.any() else None
    b_eq = rhi[eq] if eq.any() else None
    le = ~eq
    A_ub = M[le] if le.any() else None
    b_ub = rhi[le] if le.any() else None
    bnds = list(zip(model.lb, model.ub))
    lps = fails = 0
    for j in range(W.shape[0]):
        for sgn in (1.0, -1.0):  # +1: max h (upper bound), -1: min h (lower bound)
            if time.perf_counter() > deadline:
                return l, u, lps, fails, False
            if sgn > 0 and u[j] <= 0.0:
                continue  # already stable inactive: the lower bound is not needed
            if sgn < 0 and (l[j] >= 0.0 or u[j] <= 0.0):
                continue
            c = np.zeros(n)
            c[inp] = -sgn * W[j]
            res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bnds, method="highs")
            if res.status != 0:
                fails += 1
                continue
            lps += 1
            v = -sgn * float(res.fun) + bias[j]  # max (sgn=+1) or min (sgn=-1) of h_j
            slack = LP_BOUND_SLACK * (1.0 + abs(v))
            if sgn > 0:
                u[j] = min(u[j], v + slack)
            else:
                l[j] = max(l[j], v - slack)
    return l, u, lps, fails, True


def solve(layers, lo, hi, A=None, b=None, weights=None, constant=0.0, sense="max", bounds="lp",
          time_limit=60.0, bounds_time_limit=None, mip_rel_gap=1e-6, disp=False, node_limit=None):
    """Solve max/min c^T y(x) + c_0 over {lo <= x <= hi, A x <= b} with the big-M MIP on HiGHS.
    bounds: "lp" or "interval". time_limit: seconds for everything (bounds + MIP).
    bounds_time_limit: at most this many seconds for the LP bounds (default: half of time_limit).
    Returns a dict (see the module docstring)."""
    t0 = time.perf_counter()
    deadline = t0 + float(time_limit)
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    d = lo.size
    m = layers[-1][0].shape[0]
    w_obj = np.asarray(weights if weights is not None else [1.0] + [0.0] * (m - 1), dtype=np.float64)
    if w_obj.size != m:
        raise ValueError("%d objective weights for %d outputs" % (w_obj.size, m))
    if sense not in ("max", "min"):
        raise ValueError("sense must be max or min")
    sgn = 1.0 if sense == "max" else -1.0
    if bounds not in ("lp", "interval"):
        raise ValueError("bounds must be lp or interval")
    if bounds_time_limit is None:
        bounds_time_limit = 0.5 * float(time_limit)
    bounds_deadline = min(deadline, t0 + float(bounds_time_limit))

    model = Model(lo, hi, A, b)
    cur_lo, cur_hi = lo.copy(), hi.copy()
    layer_info = []
    lps = lp_fails = 0
    bounds_complete = True
    neuron_bounds = []
    for k, (W, bias) in enumerate(layers[:-1]):
        l, u = interval_step(W, bias, cur_lo, cur_hi)
        info = dict(layer=k + 1, width=W.shape[0], bounds="interval")
        if bounds == "lp" and (k > 0 or A is not None):
            if bounds_complete:
                l, u, n_lp, n_f, done = lp_bounds_layer(model, W, bias, l, u, bounds_deadline)
                lps += n_lp
                lp_fails += n_f
                info.update(bounds="lp" if done else "lp (partial: time)", lps=n_lp, lp_failures=n_f)
                bounds_complete = done
            else:
                info["bounds"] = "interval (LP bound time used up)"
        info.update(model.add_layer(W, bias, l, u))
        layer_info.append(info)
        neuron_bounds.append((l, u))
        cur_lo, cur_hi = np.maximum(l, 0.0), np.maximum(u, 0.0)
    bounds_seconds = time.perf_counter() - t0

    W_K, b_K = layers[-1]
    c_out = w_obj @ W_K                 # objective = c_out . a_{K-1} + const0
    const0 = float(w_obj @ b_K) + float(constant)
    c = np.zeros(model.nvars)
    c[model.layer_vars[-1]] = -sgn * c_out  # milp minimises -sgn * (objective - const0)
    M = model.matrix()
    cons = [LinearConstraint(M, model.rlo, model.rhi)] if model.nrows else []
    remaining = deadline - time.perf_counter()
    result = dict(method="highs big-M", bounds=bounds, bounds_complete=bounds_complete, layers=layer_info,
                  binaries=int(sum(model.integ)), variables=model.nvars, rows=model.nrows,
                  bound_lps=lps, bound_lp_failures=lp_fails, bounds_seconds=bounds_seconds,
                  sense=sense, time_limit=float(time_limit), mip_rel_gap=mip_rel_gap,
                  scipy=scipy.__version__)
    result["neuron_bounds"] = [(l.tolist(), u.tolist()) for l, u in neuron_bounds]
    if remaining <= 0.05:
        result.update(status="no_solution", objective=None, objective_solver=None, bound=None, gap=None,
                      x=None, nodes=0, mip_seconds=0.0, message="time limit reached while computing bounds",
                      seconds=time.perf_counter() - t0)
        return result
    opts = dict(time_limit=float(remaining), mip_rel_gap=float(mip_rel_gap), disp=bool(disp))
    if node_limit is not None:
        opts["node_limit"] = int(node_limit)
    t1 = time.perf_counter()
    res = milp(c, integrality=np.asarray(model.integ), bounds=Bounds(model.lb, model.ub),
               constraints=cons, options=opts)
    mip_seconds = time.perf_counter() - t1
    result.update(mip_seconds=mip_seconds, nodes=res.get("mip_node_count"), message=res.message,
                  milp_status=int(res.status), seconds=time.perf_counter() - t0)
    dual = res.get("mip_dual_bound")
    bound = None
    if dual is not None and np.isfinite(dual):
        bound = -sgn * float(dual) + const0   # max: -(min of -f) ; min: min of f
    result["bound"] = bound
    x = res.x
    if x is None or res.status == 2:
        result.update(status="infeasible" if res.status == 2 else ("no_solution" if res.status == 1 else "error"),
                      objective=None, objective_solver=None, gap=None, x=None)
        return result
    xin = np.clip(np.asarray(x[:d], dtype=np.float64), lo, hi)
    obj = objective_value(layers, w_obj, constant, xin)
    obj_solver = -sgn * float(res.fun) + const0
    result.update(x=xin.tolist(), objective=obj, objective_solver=obj_solver,
                  forward_solver_gap=abs(obj - obj_solver),
                  domain_violation=domain_violation(xin, lo, hi, A, b))
    if bound is not None:
        result["gap"] = abs(bound - obj) / max(1e-10, abs(obj))
    else:
        result["gap"] = None
    result["status"] = "optimal" if res.status == 0 else "feasible"
    return result


def solve_files(model_path, domain_path=None, objective_path=None, **kw):
    layers = netgen.load_onnx(model_path)
    d, m = layers[0][0].shape[1], layers[-1][0].shape[0]
    lo, hi, A, b = domain_arrays(load_domain(domain_path, d), d)
    o = load_objective(objective_path, m)
    return solve(layers, lo, hi, A, b, weights=o["weights"], constant=o.get("constant", 0.0),
                 sense=o.get("sense", "max"), **kw)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Big-M MIP of a ReLU network on HiGHS (scipy.optimize.milp).")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="ONNX file (Gemm/Relu chain)")
    src.add_argument("--d", type=int, help="generate a Xavier network with this input dimension")
    ap.add_argument("--hidden", type=int, nargs="+", default=[100])
    ap.add_argument("--net-seed", type=int, default=0)
    ap.add_argument("--domain", help="domain JSON (default [0,1]^d)")
    ap.add_argument("--objective", help="objective JSON (default maximise output 0)")
    ap.add_argument("--bounds", choices=("lp", "interval"), default="lp")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--bounds-time-limit", type=float, default=None)
    ap.add_argument("--mip-rel-gap", type=float, default=1e-6)
    ap.add_argument("--verbose", action="store_true", help="HiGHS log")
    ap.add_argument("--json", help="write the result here")
    a = ap.parse_args(argv)
    layers = netgen.load_onnx(a.model) if a.model else netgen.make_network(a.d, a.hidden, a.net_seed)
    d, m = layers[0][0].shape[1], layers[-1][0].shape[0]
    lo, hi, A, b = domain_arrays(load_domain(a.domain, d), d)
    o = load_objective(a.objective, m)
    r = solve(layers, lo, hi, A, b, weights=o["weights"], constant=o.get("constant", 0.0),
              sense=o.get("sense", "max"), bounds=a.bounds, time_limit=a.time_limit,
              bounds_time_limit=a.bounds_time_limit, mip_rel_gap=a.mip_rel_gap, disp=a.verbose)
    print("%s: %s objective %s bound %s gap %s, %s binaries, %s nodes, %.1f s (bounds %.1f s, %d LPs)"
          % (netgen.describe(layers), r["status"], r.get("objective"), r.get("bound"), r.get("gap"),
             r["binaries"], r.get("nodes"), r["seconds"], r["bounds_seconds"], r["bound_lps"]))
    if a.json:
        out = dict(r)
        out.pop("neuron_bounds", None)
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
