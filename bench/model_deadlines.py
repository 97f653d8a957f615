#!/usr/bin/env python3
"""Time limits, Ctrl-C and --quiet on models around networks (`reluopt solve --problem`).

    python bench/model_deadlines.py --reluopt build/reluopt [--parts limits sigint quiet] [--limits 5 10]
        [--problems pricing_s4 process_s4 design_s4 big_pricing big_residual] [--methods ...]
        [--signal-after 3] [--workdir DIR]

Problems: examples/models/*/*_s4.json, and two generated here (fixed seeds, needs onnx):
  big_pricing    60 variables (20 integer in [0, 9]), two bench/netgen.py networks 60 -> 256 x 3 -> 2 on them, a
                 risk row on the second, an equality tying a continuous variable to a sum of others, max.
  big_residual   40 continuous variables, one 40 -> 512 -> (512 + residual) -> max pool -> 2 graph network
                 (bench/model_probe.py's GraphNet), a row on output 1, min.
Part `limits`: every method x problem x limit, `--time-limit T --threads 2 --quiet --json OUT`; wall time from the
process's start, status, value, bound; a run is late when it ends more than 1 s after T.
Part `sigint`: every method x problem without a limit, SIGINT after --signal-after s: the time to the exit, the exit
code, whether the JSON was written with `stopped_by: interrupted` and the incumbent (`variables`) when there is one.
Part `quiet`: each problem once with stderr on a pseudo-terminal, with and without --quiet, --time-limit 3: the bytes
of progress on stderr.
"""
import argparse
import json
import os
import pty
import signal
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
METHODS = ["enhanced", "sampling", "mip", "mip-cuts", "partition", "bab", "gradient", "walk"]


def make_big_pricing(workdir):
    from netgen import make_network, write_onnx
    path = os.path.join(workdir, "big_pricing.json")
    for k, seed in ((0, 61), (1, 62)):
        write_onnx(make_network(60, [256, 256, 256], seed, outputs=2), os.path.join(workdir, "bigp_f%d.onnx" % k))
    model = {"sense": "max",
             "variables": [{"name": "p", "lower": 0, "upper": 9, "size": 20, "integer": True},
                           {"name": "s", "lower": 0, "upper": 1, "size": 40}],
             "networks": [{"name": "demand", "model": "bigp_f0.onnx", "input": ["p[%d]" % i for i in range(20)] +
                           ["s[%d]" % i for i in range(40)]},
                          {"name": "risk", "model": "bigp_f1.onnx", "input": ["p[%d]" % i for i in range(20)] +
                           ["s[%d]" % i for i in range(40)]}],
             "constraints": [{"name": "risk", "terms": {"risk[0]": 1.0}, "<=": 0.3},
                             {"name": "balance", "terms": dict({"s[0]": 1.0}, **{"s[%d]" % i: -0.05
                                                                                  for i in range(1, 11)}), "==": 0.2}],
             "objective": {"terms": {"demand[0]": 1.0, "demand[1]": 0.5, "s[3]": -0.1}}}
    with open(path, "w") as f:
        json.dump(model, f)
    return path


def make_big_residual(workdir):
    from model_probe import GraphNet, gemm
    rng = np.random.default_rng(71)
    net = GraphNet(40)
    h = net.add("relu", gemm(net, rng, "x", 512))
    h = net.add("add", h, net.add("relu", gemm(net, rng, h, 512)))
    h = net.add("maxpool", gemm(net, rng, h, 2 * 8 * 8), 2, 8, 8, 2, 2)
    gemm(net, rng, h, 2)
    net.write_onnx(os.path.join(workdir, "bigr_f0.onnx"))
    path = os.path.join(workdir, "big_residual.json")
    model = {"sense": "min", "variables": [{"name": "x", "lower": -1, "upper": 1, "size": 40}],
             "networks": [{"name": "f", "model": "bigr_f0.onnx", "input": "x"}],
             "constraints": [{"terms": {"f[1]": 1.0}, ">=": float(net.forward(np.zeros(40))[1]) - 0.1}],
             "objective": {"terms": {"f[0]": 1.0}}}
    with open(path, "w") as f:
        json.dump(model, f)
    return path


def problem_paths(names, workdir):
    paths = {}
    for name in names:
        if name == "big_pricing":
            paths[name] = make_big_pricing(workdir)
        elif name == "big_residual":
            paths[name] = make_big_residual(workdir)
        else:
            family = name.split("_")[0]
            paths[name] = os.path.join(ROOT, "examples", "models", family, name + ".json")
    return paths


def load():
    return os.getloadavg()[0]


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def run_limit(args, path, method, limit, out):
    cmd = [args.reluopt, "solve", "--problem", path, "--method", method, "--time-limit", str(limit), "--threads", "2",
           "--quiet", "--json", out]
    ld, start = load(), time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit + 120)
    wall = time.monotonic() - start
    res = read_json(out) or {}
    return {"wall": wall, "load": ld, "rc": proc.returncode, "status": res.get("status"),
            "objective": res.get("objective"), "bound": res.get("bound"), "stopped_by": res.get("stopped_by"),
            "error": proc.stderr.strip()[-200:] if proc.returncode else ""}


def run_sigint(args, path, method, out):
    cmd = [args.reluopt, "solve", "--problem", path, "--method", method, "--threads", "2", "--quiet", "--json", out]
    if method in ("sampling", "gradient", "walk", "enhanced"):
        cmd += ["--samples", "100000000"]
    ld = load()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(args.signal_after)
    sent = time.monotonic()
    if proc.poll() is not None:
        return {"load": ld, "exit_after": None, "rc": proc.returncode, "note": "ended before the signal"}
    proc.send_signal(signal.SIGINT)
    try:
        stdout, stderr = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        return {"load": ld, "exit_after": None, "rc": None, "note": "killed 30 s after SIGINT"}
    after = time.monotonic() - sent
    res = read_json(out) or {}
    return {"load": ld, "exit_after": after, "rc": proc.returncode, "status": res.get("status"),
            "stopped_by": res.get("stopped_by"), "objective": res.get("objective"),
            "has_point": bool(res.get("variables")), "json": bool(res), "stdout_bytes": len(stdout),
            "error": stderr.strip()[-200:] if proc.returncode else ""}


def run_quiet(args, path, quiet):
    cmd = [args.reluopt, "solve", "--problem", path, "--time-limit", "3", "--threads", "2"] + (["--quiet"] if quiet
                                                                                               else [])
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    proc.wait()
    os.close(master)
    return {"bytes": len(data), "carriage_returns": data.count(b"\r"), "rc": proc.returncode}


def header(*columns):
    print("\n| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))


def part_limits(args, paths):
    """The limits table; the number of late runs."""
    late = 0
    header("problem", "method", "limit s", "load", "wall s", "late", "status", "objective", "bound")
    for name, path in paths.items():
        for limit in args.limits:
            for method in args.methods:
                r = run_limit(args, path, method, limit, os.path.join(args.workdir, "%s_%s_%g.json" % (name, method,
                                                                                                       limit)))
                over = r["wall"] > limit + 1.0
                late += over
                print("| %s | %s | %g | %.1f | %.2f | %s | %s | %s | %s |%s" % (
                    name, method, limit, r["load"], r["wall"], "LATE" if over else "", r["status"], r["objective"],
                    r["bound"], " " + r["error"] if r["error"] else ""), flush=True)
    return late


def part_sigint(args, paths):
    """The SIGINT table; the number of runs that did not end within 1 s with their result JSON."""
    bad = 0
    header("problem", "method", "load", "exit after SIGINT s", "rc", "json", "stopped_by", "status", "point")
    for name, path in paths.items():
        for method in args.methods:
            out = os.path.join(args.workdir, "%s_%s_sigint.json" % (name, method))
            if os.path.exists(out):
                os.remove(out)
            r = run_sigint(args, path, method, out)
            after = r.get("exit_after")
            ok = after is not None and after <= 1.0 and r.get("json") and r.get("stopped_by") == "interrupted"
            bad += not ok
            print("| %s | %s | %.1f | %s | %s | %s | %s | %s | %s |%s" % (
                name, method, r["load"], "%.2f" % after if after is not None else "-", r.get("rc"), r.get("json"),
                r.get("stopped_by"), r.get("status"), r.get("has_point"),
                "" if ok else " " + (r.get("note") or r.get("error") or "")), flush=True)
    return bad


def part_quiet(args, paths):
    """The --quiet table; the number of quiet runs that wrote to the terminal."""
    bad = 0
    header("problem", "--quiet", "stderr bytes on a terminal", "progress updates (\\r)", "rc")
    for name, path in paths.items():
        for quiet in (False, True):
            r = run_quiet(args, path, quiet)
            bad += quiet and r["bytes"] > 0
            print("| %s | %s | %d | %d | %d |" % (name, quiet, r["bytes"], r["carriage_returns"], r["rc"]), flush=True)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reluopt", default=os.path.join(ROOT, "build", "reluopt"))
    ap.add_argument("--parts", nargs="+", default=["limits", "sigint", "quiet"])
    ap.add_argument("--limits", nargs="+", type=float, default=[5, 10])
    ap.add_argument("--problems", nargs="+",
                    default=["pricing_s4", "process_s4", "design_s4", "big_pricing", "big_residual"])
    ap.add_argument("--methods", nargs="+", default=METHODS)
    ap.add_argument("--signal-after", type=float, default=3.0)
    ap.add_argument("--workdir", default="/tmp/reluopt_model_deadlines")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    paths = problem_paths(args.problems, args.workdir)
    late = part_limits(args, paths) if "limits" in args.parts else 0
    bad = part_sigint(args, paths) if "sigint" in args.parts else 0
    bad += part_quiet(args, paths) if "quiet" in args.parts else 0
    print("\n%d late runs, %d other failures" % (late, bad))
    return 1 if late or bad else 0


if __name__ == "__main__":
    sys.exit(main())
