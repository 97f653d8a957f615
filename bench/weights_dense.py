#!/usr/bin/python3
"""Dense layers before and after the Weights type (a layer's W dense or sparse): the same fully connected network,
the same commands, the two binaries alternated so that both see the same load.

Network: bench/netgen.py --d 10 --hidden 100 100 --seed 7 (10 -> 100 -> 100 -> 1, dense).
Commands, each --threads 1 --seed 0:
  gradient  solve --method gradient --samples 4000   (forward and backward passes: W x and W^T v)
  bab       solve --method bab --time-limit 20       (bound propagation and node LPs; nodes per second)
Reports the median wall time (gradient) and median nodes per second (bab) of each binary, and after / before.

    /usr/bin/python3 bench/weights_dense.py --before OLD/reluopt --after build/reluopt [--repeats 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from netgen import make_network, write_onnx  # noqa: E402


def run(binary, args, workdir):
    out = os.path.join(workdir, "out.json")
    start = time.time()
    subprocess.run([binary, "solve"] + args + ["--threads", "1", "--seed", "0", "--quiet", "--json", out],
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.time() - start
    return wall, json.load(open(out))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", default=os.path.join(HERE, "..", "build", "reluopt"))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        model = os.path.join(workdir, "net.onnx")
        write_onnx(make_network(10, [100, 100], 7), model)
        walls = {"before": [], "after": []}
        rates = {"before": [], "after": []}
        for _ in range(args.repeats):
            for name, binary in (("before", args.before), ("after", args.after)):
                wall, _ = run(binary, [model, "--method", "gradient", "--samples", "4000"], workdir)
                walls[name].append(wall)
                _, result = run(binary, [model, "--method", "bab", "--time-limit", "20"], workdir)
                rates[name].append(result["nodes"] / result["seconds"])
        load = os.getloadavg()[0]
    print(f"load average {load:.1f} (2 cores)")
    print("| command | before | after | after / before |")
    print("|---|---|---|---|")
    g0, g1 = statistics.median(walls["before"]), statistics.median(walls["after"])
    print(f"| gradient --samples 4000, wall s (median of {args.repeats}) | {g0:.2f} | {g1:.2f} | {g1 / g0:.3f} |")
    b0, b1 = statistics.median(rates["before"]), statistics.median(rates["after"])
    print(f"| bab 20 s, nodes per s (median of {args.repeats}) | {b0:.0f} | {b1:.0f} | {b1 / b0:.3f} |")


if __name__ == "__main__":
    main()
