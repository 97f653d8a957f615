#!/usr/bin/python3
"""Trains the networks of the three example models around networks (docs/PROBLEM.md) and writes each
problem file with its ONNX networks into examples/models/<problem>/, one file set per size.

    /usr/bin/python3 bench/models_train.py [--out examples/models] [--only pricing process design]

Everything is synthetic and seeded: numpy's default_rng(seed) draws the data, numpy trains the ReLU networks
(Adam, minibatches of 64, MSE for regressors, cross-entropy for the classifier), the weights are rounded to
float32 (what the ONNX file holds) and written by netgen.write_onnx. The right-hand sides that depend on the
networks (the risk limit, the purity spec) are quantiles of the trained network over random points of the
box, so every size is feasible.

a) pricing   n products: integer price levels p in [1, 9], continuous stock s in [0, 20]. A demand network
             p -> (demand_1..n, revenue_1..n) and a risk network (p, s) -> risk. Rows: demand_i - s_i <= 0
             (stock covers the predicted demand), risk <= limit, sum_i c_i s_i <= budget. Objective: max
             sum_i revenue_i - sum_i h_i s_i.
b) process   n feeds f in [0, 10], a recycle r in [0, 5], an integer stage count k in [1, 6] and a
             temperature T in [0, 1]; the total flow F in [0, cap] with the balance sum_i f_i + r - F == 0
             (F is read by no network: the reduction eliminates it). A surrogate (f, r, k, T) -> (yield,
             purity); purity >= spec. Objective: max 3 yield - cost^T f - 0.2 r - 0.3 k - 0.05 F.
c) design    d features: a third binary, a third integer in [0, 4], the rest continuous in [0, 1]. A
             classifier of 3 classes (0 = acceptable). Rows: logit_0 - logit_j >= margin for j = 1, 2.
             Objective: min cost^T x.

Sizes s1 (solved to proof in seconds) .. s4 (beyond 60 s): see SIZES.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netgen  # noqa: E402

# (products / feeds / features, hidden widths)
SIZES = {
    "pricing": {"s1": (2, [16]), "s2": (4, [32]), "s3": (8, [32, 32]), "s4": (16, [64, 64])},
    "process": {"s1": (2, [16]), "s2": (4, [32]), "s3": (8, [32, 32]), "s4": (12, [64, 64])},
    "design": {"s1": (6, [16]), "s2": (10, [32]), "s3": (20, [32, 32]), "s4": (40, [64, 64])},
}


def init_layers(rng, sizes):
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        a = np.sqrt(6.0 / (fan_in + fan_out))
        layers.append([rng.uniform(-a, a, (fan_out, fan_in)), np.zeros(fan_out)])
    return layers


def train(X, Y, hidden, seed, loss="mse", epochs=150, lr=3e-3, batch=64):
    """A ReLU network fitted by Adam; inputs and (for MSE) targets are standardised inside the training
    and the scaling is folded into the first and last layers, so the network reads the raw variables."""
    rng = np.random.default_rng(seed)
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Xs = (X - mu) / sd
    if loss == "mse":
        ym, ys = Y.mean(0), Y.std(0) + 1e-9
        Ys = (Y - ym) / ys
        outputs = Y.shape[1]
    else:
        Ys = Y
        outputs = int(Y.max()) + 1
    layers = init_layers(rng, [X.shape[1]] + list(hidden) + [outputs])
    m = [[np.zeros_like(W), np.zeros_like(b)] for W, b in layers]
    v = [[np.zeros_like(W), np.zeros_like(b)] for W, b in layers]
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(Xs))
        rate = lr * (0.5 * (1 + np.cos(np.pi * epoch / epochs)) + 0.02)
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            acts = [Xs[idx]]
            for k, (W, b) in enumerate(layers):
                h = acts[-1] @ W.T + b
                acts.append(np.maximum(h, 0) if k < len(layers) - 1 else h)
            out = acts[-1]
            if loss == "mse":
                g = 2 * (out - Ys[idx]) / len(idx) / outputs
            else:
                p = np.exp(out - out.max(1, keepdims=True))
                p /= p.sum(1, keepdims=True)
                p[np.arange(len(idx)), Ys[idx].astype(int)] -= 1
                g = p / len(idx)
            step += 1
            for k in range(len(layers) - 1, -1, -1):
                W, b = layers[k]
                gW, gb = g.T @ acts[k], g.sum(0)
                if k > 0:
                    g = (g @ W) * (acts[k] > 0)
                for j, grad in enumerate((gW, gb)):
                    m[k][j] = 0.9 * m[k][j] + 0.1 * grad
                    v[k][j] = 0.999 * v[k][j] + 0.001 * grad * grad
                    mh = m[k][j] / (1 - 0.9 ** step)
                    vh = v[k][j] / (1 - 0.999 ** step)
                    layers[k][j] -= rate * mh / (np.sqrt(vh) + 1e-8)
    # Fold the standardisation into the weights: W1 (x - mu) / sd + b1, and ys * out + ym.
    W1, b1 = layers[0]
    layers[0] = [W1 / sd, b1 - (W1 / sd) @ mu]
    if loss == "mse":
        WL, bL = layers[-1]
        layers[-1] = [WL * ys[:, None], bL * ys + ym]
    return [(W.astype(np.float32).astype(np.float64), b.astype(np.float32).astype(np.float64))
            for W, b in layers]


def fit_report(layers, X, Y, loss):
    out = netgen.forward(layers, X)
    if loss == "mse":
        return "R^2 %s" % " ".join("%.3f" % (1 - ((out[:, j] - Y[:, j]) ** 2).mean() / Y[:, j].var())
                                    for j in range(Y.shape[1]))
    return "accuracy %.3f" % (out.argmax(1) == Y).mean()


def ref(block, i):
    return "%s[%d]" % (block, i)


# ---------------------------------------------------------------- pricing

def pricing(n, hidden, seed, outdir, tag):
    rng = np.random.default_rng(seed)
    base = rng.uniform(6, 12, n)
    elastic = rng.uniform(0.15, 0.3, n)
    cross = rng.uniform(0, 0.04, (n, n)) * (1 - np.eye(n))
    ref_price = rng.uniform(3, 7, n)
    spoil = rng.uniform(0.5, 1.5, n)
    N = 4000
    P = rng.integers(1, 10, (N, n)).astype(float)
    S = rng.uniform(0, 20, (N, n))
    demand = base * np.exp(-elastic * P + (P @ cross.T))
    demand *= np.exp(rng.normal(0, 0.03, demand.shape))
    revenue = P * demand
    risk = ((P - ref_price) ** 2 / 16).mean(1) + 0.02 * (spoil * np.maximum(S - demand, 0)).mean(1)
    risk += rng.normal(0, 0.01, N)
    dem_net = train(P, np.hstack([demand, revenue]), hidden, seed + 1)
    risk_net = train(np.hstack([P, S]), risk[:, None], hidden, seed + 2)
    print("  pricing %s demand %s; risk %s" % (tag, fit_report(dem_net, P, np.hstack([demand, revenue]), "mse"),
                                                fit_report(risk_net, np.hstack([P, S]), risk[:, None], "mse")))
    unit_cost = np.round(rng.uniform(0.5, 1.5, n), 2)
    hold = np.round(rng.uniform(0.1, 0.4, n), 2)
    # The budget: the median cost of stocking the predicted demand at random prices; the risk limit: a low
    # quantile of the trained risk over the points that meet the other rows.
    pred_dem = netgen.forward(dem_net, P)[:, :n]
    Sfeas = np.clip(pred_dem, 0, 20)
    budget = float(np.round(np.quantile(Sfeas @ unit_cost, 0.5), 2))
    ok = (pred_dem <= 20).all(1) & (Sfeas @ unit_cost <= budget)
    r = netgen.forward(risk_net, np.hstack([P, Sfeas]))[:, 0]
    limit = float(np.round(np.quantile(r[ok], 0.2), 3))
    name = "pricing_%s" % tag
    netgen.write_onnx(dem_net, os.path.join(outdir, name + "_demand.onnx"), producer="reluopt-models-train")
    netgen.write_onnx(risk_net, os.path.join(outdir, name + "_risk.onnx"), producer="reluopt-models-train")
    constraints = [{"name": "risk limit", "terms": {"risk[0]": 1.0}, "<=": limit},
                   {"name": "budget", "terms": {ref("s", i): float(unit_cost[i]) for i in range(n)}, "<=": budget}]
    constraints += [{"name": "cover %d" % i, "terms": {ref("demand", i): 1.0, ref("s", i): -1.0}, "<=": 0}
                    for i in range(n)]
    objective = {ref("demand", n + i): 1.0 for i in range(n)}
    objective.update({ref("s", i): -float(hold[i]) for i in range(n)})
    problem = {"sense": "max",
               "variables": [{"name": "p", "lower": 1, "upper": 9, "size": n, "integer": True},
                             {"name": "s", "lower": 0, "upper": 20, "size": n}],
               "networks": [{"name": "demand", "model": name + "_demand.onnx", "input": "p"},
                            {"name": "risk", "model": name + "_risk.onnx", "input": ["p[%d]" % i for i in range(n)]
                             + ["s[%d]" % i for i in range(n)]}],
               "constraints": constraints,
               "objective": {"terms": objective}}
    return name, problem


# ---------------------------------------------------------------- process

def process(n, hidden, seed, outdir, tag):
    rng = np.random.default_rng(seed)
    gain = rng.uniform(0.5, 1.5, n)
    impurity = rng.uniform(0.005, 0.03, n)
    N = 4000
    F = rng.uniform(0, 10, (N, n))
    R = rng.uniform(0, 5, N)
    K = rng.integers(1, 7, N).astype(float)
    T = rng.uniform(0, 1, N)
    conv = 1 - np.exp(-0.4 * K)
    yld = conv * (np.log1p(F) @ gain + 0.3 * R) * (1 - 0.6 * (T - 0.6) ** 2)
    purity = 0.98 - F @ impurity / n * 4 + 0.01 * R + 0.015 * K - 0.08 * (T - 0.4) ** 2
    yld += rng.normal(0, 0.02, N)
    purity += rng.normal(0, 0.002, N)
    X = np.column_stack([F, R, K, T])
    Y = np.column_stack([yld, purity])
    net = train(X, Y, hidden, seed + 1)
    print("  process %s surrogate %s" % (tag, fit_report(net, X, Y, "mse")))
    cost = np.round(rng.uniform(0.1, 0.35, n), 3)
    cap = float(6 * n)
    pred = netgen.forward(net, X)
    ok = F.sum(1) + R <= cap
    spec = float(np.round(np.quantile(pred[ok, 1], 0.6), 4))
    name = "process_%s" % tag
    netgen.write_onnx(net, os.path.join(outdir, name + "_surrogate.onnx"), producer="reluopt-models-train")
    balance = {ref("f", i): 1.0 for i in range(n)}
    balance.update({"r[0]": 1.0, "F[0]": -1.0})
    objective = {"unit[0]": 3.0}
    objective.update({ref("f", i): -float(cost[i]) for i in range(n)})
    objective.update({"r[0]": -0.2, "k[0]": -0.3, "F[0]": -0.05})
    problem = {"sense": "max",
               "variables": [{"name": "f", "lower": 0, "upper": 10, "size": n},
                             {"name": "r", "lower": 0, "upper": 5},
                             {"name": "k", "lower": 1, "upper": 6, "integer": True},
                             {"name": "T", "lower": 0, "upper": 1},
                             {"name": "F", "lower": 0, "upper": cap}],
               "networks": [{"name": "unit", "model": name + "_surrogate.onnx",
                             "input": ["f[%d]" % i for i in range(n)] + ["r[0]", "k[0]", "T[0]"]}],
               "constraints": [{"name": "balance", "terms": balance, "==": 0},
                               {"name": "purity spec", "terms": {"unit[1]": 1.0}, ">=": spec}],
               "objective": {"terms": objective}}
    return name, problem


# ---------------------------------------------------------------- design

def design(d, hidden, seed, outdir, tag):
    rng = np.random.default_rng(seed)
    nb = d // 3
    ni = d // 3
    nc = d - nb - ni
    lower = [0] * d
    upper = [1] * nb + [4] * ni + [1] * nc
    integer = [True] * (nb + ni) + [False] * nc
    N = 6000
    X = np.column_stack([rng.integers(0, 2, (N, nb)), rng.integers(0, 5, (N, ni)), rng.uniform(0, 1, (N, nc))])
    scale = np.array(upper, float)
    Z = X / scale
    w = np.abs(rng.normal(0, 1, d)) / np.sqrt(d) * 3 - 0.3 / np.sqrt(d)
    pair = rng.normal(0, 1, (d, d)) / d * 2
    score = Z @ w + np.einsum("ni,ij,nj->n", Z, pair, Z) + 0.8 * np.sin(3 * Z[:, -1])
    score += rng.normal(0, 0.1, N)
    cut = np.quantile(score, [0.45, 0.75])
    labels = np.where(score > cut[1], 0, np.where(score > cut[0], 1, 2))
    net = train(X, labels.astype(float), hidden, seed + 1, loss="xent")
    print("  design %s classifier %s" % (tag, fit_report(net, X, labels, "xent")))
    # Each feature costs about what it adds to the score, so the cheapest acceptable design is a trade-off.
    cost = np.round(rng.uniform(0.5, 1.5, d) * (0.1 + np.maximum(w, 0)) / scale, 3)
    margin = 0.5
    name = "design_%s" % tag
    netgen.write_onnx(net, os.path.join(outdir, name + "_classifier.onnx"), producer="reluopt-models-train")
    logits = netgen.forward(net, X)
    feasible = ((logits[:, 0] - logits[:, 1:].max(1)) >= margin).mean()
    print("  design %s: %.1f%% of the samples meet the margin" % (tag, 100 * feasible))
    problem = {"sense": "min",
               "variables": [{"name": "x", "lower": lower, "upper": upper, "integer": integer}],
               "networks": [{"name": "logit", "model": name + "_classifier.onnx", "input": "x"}],
               "constraints": [{"name": "acceptable over class %d" % j,
                                "terms": {"logit[0]": 1.0, "logit[%d]" % j: -1.0}, ">=": margin}
                               for j in (1, 2)],
               "objective": {"terms": {ref("x", i): float(cost[i]) for i in range(d)}}}
    return name, problem


BUILDERS = {"pricing": pricing, "process": process, "design": design}
SEEDS = {"pricing": 101, "process": 202, "design": 303}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                                                   "models"))
    ap.add_argument("--only", nargs="*", default=list(BUILDERS))
    ap.add_argument("--sizes", nargs="*", default=["s1", "s2", "s3", "s4"])
    args = ap.parse_args(argv)
    for kind in args.only:
        outdir = os.path.join(args.out, kind)
        os.makedirs(outdir, exist_ok=True)
        for tag in args.sizes:
            k = sorted(SIZES[kind]).index(tag)
            n, hidden = SIZES[kind][tag]
            name, problem = BUILDERS[kind](n, hidden, SEEDS[kind] + 10 * k, outdir, tag)
            with open(os.path.join(outdir, name + ".json"), "w") as f:
                json.dump(problem, f, indent=1)
                f.write("\n")
            print("wrote %s (%d inputs, hidden %s)" % (os.path.join(outdir, name + ".json"), n, hidden))
    return 0


if __name__ == "__main__":
    sys.exit(main())
