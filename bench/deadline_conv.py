#!/usr/bin/python3
"""Wall time against --time-limit on large public-like models, per method, and the time a SIGTERM takes to end a run.

Models (random FLOAT weights, fixed seeds, built with tests/io/make_conv_fixtures.py's Net):
  conv32     [1,3,32,32] -> Conv 32 3x3 pad 1 -> Relu -> Flatten -> Gemm 10   (3072 -> 32768 -> 10)
  conv8      [1,3,32,32] -> Conv 8 3x3 pad 1  -> Relu -> Flatten -> Gemm 10   (3072 -> 8192 -> 10)
  avgpool28  Convnet_avgpool-like: [1,1,28,28] -> Conv 32 3x3 pad 1 -> Relu -> AveragePool 2x2 -> Conv 32 3x3 pad 1
             -> Relu -> AveragePool 2x2 -> Flatten -> Gemm 128 -> Relu -> Gemm 10  (784 -> 25088 -> 6272 -> 128 -> 10;
             the pooling folds into the next layer: 164 M dense weights)
  nn4sys     NN4Sys-like (a learned index: one key, 100 second-stage models side by side): [1,1] -> Gemm 6000 -> Relu
             -> Gemm 6000 block-diagonal (100 blocks of 60) -> Relu -> Gemm 1   (1 -> 6000 -> 6000 -> 1, 36 M weights)
  resnet     [1,3,32,32] -> Conv 8 3x3 stride 2 pad 1 -> Relu -> 2 residual blocks (Conv 8 3x3 pad 1 -> Relu -> Conv 8
             3x3 pad 1 -> Add of the block's input -> Relu) -> Flatten -> Gemm 10   (3072 -> 2048 x 5 -> 10)
  resnet16   a CIFAR-size 3-block ResNet: [1,3,32,32] -> Conv 16 3x3 pad 1 -> Relu -> 3 residual blocks as above
             (Conv 16) -> Flatten -> Gemm 10   (3072 -> 16384 x 7 -> 10; 16384 x 16384 dense layers would be 2.1 GB
             each)
  maxpool28  Convnet_maxpool-like: [1,1,28,28] -> Conv 16 3x3 pad 1 -> Relu -> MaxPool 2x2 -> Flatten -> Gemm 128
             -> Relu -> Gemm 10   (784 -> 12544 -> max pooling -> 128 -> 10)
Property (VNN-LIB): the box of radius 0.01 (conv32, conv8, resnet, resnet16) or 0.02 (avgpool28, maxpool28) around
a fixed point of [0,1]^d, unsafe when some Y_i >= Y_0 (written as the `or` of Y_0 <= Y_i); for nn4sys the key in [0, 1], unsafe when
Y_0 >= (its largest value at 1001 evenly spaced keys) + 0.01. `solve` runs on the same box (a domain JSON), maximizing output 0.
vgg16 (with --vgg DIR): bench/vgg_models.py's VGG16-shaped network DIR/vgg16.onnx and its property DIR/vgg16_p1.vnnlib
(one pixel free); `solve` runs on that property's box (every other input fixed).
Every command gets --threads 2 and 6 GB of address space (RLIMIT_AS); wall time is measured from the process's start to its
end.

    bench/deadline_conv.py --reluopt build/reluopt [--before /work/main/build/reluopt] [--limits 5 10]
        [--methods verify default enhanced ...] [--models avgpool28 nn4sys ...] [--vgg /tmp/vgg16]
        [--out bench/results/deadline_conv.md]
"""
import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "io"))
sys.path.insert(0, HERE)
from make_conv_fixtures import Net  # noqa: E402
from conv_models import write_float_model  # noqa: E402

METHODS = ["verify", "default", "sampling", "enhanced", "gradient", "walk", "bab", "mip", "mip-cuts", "partition"]


def block_gemm(net, blocks):
    """A Gemm of the current width onto itself whose weights are `blocks` dense blocks on the diagonal."""
    n = net.shape[1]
    size = n // blocks
    w = np.zeros((n, n))
    for k in range(blocks):
        part = slice(k * size, (k + 1) * size)
        w[part, part] = net.rng.uniform(-1, 1, (size, size)) / np.sqrt(size)
    b = net.rng.uniform(-0.2, 0.2, n)
    return net.node("Gemm", [net.const(w, "W"), net.const(b, "B")], lambda x: x @ w.T + b, [1, n], transB=1)


def residual_block(net, maps):
    """Conv -> Relu -> Conv -> Add of the block's input -> Relu (no reference forward pass: not needed here)."""
    skip = net.current
    net.conv(maps, (3, 3), pads=(1, 1, 1, 1)).relu().conv(maps, (3, 3), pads=(1, 1, 1, 1))
    net.node("Add", [skip], None, net.shape)
    return net.relu()


def maxpool(net):
    c, h, w = net.shape[1:]
    return net.node("MaxPool", [], None, [1, c, h // 2, w // 2], kernel_shape=[2, 2], strides=[2, 2])


def models():
    """name -> (Net, radius of the box); built on demand (avgpool28 takes seconds)."""
    same = dict(pads=(1, 1, 1, 1))
    return {
        "conv32": lambda: (Net([1, 3, 32, 32], 321).conv(32, (3, 3), **same).relu().flatten().gemm(10), 0.01),
        "conv8": lambda: (Net([1, 3, 32, 32], 322).conv(8, (3, 3), **same).relu().flatten().gemm(10), 0.01),
        "avgpool28": lambda: (Net([1, 1, 28, 28], 331).conv(32, (3, 3), **same).relu().avgpool((2, 2), (2, 2))
                              .conv(32, (3, 3), **same).relu().avgpool((2, 2), (2, 2)).flatten().gemm(128).relu()
                              .gemm(10), 0.02),
        "nn4sys": lambda: (block_gemm(Net([1, 1], 341).gemm(6000).relu(), 100).relu().gemm(1), 0.5),
        "resnet": lambda: (residual_block(residual_block(
            Net([1, 3, 32, 32], 351).conv(8, (3, 3), strides=(2, 2), pads=(1, 1, 1, 1)).relu(), 8), 8)
            .flatten().gemm(10), 0.01),
        "resnet16": lambda: (residual_block(residual_block(residual_block(
            Net([1, 3, 32, 32], 352).conv(16, (3, 3), pads=(1, 1, 1, 1)).relu(), 16), 16), 16).flatten().gemm(10),
            0.01),
        "maxpool28": lambda: (maxpool(Net([1, 1, 28, 28], 361).conv(16, (3, 3), **same).relu()).flatten().gemm(128)
                              .relu().gemm(10), 0.02),
    }


def write_problem(workdir, name, net, eps):
    """The VNN-LIB property and the domain JSON of the box around the model's centre."""
    inputs, outputs = int(np.prod(net.input_shape)), net.shape[1]
    center = np.full(inputs, 0.5) if inputs == 1 else np.random.default_rng(7).uniform(eps, 1 - eps, inputs)
    lo, hi = center - eps, center + eps
    lines = [f"(declare-const X_{i} Real)" for i in range(inputs)]
    lines += [f"(declare-const Y_{j} Real)" for j in range(outputs)]
    for i in range(inputs):
        lines += [f"(assert (>= X_{i} {lo[i]!r}))", f"(assert (<= X_{i} {hi[i]!r}))"]
    if outputs > 1:
        lines.append("(assert (or " + " ".join(f"(and (<= Y_0 Y_{j}))" for j in range(1, outputs)) + "))")
    else:
        keys = np.linspace(lo[0], hi[0], 1001).reshape(-1, 1)
        y0 = float(net.forward(keys).max())
        lines.append(f"(assert (>= Y_0 {y0 + 0.01!r}))")
    prop = os.path.join(workdir, name + ".vnnlib")
    with open(prop, "w") as f:
        f.write("\n".join(lines) + "\n")
    domain = os.path.join(workdir, name + "_box.json")
    with open(domain, "w") as f:
        json.dump({"lower": lo.tolist(), "upper": hi.tolist()}, f)
    return prop, domain


def vgg_problem(directory, workdir):
    """bench/vgg_models.py's VGG16 and its one-pixel property, with the domain JSON of the property's box."""
    prop = os.path.join(directory, "vgg16_p1.vnnlib")
    lower, upper = {}, {}
    with open(prop) as f:
        for line in f:
            parts = line.replace("(", " ").replace(")", " ").split()
            if len(parts) == 4 and parts[0] == "assert" and parts[2].startswith("X_"):
                (lower if parts[1] == ">=" else upper)[int(parts[2][2:])] = float(parts[3])
    domain = os.path.join(workdir, "vgg16_box.json")
    with open(domain, "w") as f:
        json.dump({"lower": [lower[i] for i in range(len(lower))],
                   "upper": [upper[i] for i in range(len(upper))]}, f)
    return os.path.join(directory, "vgg16.onnx"), prop, domain


def command(binary, method, model, prop, domain, limit):
    if method == "verify":
        return [binary, "verify", model, prop, "--time-limit", str(limit), "--threads", "2", "--quiet"]
    cmd = [binary, "solve", model, "--domain", domain, "--time-limit", str(limit), "--threads", "2", "--quiet"]
    return cmd + ([] if method == "default" else ["--method", method])


ADDRESS_SPACE = 6 * 1000 ** 3  # the machine is shared: a run past it would have the OOM killer take other processes


def cap_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run(cmd, term_after=None, cap=120):
    """Wall seconds to the process's end, seconds to the last byte of its answer on stdout, exit code, the first
    line of stdout, peak resident MB, and with term_after (SIGTERM then) the seconds from the signal to the end.
    A process frees its memory as it ends, at about 1 s per GB on this machine under load, so the two times
    differ by that much on the large models."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=cap_memory)
    chunks = {"out": [], "err": []}
    last_out = [None]

    def drain(stream, key):
        # Reading while the command runs: a counterexample of 3072 inputs fills a pipe that nobody reads.
        for chunk in iter(lambda: stream.read1(65536), b""):
            chunks[key].append(chunk)
            if key == "out":
                last_out[0] = time.monotonic() - start
    readers = [threading.Thread(target=drain, args=(proc.stdout, "out")),
               threading.Thread(target=drain, args=(proc.stderr, "err"))]
    for reader in readers:
        reader.start()
    after_term = None
    code, usage = None, None
    while code is None:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            code = os.waitstatus_to_exitcode(status)
            break
        now = time.monotonic() - start
        if term_after is not None and after_term is None and now >= term_after:
            proc.send_signal(signal.SIGTERM)
            after_term = now
        if now > cap + (term_after or 0):
            proc.kill()
        time.sleep(0.01)
    wall = time.monotonic() - start
    proc.returncode = code
    for reader in readers:
        reader.join()
    out = b"".join(chunks["out"]).decode(errors="replace")
    err = b"".join(chunks["err"]).decode(errors="replace")
    # verify's answer is its first line; solve's is its status line
    lines = out.strip().splitlines()
    status = [line.split(None, 1)[1] for line in lines if line.strip().startswith("status")]
    first = (status or lines or err.strip().splitlines() or [""])[0]
    answer = last_out[0] if last_out[0] is not None else wall
    return {"wall": wall, "answer": answer, "code": code, "first": first[:60], "mb": usage.ru_maxrss / 1024,
            "after_term": None if after_term is None else wall - after_term}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reluopt", default="build/reluopt")
    parser.add_argument("--before", help="a second binary (main's), measured on the same commands")
    parser.add_argument("--limits", nargs="+", type=float, default=[5, 10])
    parser.add_argument("--methods", nargs="+", default=METHODS)
    parser.add_argument("--models", nargs="+", default=["conv32", "resnet", "maxpool28", "nn4sys", "avgpool28"])
    parser.add_argument("--term-after", type=float, default=3.0)
    parser.add_argument("--no-term", action="store_true", help="skip the SIGTERM runs")
    parser.add_argument("--vgg", help="a directory of bench/vgg_models.py's files: adds the model vgg16")
    parser.add_argument("--workdir", default="/tmp/reluopt_deadline_conv")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "deadline_conv.md"))
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    binaries = ([("before", args.before)] if args.before else []) + [("after", args.reluopt)]
    rows = []
    for name in args.models + (["vgg16"] if args.vgg else []):
        if name == "vgg16":
            path, prop, domain = vgg_problem(args.vgg, args.workdir)
        else:
            net, eps = models()[name]()
            path = os.path.join(args.workdir, name + ".onnx")
            if not os.path.exists(path):  # the models are fixed by their seeds: a file of an earlier run is the same
                write_float_model(net, path)
            prop, domain = write_problem(args.workdir, name, net, eps)
        for method in args.methods:
            for limit in args.limits:
                row = {"model": name, "method": method, "limit": limit, "load": os.getloadavg()[0]}
                for label, binary in binaries:
                    row[label] = run(command(binary, method, path, prop, domain, limit))
                    print(name, method, limit, label, describe(row[label]), flush=True)
                rows.append(row)
            if args.no_term:
                continue
            row = {"model": name, "method": method, "limit": f"SIGTERM at {args.term_after:g} s",
                   "load": os.getloadavg()[0]}
            for label, binary in binaries:
                row[label] = run(command(binary, method, path, prop, domain, 60), args.term_after)
                print(name, method, "term", label, describe(row[label]), flush=True)
            rows.append(row)
    write_table(args, rows, [label for label, _ in binaries])


def describe(r):
    """A run's cells: wall s | answer s | peak MB | result."""
    result = r["first"] if r["code"] == 0 else f"exit {r['code']}: {r['first']}"
    if r["after_term"] is not None:
        result += f" ({r['after_term']:.2f} s after the signal)"
    return f"{r['wall']:.2f} | {r['answer']:.2f} | {r['mb']:.0f} | {result}"


def write_table(args, rows, labels):
    head = "| model | method | limit s | load | " + " | ".join(
        f"wall s {label} | answer s {label} | peak MB {label} | result {label}" for label in labels) + " |"
    lines = [head, "|" + "---|" * (4 + 4 * len(labels))]
    for r in rows:
        lines.append(f"| {r['model']} | {r['method']} | {r['limit']} | {r['load']:.1f} | " +
                     " | ".join(describe(r[label]) for label in labels) + " |")
    summary = []
    for label in labels:
        timed = [r for r in rows if not isinstance(r["limit"], str)]
        for key, what in (("wall", "ended"), ("answer", "answered")):
            late = [(r[label][key] - r["limit"], r) for r in timed]
            over = [t for t in late if t[0] > 1.0]
            worst = max(late, key=lambda t: t[0], default=None)
            if worst:
                summary.append(f"- {label}: {len(over)} of {len(timed)} timed runs {what} more than 1 s past their "
                               f"limit; the latest {worst[0]:+.2f} s ({worst[1]['model']} {worst[1]['method']} at "
                               f"{worst[1]['limit']:g} s).")
    load = os.getloadavg()
    text = (f"# Time limits on large models\n\n`{' '.join(sys.argv)}` (load average at the end "
            f"{load[0]:.1f}, {os.cpu_count()} cores).\n\n" + "\n".join(summary) + "\n\n" + "\n".join(lines) + "\n")
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
