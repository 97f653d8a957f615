#!/usr/bin/python3
"""Wall time against --time-limit on CIFAR-size convolutions, per method, and the time a SIGTERM takes to end a run.

Models (random FLOAT weights, fixed seeds, built with tests/io/make_conv_fixtures.py's Net):
  conv32  [1,3,32,32] -> Conv 32 3x3 pad 1 -> Relu -> Flatten -> Gemm 10   (3072 -> 32768 -> 10)
  conv8   [1,3,32,32] -> Conv 8 3x3 pad 1  -> Relu -> Flatten -> Gemm 10   (3072 -> 8192 -> 10)
Property (VNN-LIB): the box of radius 0.01 around a fixed point of [0,1]^3072, unsafe when some Y_i >= Y_0
(written as the `or` of Y_0 <= Y_i). `solve` runs on the same box (a domain JSON), maximizing output 0.
Every command gets --threads 2 and 10 GB of address space; wall time is measured from the process's start to its
end.

    bench/deadline_conv.py --reluopt build/reluopt [--before /work/main/build/reluopt] [--limits 5 10]
        [--methods verify default enhanced mip bab sampling walk gradient] [--out bench/results/deadline_conv.md]
"""
import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "io"))
sys.path.insert(0, HERE)
from make_conv_fixtures import Net  # noqa: E402
from conv_models import write_float_model  # noqa: E402

EPS = 0.01


def models():
    return {"conv32": Net([1, 3, 32, 32], 321).conv(32, (3, 3), pads=(1, 1, 1, 1)).relu().flatten().gemm(10),
            "conv8": Net([1, 3, 32, 32], 322).conv(8, (3, 3), pads=(1, 1, 1, 1)).relu().flatten().gemm(10)}


def write_problem(workdir, outputs=10, inputs=3072):
    """The VNN-LIB property and the domain JSON of the same box."""
    center = np.random.default_rng(7).uniform(EPS, 1 - EPS, inputs)
    lo, hi = center - EPS, center + EPS
    lines = [f"(declare-const X_{i} Real)" for i in range(inputs)]
    lines += [f"(declare-const Y_{j} Real)" for j in range(outputs)]
    for i in range(inputs):
        lines += [f"(assert (>= X_{i} {lo[i]!r}))", f"(assert (<= X_{i} {hi[i]!r}))"]
    lines.append("(assert (or " + " ".join(f"(and (<= Y_0 Y_{j}))" for j in range(1, outputs)) + "))")
    prop = os.path.join(workdir, "robust.vnnlib")
    with open(prop, "w") as f:
        f.write("\n".join(lines) + "\n")
    domain = os.path.join(workdir, "box.json")
    with open(domain, "w") as f:
        json.dump({"type": "box", "lower": lo.tolist(), "upper": hi.tolist()}, f)
    return prop, domain


def command(binary, method, model, prop, domain, limit):
    if method == "verify":
        return [binary, "verify", model, prop, "--time-limit", str(limit), "--threads", "2", "--quiet"]
    cmd = [binary, "solve", model, "--domain", domain, "--time-limit", str(limit), "--threads", "2", "--quiet"]
    return cmd + ([] if method == "default" else ["--method", method])


ADDRESS_SPACE = 10 * 1000 ** 3  # main's reader needs 26 GB for conv32: the OOM killer would take other processes


def cap_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run(cmd, term_after=None, cap=120):
    """Wall seconds, exit code and the first line of stdout; with term_after, SIGTERM then, and the seconds from
    the signal to the end."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=cap_memory)
    after_term = None
    try:
        # communicate() reads while it waits: a counterexample of 3072 inputs fills a pipe that nobody reads.
        try:
            out, err = proc.communicate(timeout=term_after if term_after is not None else cap)
        except subprocess.TimeoutExpired:
            if term_after is None:
                raise
            proc.send_signal(signal.SIGTERM)
            sent = time.monotonic()
            out, err = proc.communicate(timeout=cap)
            after_term = time.monotonic() - sent
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    wall = time.monotonic() - start
    # verify's answer is its first line; solve's is its status line
    lines = out.strip().splitlines()
    status = [line.split(None, 1)[1] for line in lines if line.strip().startswith("status")]
    first = (status or lines or err.strip().splitlines() or [""])[0]
    return wall, proc.returncode, first[:60], after_term


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reluopt", default="build/reluopt")
    parser.add_argument("--before", help="a second binary (main's), measured on the same commands")
    parser.add_argument("--limits", nargs="+", type=float, default=[5, 10])
    parser.add_argument("--methods", nargs="+",
                        default=["verify", "default", "enhanced", "mip", "bab", "sampling", "walk", "gradient"])
    parser.add_argument("--models", nargs="+", default=["conv32", "conv8"])
    parser.add_argument("--term-after", type=float, default=3.0)
    parser.add_argument("--workdir", default="/tmp/reluopt_deadline_conv")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "deadline_conv.md"))
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    prop, domain = write_problem(args.workdir)
    binaries = ([("before", args.before)] if args.before else []) + [("after", args.reluopt)]
    rows = []
    for name, net in models().items():
        if name not in args.models:
            continue
        path = os.path.join(args.workdir, name + ".onnx")
        write_float_model(net, path)
        for method in args.methods:
            for limit in args.limits:
                row = {"model": name, "method": method, "limit": limit}
                for label, binary in binaries:
                    wall, code, first, _ = run(command(binary, method, path, prop, domain, limit))
                    row[label] = (wall, code, first)
                    print(name, method, limit, label, f"{wall:.2f}", code, first, flush=True)
                rows.append(row)
            row = {"model": name, "method": method, "limit": f"SIGTERM at {args.term_after:g} s"}
            for label, binary in binaries:
                wall, code, first, after = run(command(binary, method, path, prop, domain, 60), args.term_after)
                row[label] = (wall, code, first if after is None else f"{first} ({after:.2f} s after the signal)")
                print(name, method, "term", label, f"{wall:.2f}", code, row[label][2], flush=True)
            rows.append(row)
    write_table(args, rows, [label for label, _ in binaries])


def write_table(args, rows, labels):
    head = "| model | method | limit s | " + " | ".join(f"wall s {label} | result {label}" for label in labels) + " |"
    lines = [head, "|" + "---|" * (3 + 2 * len(labels))]
    for r in rows:
        cells = [f"{r[label][0]:.2f} | {r[label][2] if r[label][1] == 0 else 'exit %d: %s' % (r[label][1], r[label][2])}"
                 for label in labels]
        lines.append(f"| {r['model']} | {r['method']} | {r['limit']} | " + " | ".join(cells) + " |")
    load = os.getloadavg()
    text = (f"# Time limits on CIFAR-size convolutions\n\n`{' '.join(sys.argv)}` (load average at the end "
            f"{load[0]:.1f}, {os.cpu_count()} cores).\n\n" + "\n".join(lines) + "\n")
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
