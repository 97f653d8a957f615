#!/usr/bin/python3
"""Results left by runs ended with GNU timeout, which sends SIGTERM to the process and then to its process group
(the process gets two at once).

N runs of `timeout --preserve-status 2 reluopt verify NET PROP --result-file F --json J` and N of
`timeout --preserve-status 2 reluopt solve NET --method bab --json J`, on a 12 -> 4 x 64 -> 1 network that neither
finishes in 2 s (--preserve-status: the exit code is reluopt's, not timeout's 124; the signals sent are the same).
A run left its result when its exit code is 0 and its files are complete (verify: the result file equal to
stdout and a JSON with the same status; solve: a JSON that says "interrupted"). Writes a Markdown table and its
JSON twin (the same path with .json) with the date, the load average and each binary's version and sha256.

Usage: bench/timeout_runs.py [--runs 100] [--binary build/reluopt ...] [--out bench/results/timeout_runs.md]
"""
import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netgen  # noqa: E402


def write_problem(directory):
    model, prop = os.path.join(directory, "slow.onnx"), os.path.join(directory, "slow.vnnlib")
    netgen.write_onnx(netgen.make_network(12, [64, 64, 64, 64], seed=11), model)
    with open(prop, "w") as f:
        f.write("".join(f"(declare-const X_{i} Real)\n" for i in range(12)) + "(declare-const Y_0 Real)\n")
        f.write("".join(f"(assert (>= X_{i} -1.0))\n(assert (<= X_{i} 1.0))\n" for i in range(12)))
        f.write("(assert (>= Y_0 5.0))\n")
    return model, prop


def verify_left_result(binary, model, prop, directory):
    result, doc = os.path.join(directory, "result.txt"), os.path.join(directory, "result.json")
    for path in (result, doc):
        if os.path.exists(path):
            os.remove(path)
    proc = subprocess.run(["timeout", "--preserve-status", "2", binary, "verify", model, prop, "--result-file", result,
                           "--json", doc, "--quiet"], capture_output=True, text=True)
    try:
        with open(result) as f, open(doc) as g:
            return proc.returncode == 0 and proc.stdout != "" and f.read() == proc.stdout and \
                json.load(g)["status"] == proc.stdout.split()[0]
    except (OSError, ValueError, KeyError):
        return False


def solve_left_result(binary, model, directory):
    doc = os.path.join(directory, "bab.json")
    if os.path.exists(doc):
        os.remove(doc)
    proc = subprocess.run(["timeout", "--preserve-status", "2", binary, "solve", model, "--method", "bab", "--json",
                           doc, "--quiet"], capture_output=True, text=True)
    try:
        with open(doc) as f:
            return proc.returncode == 0 and json.load(f)["stopped_by"] == "interrupted"
    except (OSError, ValueError, KeyError):
        return False


def describe(binary):
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    with open(binary, "rb") as f:
        return {"binary": binary, "version": version, "sha256": hashlib.sha256(f.read()).hexdigest()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--binary", nargs="+", default=["build/reluopt"])
    parser.add_argument("--out", default="bench/results/timeout_runs.md")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="reluopt_timeout_") as directory:
        model, prop = write_problem(directory)
        for binary in args.binary:
            verified = sum(verify_left_result(binary, model, prop, directory) for _ in range(args.runs))
            solved = sum(solve_left_result(binary, model, directory) for _ in range(args.runs))
            rows.append(dict(describe(binary), verify_left=verified, solve_left=solved))
            print(f"{binary}: verify {verified}/{args.runs}, solve --method bab --json {solved}/{args.runs}",
                  flush=True)
    load = os.getloadavg()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = f"bench/timeout_runs.py --runs {args.runs} --binary {' '.join(args.binary)}"
    with open(args.out, "w") as f:
        f.write("# Results left by runs under `timeout --preserve-status 2`\n\n")
        f.write(f"`{command}`, {date}; machine load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} (1, 5, 15 min) at the "
                f"end, {os.cpu_count()} cores.\n\n")
        f.write("timeout sends SIGTERM to the process and then to its process group: two signals at once. A run "
                "left its result when it exited 0 with complete files.\n\n")
        f.write("| binary | version, sha256 | verify runs that left their result | solve --method bab --json runs "
                "that left it |\n|---|---|---|---|\n")
        for row in rows:
            f.write(f"| {row['binary']} | {row['version']}, {row['sha256'][:12]} | {row['verify_left']} of "
                    f"{args.runs} | {row['solve_left']} of {args.runs} |\n")
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump({"command": command, "date": date, "load": load, "runs": args.runs, "binaries": rows}, f, indent=2)


if __name__ == "__main__":
    main()
