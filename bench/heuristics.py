#!/usr/bin/python3
"""The heuristics side by side on networks of the relaxing-walk paper's sizes (Tong, Cai & Serra 2024).

Networks (bench/netgen.py, Xavier, [0,1]^d, maximise output 0; seeds 1-4):
  20 -> 1x100, 10 -> 2x500, 100 -> 3x500, 1000 -> 3x100
Methods: gradient, walk, sampling, enhanced (--mip-share 0: Algorithm 2 alone, no prover), each with
`--time-limit T --threads 2 --seed 1 --quiet --json OUT` and sample counts (walk: rounds) that only the time
limit ends. Reports the value, the counts of each method's
work and the value relative to the best of the four on that network.

    bench/heuristics.py --reluopt build/reluopt [--time-limit 10] [--out heuristics]
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netgen  # noqa: E402
from acceptance_common import make_meta, meta_table, RESULTS, write_json  # noqa: E402
from bench_sampling import binary_meta, resolve_binary  # noqa: E402

NETWORKS = [("20_1x100", 20, [100], 1), ("10_2x500", 10, [500] * 2, 2), ("100_3x500", 100, [500] * 3, 3),
            ("1000_3x100", 1000, [100] * 3, 4)]
# Every method runs until the time limit: sample counts and walk rounds far beyond what 10 s allows.
UNBOUNDED = ["--samples", "1000000000"]
METHODS = {"gradient": UNBOUNDED, "walk": UNBOUNDED + ["--walk-iterations", "1000000000"], "sampling": UNBOUNDED,
           "enhanced": UNBOUNDED + ["--mip-share", "0"]}


def solve(reluopt, path, method, limit, out):
    cmd = [reluopt, "solve", path, "--method", method, *METHODS[method], "--time-limit", str(limit), "--threads", "2",
           "--seed", "1", "--quiet", "--json", out]
    start = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.monotonic() - start
    with open(out) as f:
        r = json.load(f)
    return {"method": method, "wall": wall, "value": r["objective"], "samples": r["samples"], "lps": r["lps"],
            "gradient_steps": r.get("gradient_steps"), "perturbations": r.get("perturbations"), "walks": r.get("walks"),
            "local_searches": r["local_searches"], "load_average": os.getloadavg()[0]}


def report(meta, rows, path):
    lines = ["# Heuristics on the relaxing-walk paper's network sizes", "", *meta_table(meta), "",
             "Value: the objective at the reported point (a forward pass). Behind: (best - value) / |best|, best of the",
             "four on that network (0: the best). Work: samples and LPs; gradient steps and perturbations; walks;",
             "local searches. Load: the 1-minute load average after the run (2 cores).", "",
             "| network | method | value | behind | wall s | work | load |", "|---|---|---:|---:|---:|---|---:|"]
    for net in dict.fromkeys(r["network"] for r in rows):
        group = [r for r in rows if r["network"] == net]
        best = max(r["value"] for r in group)
        for r in group:
            work = f"{r['samples']} samples, {r['lps']} LPs"
            if r["method"] == "gradient":
                work += f", {r['gradient_steps']} steps, {r['perturbations']} perturbations"
            if r["method"] == "walk":
                work += f", {r['walks']} walks"
            if r["method"] == "enhanced":
                work += f", {r['local_searches']} local searches"
            lines.append(f"| {net} | {r['method']} | {r['value']:.6g} | {(best - r['value']) / max(abs(best), 1e-9):.3f} | {r['wall']:.2f} | "
                         f"{work} | {r['load_average']:.1f} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reluopt", required=True)
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--workdir", default="/tmp/reluopt_heuristics")
    ap.add_argument("--out", default="heuristics")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    a.reluopt = resolve_binary(a.reluopt)
    meta = make_meta("heuristics.py", sys.argv[1:])
    meta.update(**binary_meta(a.reluopt))
    rows = []
    for name, d, hidden, seed in NETWORKS:
        path = netgen.cached_onnx(a.workdir, name, d, hidden, seed)
        for method in METHODS:
            row = solve(a.reluopt, path, method, a.time_limit, os.path.join(a.workdir, f"{name}_{method}.json"))
            row["network"] = name
            rows.append(row)
            print(f"{name:12s} {method:9s} {row['value']:.6g} ({row['wall']:.2f} s)", flush=True)
    write_json(os.path.join(RESULTS, a.out + ".json"), {"meta": meta, "rows": rows})
    report(meta, rows, os.path.join(RESULTS, a.out + ".md"))


if __name__ == "__main__":
    main()
