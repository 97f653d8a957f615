#!/usr/bin/env python3
"""How do reluopt's methods on models around networks compare with the MIP tools that embed trained networks?

    make bench-venv      # bench/.venv-peers: gurobipy + gurobi-ml, pyscipopt + pyscipopt-ml, omlt + pyomo + highspy
    bench/.venv-peers/bin/python bench/models_peers.py [--problems pricing_s1 process_s2 ...]
        [--methods mip,mip-cuts,partition] [--tools gurobi,scip,omlt] [--time-limit 60] [--threads 1]
        [--reluopt build/reluopt] [--label L] [--resume]

Every problem file of examples/models/ (or those named: `pricing_s1` or a path) is solved by
  * reluopt: `reluopt solve --problem P --method M --time-limit T --threads 1 --json R --quiet`, one run per
    method of `--methods` (any method the binary takes on models);
  * Gurobi + gurobi-machinelearning (add_predictor_constr on a torch Sequential rebuilt from the ONNX weights);
  * SCIP + PySCIPOpt-ML (add_predictor_constr, the same Sequential);
  * OMLT (its ONNX reader, ReluBigMFormulation) solved by HiGHS through Pyomo's appsi,
each with the same time limit and thread count, one run at a time (bench/peers/run_peer.py in a subprocess).
Every point is re-evaluated here: the objective from float64 forward passes of the networks, and its largest
violation of a bound, of integrality or of a constraint (bench/peers/problem_model.py); a point violating by
more than reluopt's model tolerance (1e-6 times the largest right-hand side, at least 1e-6) is reported as
such, with the value of the same point rounded on its integer coordinates beside it. A bound on the wrong side
of a feasible value any run found is flagged BUG (exit status 1).

Results: bench/results/models_peers[_LABEL].{json,md}, rewritten after every run; `--resume` keeps the runs of
the JSON with the same time limit and threads.
"""
import argparse
import glob
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peers"))
from problem_model import load_problem, evaluate  # noqa: E402

ROOT = os.path.dirname(HERE)
EXAMPLES = os.path.join(ROOT, "examples", "models")
PEER_NAMES = {"gurobi": "Gurobi + gurobi-ml", "scip": "SCIP + PySCIPOpt-ML", "omlt": "OMLT + HiGHS"}


def problem_paths(names):
    every = sorted(glob.glob(os.path.join(EXAMPLES, "*", "*.json")))
    if not names:
        return every
    out = []
    for name in names:
        if os.path.exists(name):
            out.append(os.path.abspath(name))
            continue
        hits = [p for p in every if os.path.basename(p) == name + ".json"]
        if not hits:
            sys.exit("models_peers.py: no problem file named '%s' in %s" % (name, EXAMPLES))
        out += hits
    return out


def run_reluopt(binary, path, method, limit, threads, work):
    out = os.path.join(work, "reluopt.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = [binary, "solve", "--problem", path, "--method", method, "--time-limit", str(limit),
           "--threads", str(threads), "--json", out, "--quiet"]
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit * 2 + 60)
    wall = time.time() - t0
    if proc.returncode != 0 or not os.path.exists(out):
        return {"status": "error", "error": (proc.stderr or proc.stdout).strip().splitlines()[-1:], "wall": wall,
                "command": " ".join(cmd)}
    r = json.load(open(out))
    return {"status": r["status"], "objective": r.get("objective"), "bound": r.get("bound"),
            "seconds": r.get("seconds"), "wall": wall, "v": r.get("x") or None, "nodes": r.get("nodes"),
            "command": " ".join(cmd)}


def run_peer(tool, path, limit, threads, work):
    out = os.path.join(work, "peer.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = [sys.executable, os.path.join(HERE, "peers", "run_peer.py"), "--tool", tool, "--problem", path,
           "--time-limit", str(limit), "--threads", str(threads), "--out", out]
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit * 3 + 120)
    except subprocess.TimeoutExpired:
        return {"status": "killed", "error": "no answer within %g s" % (limit * 3 + 120), "wall": time.time() - t0}
    wall = time.time() - t0
    if not os.path.exists(out):
        return {"status": "error", "error": (proc.stderr or proc.stdout).strip().splitlines()[-1:], "wall": wall}
    r = json.load(open(out))
    r["wall"] = wall
    r["command"] = " ".join(cmd[1:])
    return r


def check_point(problem, run):
    """Re-evaluates the run's point: value, violation, and the rounded point's value when it violates."""
    if not run.get("v"):
        return
    v = np.asarray(run["v"], float)
    ev = evaluate(problem, v)
    run["value"], run["violation"], run["violation_at"] = ev["objective"], ev["violation"], ev["where"]
    run["feasible"] = ev["violation"] <= problem.tolerance()
    if not run["feasible"]:
        r = np.clip(np.where(problem.integer, np.round(v), v), problem.lower, problem.upper)
        er = evaluate(problem, r)
        run["rounded_value"], run["rounded_violation"] = er["objective"], er["violation"]


def machine():
    cpu = ""
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"host": platform.node(), "cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version()}


def versions():
    from importlib.metadata import version, PackageNotFoundError
    out = {}
    for p in ("gurobipy", "gurobi-machinelearning", "pyscipopt", "pyscipopt-ml", "omlt", "pyomo", "highspy", "torch",
              "onnx", "numpy"):
        try:
            out[p] = version(p)
        except PackageNotFoundError:
            out[p] = None
    return out


def fmt(x, digits=6):
    if x is None:
        return "—"
    if isinstance(x, float) and not np.isfinite(x):
        return str(x)
    return "%.*g" % (digits, x)


def cell_status(run):
    s = run["status"]
    if run.get("v") is not None and not run.get("feasible", True):
        s += " ✗"
    return s


def best_known(problem, runs):
    vals = [r["value"] for r in runs if r.get("feasible")]
    if not vals:
        return None
    return max(vals) if problem.sense == "max" else min(vals)


def bound_bugs(problem, runs):
    best = best_known(problem, runs)
    bugs = []
    if best is None:
        return bugs
    tol = 1e-6 * max(1.0, abs(best))
    for r in runs:
        b = r.get("bound")
        if b is None or not np.isfinite(b):
            continue
        if (problem.sense == "max" and b < best - tol) or (problem.sense == "min" and b > best + tol):
            bugs.append("%s: bound %.10g on the wrong side of the feasible value %.10g" % (r["tool"], b, best))
    return bugs


def markdown(data):
    lines = ["# Models around networks: reluopt against Gurobi, SCIP and OMLT", ""]
    a = data["args"]
    lines += ["Each tool builds the same model from the problem file and its ONNX networks and solves it with "
              "`--time-limit %g` s and %d thread(s), one run at a time. **value** is the objective of the tool's "
              "point re-evaluated by float64 forward passes (the tool's own objective is in the JSON); ✗ marks a "
              "point that violates a bound, integrality or a constraint by more than reluopt's model tolerance "
              "(its largest violation is given, and the value of the point rounded on its integer coordinates). "
              "**bound** is the tool's proven bound, **gap** = |bound - value| / max(|value|, 1), **proof** the "
              "solver's time to `optimal` (— when it did not prove), **wall** the whole command (model building "
              "included). Machine: %s, %s cores, shared with other work; the load average before and after each "
              "run is in the last column." % (a["time_limit"], a["threads"], data["machine"]["cpu"],
                                                 data["machine"]["cores"]), ""]
    lines += ["Command: `%s`" % data["command"], "", "reluopt: `%s` (sha256 %s)" % (a["reluopt"], data["sha256"][:16]),
              "", "Versions: " + ", ".join("%s %s" % kv for kv in data["versions"].items() if kv[1]), ""]
    if data.get("partial"):
        lines += ["**PARTIAL**: the run stopped before every row was done.", ""]
    for key, entry in data["problems"].items():
        p = entry["info"]
        lines += ["## %s" % key, "",
                  "%s; %d variables (%d integer), %d networks, %d hidden neurons, %d constraints." % (
                      p["sense"], p["n"], p["integer"], p["networks"], p["neurons"], p["constraints"]), "",
                  "| tool | status | value | bound | gap | proof (s) | wall (s) | point check | load |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in entry["runs"]:
            val = r.get("value")
            bound = r.get("bound")
            gap = abs(bound - val) / max(abs(val), 1.0) if val is not None and bound is not None and \
                np.isfinite(bound) else None
            proof = fmt(r.get("seconds"), 3) if r["status"] == "optimal" else "—"
            if r.get("v") is None:
                check = "no point" if r["status"] not in ("error", "license_limit", "killed") else \
                    str(r.get("error", ""))[:90].replace("|", "/")
            elif r.get("feasible"):
                check = "ok (%.1e)" % r["violation"]
            else:
                check = "violates %s by %.2e; rounded: %s (%.1e)" % (r["violation_at"], r["violation"],
                                                                      fmt(r.get("rounded_value"), 9),
                                                                      r.get("rounded_violation", 0))
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %.1f / %.1f |" % (
                r["tool"], cell_status(r), fmt(val, 9), fmt(bound, 9), fmt(gap, 3), proof, fmt(r.get("wall"), 3),
                check, r["load_before"], r["load_after"]))
        for bug in entry.get("bugs", []):
            lines.append("")
            lines.append("**BUG** " + bug)
        lines.append("")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", nargs="*", default=[])
    ap.add_argument("--methods", default="mip,mip-cuts,partition")
    ap.add_argument("--tools", default="gurobi,scip,omlt")
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reluopt", default=os.path.join(ROOT, "build", "reluopt"))
    ap.add_argument("--label", default="")
    ap.add_argument("--out-dir", default=os.path.join(HERE, "results"))
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(args.reluopt):
        print("models_peers.py: no reluopt binary at %s (--reluopt)" % args.reluopt, file=sys.stderr)
        return 2
    base = os.path.join(args.out_dir, "models_peers" + ("_" + args.label if args.label else ""))
    work = tempfile.mkdtemp(prefix="models_peers_")
    binary = os.path.join(work, "reluopt")
    shutil.copy2(args.reluopt, binary)  # a rebuild during the run does not mix binaries
    data = {"args": vars(args), "command": " ".join([os.path.relpath(sys.executable, ROOT)] + sys.argv),
            "machine": machine(), "versions": versions(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "sha256": hashlib.sha256(open(binary, "rb").read()).hexdigest(), "problems": {}}
    old = {}
    if args.resume and os.path.exists(base + ".json"):
        prev = json.load(open(base + ".json"))
        if prev["args"]["time_limit"] == args.time_limit and prev["args"]["threads"] == args.threads:
            old = {(k, r["tool"]): r for k, e in prev["problems"].items() for r in e["runs"]}
    tools = ["reluopt " + m for m in args.methods.split(",") if m] + [t for t in args.tools.split(",") if t]
    bugs = 0
    data["partial"] = True
    try:
        for path in problem_paths(args.problems):
            key = os.path.splitext(os.path.basename(path))[0]
            problem = load_problem(path)
            entry = data["problems"].setdefault(key, {"runs": [], "info": {
                "path": os.path.relpath(path, ROOT), "sense": problem.sense, "n": problem.n,
                "integer": int(problem.integer.sum()), "networks": len(problem.networks),
                "neurons": problem.neurons(), "constraints": len(problem.constraints)}})
            for tool in tools:
                if (key, PEER_NAMES.get(tool, tool)) in old:  # the JSON names the peers by PEER_NAMES
                    entry["runs"].append(old[(key, PEER_NAMES.get(tool, tool))])
                    continue
                load_before = os.getloadavg()[0]
                if tool.startswith("reluopt "):
                    run = run_reluopt(binary, path, tool.split()[1], args.time_limit, args.threads, work)
                else:
                    run = run_peer(tool, path, args.time_limit, args.threads, work)
                    tool = PEER_NAMES.get(tool, tool)
                run.update({"tool": tool, "load_before": load_before, "load_after": os.getloadavg()[0]})
                check_point(problem, run)
                entry["runs"].append(run)
                print("%-12s %-22s %-13s value %-14s bound %-14s %.1f s" % (
                    key, tool, run["status"], fmt(run.get("value"), 9), fmt(run.get("bound"), 9),
                    run.get("wall", 0)), flush=True)
                entry["bugs"] = bound_bugs(problem, entry["runs"])
                write(base, data)
            entry["bugs"] = bound_bugs(problem, entry["runs"])
            for bug in entry["bugs"]:
                print("!" * 60 + "\nBUG %s: %s\n" % (key, bug) + "!" * 60)
            bugs += len(entry["bugs"])
        data["partial"] = False
    finally:
        write(base, data)
        shutil.rmtree(work, ignore_errors=True)
    print("wrote %s.{json,md}" % base)
    return 1 if bugs else 0


def write(base, data):
    os.makedirs(os.path.dirname(base), exist_ok=True)
    tmp = base + ".json.tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, default=float)
    os.replace(tmp, base + ".json")
    with open(base + ".md", "w") as f:
        f.write(markdown(data))


if __name__ == "__main__":
    sys.exit(main())
