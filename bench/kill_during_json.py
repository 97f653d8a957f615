#!/usr/bin/python3
"""SIGKILL a `reluopt solve --json` run near the moment it writes its JSON, many times, and count what the file is
afterwards: the previous complete result, the new complete result, or a partial file (invalid JSON). Run it on
two binaries to compare an in-place write with the atomic one (src/io/output_file.cc).

The result file starts as a complete JSON marked "old". A run writes a result with D coordinates (a D -> 2 -> 1
network, so the JSON is about 25 D bytes). Kill times are spread uniformly over [0.9, 1.05] of the median
duration of 5 unkilled runs (--window), where the write happens (the run itself takes milliseconds; loading the model takes
most of the time).

Usage: kill_during_json.py BINARY [BINARY ...] [--kills 100] [--dim 4000] [--window 0.9 1.05] [--out FILE.md]
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cli"))
sys.argv, _argv = sys.argv[:1] + ["", "", ""], sys.argv  # cli_test reads its own arguments on import
from cli_test import write_gemm_onnx, xavier_layers  # noqa: E402

sys.argv = _argv


def classify(path, dim):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return "partial"
    except FileNotFoundError:
        return "missing"
    if doc.get("marker") == "old":
        return "old"
    return "new" if len(doc.get("x", [])) == dim else "partial"


def run_kills(binary, model, directory, dim, kills, seed, window):
    target = os.path.join(directory, "result.json")
    command = [binary, "solve", model, "--method", "sampling", "--samples", "2", "--threads", "1", "--quiet",
               "--json", target]
    durations = []
    for _ in range(5):
        start = time.monotonic()
        subprocess.run(command, capture_output=True, check=True)
        durations.append(time.monotonic() - start)
    duration = statistics.median(durations)
    rng = random.Random(seed)
    counts = {"old": 0, "new": 0, "partial": 0, "missing": 0}
    for _ in range(kills):
        with open(target, "w") as f:
            json.dump({"marker": "old"}, f)
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(*window) * duration)
        proc.kill()
        proc.wait()
        counts[classify(target, dim)] += 1
    leftovers = [name for name in os.listdir(directory) if name.startswith(".result.json.")]
    for name in leftovers:
        os.remove(os.path.join(directory, name))
    return duration, counts, len(leftovers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--dim", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--window", type=float, nargs=2, default=[0.9, 1.05], help="kill times, x median duration")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    lines = [f"SIGKILL near the JSON write: {args.kills} kills per binary, D = {args.dim}, seed {args.seed}, kill at "
             f"U({args.window[0]}, {args.window[1]}) x the median run", "",
             "| binary | median run (s) | old file intact | new file complete | partial | missing | stray temporaries |",
             "|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as directory:
        model = os.path.join(directory, "wide.onnx")
        write_gemm_onnx(xavier_layers([args.dim, 2, 1], seed=5), model)
        for binary in args.binaries:
            duration, counts, leftovers = run_kills(binary, model, directory, args.dim, args.kills, args.seed,
                                                        args.window)
            lines.append(f"| `{binary}` | {duration:.3f} | {counts['old']} | {counts['new']} | {counts['partial']} | "
                         f"{counts['missing']} | {leftovers} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
