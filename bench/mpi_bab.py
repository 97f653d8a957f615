#!/usr/bin/python3
"""The branch and bound (bab) over MPI ranks against threads, in the same run:

    1 x 1   reluopt solve ... --method bab --threads 1                   (no mpirun)
    1 x 2   reluopt solve ... --method bab --threads 2                   (one process of two threads)
    2 x 1   mpirun -n 2 reluopt solve ... --method bab --threads 1       (two processes of one thread)

on each network, the three interleaved, --rounds times. Nodes per second are the nodes of every process over
the run's own `seconds` (after the model is read); the time to proof is `seconds` of a run that ends
`completed` (proven optimal); the share of time in communication is the lead's `communication_seconds` (the comm
thread inside MPI calls, and waiting for the others' tallies) over its `seconds`. The script checks that every
configuration proves the same optimum.

Writes bench/results/mpi_bab.json and the section "Branch and bound over ranks" of bench/results/mpi.md (the
rest of that file is bench/mpi_scaling.py's).

    /usr/bin/python3 bench/mpi_bab.py [--reluopt build/reluopt] [--rounds 3] [--rewrite]
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import netgen  # noqa: E402
from mpi_scaling import BAB_SECTION as SECTION, mpirun, run  # noqa: E402

CONFIGS = {"1x1": ([], 1), "1x2": ([], 2), "2x1": (mpirun(2), 1)}


def measure(binary, name, model, limit, rounds, tmp):
    rows = {key: [] for key in CONFIGS}
    for r in range(rounds):
        for key, (prefix, threads) in CONFIGS.items():
            flags = ["--method", "bab", "--threads", str(threads), "--time-limit", str(limit)]
            rows[key].append(run(prefix, binary, model, flags, os.path.join(tmp, f"{name}_{key}_{r}.json")))
    optima = [row["objective"] for runs in rows.values() for row in runs if row["stopped_by"] == "completed"]
    if optima and max(optima) - min(optima) > 1e-6 * max(1.0, abs(max(optima))):
        raise SystemExit(f"{name}: the configurations proved different optima {optima}")
    summary = {}
    for key, runs in rows.items():
        proven = [row["seconds"] for row in runs if row["stopped_by"] == "completed"]
        summary[key] = {
            "nodes_per_second": statistics.median(row["nodes"] / row["seconds"] for row in runs),
            "nodes": statistics.median(row["nodes"] for row in runs),
            "proofs": len(proven),
            "time_to_proof": statistics.median(proven) if proven else None,
            "wall": statistics.median(row["wall"] for row in runs),
            "nodes_per_cpu_second": statistics.median(row["nodes"] / row["cpu"] for row in runs),
            "cpus": statistics.median(row["cpu"] / row["wall"] for row in runs),
            "communication_share": statistics.median(row.get("communication_seconds", 0.0) / row["seconds"]
                                                     for row in runs),
            "runs": [{k: row.get(k) for k in ("nodes", "lps", "seconds", "wall", "cpu", "objective", "bound",
                                               "stopped_by")} for row in runs],
        }
    return summary


def section(results):
    lines = [SECTION, "",
             f"`{results['command']}` ({results['date']}), commit {results['commit']}, {results['cores']} cores, "
             f"load average {results['load_before']} before and {results['load_after']} after. Medians of the "
             "rounds, the three configurations interleaved. Nodes/s count the nodes of every process over the run's "
             "own seconds; time to proof is the seconds of the runs that proved the optimum (how many of them in "
             "parentheses); communication is the lead's time inside MPI calls and waiting for the others' tallies, "
             "over its seconds. Open nodes move between the ranks through a coordinator on rank 0 "
             "(src/algorithms/bab_share.h), so the two ranks do not explore the same tree as the two threads: the "
             "node counts differ.", "",
             "Nodes per CPU second divide by the CPU time of every process of the command (mpirun's included), "
             "from getrusage of the children: on a machine shared with other jobs the scheduler decides how much CPU "
             "each configuration gets per wall second (CPUs: CPU seconds per wall second), and nodes per CPU second "
             "compare the work itself.", "",
             "| network | config | nodes/s | ratio to 1x1 | nodes | time to proof | wall | CPUs | nodes per CPU s | "
             "communication |", "|---|---|---|---|---|---|---|---|---|---|"]
    for net in results["networks"]:
        base = net["configs"]["1x1"]["nodes_per_second"]
        for key, row in net["configs"].items():
            proof = f"{row['time_to_proof']:.2f} s ({row['proofs']})" if row["time_to_proof"] is not None else "none"
            lines.append(f"| {net['name']} | {key} | {row['nodes_per_second']:.0f} | "
                         f"{row['nodes_per_second'] / base:.2f} | {row['nodes']:.0f} | {proof} | {row['wall']:.2f} | "
                         f"{row['cpus']:.2f} | {row['nodes_per_cpu_second']:.0f} | {100 * row['communication_share']:.2f}% |")
    return "\n".join(lines) + "\n"


def write(results, path_md, path_json):
    with open(path_json, "w") as f:
        json.dump(results, f, indent=1)
    text = open(path_md).read() if os.path.exists(path_md) else ""
    if SECTION in text:
        text = text[:text.index(SECTION)]
    with open(path_md, "w") as f:
        f.write(text.rstrip("\n") + "\n\n" + section(results))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reluopt", default=os.path.join(REPO, "build", "reluopt"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rewrite", action="store_true", help="write mpi.md again from mpi_bab.json, no runs")
    args = parser.parse_args()
    out = os.path.join(HERE, "results")
    if args.rewrite:
        results = json.load(open(os.path.join(out, "mpi_bab.json")))
        for net in results["networks"]:
            for row in net["configs"].values():
                row["cpus"] = statistics.median(run["cpu"] / run["wall"] for run in row["runs"])
                row["nodes_per_cpu_second"] = statistics.median(run["nodes"] / run["cpu"] for run in row["runs"])
        return write(results, os.path.join(out, "mpi.md"), os.path.join(out, "mpi_bab.json"))
    results = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
               "command": "bench/mpi_bab.py " + " ".join(sys.argv[1:]),
               "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                        text=True).stdout.strip(),
               "cores": os.cpu_count(), "load_before": round(os.getloadavg()[0], 1), "networks": []}
    with tempfile.TemporaryDirectory(prefix="reluopt_mpi_bab_") as tmp:
        networks = []
        for d, hidden, seed, limit in ((8, [30, 30], 3, 60), (10, [32, 32], 1, 90)):
            path = os.path.join(tmp, f"net_{d}_{seed}.onnx")
            netgen.write_onnx(netgen.make_network(d, hidden, seed=seed), path)
            networks.append((f"{d} -> {'x'.join(map(str, hidden))} -> 1 (seed {seed}), [0,1]^{d}", [path], limit))
        for name, model, limit in networks:
            configs = measure(args.reluopt, name.split()[0], model, limit, args.rounds, tmp)
            results["networks"].append({"name": name, "time_limit": limit, "configs": configs})
    results["load_after"] = round(os.getloadavg()[0], 1)
    write(results, os.path.join(out, "mpi.md"), os.path.join(out, "mpi_bab.json"))
    print(section(results))


if __name__ == "__main__":
    main()
