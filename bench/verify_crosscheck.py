#!/usr/bin/python3
"""Hunts wrong answers of `reluopt verify` on random graph networks with known answers.

Each trial draws a small network from a grammar of the layers the reader takes (Gemm, Conv with strides and
pads, ConvTranspose, BatchNormalization, Relu, LeakyRelu, PRelu, Clip, Abs, Max/Min of branches, MaxPool,
AveragePool, GlobalMaxPool, residual Add, Concat, Sub, input normalization), written as ONNX with its numpy
forward pass (tests/io's reference operators, independent of the C++ reader), and an input set: a box around a
point, sometimes cut by a row coupling two inputs. The truth comes from the prover and the MIP against each
other: the largest margin m*_j = max (Y_j - Y_c) over the set, solved by `solve --method bab` and
`--method mip` (both must say optimal and agree), and no sampled point may lie above either. With m* = max_j m*_j
two properties are verified, in one of three shapes (one margin, a disjunction over classes as VNN-COMP writes
robustness, or a conjunction with a trivially true second conjunct):
  t = m* - delta  must be sat, its counterexample inside the set and satisfying the property by our numpy pass;
  t = m* + delta  must be unsat (timeout/unknown are allowed and counted, never a wrong answer),
with delta = 1e-3 (1 + |m*|). A trial where bab and mip disagree or do not both prove is a finding as well.
With --methods, more solve methods run on every margin beside bab and mip (enhanced, the default with a time
limit, mip-cuts, partition, sampling, gradient, walk): each point must lie in the set with the margin our numpy
pass gives it, at most every method's bound, and the optima of the methods that claim one must agree.

    /usr/bin/python3 bench/verify_crosscheck.py --reluopt build/reluopt [--trials 40] [--seed 1]
        [--time-limit 20] [--width 8] [--maps 3] [--blocks 3] [--methods bab mip enhanced mip-cuts ...]
        [--out bench/results/verify_crosscheck.md]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "io"))
from make_conv_fixtures import ref_avgpool, ref_conv, ref_conv_transpose  # noqa: E402
from make_pwl_fixtures import Graph, ref_maxpool  # noqa: E402


def relu(x):
    return np.maximum(x, 0)


def activation(g, rng, a):
    """One piecewise-linear activation of tensor a, drawn at random."""
    kind = rng.choice(["Relu", "Relu", "Relu", "LeakyRelu", "PRelu", "Clip", "Abs"])
    if kind == "Relu":
        return g.unary("Relu", a, relu)
    if kind == "LeakyRelu":
        alpha = float(rng.uniform(0.01, 0.3))
        return g.unary("LeakyRelu", a, lambda x: np.where(x > 0, x, alpha * x), alpha=alpha)
    if kind == "PRelu":
        shape = [g.shapes[a][1]] + [1] * (len(g.shapes[a]) - 2)
        slope = rng.uniform(-0.5, 0.5, shape)
        return g.op("PRelu", [a], lambda x: np.where(x > 0, x, slope * x), g.shapes[a], consts=(slope,))
    if kind == "Clip":
        lo, hi = sorted(rng.uniform(-0.5, 1.0, 2))
        return g.op("Clip", [a], lambda x: np.clip(x, lo, hi), g.shapes[a], consts=(np.array(lo), np.array(hi)))
    return g.unary("Abs", a, np.abs)


def dense_block(g, rng, h, size):
    kind = rng.choice(["layer", "layer", "residual", "maxmin", "concat"])
    n = int(rng.integers(3, size.width + 1))
    if kind == "layer":
        return activation(g, rng, g.gemm(h, n))
    width = g.shapes[h][1]
    if kind == "residual":
        inner = activation(g, rng, g.gemm(h, n))
        return g.unary("Relu", g.op("Add", [h, g.gemm(inner, width)], lambda p, q: p + q, [1, width]), relu)
    if kind == "maxmin":
        a, b = g.gemm(h, n), g.gemm(h, n)
        op, fn = ("Max", np.maximum) if rng.random() < 0.5 else ("Min", np.minimum)
        return activation(g, rng, g.op(op, [a, b], fn, [1, n]))
    a = activation(g, rng, g.gemm(h, n))
    joined = g.op("Concat", [a, h], lambda p, q: np.concatenate([p, q], axis=1), [1, n + width], axis=1)
    return g.op("Sub", [g.gemm(joined, n), a], lambda p, q: p - q, [1, n])


def conv(g, rng, a, maps, transpose=False):
    c = g.shapes[a][1]
    k = int(rng.integers(2, 4))
    s = int(rng.integers(1, 3))
    p = int(rng.integers(0, 2))
    pads, strides = (p, p, p, p), (s, s)
    if not transpose and min(g.shapes[a][2:]) + 2 * p < k:
        return None
    b = rng.uniform(-0.2, 0.2, maps)
    if transpose:
        w = rng.uniform(-1, 1, (c, maps, k, k)) / np.sqrt(c * k * k)
        fn = lambda x: ref_conv_transpose(x, w, b, strides, pads, (1, 1), (0, 0), 1)  # noqa: E731
        op = "ConvTranspose"
    else:
        w = rng.uniform(-1, 1, (maps, c, k, k)) / np.sqrt(c * k * k)
        fn = lambda x: ref_conv(x, w, b, strides, pads, (1, 1), 1)  # noqa: E731
        op = "Conv"
    shape = list(fn(np.zeros(g.shapes[a])).shape)
    if min(shape[2:]) < 1:
        return None
    return g.op(op, [a], fn, shape, consts=(w, b), kernel_shape=[k, k], strides=list(strides), pads=list(pads))


def image_block(g, rng, h, size):
    kind = rng.choice(["conv", "conv", "pool", "residual", "batchnorm", "transpose"])
    maps = int(rng.integers(1, size.maps + 1))
    if kind == "conv" or kind == "transpose":
        out = conv(g, rng, h, maps, transpose=(kind == "transpose" and max(g.shapes[h][2:]) <= 4))
        return activation(g, rng, out) if out is not None else h
    if kind == "pool":
        if g.shapes[h][2] < 2:
            return h
        k = 2
        s = int(rng.integers(1, 3))
        if rng.random() < 0.5:
            fn = lambda x: ref_maxpool(x, (k, k), (s, s), (0, 0, 0, 0))  # noqa: E731
            return g.op("MaxPool", [h], fn, list(fn(np.zeros(g.shapes[h])).shape), kernel_shape=[k, k],
                        strides=[s, s])
        fn = lambda x: ref_avgpool(x, (k, k), (s, s), (0, 0, 0, 0), 0)  # noqa: E731
        return g.op("AveragePool", [h], fn, list(fn(np.zeros(g.shapes[h])).shape), kernel_shape=[k, k],
                    strides=[s, s])
    c = g.shapes[h][1]
    if kind == "residual":
        w1 = rng.uniform(-1, 1, (c, c, 3, 3)) / np.sqrt(9 * c)
        w2 = rng.uniform(-1, 1, (c, c, 3, 3)) / np.sqrt(9 * c)
        b1, b2 = rng.uniform(-0.2, 0.2, c), rng.uniform(-0.2, 0.2, c)
        same = (1, 1, 1, 1)
        f1 = lambda x: ref_conv(x, w1, b1, (1, 1), same, (1, 1), 1)  # noqa: E731
        f2 = lambda x: ref_conv(x, w2, b2, (1, 1), same, (1, 1), 1)  # noqa: E731
        inner = g.unary("Relu", g.op("Conv", [h], f1, g.shapes[h], consts=(w1, b1), kernel_shape=[3, 3],
                                     pads=[1] * 4), relu)
        second = g.op("Conv", [inner], f2, g.shapes[h], consts=(w2, b2), kernel_shape=[3, 3], pads=[1] * 4)
        return g.unary("Relu", g.op("Add", [h, second], lambda p, q: p + q, g.shapes[h]), relu)
    scale, bias = rng.uniform(0.5, 1.5, c), rng.uniform(-0.3, 0.3, c)
    mean, var = rng.uniform(-0.2, 0.2, c), rng.uniform(0.5, 2.0, c)
    view = (1, c, 1, 1)
    fn = lambda x: ((x - mean.reshape(view)) / np.sqrt(var.reshape(view) + 1e-3) * scale.reshape(view)  # noqa: E731
                    + bias.reshape(view))
    return g.op("BatchNormalization", [h], fn, g.shapes[h], consts=(scale, bias, mean, var), epsilon=1e-3)


def random_network(rng, seed, size):
    """A Graph, its output tensor, and a one-line description of its nodes."""
    outputs = int(rng.integers(2, 5))
    if rng.random() < 0.5:
        g = Graph([1, int(rng.integers(2, 6))], seed)
        h = "x"
        if rng.random() < 0.3:
            mu = rng.uniform(0, 1, g.input_shape)
            h = g.op("Sub", [h], lambda x: x - mu, g.input_shape, consts=(mu,))
        for _ in range(int(rng.integers(1, size.blocks + 1))):
            h = dense_block(g, rng, h, size)
    else:
        side = int(rng.integers(3, 6))
        g = Graph([1, int(rng.integers(1, 3)), side, side], seed)
        h = "x"
        for _ in range(int(rng.integers(1, size.blocks + 1))):
            h = image_block(g, rng, h, size)
        if rng.random() < 0.3 and g.shapes[h][2] > 1:
            h = g.op("GlobalMaxPool", [h], lambda x: x.max(axis=(2, 3), keepdims=True), g.shapes[h][:2] + [1, 1])
        h = g.flatten(h)
        if rng.random() < 0.5:
            h = g.unary("Relu", g.gemm(h, int(rng.integers(3, size.width + 1))), relu)
    out = g.gemm(h, outputs)
    return g, out, " ".join(n.op_type for n in g.nodes)


def write_property(path, x0, eps, row, outputs, c, shape, threshold):
    """Box x0 +- eps (and the row a^T x <= b when given); output part in one of three shapes."""
    with open(path, "w") as f:
        f.write("".join(f"(declare-const X_{i} Real)\n" for i in range(len(x0))))
        f.write("".join(f"(declare-const Y_{j} Real)\n" for j in range(outputs)))
        for i, v in enumerate(x0):
            f.write(f"(assert (>= X_{i} {v - eps:.17g}))\n(assert (<= X_{i} {v + eps:.17g}))\n")
        if row is not None:
            (i, ai), (k, ak), b = row
            f.write(f"(assert (<= (+ (* {ai:.17g} X_{i}) (* {ak:.17g} X_{k})) {b:.17g}))\n")
        others = [j for j in range(outputs) if j != c]
        if shape == "disjunction":
            terms = " ".join(f"(and (>= (- Y_{j} Y_{c}) {threshold:.17g}))" for j in others)
            f.write(f"(assert (or {terms}))\n")
        else:
            j = shape[1]
            f.write(f"(assert (>= (- Y_{j} Y_{c}) {threshold:.17g}))\n")
            if shape[0] == "conjunction":
                f.write(f"(assert (>= Y_{c} -1e6))\n")


def solve_margin(reluopt, model, lower, upper, row, n_in, outputs, j, c, method, limit, workdir):
    domain = {"lower": lower.tolist(), "upper": upper.tolist()}
    if row is not None:
        (i, ai), (k, ak), b = row
        a = [0.0] * n_in
        a[i], a[k] = ai, ak
        domain.update({"A": [a], "b": [b]})
    weights = [0.0] * outputs
    weights[j], weights[c] = 1.0, -1.0
    paths = [os.path.join(workdir, name) for name in ("domain.json", "objective.json", f"{method}.json")]
    json.dump(domain, open(paths[0], "w"))
    json.dump({"weights": weights, "sense": "max"}, open(paths[1], "w"))
    proc = subprocess.run([reluopt, "solve", model, "--method", method, "--domain", paths[0], "--objective",
                           paths[1], "--time-limit", str(limit), "--threads", "2", "--quiet", "--json", paths[2]],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return ("error: " + proc.stderr.strip()[:200], None, None, None)
    r = json.load(open(paths[2]))
    x = None if r.get("x") is None else np.array(r["x"], dtype=float)
    return (r["status"], r.get("objective"), r.get("bound"), x)


def verify(reluopt, model, prop, limit, workdir):
    result = os.path.join(workdir, "result.txt")
    if os.path.exists(result):
        os.remove(result)
    start = time.time()
    proc = subprocess.run([reluopt, "verify", model, prop, "--time-limit", str(limit), "--quiet",
                           "--result-file", result], capture_output=True, text=True)
    seconds = time.time() - start
    if proc.returncode != 0 or not os.path.exists(result):
        return "error: " + proc.stderr.strip()[:200], None, seconds
    text = open(result).read()
    x = dict((int(k), float(v)) for k, v in re.findall(r"\(X_(\d+)\s+([^\s()]+)\)", text))
    return text.split("\n", 1)[0].strip(), x, seconds


def in_set(x, lower, upper, row):
    if np.any(x < lower) or np.any(x > upper):
        return False
    if row is None:
        return True
    (i, ai), (k, ak), b = row
    return ai * x[i] + ak * x[k] <= b


def holds(y, c, shape, threshold, outputs):
    if shape == "disjunction":
        return any(y[j] - y[c] >= threshold for j in range(outputs) if j != c)
    return y[shape[1]] - y[c] >= threshold


def sample_set(rng, lower, upper, row, count):
    x = rng.uniform(lower, upper, (count, len(lower)))
    corners = np.where(rng.random((count, len(lower))) < 0.5, lower, upper)
    x = np.vstack([x, corners])
    return np.array([p for p in x if in_set(p, lower, upper, row)])


def margin_findings(solved, j, sampled, margin, lower, upper, row):
    """What is wrong with the methods' answers on margin j: an error, a bound below a sampled margin or below
    another method's point, a point outside the set or whose margin by our forward pass is not the reported
    one, two optima that differ."""
    findings, points, bounds, optima = [], {}, {}, {}
    for m, (status, value, bound, x) in solved.items():
        if status.startswith("error"):
            findings.append(f"{m} margin {j}: {status}")
            continue
        if bound is not None:
            bounds[m] = bound
            if sampled > bound + 1e-7 * (1 + abs(bound)):
                findings.append(f"{m} margin {j}: bound {bound:.9g} below sampled {sampled:.9g}")
        if x is not None and value is not None:
            if not in_set(x, lower - 1e-9, upper + 1e-9, row):
                findings.append(f"{m} margin {j}: its point is outside the set")
            elif abs(margin(x) - value) > 1e-6 * (1 + abs(value)):
                findings.append(f"{m} margin {j}: reported {value:.9g}, our forward pass {margin(x):.9g}")
            points[m] = value
        if status == "optimal":
            optima[m] = value
    for m, value in points.items():
        for n, bound in bounds.items():
            if value > bound + 1e-6 * (1 + abs(bound)):
                findings.append(f"margin {j}: {m}'s point {value:.9g} above {n}'s bound {bound:.9g}")
    if optima and max(optima.values()) - min(optima.values()) > 1e-6 * (1 + abs(max(optima.values()))):
        findings.append(f"margin {j}: optima differ: {optima}")
    return findings


def trial(args, index, workdir):
    """One network, its truth, and its two verify runs; returns a row of the table and a list of findings."""
    rng = np.random.default_rng([args.seed, index])
    g, out, desc = random_network(rng, int(rng.integers(1 << 30)), args)
    model = os.path.join(workdir, "net.onnx")
    with open(model, "wb") as f:
        f.write(g.model(out).SerializeToString())
    n_in = int(np.prod(g.input_shape))
    outputs = g.shapes[out][1]
    x0 = rng.uniform(0, 1, n_in)
    eps = float(rng.choice([0.02, 0.05, 0.1, 0.3, 1.0]))
    lower, upper = x0 - eps, x0 + eps
    row = None
    if n_in >= 2 and rng.random() < 0.3:
        i, k = rng.choice(n_in, 2, replace=False)
        ai, ak = rng.choice([-1.0, 1.0], 2)
        row = ((int(i), ai), (int(k), ak), float(ai * x0[i] + ak * x0[k] + 0.5 * eps))
    c = int(rng.integers(outputs))
    forward = lambda x: g.forward(x.reshape(g.input_shape)).reshape(-1)  # noqa: E731
    samples = sample_set(rng, lower, upper, row, 300)
    ys = np.array([forward(p) for p in samples])
    findings, margins = [], {}
    for j in (j for j in range(outputs) if j != c):
        solved = {m: solve_margin(args.reluopt, model, lower, upper, row, n_in, outputs, j, c, m, args.time_limit,
                                  workdir) for m in args.methods}
        sampled = float(np.max(ys[:, j] - ys[:, c]))
        findings += margin_findings(solved, j, sampled, lambda x: forward(x)[j] - forward(x)[c], lower, upper, row)
        b, m = solved["bab"], solved["mip"]
        if b[0] == m[0] == "optimal":
            if abs(b[1] - m[1]) > 1e-6 * (1 + abs(b[1])):
                findings.append(f"margin {j}: bab optimal {b[1]:.9g} != mip optimal {m[1]:.9g}")
            margins[j] = max(b[1], m[1])
    row_text = {"trial": index, "net": desc, "inputs": n_in, "eps": eps, "row": row is not None}
    if len(margins) < outputs - 1:
        row_text["result"] = "no truth (a margin not proven by both)"
        return row_text, findings
    shapes = ["disjunction", ("single", max(margins, key=margins.get)), ("conjunction", max(margins, key=margins.get))]
    shape = shapes[int(rng.integers(3))]
    best = max(margins.values()) if shape == "disjunction" else margins[shape[1]]
    delta = 1e-3 * (1 + abs(best))
    answers = []
    for side, threshold, want in (("below", best - delta, "sat"), ("above", best + delta, "unsat")):
        prop = os.path.join(workdir, f"{side}.vnnlib")
        write_property(prop, x0, eps, row, outputs, c, shape, threshold)
        status, x, seconds = verify(args.reluopt, model, prop, args.time_limit, workdir)
        answers.append(f"{status} ({want}, {seconds:.1f} s)")
        if status.startswith("error"):
            findings.append(f"verify {side}: {status}")
        elif status == "sat":
            point = np.array([x.get(i, np.nan) for i in range(n_in)])
            if not in_set(point, lower - 1e-9, upper + 1e-9, row) or not holds(forward(point), c, shape, threshold,
                                                                                outputs):
                findings.append(f"verify {side}: sat with a counterexample that fails our check")
            if want == "unsat":
                findings.append(f"verify {side}: sat where m* + delta is above the proven maximum")
        elif status == "unsat" and want == "sat":
            findings.append(f"verify {side}: unsat where bab and mip found m* = {best:.9g} >= t")
    row_text["result"] = f"{shape if isinstance(shape, str) else shape[0]}: " + "; ".join(answers)
    return row_text, findings


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reluopt", default=os.path.join(HERE, "..", "build", "reluopt"))
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--width", type=int, default=8, help="most neurons of a dense layer")
    parser.add_argument("--maps", type=int, default=3, help="most channels of a convolution")
    parser.add_argument("--blocks", type=int, default=3, help="most blocks of layers")
    parser.add_argument("--only", type=int, nargs="*", help="run these trial indices only")
    parser.add_argument("--methods", nargs="+", default=["bab", "mip"],
                        help="the solve methods run on every margin (bab and mip among them: the truth)")
    parser.add_argument("--keep", help="write each trial's files into KEEP/trialN instead of a temporary folder")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "verify_crosscheck.md"))
    args = parser.parse_args()
    if "bab" not in args.methods or "mip" not in args.methods:
        parser.error("--methods needs bab and mip: they give the truth")
    load_start = os.getloadavg()
    rows, findings = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for index in args.only if args.only else range(args.trials):
            workdir = os.path.join(args.keep, f"trial{index}") if args.keep else scratch
            os.makedirs(workdir, exist_ok=True)
            row, found = trial(args, index, workdir)
            rows.append(row)
            findings += [f"trial {index}: {f}" for f in found]
            print(row, found, flush=True)
    with open(args.out, "w") as f:
        f.write("# verify on random graph networks: answers against bab and mip\n\n")
        f.write(f"`/usr/bin/python3 bench/verify_crosscheck.py --trials {args.trials} --seed {args.seed} "
                f"--time-limit {args.time_limit:g} --width {args.width} --maps {args.maps} --blocks {args.blocks} "
                f"--methods {' '.join(args.methods)}` (what it checks: the script's docstring). Load "
                f"{load_start[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} cores.\n\n")
        f.write(f"Findings: {len(findings)}\n\n")
        f.writelines(f"- {x}\n" for x in findings)
        f.write("\n| trial | network (node types) | inputs | eps | row | verify below m* / above m* |\n"
                "|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['trial']} | {r['net']} | {r['inputs']} | {r['eps']} | {'yes' if r['row'] else ''} | "
                    f"{r['result']} |\n")
    print(f"{len(findings)} findings; table in {args.out}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
