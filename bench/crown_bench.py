#!/usr/bin/python3
"""bab with optimized slopes and split multipliers (alpha/beta-CROWN, src/bounds/optimized_bounds.cc) against bab
bounding every node by its LP (--slope-steps 0), the same binary in the same run, one configuration after the other.

Parts:
  grid   the paper's grid networks with two hidden layers of 100 (Xavier, seed 777 + 10000 L + d, box [0,1]^d,
         maximize the output; bench/acceptance_bounds.py's), d in --grid-dims: gap = (bound - value) / |value|
         after --time-limit seconds, nodes. (With one hidden layer bab always takes the LP: nothing changes.)
  paper  the paper's grid networks of --paper (1 or 2 hidden layers of 100, d inputs) with --before and --binary,
         alternating per network: gap after --time-limit seconds, by --paper-method (bab unless told).
  verify the same balls decided by `reluopt verify` (stopping at the answer) with --before and --binary,
         alternating per instance: answer and wall time.
  mnist  784 -> 256 x L -> 10 networks (bench/train_mnist_shape.py, synthetic 28x28 images), L in --layers; for
         test images 0.. of each, the L-inf ball of radius r (clipped to [0, 1]) and the objective y_j - y_c
         (c the image's class, j its runner-up at the centre): decided within the time limit when the proven bound
         is < 0 (unsat: no point makes j beat c) or a point has value >= 0 (sat).

    /usr/bin/python3 bench/crown_bench.py --binary build/reluopt [--time-limit 60] [--parts grid mnist]
    /usr/bin/python3 bench/crown_bench.py --parts verify --before OLD/reluopt --binary build/reluopt \
        --layers 4 6 --images 4 --radii 0.02 0.025 --out bench/results/crown_verify
    /usr/bin/python3 bench/crown_bench.py --parts paper --before OLD/reluopt --binary build/reluopt \
        --out bench/results/crown_paper

Writes bench/results/crown_bench.md and .json. Every run: reluopt solve --method bab --threads 1 --seed 1.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acceptance_common as ac  # noqa: E402
import netgen  # noqa: E402
import train_mnist_shape  # noqa: E402

CONFIGS = [("LP", ["--slope-steps", "0"]), ("optimized", [])]


def solve(binary, inst, flags, limit, workdir, threads=1, method="bab"):
    inst.write(workdir)
    out = os.path.join(workdir, inst.name + "_%s.json" % ("lp" if flags else "opt"))
    cmd = [binary, "solve", inst.model_path, "--domain", inst.domain_path, "--objective", inst.objective_path,
           "--method", method, "--threads", str(threads), "--seed", "1", "--time-limit", str(limit), "--json", out,
           "--quiet"] + flags
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    wall = time.perf_counter() - start
    with open(out) as f:
        r = json.load(f)
    return dict(status=r["status"], value=r.get("objective"), bound=r.get("bound"), nodes=r.get("nodes"),
                seconds=r.get("seconds"), wall=wall)


def gap(r):
    if r["value"] is None or r["bound"] is None:
        return None
    return (r["bound"] - r["value"]) / max(abs(r["value"]), 1e-12)


def grid_part(a, workdir):
    rows = []
    for d in a.grid_dims:
        seed = 777 + 10000 * 2 + d
        inst = ac.Instance("grid_L2_d%d" % d, netgen.make_network(d, [100, 100], seed), ac.box_domain(d),
                           ac.max_output_objective(), desc="Xavier seed %d" % seed)
        row = dict(instance=inst.name, seed=seed)
        for name, flags in CONFIGS:
            row[name] = solve(a.binary, inst, flags, a.time_limit, workdir)
            row[name]["gap"] = gap(row[name])
            print(inst.name, name, row[name], flush=True)
        rows.append(row)
    return rows


def paper_part(a, workdir):
    """The paper's grid (layers x 100, d inputs; bench/acceptance_bounds.py's seeds) with --before and --binary,
    alternating per instance, --paper-threads threads: gap after the time limit."""
    rows = []
    for spec in a.paper:
        layers, d = (int(v) for v in spec.split("x"))
        seed = 777 + 10000 * layers + d
        inst = ac.Instance("grid_L%d_d%d" % (layers, d), netgen.make_network(d, [100] * layers, seed),
                           ac.box_domain(d), ac.max_output_objective(), desc="Xavier seed %d" % seed)
        row = dict(instance=inst.name, seed=seed)
        for name, binary in (("before", a.before), ("after", a.binary)):
            row[name] = solve(binary, inst, [], a.time_limit, workdir, threads=a.paper_threads,
                              method=a.paper_method)
            row[name]["gap"] = gap(row[name])
            print(inst.name, name, row[name], flush=True)
        rows.append(row)
    return rows


def write_paper(a, rows):
    L = ["## The paper's grid, before and after", "",
         "`reluopt solve --method %s --threads %d --seed 1 --time-limit %g`, *before* = `%s`, *after* = `%s`, one "
         "after the other per network; gap = (bound - value) / |value|." % (a.paper_method, a.paper_threads,
                                                                            a.time_limit, a.before, a.binary), "",
         "| network | gap before | gap after | after / before | status before | status after | nodes before | "
         "nodes after |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b, f = r["before"], r["after"]
        ratio = f["gap"] / b["gap"] if b["gap"] and f["gap"] is not None else None
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (r["instance"], fmt(b["gap"]), fmt(f["gap"]),
                                                            fmt(ratio), b["status"], f["status"], b["nodes"],
                                                            f["nodes"]))
    L.append("")
    return "\n".join(L)


class Ball:
    """Test image `image` of the 784 -> 256 x `layers` -> 10 network, its L-inf ball of `radius` clipped to [0, 1]
    (lo, hi), its class c and runner-up j at the centre."""

    def __init__(self, net, accuracy, layers, image, radius, x):
        out = netgen.forward(net, x)
        self.net, self.accuracy, self.layers, self.image, self.radius, self.x = net, accuracy, layers, image, radius, x
        self.c, self.j = int(np.argmax(out)), int(np.argsort(out)[-2])
        self.centre_margin = float(out[self.j] - out[self.c])
        self.lo, self.hi = np.maximum(x - radius, 0.0), np.minimum(x + radius, 1.0)
        self.name = "mnist_L%d_i%d_r%g" % (layers, image, radius)

    def instance(self, weights):
        return ac.Instance(self.name, self.net, dict(lower=self.lo.tolist(), upper=self.hi.tolist()),
                           dict(sense="max", weights=list(weights), constant=0.0))

    def margin_instance(self):
        """The objective y_j - y_c."""
        w = np.zeros(10)
        w[self.j], w[self.c] = 1.0, -1.0
        return self.instance(w.tolist())

    def row(self):
        return dict(instance=self.name, layers=self.layers, accuracy=self.accuracy, image=self.image,
                    radius=self.radius)


def balls(layer_counts, images, radii):
    for layers in layer_counts:
        net, accuracy, X, _ = train_mnist_shape.train(layers, 0)
        for image in range(images):
            for radius in radii:
                yield Ball(net, accuracy, layers, image, radius, X[image])


def mnist_part(a, workdir):
    rows = []
    for ball in balls(a.layers, a.images, a.radii):
                inst = ball.margin_instance()
                row = ball.row()
                for name, flags in CONFIGS:
                    r = solve(a.binary, inst, flags, a.time_limit, workdir)
                    r["answer"] = ("unsat" if r["bound"] is not None and r["bound"] < 0 else
                                   "sat" if r["value"] is not None and r["value"] >= 0 else "undecided")
                    row[name] = r
                    print(inst.name, name, r, flush=True)
                rows.append(row)
    return rows


def vnnlib(inst, j, c):
    """The unsafe set of the L-inf ball: y_j >= y_c somewhere in the box."""
    L = ["(declare-const X_%d Real)" % i for i in range(len(inst.lo))]
    L += ["(declare-const Y_%d Real)" % i for i in range(10)]
    for i, (a, b) in enumerate(zip(inst.lo, inst.hi)):
        L += ["(assert (>= X_%d %.17g))" % (i, a), "(assert (<= X_%d %.17g))" % (i, b)]
    L.append("(assert (>= Y_%d Y_%d))" % (j, c))
    return "\n".join(L) + "\n"


def verify(binary, inst, prop, limit):
    cmd = [binary, "verify", inst.model_path, prop, "--threads", "1", "--seed", "1", "--time-limit", str(limit),
           "--quiet"]
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return dict(answer=out.split("\n")[0].strip(), wall=time.perf_counter() - start)


def verify_part(a, workdir):
    """Each ball decided by `reluopt verify` (search and bab on one thread, stopping at the answer) with the
    --before binary and with --binary, one after the other per instance."""
    rows = []
    for ball in balls(a.layers, a.images, a.radii):
        inst = ball.instance(np.eye(10)[ball.j].tolist())
        inst.write(workdir)
        prop = os.path.join(workdir, inst.name + ".vnnlib")
        with open(prop, "w") as f:
            f.write(vnnlib(inst, ball.j, ball.c))
        row = ball.row()
        for name, binary in (("before", a.before), ("after", a.binary)):
            row[name] = verify(binary, inst, prop, a.time_limit)
            print(inst.name, name, row[name], flush=True)
        rows.append(row)
    return rows


def write_verify(a, rows):
    L = ["## MNIST-shaped networks, decided by `reluopt verify`", "",
         "`reluopt verify MODEL BALL.vnnlib --threads 1 --seed 1 --time-limit %g` with *before* = `%s` and "
         "*after* = `%s`, one after the other per instance. Unsafe set: the runner-up class j reaches the image's "
         "class c (y_j >= y_c) somewhere in the L-inf ball (clipped to [0, 1]); `unsat` is a proof of robustness. "
         "Seconds are wall time to the answer." % (a.time_limit, a.before, a.binary), "",
         "| instance | before | s | after | s |", "|---|---|---|---|---|"]
    for r in rows:
        b, f = r["before"], r["after"]
        L.append("| %s | %s | %.1f | %s | %.1f |" % (r["instance"], b["answer"], b["wall"], f["answer"], f["wall"]))
    L.append("")
    for layers in sorted({r["layers"] for r in rows}):
        sub = [r for r in rows if r["layers"] == layers]
        count = {n: sum(r[n]["answer"] == "unsat" for r in sub) for n in ("before", "after")}
        wrong = sum(r[n]["answer"] == "sat" and r[m]["answer"] == "unsat" for r in sub
                    for n, m in (("before", "after"), ("after", "before")))
        L.append("- %d hidden layers: unsat within %g s, before %d of %d, after %d of %d%s." % (
            layers, a.time_limit, count["before"], len(sub), count["after"], len(sub),
            "; CONTRADICTING ANSWERS: %d" % wrong if wrong else ""))
    L.append("")
    return "\n".join(L)


def fmt(v, spec="%.3g"):
    return "-" if v is None else spec % v


def write(a, grid, mnist, load):
    L = ["# Optimized slopes and split multipliers in bab (alpha/beta-CROWN)", "",
         "Generated by `bench/crown_bench.py` on %s UTC; %s, nproc %d, load average at start %s." %
         (time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), platform.node(), os.cpu_count(), load), ""]
    if grid or mnist:
        L += ["Every run: `reluopt solve --method bab --threads 1 --seed 1 --time-limit %g`; *LP*: `--slope-steps 0` "
         "(every node's LP), *optimized*: the default (20 steps in place of the LP while more than 16 neurons are "
         "free). Same binary, same run, one after the other, on a shared loaded machine." % a.time_limit, ""]
    if grid:
        L += ["## Grid networks, two hidden layers of 100", "",
              "| network | gap LP | gap optimized | nodes LP | nodes optimized | nodes/s LP | nodes/s optimized |",
              "|---|---|---|---|---|---|---|"]
        for r in grid:
            lp, op = r["LP"], r["optimized"]
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                r["instance"], fmt(lp["gap"]), fmt(op["gap"]), lp["nodes"], op["nodes"],
                fmt(lp["nodes"] / lp["seconds"], "%.0f"), fmt(op["nodes"] / op["seconds"], "%.0f")))
        L.append("")
    if mnist:
        L += ["## MNIST-shaped networks, L-inf balls", "",
              "| instance | answer LP | s LP | answer optimized | s optimized | nodes LP | nodes optimized |",
              "|---|---|---|---|---|---|---|"]
        for r in mnist:
            lp, op = r["LP"], r["optimized"]
            L.append("| %s | %s | %.1f | %s | %.1f | %s | %s |" % (
                r["instance"], lp["answer"], lp["seconds"], op["answer"], op["seconds"], lp["nodes"], op["nodes"]))
        L.append("")
        for layers in sorted({r["layers"] for r in mnist}):
            sub = [r for r in mnist if r["layers"] == layers]
            share = {n: sum(r[n]["answer"] != "undecided" for r in sub) for n, _ in CONFIGS}
            L.append("- %d hidden layers (test accuracy %.3f): decided LP %d of %d, optimized %d of %d." % (
                layers, sub[0]["accuracy"], share["LP"], len(sub), share["optimized"], len(sub)))
        L.append("")
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(os.path.dirname(HERE), "build", "reluopt"))
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--parts", nargs="+", default=["grid", "mnist"])
    ap.add_argument("--grid-dims", type=int, nargs="+", default=[10, 20])
    ap.add_argument("--layers", type=int, nargs="+", default=[2, 4, 6])
    ap.add_argument("--images", type=int, default=1)
    ap.add_argument("--radii", type=float, nargs="+", default=[0.02, 0.05])
    ap.add_argument("--before", help="verify and paper parts: the binary to compare --binary with")
    ap.add_argument("--paper", nargs="+", default=["1x100", "1x200", "2x10", "2x20"], help="LAYERSxD")
    ap.add_argument("--paper-threads", type=int, default=1)
    ap.add_argument("--paper-method", default="bab", help="paper part: the --method of every run (default: bab)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "crown_bench"))
    a = ap.parse_args()
    load = " ".join("%.2f" % v for v in os.getloadavg())
    with tempfile.TemporaryDirectory() as workdir:
        grid = grid_part(a, workdir) if "grid" in a.parts else []
        mnist = mnist_part(a, workdir) if "mnist" in a.parts else []
        verified = verify_part(a, workdir) if "verify" in a.parts else []
        paper = paper_part(a, workdir) if "paper" in a.parts else []
    load_end = " ".join("%.2f" % v for v in os.getloadavg())
    with open(a.out + ".json", "w") as f:
        json.dump(dict(args=vars(a), load=load, load_end=load_end, grid=grid, mnist=mnist, verify=verified,
                       paper=paper), f, indent=1)
    with open(a.out + ".md", "w") as f:
        f.write(write(a, grid, mnist, load) + (write_verify(a, verified) if verified else "") +
                (write_paper(a, paper) if paper else "") +
                "\nLoad average at the end: %s.\n" % load_end)


if __name__ == "__main__":
    main()
