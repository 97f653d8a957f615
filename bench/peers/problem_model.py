"""A problem file (docs/PROBLEM.md section 3) read into numpy, and the check every reported point goes through.

    problem = load_problem("examples/models/pricing/pricing_s1.json")
    check = evaluate(problem, v)      # objective by a float64 forward pass of each network, largest violation

Used by bench/models_peers.py and bench/models_highs_mps.py, which build the same model in other tools and must
judge their points exactly as reluopt's `evaluate` does: bounds, integrality, every constraint, the objective
recomputed from the networks' own forward passes.
"""
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import netgen  # noqa: E402

REF = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\-]*)\[(\d+)\]$")


class Problem:
    """Blocks concatenated into v (lower, upper, integer), networks (layers, input indices into v, output
    offset into y), constraints and objective as (var_coef dict, out_coef dict)."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        spec = json.load(open(path))
        self.sense = "max" if spec["sense"].startswith("max") else "min"
        self.blocks, lower, upper, integer = {}, [], [], []
        for b in spec["variables"]:
            size = len(b["lower"]) if isinstance(b["lower"], list) else (
                len(b["upper"]) if isinstance(b["upper"], list) else b.get("size", 1))
            self.blocks[b["name"]] = (len(lower), size)
            lower += list(np.broadcast_to(np.asarray(b["lower"], float), (size,)))
            upper += list(np.broadcast_to(np.asarray(b["upper"], float), (size,)))
            integer += list(np.broadcast_to(np.asarray(b.get("integer", False), bool), (size,)))
        self.lower, self.upper = np.array(lower), np.array(upper)
        self.integer = np.array(integer, bool)
        self.n = len(lower)
        self.networks, self.outputs = [], {}
        offset, loaded = 0, {}
        base = os.path.dirname(self.path)
        for net in spec.get("networks", []):
            model = os.path.join(base, net["model"])
            layers = loaded.setdefault(model, netgen.load_onnx(model))
            inputs = self._inputs(net["input"])
            m = layers[-1][0].shape[0]
            self.networks.append({"name": net["name"], "model": model, "layers": layers, "inputs": inputs,
                                  "offset": offset, "outputs": m})
            self.outputs[net["name"]] = (offset, m)
            offset += m
        self.m = offset
        self.constraints = []
        for c in spec.get("constraints", []):
            op = next(k for k in ("<=", ">=", "==") if k in c)
            a, b = self._terms(c["terms"])
            self.constraints.append({"name": c.get("name", ""), "a": a, "b": b, "op": op, "rhs": float(c[op])})
        obj = spec["objective"]
        self.obj_a, self.obj_b = self._terms(obj.get("terms", {}))
        self.obj_c = float(obj.get("constant", 0.0))

    def index(self, ref):
        name, i = REF.match(ref).groups()
        return name, int(i)

    def _inputs(self, spec):
        if isinstance(spec, str):
            start, size = self.blocks[spec]
            return list(range(start, start + size))
        if isinstance(spec, dict):
            start, _ = self.blocks[spec["name"]]
            return [start + i for i in spec["indices"]]
        out = []
        for ref in spec:
            name, i = self.index(ref)
            out.append(self.blocks[name][0] + i)
        return out

    def _terms(self, terms):
        """{v index: coef}, {y index: coef} (y = all networks' outputs, concatenated)."""
        a, b = {}, {}
        for ref, coef in terms.items():
            name, i = self.index(ref)
            if name in self.blocks:
                k = self.blocks[name][0] + i
                a[k] = a.get(k, 0.0) + float(coef)
            else:
                k = self.outputs[name][0] + i
                b[k] = b.get(k, 0.0) + float(coef)
        return a, b

    def tolerance(self):
        """reluopt's model_tolerance: 1e-6 times the largest right-hand side, at least 1e-6."""
        rhs = [abs(c["rhs"]) for c in self.constraints]
        return 1e-6 * max([1.0] + rhs)

    def neurons(self):
        return sum(sum(W.shape[0] for W, _ in net["layers"][:-1]) for net in self.networks)


def load_problem(path):
    return Problem(path)


def outputs(problem, v):
    y = np.zeros(problem.m)
    for net in problem.networks:
        y[net["offset"]:net["offset"] + net["outputs"]] = netgen.forward(net["layers"], v[net["inputs"]])
    return y


def evaluate(problem, v):
    """{"objective", "violation", "where"}: the objective from float64 forward passes and the largest
    violation of a bound, of integrality or of a constraint (reluopt's evaluate, model.h)."""
    v = np.asarray(v, float)
    y = outputs(problem, v)
    worst, where = 0.0, ""

    def note(amount, what):
        nonlocal worst, where
        if amount > worst:
            worst, where = amount, what
    for i in range(problem.n):
        note(problem.lower[i] - v[i], "lower bound of v[%d]" % i)
        note(v[i] - problem.upper[i], "upper bound of v[%d]" % i)
        if problem.integer[i]:
            note(abs(v[i] - np.round(v[i])), "integrality of v[%d]" % i)
    for c in problem.constraints:
        lhs = sum(k * v[i] for i, k in c["a"].items()) + sum(k * y[i] for i, k in c["b"].items())
        gap = {"<=": lhs - c["rhs"], ">=": c["rhs"] - lhs, "==": abs(lhs - c["rhs"])}[c["op"]]
        note(gap, "constraint '%s'" % c["name"])
    obj = problem.obj_c + sum(k * v[i] for i, k in problem.obj_a.items()) + \
        sum(k * y[i] for i, k in problem.obj_b.items())
    return {"objective": float(obj), "violation": float(worst), "where": where, "y": y.tolist()}
