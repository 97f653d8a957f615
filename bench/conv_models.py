#!/usr/bin/python3
"""Convolutional models of MNIST and CIFAR size: load time and `reluopt solve --time-limit T` per method.

Models (random weights, seed fixed, built with tests/io/make_conv_fixtures.py's Net, FLOAT weights):
  mnist_convsmall  [1,1,28,28] -> Sub/Div normalization per channel -> Conv 16 4x4 s2 -> ReLU -> Conv 32 4x4 s2 -> ReLU
                   -> Flatten -> Gemm 100 -> ReLU -> Gemm 10      (784 -> 2704 -> 800 -> 100 -> 10)
  cifar_convsmall  [1,3,32,32] -> the same layers                 (3072 -> 3600 -> 1152 -> 100 -> 10)
Load time: the `load_seconds` that `reluopt solve` reports (reading the ONNX file and folding it into dense
layers). Each method runs on [0,1]^d (the default domain), maximizing output 0, with --threads 2; its wall
time from the command's start (model reading included), status, value and bound.

    bench/conv_models.py --reluopt build/reluopt [--time-limit 20] [--methods enhanced sampling bab]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "io"))
from make_conv_fixtures import Net, normalized  # noqa: E402


def convsmall(input_shape, seed):
    return normalized(Net(input_shape, seed)).conv(16, (4, 4), strides=(2, 2)).relu().conv(32, (4, 4), strides=(2, 2)).relu() \
        .flatten().gemm(100).relu().gemm(10)


def write_float_model(net, path):
    """The Net's model with FLOAT weights and input, as exporters write them."""
    model = net.model()
    for tensor in model.graph.initializer:
        if tensor.data_type == onnx.TensorProto.DOUBLE:
            tensor.CopyFrom(onnx.numpy_helper.from_array(onnx.numpy_helper.to_array(tensor).astype(np.float32),
                                                         tensor.name))
    for value in list(model.graph.input) + list(model.graph.output):
        value.type.tensor_type.elem_type = onnx.TensorProto.FLOAT
    onnx.save(model, path)


def run(cmd):
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return time.monotonic() - start, proc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reluopt", default="build/reluopt")
    parser.add_argument("--time-limit", type=float, default=20)
    parser.add_argument("--methods", nargs="+", default=["enhanced", "sampling", "bab"])
    parser.add_argument("--workdir", default="/tmp/reluopt_conv_models")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "conv_models.json"))
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    rows = []
    for name, shape, seed in [("mnist_convsmall", [1, 1, 28, 28], 101), ("cifar_convsmall", [1, 3, 32, 32], 102)]:
        path = os.path.join(args.workdir, name + ".onnx")
        write_float_model(convsmall(shape, seed), path)
        row = {"model": name, "file_mb": os.path.getsize(path) / 1e6, "runs": []}
        for method in args.methods:
            out = os.path.join(args.workdir, f"{name}_{method}.json")
            cmd = [args.reluopt, "solve", path, "--method", method, "--time-limit", str(args.time_limit),
                   "--threads", "2", "--quiet", "--json", out]
            wall, proc = run(cmd)
            result = json.load(open(out)) if proc.returncode == 0 and os.path.exists(out) else {}
            entry = {"method": method, "wall_s": wall, "exit": proc.returncode, "status": result.get("status"),
                     "load_s": result.get("load_seconds"),
                     "stopped_by": result.get("stopped_by"), "value": result.get("objective"),
                     "bound": result.get("bound"), "samples": result.get("samples"), "lps": result.get("lps"),
                     "nodes": result.get("nodes"), "stderr": proc.stderr.strip()[:300]}
            row["runs"].append(entry)
            print(name, method, f"{wall:.2f}s", f"load {entry['load_s']}", entry["status"], entry["stopped_by"], entry["value"],
                  entry["bound"], entry["stderr"], flush=True)
        rows.append(row)
    with open(args.out, "w") as f:
        json.dump({"time_limit": args.time_limit, "nproc": os.cpu_count(), "rows": rows}, f, indent=1)
        f.write("\n")
    print(table(rows, args.time_limit))


def table(rows, time_limit):
    """The markdown table of one run: model, method, wall time, load time, status, value, bound."""
    lines = [f"| model | method | wall s (limit {time_limit:g}) | load s | status | stopped by | value | bound | "
             "samples | LPs | nodes |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        for r in row["runs"]:
            value = "-" if r["value"] is None else f"{r['value']:.4f}"
            bound = "-" if r["bound"] is None else f"{r['bound']:.4f}"
            load = "-" if r["load_s"] is None else f"{r['load_s']:.2f}"
            lines.append(f"| {row['model']} | {r['method']} | {r['wall_s']:.2f} | {load} | {r['status']} | "
                         f"{r['stopped_by']} | {value} | {bound} | {r['samples']} | {r['lps']} | {r['nodes']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
