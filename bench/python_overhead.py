"""What a run through the Python package costs beyond the command line, on the same network, in the same run.

The network is examples/xavier_10_50_50.onnx with examples/budget_domain.json; each side runs
Algorithm 2 for --samples (1000) samples with the same seed and threads, --repeats times, alternating:
  cli     wall time of `reluopt solve ... --quiet --json F` (a process: start, reading the model, the run, writing)
  python  wall time of reluopt.solve(path, ...) in this interpreter (reading the model, the run, the result)
The ratio of the medians is the overhead. Both sides' answers must be the same point.

    .venv/bin/python bench/python_overhead.py [--reluopt build/reluopt] [--samples 1000] [--repeats 7]

Writes bench/results/python_overhead.md.
"""
import argparse
import datetime
import json
import pathlib
import platform
import statistics
import subprocess
import tempfile
import time

import reluopt

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODEL = ROOT / "examples" / "xavier_10_50_50.onnx"
DOMAIN = ROOT / "examples" / "budget_domain.json"


def cli_run(binary, samples, threads, seed, out):
    start = time.perf_counter()
    subprocess.run([binary, "solve", str(MODEL), "--domain", str(DOMAIN), "--samples", str(samples), "--threads",
                    str(threads), "--seed", str(seed), "--quiet", "--json", out], check=True, capture_output=True)
    seconds = time.perf_counter() - start
    return seconds, json.loads(pathlib.Path(out).read_text())


def python_run(samples, threads, seed, domain):
    start = time.perf_counter()
    result = reluopt.solve(MODEL, lower=domain["lower"], upper=domain["upper"], A=domain.get("A"),
                           b=domain.get("b"), samples=samples, threads=threads, seed=seed)
    return time.perf_counter() - start, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reluopt", default=str(ROOT / "build" / "reluopt"))
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    domain = json.loads(DOMAIN.read_text())
    cli_times, py_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeats):
            seconds, cli = cli_run(args.reluopt, args.samples, args.threads, args.seed, f"{tmp}/r.json")
            cli_times.append(seconds)
            seconds, result = python_run(args.samples, args.threads, args.seed, domain)
            py_times.append(seconds)
            assert result.x.tolist() == cli["x"] and result.objective == cli["objective"], "different answers"
    cli_median, py_median = statistics.median(cli_times), statistics.median(py_times)
    ratio = py_median / cli_median
    lines = [
        "# Python package overhead against the command line",
        "",
        f"{datetime.date.today()}, {platform.node()}, reluopt {reluopt.__version__}, "
        f"`bench/python_overhead.py --samples {args.samples} --threads {args.threads} --repeats {args.repeats}`.",
        f"Network {MODEL.name} with {DOMAIN.name}, Algorithm 2 (enhanced), seed {args.seed}; both sides found "
        f"the same point (objective {cli['objective']:.10g}).",
        "",
        "| side | median wall s | min | max |",
        "|---|---|---|---|",
        f"| CLI process | {cli_median:.4f} | {min(cli_times):.4f} | {max(cli_times):.4f} |",
        f"| reluopt.solve | {py_median:.4f} | {min(py_times):.4f} | {max(py_times):.4f} |",
        "",
        f"Ratio python / CLI: **{ratio:.3f}** (the bound the package must meet: 1.05).",
        "",
    ]
    out = ROOT / "bench" / "results" / "python_overhead.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
