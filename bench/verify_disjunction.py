#!/usr/bin/python3
"""How long does `reluopt verify` take on L-inf robustness properties written as VNN-COMP writes them: the unsafe
set is the disjunction over every other class j of y_j >= y_c (c the predicted class), on the MNIST-shaped
networks of bench/crown_bench.py (784 -> 256 x L -> 10, bench/train_mnist_shape.py)? The same balls as
crown_bench.py's verify part, whose properties name only the runner-up class; --before and --binary are two
builds, run one after the other per ball.

    /usr/bin/python3 bench/verify_disjunction.py --before OLD/reluopt --binary NEW/reluopt [--layers 2 4 6]
        [--images 4] [--radii 0.02 0.025] [--time-limit 60] [--out bench/results/verify_disjunction.md]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import crown_bench  # noqa: E402


def robustness_vnnlib(inst, c):
    lines = ["(declare-const X_%d Real)" % i for i in range(len(inst.lo))]
    lines += ["(declare-const Y_%d Real)" % j for j in range(10)]
    for i, (a, b) in enumerate(zip(inst.lo, inst.hi)):
        lines += ["(assert (>= X_%d %.17g))" % (i, a), "(assert (<= X_%d %.17g))" % (i, b)]
    lines.append("(assert (or %s))" % " ".join("(and (>= Y_%d Y_%d))" % (j, c) for j in range(10) if j != c))
    return "\n".join(lines) + "\n"


def verify(binary, model, prop, limit):
    start = time.perf_counter()
    out = subprocess.run([binary, "verify", model, prop, "--threads", "1", "--seed", "1", "--time-limit", str(limit),
                          "--quiet"], check=True, capture_output=True, text=True).stdout
    return out.split("\n")[0].strip(), time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--layers", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--images", type=int, default=4)
    parser.add_argument("--radii", type=float, nargs="+", default=[0.02, 0.025])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "verify_disjunction.md"))
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for ball in crown_bench.balls(args.layers, args.images, args.radii):
            inst = ball.instance(np.eye(10)[ball.j].tolist())
            inst.write(workdir)
            prop = os.path.join(workdir, inst.name + "_all.vnnlib")
            with open(prop, "w") as f:
                f.write(robustness_vnnlib(inst, ball.c))
            row = [inst.name] + [verify(b, inst.model_path, prop, args.time_limit) for b in (args.before, args.binary)]
            print(row, flush=True)
            rows.append(row)
    with open(args.out, "w") as f:
        f.write("# verify on robustness properties over every other class\n\n")
        f.write("`/usr/bin/python3 bench/verify_disjunction.py --before %s --binary %s --layers %s --images %d "
                "--radii %s --time-limit %g` (the question: the script's docstring); `verify --threads 1`, load %.1f "
                "at the start, %.1f at the end, %d cores.\n\n"
                % (args.before, args.binary, " ".join(map(str, args.layers)), args.images,
                   " ".join("%g" % r for r in args.radii), args.time_limit, load, os.getloadavg()[0], os.cpu_count()))
        f.write("| ball | before | s | after | s |\n|---|---|---|---|---|\n")
        for name, (a, sa), (b, sb) in rows:
            f.write("| %s | %s | %.1f | %s | %.1f |\n" % (name, a, sa, b, sb))
        for layers in args.layers:
            mine = [r for r in rows if r[0].startswith("mnist_L%d_" % layers)]
            count = lambda k: sum(1 for r in mine if r[k][0] == "unsat")  # noqa: E731
            f.write("\n- %d hidden layers: unsat within %g s, before %d of %d, after %d of %d."
                    % (layers, args.time_limit, count(1), len(mine), count(2), len(mine)))
        f.write("\n")


if __name__ == "__main__":
    main()
