#!/usr/bin/python3
"""Piecewise-linear and residual networks end to end: do `verify`, `solve --method bab` and `solve --method mip`
agree, and does every counterexample hold under an independent forward pass?

Models (random weights, seeds fixed, built with tests/io/make_pwl_fixtures.py's Graph; DOUBLE weights):
  resnet    [1,1,6,6] -> Conv 3 -> Relu -> two residual blocks relu(x + conv(relu(conv(x)))) -> Flatten -> Gemm 3
  maxpool   [1,1,8,8] -> Conv 3 -> Relu -> MaxPool 2x2 s2 -> Conv 4 -> Relu -> GlobalMaxPool -> Flatten -> Gemm 3
  leaky     [1,6] -> Gemm 16 -> LeakyRelu 0.1 -> Gemm 16 -> Clip [0, 1] -> Gemm 8 -> Abs -> Gemm 3
For each model, the largest margin m* = max (Y_1 - Y_0) over the box x0 +- eps is solved by bab and by mip
(--time-limit T); then two VNN-LIB properties "Y_1 - Y_0 >= m* -+ delta" (delta = 1e-3 (1 + |m*|)) are
verified: the one below m* must be sat (its counterexample re-checked by bench/verify_check.py), the one
above unsat. Writes bench/results/pwl_verify.md.

    /usr/bin/python3 bench/pwl_verify.py --reluopt build/reluopt [--time-limit 60]
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
sys.path.insert(0, os.path.join(HERE, "..", "tests", "io"))
from make_pwl_fixtures import Graph, ref_maxpool, relu  # noqa: E402


def resnet():
    g = Graph([1, 1, 6, 6], 41)
    stem = g.unary("Relu", g.conv("x", 3), relu)
    for _ in range(2):
        inner = g.unary("Relu", g.conv(stem, 3), relu)
        stem = g.unary("Relu", g.op("Add", [stem, g.conv(inner, 3)], lambda p, q: p + q, g.shapes[stem]), relu)
    return g, g.gemm(g.flatten(stem), 3)


def maxpool():
    g = Graph([1, 1, 8, 8], 42)
    h = g.unary("Relu", g.conv("x", 3), relu)
    h = g.op("MaxPool", [h], lambda x: ref_maxpool(x, (2, 2), (2, 2), (0, 0, 0, 0)), [1, 3, 4, 4],
             kernel_shape=[2, 2], strides=[2, 2])
    h = g.unary("Relu", g.conv(h, 4), relu)
    h = g.op("GlobalMaxPool", [h], lambda x: x.max(axis=(2, 3), keepdims=True), [1, 4, 1, 1])
    return g, g.gemm(g.flatten(h), 3)


def leaky():
    g = Graph([1, 6], 43)
    h = g.unary("LeakyRelu", g.gemm("x", 16), lambda x: np.where(x > 0, x, 0.1 * x), alpha=0.1)
    h = g.op("Clip", [g.gemm(h, 16)], lambda x: np.clip(x, 0, 1), [1, 16], consts=(np.array(0.0), np.array(1.0)))
    h = g.unary("Abs", g.gemm(h, 8), np.abs)
    return g, g.gemm(h, 3)


def write_property(path, x0, eps, threshold):
    with open(path, "w") as f:
        for i in range(len(x0)):
            f.write(f"(declare-const X_{i} Real)\n")
        for j in range(3):
            f.write(f"(declare-const Y_{j} Real)\n")
        for i, v in enumerate(x0):
            f.write(f"(assert (>= X_{i} {v - eps:.17g}))\n(assert (<= X_{i} {v + eps:.17g}))\n")
        f.write(f"(assert (>= (- Y_1 Y_0) {threshold:.17g}))\n")


def solve(reluopt, model, x0, eps, method, limit, workdir):
    domain = os.path.join(workdir, "domain.json")
    objective = os.path.join(workdir, "objective.json")
    json.dump({"lower": (x0 - eps).tolist(), "upper": (x0 + eps).tolist()}, open(domain, "w"))
    json.dump({"weights": [-1.0, 1.0, 0.0], "sense": "max"}, open(objective, "w"))
    out = os.path.join(workdir, f"{method}.json")
    start = time.time()
    proc = subprocess.run([reluopt, "solve", model, "--method", method, "--domain", domain, "--objective", objective,
                           "--time-limit", str(limit), "--threads", "2", "--quiet", "--json", out],
                          capture_output=True, text=True)
    seconds = time.time() - start
    if proc.returncode != 0:
        raise SystemExit(f"{method} failed: {proc.stderr.strip()}")
    r = json.load(open(out))
    return r["status"], r["objective"], r.get("bound"), seconds


def verify(reluopt, model, prop, limit, workdir):
    result = os.path.join(workdir, "result.txt")
    start = time.time()
    proc = subprocess.run([reluopt, "verify", model, prop, "--time-limit", str(limit), "--result-file", result],
                          capture_output=True, text=True)
    seconds = time.time() - start
    status = open(result).read().split("\n", 1)[0].strip() if os.path.exists(result) else "error"
    check = subprocess.run([sys.executable, os.path.join(HERE, "verify_check.py"), model, prop, result],
                           capture_output=True, text=True)
    return status, seconds, check.returncode == 0, check.stdout.strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reluopt", default=os.path.join(HERE, "..", "build", "reluopt"))
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "pwl_verify.md"))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name, build, eps in (("resnet", resnet, 0.05), ("maxpool", maxpool, 0.05), ("leaky", leaky, 0.1)):
            g, output = build()
            model = os.path.join(workdir, name + ".onnx")
            with open(model, "wb") as f:
                f.write(g.model(output).SerializeToString())
            x0 = np.random.default_rng(7).uniform(0, 1, int(np.prod(g.input_shape)))
            solved = {m: solve(args.reluopt, model, x0, eps, m, args.time_limit, workdir) for m in ("bab", "mip")}
            best = solved["bab"][1]
            delta = 1e-3 * (1 + abs(best))
            for side, threshold, want in (("below", best - delta, "sat"), ("above", best + delta, "unsat")):
                prop = os.path.join(workdir, f"{name}_{side}.vnnlib")
                write_property(prop, x0, eps, threshold)
                status, seconds, checked, text = verify(args.reluopt, model, prop, args.time_limit, workdir)
                rows.append((name, side, solved, threshold, want, status, seconds, checked, text))
                print(name, side, solved, status, text, flush=True)
    load = os.getloadavg()[0]
    with open(args.out, "w") as f:
        f.write("# verify, bab and mip on piecewise-linear and residual networks\n\n")
        f.write("`/usr/bin/python3 bench/pwl_verify.py --reluopt build/reluopt --time-limit "
                f"{args.time_limit:g}` (models and properties in the script's docstring; 2 threads, load "
                f"{load:.1f} on {os.cpu_count()} cores). m* = max (Y_1 - Y_0) over the box, proven by bab and by "
                "mip; verify decides Y_1 - Y_0 >= m* -+ delta. `check` is bench/verify_check.py's independent "
                "re-evaluation of the counterexample (numpy forward pass of the ONNX file).\n\n")
        f.write("| model | property | bab m* (status, s) | mip m* (status, s) | verify (expected) | verify s | check | agree |\n")
        f.write("|---|---|---|---|---|---|---|---|\n")
        for name, side, solved, threshold, want, status, seconds, checked, text in rows:
            b, m = solved["bab"], solved["mip"]
            agree = status == want and b[0] == m[0] == "optimal" and abs(b[1] - m[1]) <= 1e-6 * (1 + abs(b[1]))
            f.write(f"| {name} | >= {threshold:.6g} ({side} m*) | {b[1]:.9g} ({b[0]}, {b[3]:.1f}) | "
                    f"{m[1]:.9g} ({m[0]}, {m[3]:.1f}) | {status} ({want}) | {seconds:.1f} | "
                    f"{'ok' if checked else 'FAILED'}: {text} | {'yes' if agree else 'NO'} |\n")


if __name__ == "__main__":
    main()
