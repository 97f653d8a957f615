#!/usr/bin/python3
"""Random small problem files (docs/PROBLEM.md), every method, answers checked against each other and, where the
variables are all integer, against enumeration.

Each trial draws a model: one or two blocks of 2-4 variables (integer in [0, 3], or continuous, or mixed), one to
three random ReLU networks (netgen.make_network, 1-2 hidden layers of 3-8 neurons) fed by a block, a sub-vector or
a list of references, zero to three constraints (<=, >=, ==; some equalities over integers with unit coefficients)
on variables and outputs whose right sides are set from a random point so that most models are feasible, and a
linear objective, max or min. A model every method refuses (an equality over integers that no variable can be
solved for) counts apart, as `refused`. Every method solves it
with --time-limit; then, with float64 forward passes of our own:
  - every reported point satisfies bounds, integrality and constraints (tolerance 1e-6 scaled) and its objective
    is the reported one;
  - no point (any method's, or the enumeration's) is better than a bound some method reported;
  - `infeasible` only when no method found a point and the enumeration (when it runs) found none;
  - `optimal` values agree with each other and with the enumeration's optimum.
Any violation is printed with the problem file kept in the work directory.

    bench/model_crosscheck.py [--reluopt build/reluopt] [--trials 50] [--seed 1] [--time-limit 5]
        [--methods default mip mip-cuts partition bab enhanced sampling gradient walk]
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from netgen import forward, make_network, write_onnx  # noqa: E402

METHODS = ["default", "mip", "mip-cuts", "partition", "bab", "enhanced", "sampling", "gradient", "walk"]


def draw_input(rng, blocks, refs, longer=0):
    """A network's input (as the problem file writes it) and its size: a whole block, indices into one (up to
    `longer` more than the block has, so some repeat), or a list of references."""
    blk = blocks[rng.integers(len(blocks))]
    n = len(blk["lower"])
    style = rng.integers(3)
    if style == 0:
        return blk["name"], n
    if style == 1:
        idx = [int(i) for i in rng.integers(0, n, size=rng.integers(1, n + 1 + longer))]
        return {"name": blk["name"], "indices": idx}, len(idx)
    pick = [refs[i] for i in rng.integers(0, len(refs), size=rng.integers(1, 4))]
    return pick, len(pick)


def draw_model(rng, workdir, trial):
    blocks = []
    for b in range(rng.integers(1, 3)):
        n = int(rng.integers(2, 5))
        kind = rng.choice(["int", "cont", "mixed"])
        integer = [bool(kind == "int" or (kind == "mixed" and rng.random() < 0.5)) for _ in range(n)]
        lower = [0.0 if i else float(np.round(rng.uniform(-1, 0), 3)) for i in integer]
        upper = [3.0 if i else float(np.round(rng.uniform(0.5, 2), 3)) for i in integer]
        blocks.append({"name": "v%d" % b, "lower": lower, "upper": upper, "integer": integer})
    refs = ["%s[%d]" % (blk["name"], i) for blk in blocks for i in range(len(blk["lower"]))]
    networks, layers = [], {}
    for k in range(rng.integers(1, 4)):
        inp, dim = draw_input(rng, blocks, refs)
        hidden = [int(h) for h in rng.integers(3, 9, size=rng.integers(1, 3))]
        name = "f%d" % k
        net = make_network(dim, hidden, seed=int(rng.integers(1 << 30)), outputs=int(rng.integers(1, 3)))
        path = os.path.join(workdir, "t%d_%s.onnx" % (trial, name))
        write_onnx(net, path)
        networks.append({"name": name, "model": os.path.basename(path), "input": inp})
        layers[name] = net
    model = {"sense": str(rng.choice(["max", "min"])), "variables": blocks, "networks": networks}
    outs = ["%s[%d]" % (nw["name"], j) for nw in networks for j in range(layers[nw["name"]][-1][0].shape[0])]
    point = {blk["name"]: np.array([rng.integers(0, 4) if i else rng.uniform(lo, hi)
                                    for i, lo, hi in zip(blk["integer"], blk["lower"], blk["upper"])])
             for blk in blocks}
    constraints = []
    for _ in range(rng.integers(0, 4)):
        terms = {}
        for ref in rng.choice(refs + outs, size=rng.integers(1, 4), replace=False):
            terms[str(ref)] = float(np.round(rng.uniform(-1, 1), 3))
        sense = str(rng.choice(["<=", ">=", "=="], p=[0.4, 0.4, 0.2]))
        integers = ["%s[%d]" % (blk["name"], i) for blk in blocks for i, flag in enumerate(blk["integer"]) if flag]
        if sense == "==" and len(integers) >= 2 and rng.random() < 0.5:
            # a choice or a balance of integers: unit coefficients (solved for one of them, docs/PROBLEM.md)
            pick = rng.choice(integers, size=rng.integers(2, min(4, len(integers)) + 1), replace=False)
            terms = {str(r): float(rng.choice([1.0, -1.0])) for r in pick}
        model_tmp = dict(model, constraints=[], objective={"terms": {}})
        lhs = linear(terms, point, model_tmp, layers)
        slack = 0.0 if sense == "==" else float(np.round(rng.uniform(0, 0.5), 3))
        rhs = lhs + slack if sense == "<=" else lhs - slack
        constraints.append({"terms": terms, sense: float(np.round(rhs, 6)) if sense != "==" else float(rhs)})
    obj = {str(r): float(np.round(rng.uniform(-1, 1), 3)) for r in rng.choice(refs + outs, size=rng.integers(1, 4),
                                                                            replace=False)}
    model["constraints"] = constraints
    model["objective"] = {"terms": obj, "constant": 0}
    return model, layers


def network_input(nw, values):
    inp = nw["input"]
    if isinstance(inp, str):
        return values[inp]
    if isinstance(inp, dict):
        return values[inp["name"]][inp["indices"]]
    return np.array([ref_value(r, values, None) for r in inp])


def ref_value(ref, values, outputs):
    name, idx = ref[:-1].split("[")
    if name in values:
        return values[name][int(idx)]
    return outputs[name][int(idx)]


def outputs_at(model, layers, values):
    """Each network's outputs: layers[name] is a list of (W, b), or an object with its own forward(x)
    (model_probe.GraphNet)."""
    def run(net, x):
        return net.forward(x) if hasattr(net, "forward") else forward(net, x)
    return {nw["name"]: run(layers[nw["name"]], network_input(nw, values)) for nw in model["networks"]}


def linear(terms, values, model, layers):
    outputs = outputs_at(model, layers, values)
    return sum(c * ref_value(r, values, outputs) for r, c in terms.items())


def violation(model, layers, values):
    worst = 0.0
    for blk in model["variables"]:
        v = values[blk["name"]]
        worst = max(worst, np.max(np.array(blk["lower"]) - v), np.max(v - np.array(blk["upper"])))
        for i, integer in enumerate(blk["integer"]):
            if integer:
                worst = max(worst, abs(v[i] - round(v[i])))
    for c in model["constraints"]:
        lhs = linear(c["terms"], values, model, layers)
        if "<=" in c:
            worst = max(worst, lhs - c["<="])
        elif ">=" in c:
            worst = max(worst, c[">="] - lhs)
        else:
            worst = max(worst, abs(lhs - c["=="]))
    return worst


def enumerate_optimum(model, layers):
    """The optimum over all integer points (None when some variable is continuous); -inf/inf when infeasible."""
    if not all(all(blk["integer"]) for blk in model["variables"]):
        return None
    sign = 1.0 if model["sense"] == "max" else -1.0
    best = -np.inf
    grids = [list(itertools.product(*[range(int(lo), int(hi) + 1) for lo, hi in zip(blk["lower"], blk["upper"])]))
             for blk in model["variables"]]
    for combo in itertools.product(*grids):
        values = {blk["name"]: np.array(p, dtype=float) for blk, p in zip(model["variables"], combo)}
        if violation(model, layers, values) <= 1e-9:
            best = max(best, sign * linear(model["objective"]["terms"], values, model, layers))
    return sign * best


def run_method(args, path, method):
    """The result JSON of one run, with its wall time under "wall"; {"error": ..., "wall"} on a non-zero exit."""
    out = path[:-len(".json")] + "_%s.result.json" % method
    cmd = [args.reluopt, "solve", "--problem", path, "--time-limit", str(args.time_limit), "--quiet",
           "--threads", "1", "--seed", "1", "--json", out]
    if method != "default":
        cmd += ["--method", method]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.time_limit + 30)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        return {"error": "exit %d: %s" % (proc.returncode, proc.stderr.strip()[-300:]), "wall": wall}
    with open(out) as f:
        res = json.load(f)
    res["wall"] = wall
    return res


def reported_points(answers, tol, evaluate, problems):
    """{method: objective} of every reported point that evaluate(values) -> (largest violation, objective) finds
    within tol and worth what the method says; the others, and every error, appended to problems."""
    points = {}
    for method, res in answers.items():
        if "error" in res:
            problems.append("%s: %s" % (method, res["error"]))
            continue
        if res.get("variables"):
            values = {k: np.array(v, dtype=float) for k, v in res["variables"].items()}
            viol, value = evaluate(values)
            if viol > tol:
                problems.append("%s: point violates by %.3g" % (method, viol))
            elif abs(value - res["objective"]) > 1e-6 * max(1.0, abs(value)):
                problems.append("%s: reported objective %r, ours %r" % (method, res["objective"], value))
            else:
                points[method] = value
    return points


def check_trial(args, model, layers, path, answers, truth):
    problems = []
    sign = 1.0 if model["sense"] == "max" else -1.0
    tol = 1e-6 * max([1.0] + [abs(v) for c in model["constraints"] for k, v in c.items() if k != "terms"])

    def evaluate(values):
        return (violation(model, layers, values),
                linear(model["objective"]["terms"], values, model, layers) + model["objective"]["constant"])
    points = reported_points(answers, tol, evaluate, problems)
    best = max([sign * v for v in points.values()], default=-np.inf)
    if truth is not None and np.isfinite(truth):
        best = max(best, sign * truth)
    for method, res in answers.items():
        if "error" in res:
            continue
        status, bound = res.get("status"), res.get("bound")
        if status == "infeasible" and (points or (truth is not None and np.isfinite(truth))):
            problems.append("%s: infeasible, but a point exists (%s)" % (method, sorted(points) or "enumeration"))
        if bound is not None and sign * bound < best - 1e-6 * max(1.0, abs(best)):
            problems.append("%s: bound %r on the wrong side of a point worth %r" % (method, bound, sign * best))
        if status == "optimal" and truth is not None and np.isfinite(truth) and \
                abs(res["objective"] - truth) > 1e-5 * max(1.0, abs(truth)):
            problems.append("%s: optimal %r, enumeration %r" % (method, res["objective"], truth))
        if status == "optimal" and truth is not None and not np.isfinite(truth):
            problems.append("%s: optimal, enumeration finds no point" % method)
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reluopt", default="build/reluopt")
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=5)
    parser.add_argument("--methods", nargs="+", default=METHODS)
    parser.add_argument("--workdir", default="/tmp/reluopt_model_crosscheck")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    failures = refused = enumerated = 0
    counts = {}
    for trial in range(args.trials):
        model, layers = draw_model(rng, args.workdir, trial)
        path = os.path.join(args.workdir, "t%d.json" % trial)
        with open(path, "w") as f:
            json.dump(model, f, indent=1)
        truth = enumerate_optimum(model, layers)
        answers = {m: run_method(args, path, m) for m in args.methods}
        for m, res in answers.items():
            key = (m, res.get("status", "error"))
            counts[key] = counts.get(key, 0) + 1
        if all("empty interior" in r.get("error", "") for r in answers.values()):
            print("trial %d (%s) refused by every method: %s" % (trial, path, answers[args.methods[0]]["error"]))
            refused += 1
            continue
        problems = check_trial(args, model, layers, path, answers, truth)
        enumerated += truth is not None
        statuses = " ".join("%s=%s" % (m, r.get("status", "error")) for m, r in answers.items())
        print("trial %d (%s) truth=%s %s" % (trial, path, truth, statuses), flush=True)
        for p in problems:
            print("  PROBLEM " + p, flush=True)
        failures += bool(problems)
    print("%d of %d trials with problems, %d refused; %d checked against enumeration (all-integer), the others "
          "against each other and their sampled points" % (failures, args.trials, refused, enumerated))
    for (m, s), n in sorted(counts.items()):
        print("  %s %s: %d" % (m, s, n))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
