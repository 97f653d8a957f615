#!/usr/bin/env python3
"""A hostile probe of models around networks (docs/PROBLEM.md): shapes bench/model_crosscheck.py does not draw,
every method's answer checked against an independent MILP on HiGHS, and `reluopt formulate`'s MPS/LP files read
back by HiGHS.

    python bench/model_probe.py [--reluopt build/reluopt] [--trials 40] [--seed 1] [--time-limit 5]
        [--methods default mip ...] [--formulate] [--workdir DIR]

Needs numpy, scipy (>= 1.9, its `milp` is HiGHS) and onnx; `--formulate` needs highspy too (a scratch venv:
`python3 -m venv V && V/bin/pip install highspy onnx scipy`; never a package dependency).

Each trial draws a model:
  - one to three blocks: continuous, integer on [0, 3], or integer over a wide range ([-60, 60] and the like);
  - one to three networks, some sharing a block or single variables, each a small graph (written as ONNX
    opset 13): Gemm layers, activations Relu / LeakyRelu / Clip / Abs / elementwise Max, a residual Add across
    an activation, a MaxPool over a reshaped layer;
  - constraints: <=, >= with slack at a random point, == on continuous variables, on integers with unit
    coefficients, and on network outputs (so feasible at that point); with some probability one made
    infeasible (a linear function of outputs asked above its own maximum, which the oracle computes) or tight
    (asked to within 1e-3 of it), or infeasible by integrality alone;
  - a linear objective or a max-min of linear terms, max or min.

The oracle is a MILP of our own (not reluopt's reduction or formulation): every network node a column with its
interval bounds, max(a, b) by one binary and the two big-M rows its bounds give (ReLU = max(x, 0), LeakyReLU =
max(x, a x), Clip = min(max(x, lo), hi), Abs = max(x, -x), MaxPool = a max tree), the objective (a max-min too)
one column; solved by scipy's HiGHS with mip_rel_gap 0. Checks, with float64 forward passes of our own:
  - every reported point satisfies bounds, integrality and constraints (1e-6 scaled) and its objective is the
    reported one;
  - no point (any method's or the oracle's, re-evaluated) is better than a reported bound;
  - `infeasible` only when the oracle finds no point and no method does; the oracle's infeasible only counted
    when the model was made infeasible on purpose or every method agrees;
  - `optimal` equals the oracle's optimum (1e-5 relative); a disagreement is settled by the better point's own
    forward pass.
With --formulate, `reluopt formulate P --out P.mps` and `P.lp` are read by highspy and solved: their optimum must
equal the oracle's (1e-5 relative) and their status agree on infeasibility.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from model_crosscheck import (METHODS, draw_input, network_input, outputs_at, ref_value, reported_points,  # noqa: E402
                              run_method)
from model_crosscheck import violation as constraint_violation  # noqa: E402
F32 = np.float32
# HiGHS 1.x presolve returned a worse "optimal" on some of these MILPs (bench/results/probe_s20.md); without it
# the same MILPs solve to the optimum that enumeration confirms.
PRESOLVE = False


def f32(a):
    return np.asarray(a, dtype=np.float64).astype(F32).astype(np.float64)


# ---------------------------------------------------------------- networks as small graphs
class GraphNet:
    """ops: list of (name, kind, args); 'x' is the input. kinds: gemm(src, W, b), relu(src), leaky(src, a),
    clip(src, lo, hi), abs(src), add(a, b), max(a, b), maxpool(src, C, H, W, k, s)."""

    def __init__(self, d):
        self.d, self.ops, self.size = d, [], {"x": d}

    def add(self, kind, *args):
        name = "t%d" % len(self.ops)
        src = args[0]
        if kind == "gemm":
            n = args[1].shape[0]
        elif kind == "maxpool":
            _, C, H, W, k, s = args
            n = C * ((H - k) // s + 1) * ((W - k) // s + 1)
        else:
            n = self.size[src]
        self.ops.append((name, kind, args))
        self.size[name] = n
        return name

    @property
    def out(self):
        return self.ops[-1][0]

    @property
    def outputs(self):
        return self.size[self.out]

    def forward(self, x):
        val = {"x": np.asarray(x, dtype=np.float64)}
        for name, kind, args in self.ops:
            a = val[args[0]]
            if kind == "gemm":
                val[name] = args[1] @ a + args[2]
            elif kind == "relu":
                val[name] = np.maximum(a, 0.0)
            elif kind == "leaky":
                val[name] = np.where(a >= 0, a, args[1] * a)
            elif kind == "clip":
                val[name] = np.minimum(np.maximum(a, args[1]), args[2])
            elif kind == "abs":
                val[name] = np.abs(a)
            elif kind == "add":
                val[name] = a + val[args[1]]
            elif kind == "max":
                val[name] = np.maximum(a, val[args[1]])
            elif kind == "maxpool":
                _, C, H, W, k, s = args
                img = a.reshape(C, H, W)
                Ho, Wo = (H - k) // s + 1, (W - k) // s + 1
                out = np.empty((C, Ho, Wo))
                for c in range(C):
                    for i in range(Ho):
                        for j in range(Wo):
                            out[c, i, j] = img[c, i * s:i * s + k, j * s:j * s + k].max()
                val[name] = out.reshape(-1)
        return val[self.out]

    def write_onnx(self, path):
        import onnx
        from onnx import TensorProto, helper, numpy_helper
        nodes, inits = [], []

        def const(name, arr, dtype=np.float32):
            inits.append(numpy_helper.from_array(np.asarray(arr, dtype=dtype), name))
            return name

        def t(name):  # tensors are [1, n]
            return name
        for name, kind, args in self.ops:
            src = t(args[0])
            if kind == "gemm":
                nodes.append(helper.make_node("Gemm", [src, const(name + "_W", args[1]), const(name + "_b", args[2])],
                                              [name], transB=1))
            elif kind == "relu":
                nodes.append(helper.make_node("Relu", [src], [name]))
            elif kind == "leaky":
                nodes.append(helper.make_node("LeakyRelu", [src], [name], alpha=float(args[1])))
            elif kind == "clip":
                nodes.append(helper.make_node("Clip", [src, const(name + "_lo", args[1]), const(name + "_hi", args[2])],
                                              [name]))
            elif kind == "abs":
                nodes.append(helper.make_node("Abs", [src], [name]))
            elif kind == "add":
                nodes.append(helper.make_node("Add", [src, t(args[1])], [name]))
            elif kind == "max":
                nodes.append(helper.make_node("Max", [src, t(args[1])], [name]))
            elif kind == "maxpool":
                _, C, H, W, k, s = args
                shape = const(name + "_shape", [1, C, H, W], np.int64)
                nodes.append(helper.make_node("Reshape", [src, shape], [name + "_img"]))
                nodes.append(helper.make_node("MaxPool", [name + "_img"], [name + "_pool"], kernel_shape=[k, k],
                                              strides=[s, s]))
                nodes.append(helper.make_node("Flatten", [name + "_pool"], [name], axis=1))
        nodes.append(helper.make_node("Identity", [self.out], ["y"]))
        graph = helper.make_graph(nodes, "probe_net",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, self.d])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, self.outputs])],
                                  initializer=inits)
        model = helper.make_model(graph, producer_name="reluopt-model-probe",
                                  opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 7
        onnx.checker.check_model(model)
        onnx.save(model, path)


def gemm(net, rng, src, n):
    fan_in = net.size[src]
    a = np.sqrt(6.0 / (fan_in + n))
    return net.add("gemm", src, f32(rng.uniform(-a, a, size=(n, fan_in))),
                   f32(rng.uniform(-1, 1, size=n) / np.sqrt(fan_in)))


def activation(net, rng, src):
    kind = rng.choice(["relu", "leaky", "clip", "abs", "relu"])
    if kind == "leaky":
        return net.add("leaky", src, float(rng.choice([0.125, 0.25, 0.375])))
    if kind == "clip":
        lo = float(f32(np.round(rng.uniform(-0.5, 0.0), 2)))
        return net.add("clip", src, lo, float(f32(np.round(rng.uniform(0.3, 1.5), 2))))
    return net.add(str(kind), src)


def draw_network(rng, d, outputs):
    net = GraphNet(d)
    h = activation(net, rng, gemm(net, rng, "x", int(rng.integers(3, 7))))
    for _ in range(int(rng.integers(1, 3))):
        block = rng.choice(["residual", "maxpool", "max", "plain"])
        if block == "residual":
            n = net.size[h]
            h = net.add("add", h, activation(net, rng, gemm(net, rng, h, n)))
        elif block == "maxpool":
            C, H, W = int(rng.integers(1, 3)), 3, 3
            h = net.add("maxpool", gemm(net, rng, h, C * H * W), C, H, W, 2, int(rng.integers(1, 3)))
        elif block == "max":
            n = int(rng.integers(3, 6))
            h = net.add("max", gemm(net, rng, h, n), gemm(net, rng, h, n))
        else:
            h = activation(net, rng, gemm(net, rng, h, int(rng.integers(3, 7))))
    gemm(net, rng, h, outputs)
    return net


# ---------------------------------------------------------------- the model: drawing and evaluating
def draw_blocks(rng):
    blocks = []
    for b in range(int(rng.integers(1, 4))):
        n = int(rng.integers(1, 4))
        kind = rng.choice(["int", "cont", "mixed", "wide"])
        integer = [bool(kind in ("int", "wide") or (kind == "mixed" and rng.random() < 0.5)) for _ in range(n)]
        lower, upper = [], []
        for i in integer:
            if kind == "wide":
                lo = int(rng.integers(-60, 1))
                lower.append(float(lo)), upper.append(float(lo + rng.integers(5, 121)))
            elif i:
                lower.append(0.0), upper.append(3.0)
            else:
                lower.append(float(np.round(rng.uniform(-1, 0), 3)))
                upper.append(float(np.round(rng.uniform(0.5, 2), 3)))
        blocks.append({"name": "v%d" % b, "lower": lower, "upper": upper, "integer": integer})
    return blocks


def linear(expr, values, outputs):
    return sum(c * ref_value(r, values, outputs) for r, c in expr["terms"].items()) + expr.get("constant", 0.0)


def objective_value(model, values, outputs):
    obj = model["objective"]
    if "disjuncts" in obj:
        return max(min(linear(e, values, outputs) for e in dis) for dis in obj["disjuncts"])
    return linear(obj, values, outputs)


def violation(model, nets, values):
    """(largest violation of a bound, integrality or constraint; the objective) at the point."""
    return constraint_violation(model, nets, values), objective_value(model, values, outputs_at(model, nets, values))


def tolerance(model):
    return 1e-6 * max([1.0] + [abs(v) for c in model["constraints"] for k, v in c.items() if k in ("<=", ">=", "==")])


def random_point(rng, blocks):
    return {blk["name"]: np.array([float(rng.integers(lo, hi + 1)) if i else rng.uniform(lo, hi)
                                   for i, lo, hi in zip(blk["integer"], blk["lower"], blk["upper"])])
            for blk in blocks}


def draw_model(rng, workdir, trial):
    blocks = draw_blocks(rng)
    refs = ["%s[%d]" % (blk["name"], i) for blk in blocks for i in range(len(blk["lower"]))]
    networks, nets = [], {}
    for k in range(int(rng.integers(1, 4))):
        inp, dim = draw_input(rng, blocks, refs, longer=1)
        name = "f%d" % k
        net = draw_network(rng, dim, int(rng.integers(1, 3)))
        path = os.path.join(workdir, "t%d_%s.onnx" % (trial, name))
        net.write_onnx(path)
        networks.append({"name": name, "model": os.path.basename(path), "input": inp})
        nets[name] = net
    model = {"sense": str(rng.choice(["max", "min"])), "variables": blocks, "networks": networks, "constraints": []}
    outs = ["%s[%d]" % (nw["name"], j) for nw in networks for j in range(nets[nw["name"]].outputs)]
    point = random_point(rng, blocks)
    outputs = outputs_at(model, nets, point)
    integers = ["%s[%d]" % (blk["name"], i) for blk in blocks for i, flag in enumerate(blk["integer"]) if flag]
    continuous = [r for r in refs if r not in integers]
    for _ in range(int(rng.integers(0, 4))):
        sense = str(rng.choice(["<=", ">=", "==", "==out", "==int", "==cont"], p=[0.3, 0.3, 0.1, 0.1, 0.1, 0.1]))
        pool = refs + outs
        if sense == "==int" and len(integers) >= 2:
            pick = rng.choice(integers, size=rng.integers(2, min(4, len(integers)) + 1), replace=False)
            terms = {str(r): float(rng.choice([1.0, -1.0])) for r in pick}
        elif sense == "==cont" and continuous:
            pick = rng.choice(continuous, size=rng.integers(1, min(3, len(continuous)) + 1), replace=False)
            terms = {str(r): float(np.round(rng.uniform(0.5, 2) * rng.choice([1, -1]), 3)) for r in pick}
            terms.update({str(r): float(np.round(rng.uniform(-1, 1), 3))
                          for r in rng.choice(refs, size=rng.integers(0, 2), replace=False) if str(r) not in terms})
        elif sense == "==out":
            terms = {str(rng.choice(outs)): 1.0}
            terms.update({str(r): float(np.round(rng.uniform(-1, 1), 3))
                          for r in rng.choice(refs, size=rng.integers(0, 2), replace=False) if str(r) not in terms})
        else:
            terms = {str(r): float(np.round(rng.uniform(-1, 1), 3))
                     for r in rng.choice(pool, size=min(rng.integers(1, 4), len(pool)), replace=False)}
            sense = sense if sense in ("<=", ">=") else "<="
        lhs = linear({"terms": terms}, point, outputs)
        if sense.startswith("=="):
            model["constraints"].append({"terms": terms, "==": float(lhs)})
        else:
            slack = float(np.round(rng.uniform(0, 0.5), 3))
            model["constraints"].append({"terms": terms, sense: float(lhs + slack if sense == "<=" else lhs - slack)})
    if rng.random() < 0.35:
        dis = []
        for _ in range(int(rng.integers(1, 4))):
            dis.append([{"terms": {str(r): float(np.round(rng.uniform(-1, 1), 3))
                                   for r in rng.choice(refs + outs, size=rng.integers(1, 3), replace=False)},
                         "constant": float(np.round(rng.uniform(-0.5, 0.5), 3))} for _ in range(rng.integers(1, 4))])
        model["objective"] = {"disjuncts": dis}
    else:
        model["objective"] = {"terms": {str(r): float(np.round(rng.uniform(-1, 1), 3))
                                        for r in rng.choice(refs + outs, size=min(rng.integers(1, 4), len(refs + outs)),
                                                           replace=False)},
                              "constant": float(np.round(rng.uniform(-1, 1), 3))}
    return model, nets, outs, integers


# ---------------------------------------------------------------- the oracle: a MILP of our own on HiGHS
def combine(cols, weights):
    """{column: summed weight}: an input read twice (indices [0, 0]) adds its weights."""
    coef = {}
    for j, w in zip(cols, weights):
        if w != 0:
            coef[j] = coef.get(j, 0.0) + float(w)
    return coef


class Milp:
    def __init__(self):
        self.lb, self.ub, self.integer, self.rows = [], [], [], []

    def var(self, lo, hi, integer=False):
        self.lb.append(float(lo)), self.ub.append(float(hi)), self.integer.append(integer)
        return len(self.lb) - 1

    def row(self, coef, lo, hi):
        self.rows.append((coef, lo, hi))

    def affine(self, coef, const):
        """A column equal to sum coef[j] v_j + const, with its interval bounds."""
        lo = const + sum(c * (self.lb[j] if c > 0 else self.ub[j]) for j, c in coef.items())
        hi = const + sum(c * (self.ub[j] if c > 0 else self.lb[j]) for j, c in coef.items())
        y = self.var(lo - 1e-9 * (1 + abs(lo)), hi + 1e-9 * (1 + abs(hi)))
        row = dict(coef)
        row[y] = row.get(y, 0.0) - 1.0
        self.row(row, -const, -const)
        return y

    def max2(self, a, b):
        la, ua, lb, ub = self.lb[a], self.ub[a], self.lb[b], self.ub[b]
        if la >= ub:
            return a
        if lb >= ua:
            return b
        y, z = self.var(max(la, lb), max(ua, ub)), self.var(0, 1, True)
        self.row({y: 1, a: -1}, 0, np.inf)
        self.row({y: 1, b: -1}, 0, np.inf)
        self.row({y: 1, a: -1, z: max(0.0, ub - la)}, -np.inf, max(0.0, ub - la))   # z = 1: y <= a
        self.row({y: 1, b: -1, z: -max(0.0, ua - lb)}, -np.inf, 0.0)               # z = 0: y <= b
        return y

    def neg(self, a):
        return self.affine({a: -1.0}, 0.0)

    def min2(self, a, b):
        return self.neg(self.max2(self.neg(a), self.neg(b)))

    def const(self, c):
        return self.var(c, c)

    def network(self, net, inputs):
        col = {"x": list(inputs)}
        for name, kind, args in net.ops:
            a = col[args[0]]
            if kind == "gemm":
                W, b = args[1], args[2]
                col[name] = [self.affine(combine(a, W[j]), b[j]) for j in range(W.shape[0])]
            elif kind == "relu":
                zero = self.const(0.0)
                col[name] = [self.max2(v, zero) for v in a]
            elif kind == "leaky":
                col[name] = [self.max2(v, self.affine({v: args[1]}, 0.0)) for v in a]
            elif kind == "clip":
                lo, hi = self.const(args[1]), self.const(args[2])
                col[name] = [self.min2(self.max2(v, lo), hi) for v in a]
            elif kind == "abs":
                col[name] = [self.max2(v, self.neg(v)) for v in a]
            elif kind == "add":
                col[name] = [self.affine({u: 1.0, v: 1.0} if u != v else {u: 2.0}, 0.0)
                             for u, v in zip(a, col[args[1]])]
            elif kind == "max":
                col[name] = [self.max2(u, v) for u, v in zip(a, col[args[1]])]
            elif kind == "maxpool":
                _, C, H, W, k, s = args
                out = []
                for c in range(C):
                    for i in range((H - k) // s + 1):
                        for j in range((W - k) // s + 1):
                            win = [a[c * H * W + (i * s + di) * W + j * s + dj] for di in range(k) for dj in range(k)]
                            m = win[0]
                            for v in win[1:]:
                                m = self.max2(m, v)
                            out.append(m)
                col[name] = out
        return col[net.out]

    def solve(self, objective_col, sense, time_limit=120):
        from scipy.optimize import LinearConstraint, milp
        from scipy.sparse import lil_matrix
        n = len(self.lb)
        c = np.zeros(n)
        c[objective_col] = -1.0 if sense == "max" else 1.0
        A = lil_matrix((max(1, len(self.rows)), n))
        lo, hi = np.full(A.shape[0], -np.inf), np.full(A.shape[0], np.inf)
        for r, (coef, l, h) in enumerate(self.rows):
            for j, v in coef.items():
                A[r, j] += v
            lo[r], hi[r] = l, h
        res = milp(c, integrality=np.array(self.integer, dtype=int), bounds=(self.lb, self.ub),
                   constraints=LinearConstraint(A.tocsr(), lo, hi),
                   options={"mip_rel_gap": 0.0, "time_limit": time_limit, "presolve": PRESOLVE})
        return res


def oracle(model, nets, extra=None, objective=None, sense=None):
    """(status, value, values): status 'optimal', 'infeasible' or 'unknown'; values the point by block."""
    m = Milp()
    cols = {}
    for blk in model["variables"]:
        cols[blk["name"]] = [m.var(np.ceil(lo) if i else lo, np.floor(hi) if i else hi, bool(i))
                             for lo, hi, i in zip(blk["lower"], blk["upper"], blk["integer"])]
    for blk in model["variables"]:
        for j, (lo, hi) in enumerate(zip(blk["lower"], blk["upper"])):
            if m.lb[cols[blk["name"]][j]] > m.ub[cols[blk["name"]][j]]:
                return "infeasible", None, None
    for nw in model["networks"]:
        inp = network_input(nw, {k: np.array(v) for k, v in cols.items()})
        cols[nw["name"]] = m.network(nets[nw["name"]], [int(i) for i in inp])

    def column(expr):
        coef = {}
        for r, c in expr["terms"].items():
            name, idx = r[:-1].split("[")
            j = cols[name][int(idx)]
            coef[j] = coef.get(j, 0.0) + c
        return m.affine(coef, expr.get("constant", 0.0))
    for c in model["constraints"] + (extra or []):
        y = column({"terms": c["terms"]})
        rhs = c.get("<=", c.get(">=", c.get("==")))
        m.row({y: 1.0}, rhs if ">=" in c or "==" in c else -np.inf, rhs if "<=" in c or "==" in c else np.inf)
    obj = objective or model["objective"]
    if "disjuncts" in obj:
        best = None
        for dis in obj["disjuncts"]:
            worst = None
            for e in dis:
                y = column(e)
                worst = y if worst is None else m.min2(worst, y)
            best = worst if best is None else m.max2(best, worst)
        ocol = best
    else:
        ocol = column(obj)
    res = m.solve(ocol, sense or model["sense"])
    if res.status == 2:
        return "infeasible", None, None
    if res.status != 0 or res.x is None:
        return "unknown", None, None
    values = {blk["name"]: np.array([res.x[j] for j in cols[blk["name"]]]) for blk in model["variables"]}
    for blk in model["variables"]:
        v = values[blk["name"]]
        for i, flag in enumerate(blk["integer"]):
            if flag:
                v[i] = round(v[i])
        values[blk["name"]] = np.clip(v, blk["lower"], blk["upper"])
    return "optimal", float(res.x[ocol]), values


def make_hard(rng, model, nets, outs):
    """Adds one constraint that makes the model infeasible, tight, or infeasible by integrality. Returns a tag."""
    r = rng.random()
    ints = [("%s[%d]" % (blk["name"], i), blk) for blk in model["variables"]
            for i, flag in enumerate(blk["integer"]) if flag]
    if r < 0.2 and ints:
        ref, blk = ints[int(rng.integers(len(ints)))]
        lo = blk["lower"][int(ref[:-1].split("[")[1])]
        model["constraints"] += [{"name": "frac lo", "terms": {ref: 1.0}, ">=": lo + 0.25},
                                 {"name": "frac hi", "terms": {ref: 1.0}, "<=": lo + 0.75}]
        return "infeasible-int"
    terms = {str(o): float(np.round(rng.uniform(-1, 1), 3)) for o in rng.choice(outs, size=min(2, len(outs)),
                                                                                  replace=False)}
    status, top, _ = oracle(model, nets, objective={"terms": terms, "constant": 0.0}, sense="max")
    if status != "optimal":
        return None
    if r < 0.6:
        model["constraints"].append({"name": "beyond", "terms": terms, ">=": top + 0.02 * max(1.0, abs(top))})
        return "infeasible"
    model["constraints"].append({"name": "tight", "terms": terms, ">=": top - 1e-3 * max(1.0, abs(top))})
    return "tight"


# ---------------------------------------------------------------- running and checking
def check(model, nets, answers, truth):
    """truth = (status, value, values) of the oracle. Returns the problems found."""
    problems = []
    sign = 1.0 if model["sense"] == "max" else -1.0
    tol = tolerance(model)
    for method, res in answers.items():
        if res["wall"] > args_time_limit + 1.0:
            problems.append("%s: ended %.2f s after a %.0f s limit" % (method, res["wall"], args_time_limit))
    points = reported_points(answers, tol, lambda values: violation(model, nets, values), problems)
    status, value, values = truth
    if status == "optimal":
        viol, own = violation(model, nets, values)
        if viol <= tol:
            points["oracle"] = own
    # A bound holds for points that meet every row exactly; a point within the rows' tolerance (1e-7 scaled) may
    # pass it by that violation times the rows' slope, so the bound is checked against the exact points.
    exact = {k: v for k, v in points.items() if k != "oracle" and
             violation(model, nets, {b: np.array(x, dtype=float)
                                     for b, x in answers[k]["variables"].items()})[0] <= 1e-3 * tol}
    best = max([sign * v for v in exact.values()], default=-np.inf)
    for method, res in answers.items():
        if "error" in res:
            continue
        st, bound = res.get("status"), res.get("bound")
        if st == "infeasible" and (points or status == "optimal"):
            problems.append("%s: infeasible, but a point exists (%s)" % (method, sorted(points) or "oracle"))
        if bound is not None and sign * bound < best - 1e-6 * max(1.0, abs(best)):
            who = max(exact, key=lambda k: sign * exact[k])
            problems.append("%s: bound %r on the wrong side of %s's point worth %r" % (method, bound, who,
                                                                                      exact[who]))
        if st == "optimal" and status == "optimal" and abs(res["objective"] - value) > 1e-5 * max(1.0, abs(value)):
            problems.append("%s: optimal %r, oracle %r (oracle point %s)" % (
                method, res["objective"], value, "feasible" if "oracle" in points else "violates"))
        if st == "optimal" and status == "infeasible":
            problems.append("%s: optimal %r, the oracle finds no point" % (method, res["objective"]))
    return problems


def highs_solve(path):
    import highspy
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("time_limit", 120.0)
    h.setOptionValue("threads", 1)
    if h.readModel(path) != highspy.HighsStatus.kOk:
        return "unreadable", None
    h.run()
    st = h.getModelStatus()
    if st == highspy.HighsModelStatus.kOptimal:
        return "optimal", h.getInfo().objective_function_value
    if st == highspy.HighsModelStatus.kInfeasible:
        return "infeasible", None
    return h.modelStatusToString(st), None


def check_formulate(args, path, truth):
    problems, seen = [], {}
    for ext in ("mps", "lp"):
        out = path[:-len(".json")] + "." + ext
        proc = subprocess.run([args.reluopt, "formulate", path, "--out", out], capture_output=True, text=True,
                              timeout=120)
        if proc.returncode != 0:
            seen[ext] = ("error", proc.stderr.strip()[-200:])
            if "infeasible" not in proc.stderr or truth[0] != "infeasible":
                problems.append("formulate %s: exit %d: %s" % (ext, proc.returncode, proc.stderr.strip()[-200:]))
            continue
        st, val = highs_solve(out)
        seen[ext] = (st, val)
        if truth[0] == "optimal" and (st != "optimal" or abs(val - truth[1]) > 1e-5 * max(1.0, abs(truth[1]))):
            problems.append("formulate %s: HiGHS %s %r, oracle optimal %r" % (ext, st, val, truth[1]))
        if truth[0] == "infeasible" and st == "optimal":
            problems.append("formulate %s: HiGHS optimal %r, oracle infeasible" % (ext, val))
    return problems, seen


args_time_limit = 5.0


def main():
    global args_time_limit
    parser = argparse.ArgumentParser()
    parser.add_argument("--reluopt", default="build/reluopt")
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--first", type=int, default=0, help="skip the trials before this one (same draws)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=5)
    parser.add_argument("--methods", nargs="+", default=METHODS)
    parser.add_argument("--hard", type=float, default=0.35, help="share of trials made infeasible or tight")
    parser.add_argument("--formulate", action="store_true")
    parser.add_argument("--workdir", default="/tmp/reluopt_model_probe")
    args = parser.parse_args()
    args_time_limit = args.time_limit
    os.makedirs(args.workdir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    failures, counts, tags = 0, {}, {}
    for trial in range(args.trials):
        model, nets, outs, _ = draw_model(rng, args.workdir, trial)
        tag = make_hard(rng, model, nets, outs) if rng.random() < args.hard else None
        if trial < args.first:
            continue
        tag = tag or "plain"
        path = os.path.join(args.workdir, "t%d.json" % trial)
        with open(path, "w") as f:
            json.dump(model, f, indent=1)
        truth = oracle(model, nets)
        answers = {m: run_method(args, path, m) for m in args.methods}
        problems = check(model, nets, answers, truth)
        fseen = {}
        if args.formulate:
            fprob, fseen = check_formulate(args, path, truth)
            problems += fprob
        tags[tag] = tags.get(tag, 0) + 1
        for m, res in answers.items():
            key = (m, res.get("status", "error"))
            counts[key] = counts.get(key, 0) + 1
        statuses = " ".join("%s=%s" % (m, r.get("status", "error")) for m, r in answers.items())
        fs = " ".join("%s=%s" % (k, v[0]) for k, v in fseen.items())
        print("trial %d (%s) %s oracle=%s %s %s %s" % (trial, path, tag, truth[0],
                                                     "%.9g" % truth[1] if truth[1] is not None else "",
                                                     statuses, fs), flush=True)
        for p in problems:
            print("  PROBLEM " + p, flush=True)
        failures += bool(problems)
    print("%d of %d trials with problems; kinds %s" % (failures, args.trials - args.first, tags))
    for (m, s), n in sorted(counts.items()):
        print("  %s %s: %d" % (m, s, n))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
