#!/usr/bin/python3
"""Samples per second of one sampling run spread over MPI ranks, against threads, in the same run:

    1 x 1   reluopt solve ... --threads 1                   (no mpirun)
    2 x 1   mpirun -n 2 reluopt solve ... --threads 1       (two processes of one thread)
    1 x 2   reluopt solve ... --threads 2                   (one process of two threads)

on each network, the three interleaved, --rounds times, with the same seed and sample count (so the three find
the same point; the script checks it). Throughput is samples / the run's own `seconds` (after the model is
read); `wall` adds process start, MPI start and reading the model. The share of time in communication is the
lead's `communication_seconds` (inside MPI calls, and waiting for the others' tallies) over its `seconds`.
bench/mpi_pingpong.c (built here with mpicc) measures the message latency and bandwidth between two ranks;
with the per-sample cost of 1 x 1, they give the model of K ranks in the results.

Writes bench/results/mpi.{md,json} (keeping bench/mpi_bab.py's section of mpi.md).

    /usr/bin/python3 bench/mpi_scaling.py [--reluopt build/reluopt] [--rounds 3]
"""
import argparse
import datetime
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import netgen  # noqa: E402

# The comm thread's polling period (src/distributed/mpi_peers.cc): a message waits for it at both ends.
POLL_SECONDS = 0.002
BYTES_PER_VALUE = 16  # (index, value) per sample in the final tally
BAB_SECTION = "## Branch and bound over ranks"  # bench/mpi_bab.py's part of mpi.md


def mpirun(ranks):
    command = ["mpirun", "--oversubscribe", "-n", str(ranks)]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    return command


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(prefix, binary, model, flags, out):
    start, cpu = time.monotonic(), cpu_seconds()
    proc = subprocess.run(prefix + [binary, "solve", *model, *flags, "--json", out, "--quiet"],
                          capture_output=True, text=True)
    wall, cpu = time.monotonic() - start, cpu_seconds() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(prefix)} {binary} ... {proc.stderr}")
    with open(out) as f:
        result = json.load(f)
    result["wall"] = wall
    result["cpu"] = cpu
    return result


def pingpong(tmp):
    exe = os.path.join(tmp, "pingpong")
    subprocess.run(["mpicc", "-O2", "-o", exe, os.path.join(HERE, "mpi_pingpong.c")], check=True)
    out = subprocess.run(mpirun(2) + [exe], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def measure(binary, name, model, samples, rounds, tmp):
    configs = {"1x1": ([], 1), "2x1": (mpirun(2), 1), "1x2": ([], 2)}
    rows = {key: [] for key in configs}
    for r in range(rounds):
        for key, (prefix, threads) in configs.items():
            flags = ["--method", "sampling", "--samples", str(samples), "--threads", str(threads), "--seed", "1"]
            rows[key].append(run(prefix, binary, model, flags, os.path.join(tmp, f"{name}_{key}_{r}.json")))
    objectives = {row["objective"] for runs in rows.values() for row in runs}
    if len(objectives) != 1:
        raise SystemExit(f"{name}: the configurations found different values {objectives}")
    summary = {}
    for key, runs in rows.items():
        summary[key] = {
            "samples_per_second": statistics.median(row["samples"] / row["seconds"] for row in runs),
            "seconds": statistics.median(row["seconds"] for row in runs),
            "wall": statistics.median(row["wall"] for row in runs),
            "samples_per_cpu_second": statistics.median(row["samples"] / row["cpu"] for row in runs),
            "communication_share": statistics.median(row.get("communication_seconds", 0.0) / row["seconds"]
                                                     for row in runs),
            "runs": [{k: row[k] for k in ("samples", "lps", "seconds", "wall", "cpu", "objective")} for row in runs],
        }
    return summary


def model_rows(per_sample, latency, bandwidth, samples):
    """Seconds of `samples` samples over K ranks of one thread on K cores: the samples' share, the messages that
    end the run (each rank's tally to the lead, one after another) and a poll period at each end."""
    rows = []
    for k in (1, 2, 4, 8, 16, 64, 256, 1024):
        compute = samples * per_sample / k
        gather = 0.0 if k == 1 else (k - 1) * (latency + BYTES_PER_VALUE * samples / k / bandwidth) + 2 * POLL_SECONDS
        total = compute + gather
        rows.append({"ranks": k, "seconds": total, "speedup": samples * per_sample / total,
                     "communication_share": gather / total})
    return rows


def write(results, path_md, path_json):
    with open(path_json, "w") as f:
        json.dump(results, f, indent=1)
    lines = [f"# Sampling over MPI ranks ({results['date']})", "",
             f"`{results['command']}`, commit {results['commit']}, {results['cores']} cores, load average "
             f"{results['load_before']} before and {results['load_after']} after (other jobs share the machine).",
             "Medians of the rounds; samples/s from the run's own seconds (after reading the model); wall adds "
             "process and MPI start and reading the model. The three find the same point in every round.", "",
             "Samples per CPU second divide by the CPU time of every process of the command (mpirun's included, "
             "and the start of MPI and reading the model), from getrusage of the children.", "",
             "| network | samples | config | samples/s | ratio to 1x1 | seconds | wall | samples per CPU s | "
             "communication |", "|---|---|---|---|---|---|---|---|---|"]
    for net in results["networks"]:
        base = net["configs"]["1x1"]["samples_per_second"]
        for key, row in net["configs"].items():
            lines.append(f"| {net['name']} | {net['samples']} | {key} | {row['samples_per_second']:.0f} | "
                         f"{row['samples_per_second'] / base:.2f} | {row['seconds']:.2f} | {row['wall']:.2f} | "
                         f"{row['samples_per_cpu_second']:.0f} | {100 * row['communication_share']:.2f}% |")
    lines += ["", "On a machine shared with other jobs the scheduler decides how much CPU each configuration gets per "
              "wall second (here the two ranks got more than the two threads of one process); samples per CPU second "
              "compare the work itself, including mpirun, the start of MPI and the comm thread's polling."]
    lat, bw = results["latency_seconds"], results["bandwidth_bytes_per_second"]
    lines += ["", f"Ping-pong between two ranks on this machine (bench/mpi_pingpong.c): latency {lat * 1e6:.2f} us, "
              f"bandwidth {bw / 1e9:.2f} GB/s. Messages wait for the comm thread's {POLL_SECONDS * 1e3:.0f} ms poll "
              "at each end, so a new best reaches the other ranks within a few milliseconds.", ""]
    for net in results["networks"]:
        lines += [f"Model for {net['name']}: per-sample cost {net['per_sample_seconds'] * 1e3:.3f} ms (1x1), "
                  f"{results['model_samples']} samples, K ranks of one thread on K cores; on a cluster the latency "
                  "is that of its network (1-5 us on InfiniBand, 20-50 us on Ethernet), which changes the last "
                  "columns by less than a millisecond up to K = 1024.", "",
                  "| ranks | seconds | speed-up | communication |", "|---|---|---|---|"]
        for row in net["model"]:
            lines.append(f"| {row['ranks']} | {row['seconds']:.3f} | {row['speedup']:.1f} | "
                         f"{100 * row['communication_share']:.3f}% |")
        lines.append("")
    # bench/mpi_bab.py's section stays as it was.
    old = open(path_md).read() if os.path.exists(path_md) else ""
    bab = old[old.index(BAB_SECTION):] if BAB_SECTION in old else ""
    with open(path_md, "w") as f:
        f.write("\n".join(lines) + ("\n" + bab if bab else ""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reluopt", default=os.path.join(REPO, "build", "reluopt"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--model-samples", type=int, default=100000)
    args = parser.parse_args()
    results = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
               "command": "bench/mpi_scaling.py " + " ".join(sys.argv[1:]),
               "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                        text=True).stdout.strip(),
               "cores": os.cpu_count(), "load_before": round(os.getloadavg()[0], 1), "networks": [],
               "model_samples": args.model_samples}
    with tempfile.TemporaryDirectory(prefix="reluopt_mpi_bench_") as tmp:
        results["latency_seconds"], results["bandwidth_bytes_per_second"] = pingpong(tmp)
        grid = os.path.join(tmp, "grid_d100_1x100.onnx")
        netgen.write_onnx(netgen.make_network(100, [100], seed=7), grid)
        networks = [("xavier 10->50->50->1, budget domain", [os.path.join(REPO, "examples", "xavier_10_50_50.onnx"),
                     "--domain", os.path.join(REPO, "examples", "budget_domain.json")], 20000),
                    ("grid d=100, 1x100, [0,1]^100", [grid], 4000)]
        for name, model, samples in networks:
            configs = measure(args.reluopt, name.split()[0] + name.split()[1], model, samples, args.rounds, tmp)
            per_sample = 1.0 / configs["1x1"]["samples_per_second"]
            results["networks"].append({"name": name, "samples": samples, "configs": configs,
                                        "per_sample_seconds": per_sample,
                                        "model": model_rows(per_sample, results["latency_seconds"],
                                                            results["bandwidth_bytes_per_second"],
                                                            args.model_samples)})
    results["load_after"] = round(os.getloadavg()[0], 1)
    out = os.path.join(HERE, "results")
    write(results, os.path.join(out, "mpi.md"), os.path.join(out, "mpi.json"))
    print(open(os.path.join(out, "mpi.md")).read())


if __name__ == "__main__":
    main()
