#!/usr/bin/python3
"""Ground truth for bench/crown_bench.py's MNIST-shaped balls: a strong attack and the proven bound.

For each ball (784 -> 256 x L -> 10, bench/train_mnist_shape.py, test image i, L-inf radius r clipped to [0, 1],
margin y_j - y_c with c the image's class and j its runner-up at the centre):
  pgd       projected sign-gradient ascent on the margin in numpy, --restarts random starts in the ball (plus the
            centre), --steps steps of 2.5 w / steps (w the widest side of the box), halved at half and again at three
            quarters of the run; the best point re-evaluated by a float64 forward pass: the best margin found.
  gradient  `reluopt solve --method gradient --samples N` on the same objective: its best margin.
  bab       `reluopt solve --method bab --threads 1 --time-limit T`: the proven upper bound on the margin and the
            best point after T seconds.
A ball is sat when a margin >= 0 is found; unsat when the proven bound < 0; otherwise the distance between the
best margin and the bound says how far each side is from deciding it.

    /usr/bin/python3 bench/crown_truth.py --binary build/reluopt --layers 4 6 --images 4 --radii 0.02 0.025 \
        --only L4_i1_r0.025 L4_i2_r0.025 ... [--time-limit 60] [--out bench/results/crown_truth.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import crown_bench  # noqa: E402
import netgen  # noqa: E402


def margins_and_grad(net, X, j, c):
    """Margins y_j - y_c of the rows of X and their gradients (float64)."""
    acts, masks = [X], []
    h = X
    for W, b in net[:-1]:
        z = h @ W.T + b
        masks.append(z > 0)
        h = np.maximum(z, 0.0)
    W, b = net[-1]
    out = h @ W.T + b
    g = np.tile(W[j] - W[c], (len(X), 1))
    for k in range(len(net) - 2, -1, -1):
        g = (g * masks[k]) @ net[k][0]
    return out[:, j] - out[:, c], g


def pgd(net, lo, hi, x0, j, c, restarts, steps, seed):
    rng = np.random.default_rng(seed)
    X = lo + (hi - lo) * rng.random((restarts, len(lo)))
    X[0] = x0
    width = float(np.max(hi - lo))
    best, best_x = -np.inf, None
    for s in range(steps):
        step = 2.5 * width / steps * (1.0 if s < steps // 2 else 0.5 if s < 3 * steps // 4 else 0.25)
        m, g = margins_and_grad(net, X, j, c)
        i = int(np.argmax(m))
        if m[i] > best:
            best, best_x = float(m[i]), X[i].copy()
        X = np.clip(X + step * np.sign(g), lo, hi)
    m, _ = margins_and_grad(net, X, j, c)
    i = int(np.argmax(m))
    if m[i] > best:
        best, best_x = float(m[i]), X[i].copy()
    out = netgen.forward(net, best_x)
    return float(out[j] - out[c]), best_x


def solve(binary, inst, method, limit, extra):
    out = os.path.join(os.path.dirname(inst.domain_path), inst.name + "_%s.json" % method)
    cmd = [binary, "solve", inst.model_path, "--domain", inst.domain_path, "--objective", inst.objective_path,
           "--method", method, "--threads", "1", "--seed", "1", "--json", out, "--quiet"] + extra
    if limit:
        cmd += ["--time-limit", str(limit)]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    with open(out) as f:
        r = json.load(f)
    return dict(value=r.get("objective"), bound=r.get("bound"), nodes=r.get("nodes"),
                wall=time.perf_counter() - start)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default="build/reluopt")
    ap.add_argument("--layers", type=int, nargs="+", default=[4, 6])
    ap.add_argument("--images", type=int, default=4)
    ap.add_argument("--radii", type=float, nargs="+", default=[0.02, 0.025])
    ap.add_argument("--only", nargs="*", default=None, help="names L{layers}_i{image}_r{radius} to keep")
    ap.add_argument("--restarts", type=int, default=500)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--skip-bab", action="store_true")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="crown_truth_")
    rows = []
    for ball in crown_bench.balls(a.layers, a.images, a.radii):
        name = ball.name[len("mnist_"):]
        if a.only and name not in a.only:
            continue
        inst = ball.margin_instance().write(workdir)
        start = time.perf_counter()
        best, _ = pgd(ball.net, ball.lo, ball.hi, ball.x, ball.j, ball.c, a.restarts, a.steps, seed=ball.image)
        row = dict(instance=name, centre=ball.centre_margin, pgd=best, pgd_seconds=time.perf_counter() - start)
        row["gradient"] = solve(a.binary, inst, "gradient", 0, ["--samples", str(a.samples)])
        if not a.skip_bab:
            row["bab"] = solve(a.binary, inst, "bab", a.time_limit, [])
        print(json.dumps(row), flush=True)
        rows.append(row)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
