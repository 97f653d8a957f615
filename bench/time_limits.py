#!/usr/bin/python3
"""Do time limits and Ctrl-C hold? Wall time of `reluopt solve` from the command's start, for every
method on large networks, with --time-limit; and the time from a SIGINT to the process's exit.

Networks (bench/netgen.py, Xavier, [0,1]^d, maximise output 0):
  grid_L{1,2}_d{500,750,1000}  the paper grid's largest networks (hidden layers of 100; seed 777 + 10000 L + d)
  wide_100_3x500               100 -> 500 x 3 -> 1 (2 MB), seed 3500
  big_10_2000x4                10 -> 2000 x 4 -> 1 (48 MB), seed 42000
Part `limits`: every method x network, `--time-limit T --threads 2 --quiet --json OUT`; the wall time from
the start of the command (model loading included), the peak resident memory, status, value and bound.
Part `sigint`: each MIP method (and bab and walk, whose LP relaxations are long) x network without a time
limit; SIGINT after --signal-after seconds; the time from the signal to the exit, the exit code, and whether the JSON was written.
A run still going at T + --kill-after seconds is killed and reported as such.

    bench/time_limits.py --reluopt build/reluopt [--parts limits sigint] [--time-limit 10] [--out NAME]
                         [--methods M ...] [--networks N ...]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from acceptance_common import make_meta, meta_table, RESULTS, write_json  # noqa: E402
from bench_sampling import resolve_binary, sha256  # noqa: E402

METHODS = ["enhanced", "sampling", "mip", "mip-cuts", "partition", "bab", "gradient", "walk"]
SIGINT_METHODS = ["mip", "mip-cuts", "partition", "bab", "walk"]


def networks():
    nets = []
    for layers in (1, 2):
        for d in (500, 750, 1000):
            nets.append((f"grid_L{layers}_d{d}", d, [100] * layers, 777 + 10000 * layers + d))
    nets.append(("wide_100_3x500", 100, [500] * 3, 3500))
    nets.append(("big_10_2000x4", 10, [2000] * 4, 42000))
    return nets


def make_models(workdir):
    paths = {}
    for name, d, hidden, seed in networks():
        path = os.path.join(workdir, name + ".onnx")
        if not os.path.exists(path):
            subprocess.run([sys.executable, os.path.join(HERE, "netgen.py"), "--d", str(d), "--hidden",
                            *map(str, hidden), "--seed", str(seed), "-o", path], check=True,
                           stdout=subprocess.DEVNULL)
        paths[name] = path
    return paths


def run(cmd, kill_after, signal_after=None):
    """Runs cmd; returns (wall seconds, exit code, peak RSS in MB, signal->exit seconds, killed)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    signalled = None
    killed = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        now = time.monotonic()
        if pid != 0:
            break
        if signal_after is not None and signalled is None and now - start >= signal_after:
            proc.send_signal(signal.SIGINT)
            signalled = now
        if now - start >= kill_after:
            proc.kill()
            killed = True
            pid, status, usage = os.wait4(proc.pid, 0)
            now = time.monotonic()
            break
        time.sleep(0.01)
    stderr = proc.stderr.read().decode(errors="replace").strip().splitlines()
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    after_signal = None if signalled is None else now - signalled
    return now - start, code, usage.ru_maxrss / 1024.0, after_signal, killed, stderr[-1] if stderr else ""


def result_fields(path):
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return {"json": False}
    return {"json": True, "status": r.get("status"), "value": r.get("objective"), "bound": r.get("bound")}


def solve_once(reluopt, name, path, method, out, flags, kill_at, signal_after=None):
    """One `reluopt solve` of network `name` by `method` (JSON into out, removed first); its row."""
    if os.path.exists(out):
        os.remove(out)
    cmd = [reluopt, "solve", path, "--method", method, *flags, "--threads", "2", "--seed", "1", "--quiet",
           "--json", out]
    wall, code, rss, after, killed, last = run(cmd, kill_at, signal_after)
    return {"network": name, "method": method, "wall": wall, "exit": code, "rss_mb": rss, "after_signal": after,
            "killed": killed, "stderr": last, **result_fields(out)}


def part_limits(reluopt, models, workdir, limit, kill_after, methods):
    rows = []
    for name, path in models.items():
        for method in methods:
            row = solve_once(reluopt, name, path, method, os.path.join(workdir, f"{name}_{method}.json"),
                             ["--time-limit", str(limit)], limit + kill_after)
            print(f"{name:16s} {method:10s} wall {row['wall']:7.2f} s exit {row['exit']:4d} rss {row['rss_mb']:7.0f} MB "
                  f"{row.get('status')} {'KILLED' if row['killed'] else ''}", flush=True)
            rows.append(row)
    return rows


def part_sigint(reluopt, models, workdir, signal_after, kill_after, methods):
    rows = []
    for name, path in models.items():
        for method in [m for m in SIGINT_METHODS if m in methods]:
            row = solve_once(reluopt, name, path, method, os.path.join(workdir, f"{name}_{method}_sigint.json"),
                             [], signal_after + kill_after, signal_after)
            after = row["after_signal"]
            after_s = "-" if after is None else f"{after:.2f}"
            print(f"{name:16s} {method:10s} exit after signal {after_s} s, code {row['exit']} "
                  f"json {row['json']} {'KILLED' if row['killed'] else ''}", flush=True)
            rows.append(row)
    return rows


def report(meta, limits, sigint, limit, path):
    lines = ["# Time limits and Ctrl-C", "", f"Generated by `bench/time_limits.py` on {meta['date']}.", "",
             *meta_table(meta), ""]
    if limits:
        over = [r for r in limits if r["wall"] > limit + 1.0]
        lines += [f"## --time-limit {limit}: wall time from the command's start", "",
                  f"Runs above {limit + 1:g} s: **{len(over)} of {len(limits)}**; longest "
                  f"{max(r['wall'] for r in limits):.2f} s.", "",
                  "| network | method | wall s | exit | peak MB | status | value | bound | note |",
                  "|---|---|---:|---:|---:|---|---:|---:|---|"]
        for r in limits:
            note = "killed" if r["killed"] else ("" if r["json"] else "no JSON: " + r["stderr"][:80])
            lines.append(f"| {r['network']} | {r['method']} | {r['wall']:.2f} | {r['exit']} | {r['rss_mb']:.0f} | "
                         f"{r.get('status')} | {fmt(r.get('value'))} | {fmt(r.get('bound'))} | {note} |")
        lines.append("")
    if sigint:
        slow = [r for r in sigint if r["after_signal"] is None or r["after_signal"] > 1.0]
        lines += ["## SIGINT during the search: time from the signal to the exit", "",
                  f"Exits later than 1 s after the signal: **{len(slow)} of {len(sigint)}**.", "",
                  "| network | method | s after signal | exit | JSON written | status |", "|---|---|---:|---:|---|---|"]
        for r in sigint:
            after = "ended before the signal" if r["after_signal"] is None else f"{r['after_signal']:.2f}"
            lines.append(f"| {r['network']} | {r['method']} | {after} | {r['exit']} | {r['json']} | {r.get('status')} |")
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def fmt(v):
    return "" if v is None else f"{v:.6g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reluopt", required=True)
    ap.add_argument("--parts", nargs="+", default=["limits", "sigint"], choices=["limits", "sigint"])
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--signal-after", type=float, default=2.0)
    ap.add_argument("--kill-after", type=float, default=60.0, help="seconds past the limit or signal")
    ap.add_argument("--networks", nargs="*", help="a subset of the network names")
    ap.add_argument("--methods", nargs="+", default=METHODS, choices=METHODS, help="a subset of the methods")
    ap.add_argument("--workdir", default="/tmp/reluopt_time_limits")
    ap.add_argument("--out", default="time_limits")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    models = make_models(a.workdir)
    if a.networks:
        models = {k: v for k, v in models.items() if k in a.networks}
    a.reluopt = resolve_binary(a.reluopt)
    version = subprocess.run([a.reluopt, "--version"], capture_output=True, text=True).stdout.strip()
    meta = make_meta("time_limits.py", sys.argv[1:])
    meta.update(reluopt=a.reluopt, reluopt_version=version, reluopt_sha256=sha256(a.reluopt)[:16])
    limits = part_limits(a.reluopt, models, a.workdir, a.time_limit, a.kill_after, a.methods) if "limits" in a.parts else []
    sigint = part_sigint(a.reluopt, models, a.workdir, a.signal_after, a.kill_after, a.methods) if "sigint" in a.parts else []
    write_json(os.path.join(RESULTS, a.out + ".json"), {"meta": meta, "limits": limits, "sigint": sigint})
    report(meta, limits, sigint, a.time_limit, os.path.join(RESULTS, a.out + ".md"))
    over = [r for r in limits if r["wall"] > a.time_limit + 1.0]
    slow = [r for r in sigint if r["after_signal"] is None or r["after_signal"] > 1.0]
    return 1 if over or slow else 0


if __name__ == "__main__":
    sys.exit(main())
