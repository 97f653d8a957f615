#!/usr/bin/python3
"""Memory and load time of CIFAR-size residual networks, before and after (two builds of reluopt).

Models (random DOUBLE weights, seed fixed, built with tests/io/make_pwl_fixtures.py's Graph):
  cifar_resnet3_cC  [1,3,32,32] -> Conv C 3x3 pad 1 -> Relu -> three blocks relu(x + conv(relu(conv(x))))
                    (Conv C 3x3 pad 1) -> Flatten -> Gemm 10, for C = 1, 2 and 4 (16, the usual CIFAR stem,
                    holds 2 x 16 x 1024 = 32768 neurons a layer: a dense 32768 x 32768 layer is 8.6 GB).
Each binary runs `reluopt solve MODEL --method sampling --samples 1 --time-limit T --json F` (reading the
model, then one sample; T = 300 unless --time-limit); the table gives its exit, the `load_seconds` it reports, its
wall time and its peak resident memory (wait4's ru_maxrss), or the first line of its error. A layer after a
residual block holds 2 C 1024 neurons (the ReLUs and the carried branch) over as many inputs: dense, C^2 8 MB;
sparse (include/reluopt/network.h, Weights), its nonzeros: 9 C + 1 per ReLU neuron, 1 per carried one.

    /usr/bin/python3 bench/pwl_memory.py --before OLD/reluopt --after build/reluopt [--channels 1 2 4 16]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "io"))
from make_pwl_fixtures import Graph, relu  # noqa: E402


def cifar_resnet3(channels):
    g = Graph([1, 3, 32, 32], 50 + channels)
    stem = g.unary("Relu", g.conv("x", channels), relu)
    for _ in range(3):
        inner = g.unary("Relu", g.conv(stem, channels), relu)
        stem = g.unary("Relu", g.op("Add", [stem, g.conv(inner, channels)], None, g.shapes[stem]), relu)
    return g, g.gemm(g.flatten(stem), 10)


def run(binary, model, workdir, time_limit):
    out = os.path.join(workdir, "out.json")
    if os.path.exists(out):
        os.remove(out)
    start = time.time()
    proc = subprocess.Popen([binary, "solve", model, "--method", "sampling", "--samples", "1", "--time-limit", str(time_limit),
                             "--quiet", "--json", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.time() - start
    error = proc.stderr.read().strip().splitlines()
    code = os.waitstatus_to_exitcode(status)
    load = json.load(open(out)).get("load_seconds") if code == 0 and os.path.exists(out) else None
    return code, load, wall, usage.ru_maxrss / 1024.0, error[0] if code != 0 and error else ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", default=os.path.join(HERE, "..", "build", "reluopt"))
    parser.add_argument("--channels", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--out", default=os.path.join(HERE, "results", "pwl_memory.md"))
    parser.add_argument("--time-limit", type=float, default=300)
    parser.add_argument("--note", default="", help="what `before` and `after` are, for the table's header")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for c in args.channels:
            g, output = cifar_resnet3(c)
            model = os.path.join(workdir, f"cifar_resnet3_c{c}.onnx")
            with open(model, "wb") as f:
                f.write(g.model(output).SerializeToString())
            size = os.path.getsize(model) / 1e6
            for label, binary in (("before", args.before), ("after", args.after)):
                result = run(binary, model, workdir, args.time_limit)
                rows.append((f"cifar_resnet3_c{c}", size, label) + result)
                print(rows[-1], flush=True)
    load = os.getloadavg()[0]
    with open(args.out, "w") as f:
        f.write("# Memory and load time of residual networks, before and after\n\n")
        f.write(f"`/usr/bin/python3 bench/pwl_memory.py --before BEFORE --after build/reluopt --channels "
                f"{' '.join(map(str, args.channels))} --time-limit {args.time_limit:g}` (models in the script's "
                f"docstring; load {load:.1f} on {os.cpu_count()} cores, so times are loose). {args.note}\n\n")
        f.write("| model | file MB | binary | exit | load s | wall s | peak RSS MB | error |\n|---|---|---|---|---|---|---|---|\n")
        for name, size, label, code, load_s, wall, rss, error in rows:
            load_text = f"{load_s:.2f}" if load_s is not None else "-"
            f.write(f"| {name} | {size:.2f} | {label} | {code} | {load_text} | {wall:.1f} | {rss:.0f} | "
                    f"{error.replace('|', '/')} |\n")


if __name__ == "__main__":
    main()
