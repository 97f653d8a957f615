#!/usr/bin/python3
"""Gradient steps per second: reluopt's --method gradient against numpy doing the same steps, in one run.

A step is what the C++ ascent does (src/algorithms/gradient.cc): the box projection of x + t grad, a forward pass
recording the activation pattern, the backward pass through it, and the backtracking rule (t * 1.5 after an
improving step, t / 2 otherwise, a perturbation of radius 0.05 when t * |grad| < 1e-6 * diameter).
C++: `reluopt solve NET --method gradient --samples 1 --ascent-steps N --perturbations 1000000 --threads 1`;
steps/s = gradient_steps / (seconds - the seconds of the same command with --ascent-steps 0, which is the
forward evaluation and the region LP alone). numpy: the same loop on one thread (OPENBLAS/OMP/MKL threads 1),
float64, over the same network and box.

    bench/gradient_throughput.py --reluopt build/reluopt [--steps 20000] [--out gradient_throughput]
"""
import os

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netgen  # noqa: E402
from acceptance_common import make_meta, meta_table, RESULTS, write_json  # noqa: E402
from bench_sampling import binary_meta, resolve_binary  # noqa: E402

NETWORKS = [("20_1x100", 20, [100], 1), ("10_2x500", 10, [500] * 2, 2), ("100_3x500", 100, [500] * 3, 3),
            ("1000_3x100", 1000, [100] * 3, 4)]


def value_and_gradient(layers, x):
    masks = []
    v = x
    for W, b in layers[:-1]:
        h = W @ v + b
        m = h > 0.0
        masks.append(m)
        v = np.where(m, h, 0.0)
    W, b = layers[-1]
    value = (W @ v + b)[0]
    g = W[0].copy()
    for (W, _), m in zip(reversed(layers[:-1]), reversed(masks)):
        g = W.T @ (g * m)
    return value, g


def numpy_ascent(layers, d, steps, seed):
    """steps of the C++ ascent's rule over [0,1]^d; returns the seconds taken and the best value."""
    rng = np.random.default_rng(seed)
    lo, hi = np.zeros(d), np.ones(d)
    diameter = np.sqrt(d)
    x = rng.uniform(lo, hi)
    f, g = value_and_gradient(layers, x)
    best_x, best_f = x, f
    norm = np.linalg.norm(g)
    t = 0.1 * diameter / norm if norm > 0 else 0.0
    start = time.perf_counter()
    for _ in range(steps):
        if t * np.linalg.norm(g) < 1e-6 * diameter:
            x = np.clip(best_x + 0.05 * rng.uniform(-1.0, 1.0, d), lo, hi)
            f, g = value_and_gradient(layers, x)
            norm = np.linalg.norm(g)
            t = 0.1 * diameter / norm if norm > 0 else 0.0
            continue
        y = np.clip(x + t * g, lo, hi)
        fy, gy = value_and_gradient(layers, y)
        if fy > f:
            x, f, g = y, fy, gy
            t *= 1.5
            if f > best_f:
                best_x, best_f = x, f
        else:
            t *= 0.5
    return time.perf_counter() - start, best_f


def reluopt_run(reluopt, path, steps, out):
    cmd = [reluopt, "solve", path, "--method", "gradient", "--samples", "1", "--ascent-steps", str(steps),
           "--perturbations", "1000000", "--threads", "1", "--seed", "1", "--quiet", "--json", out]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    with open(out) as f:
        r = json.load(f)
    return r["seconds"], r["gradient_steps"], r["objective"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reluopt", required=True)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--workdir", default="/tmp/reluopt_gradient_throughput")
    ap.add_argument("--out", default="gradient_throughput")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    a.reluopt = resolve_binary(a.reluopt)
    meta = make_meta("gradient_throughput.py", sys.argv[1:])
    meta.update(**binary_meta(a.reluopt), numpy=np.__version__)
    rows = []
    for name, d, hidden, seed in NETWORKS:
        layers = netgen.make_network(d, hidden, seed)
        path = os.path.join(a.workdir, name + ".onnx")
        netgen.write_onnx(layers, path)
        json_out = os.path.join(a.workdir, name + ".json")
        base_s, _, _ = reluopt_run(a.reluopt, path, 0, json_out)
        cpp_s, cpp_steps, _ = reluopt_run(a.reluopt, path, a.steps, json_out)
        np_s, _ = numpy_ascent(layers, d, a.steps, seed)
        row = {"network": name, "steps": a.steps, "cpp_steps": cpp_steps, "cpp_seconds": cpp_s,
               "cpp_base_seconds": base_s, "cpp_steps_per_s": cpp_steps / max(cpp_s - base_s, 1e-9),
               "numpy_seconds": np_s, "numpy_steps_per_s": a.steps / np_s, "load_average": os.getloadavg()[0]}
        row["ratio"] = row["cpp_steps_per_s"] / row["numpy_steps_per_s"]
        rows.append(row)
        print(f"{name:12s} C++ {row['cpp_steps_per_s']:10.0f} steps/s  numpy {row['numpy_steps_per_s']:10.0f} steps/s  "
              f"ratio {row['ratio']:.2f}", flush=True)
    write_json(os.path.join(RESULTS, a.out + ".json"), {"meta": meta, "rows": rows})
    lines = ["# Gradient steps per second: reluopt against numpy, one thread each, in one run", "", *meta_table(meta), "",
             "C++ steps/s = gradient_steps / (seconds - seconds of --ascent-steps 0). Ratio = C++ / numpy.", "",
             "| network | steps | C++ s | C++ s without steps | C++ steps/s | numpy s | numpy steps/s | ratio | load |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['network']} | {r['cpp_steps']} | {r['cpp_seconds']:.3f} | {r['cpp_base_seconds']:.3f} | "
                     f"{r['cpp_steps_per_s']:.0f} | {r['numpy_seconds']:.3f} | {r['numpy_steps_per_s']:.0f} | "
                     f"{r['ratio']:.2f} | {r['load_average']:.1f} |")
    with open(os.path.join(RESULTS, a.out + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
