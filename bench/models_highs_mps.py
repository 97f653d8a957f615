#!/usr/bin/env python3
"""Does HiGHS, reading the MPS file of `reluopt formulate`, find the optimum `reluopt solve --problem` proves?

    make bench-venv
    bench/.venv-peers/bin/python bench/models_highs_mps.py [--problems pricing_s1 ...] [--method mip-cuts]
        [--time-limit 60] [--reluopt build/reluopt]

For each problem file of examples/models/ (default: the sizes s1 and s2, and process_s3): `reluopt formulate P
--out F.mps`, then highspy reads F.mps and solves it (`--time-limit`, one thread), and `reluopt solve --problem P
--method M --time-limit T --threads 1` proves the optimum. HiGHS's point is mapped back to the problem's
variables (the columns x0.. are u, the variables the equalities leave, docs/PROBLEM.md section 2; each eliminated
variable is recomputed from its equality) and re-evaluated by float64 forward passes. Accepted when both prove
and the two optima agree within 1e-6 relative (HiGHS's own tolerances: mip_rel_gap 1e-4 by default is set to
1e-9 here), and HiGHS's point is feasible. Result: bench/results/models_highs_mps.{md,json}; exit status 3 when
an accepted criterion fails.
"""
import argparse
import glob
import json
import os
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
DEFAULT = ["pricing_s1", "pricing_s2", "process_s1", "process_s2", "process_s3", "design_s1", "design_s2"]


def eliminated(problem):
    """The variables reluopt's reduction solves the equalities for (docs/PROBLEM.md section 2): per equality on
    variables alone, a continuous variable not yet eliminated with |a_p| >= 1e-3 max |a|, one no network reads
    first, then the largest |a_p|, the first on ties. Exact for equalities that share no variable, which is
    what the examples have; None otherwise."""
    read = {i for net in problem.networks for i in net["inputs"]}
    out, seen = [], set()
    for c in problem.constraints:
        if c["op"] != "==" or c["b"]:
            continue
        if seen & set(c["a"]):
            return None
        seen |= set(c["a"])
        big = max(abs(a) for a in c["a"].values())
        cand = [i for i, a in sorted(c["a"].items()) if not problem.integer[i] and abs(a) >= 1e-3 * big]
        if not cand:
            continue
        cand.sort(key=lambda i: (i in read, -abs(c["a"][i]), i))
        out.append((cand[0], c))
    return out


def v_from_u(problem, u):
    elim = eliminated(problem)
    if elim is None:
        return None
    gone = {p for p, _ in elim}
    kept = [i for i in range(problem.n) if i not in gone]
    if len(u) < len(kept):
        return None
    v = np.zeros(problem.n)
    v[kept] = u[:len(kept)]
    for p, c in elim:
        v[p] = (c["rhs"] - sum(a * v[i] for i, a in c["a"].items() if i != p)) / c["a"][p]
    return v


def highs_solve(mps, limit, n_u):
    import highspy
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(limit))
    h.setOptionValue("threads", 1)
    h.setOptionValue("mip_rel_gap", 1e-9)
    h.readModel(mps)
    t0 = time.time()
    h.run()
    seconds = time.time() - t0
    info = h.getInfo()
    status = h.modelStatusToString(h.getModelStatus())
    sol = h.getSolution()
    point = None
    if info.primal_solution_status >= 2:
        lp = h.getLp()
        names = list(lp.col_names_)
        cols = [names.index("x%d" % i) for i in range(n_u)] if names else list(range(n_u))
        point = np.array(sol.col_value)[cols]
    return {"status": status, "objective": info.objective_function_value, "bound": info.mip_dual_bound,
            "seconds": seconds, "u": None if point is None else point.tolist(), "nodes": info.mip_node_count,
            "columns": h.getNumCol(), "rows": h.getNumRow()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", nargs="*", default=DEFAULT)
    ap.add_argument("--method", default="mip-cuts")
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--reluopt", default=os.path.join(ROOT, "build", "reluopt"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", "models_highs_mps"))
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="models_mps_")
    rows, failures = [], 0
    for name in args.problems:
        path = name if os.path.exists(name) else os.path.join(EXAMPLES, name.split("_")[0], name + ".json")
        problem = load_problem(path)
        mps = os.path.join(work, name + ".mps")
        t0 = time.time()
        subprocess.run([args.reluopt, "formulate", path, "--out", mps, "--time-limit", str(args.time_limit)],
                       check=True, capture_output=True)
        formulate_s = time.time() - t0
        out = os.path.join(work, name + ".json")
        subprocess.run([args.reluopt, "solve", "--problem", path, "--method", args.method, "--time-limit",
                        str(args.time_limit), "--threads", "1", "--json", out, "--quiet"], check=True,
                       capture_output=True)
        r = json.load(open(out))
        n_u = problem.n - len(eliminated(problem) or [])
        h = highs_solve(mps, args.time_limit, n_u)
        row = {"problem": name, "reluopt": {k: r.get(k) for k in ("status", "objective", "bound", "seconds")},
               "highs": h, "formulate_seconds": formulate_s}
        if h["u"] is not None:
            v = v_from_u(problem, np.array(h["u"]))
            if v is not None:
                ev = evaluate(problem, v)
                row["highs_point"] = {"value": ev["objective"], "violation": ev["violation"], "where": ev["where"],
                                      "feasible": ev["violation"] <= problem.tolerance()}
        both = r["status"] == "optimal" and h["status"] == "Optimal"
        same = both and abs(h["objective"] - r["objective"]) <= 1e-6 * max(1.0, abs(r["objective"]))
        row["accepted"] = bool(same and row.get("highs_point", {}).get("feasible", False))
        failures += 0 if row["accepted"] else 1
        rows.append(row)
        print("%-12s reluopt %-8s %.10g  HiGHS %-10s %.10g (bound %.10g, %.2f s)  %s" % (
            name, r["status"], r["objective"] or float("nan"), h["status"], h["objective"], h["bound"],
            h["seconds"], "accepted" if row["accepted"] else "NOT ACCEPTED"), flush=True)
    write(args, rows)
    return 3 if failures else 0


def write(args, rows):
    load = os.getloadavg()
    with open(args.out + ".json", "w") as f:
        json.dump({"args": vars(args), "rows": rows, "load": load}, f, indent=1, default=float)
    import highspy
    from importlib.metadata import version
    lines = ["# HiGHS on reluopt's exported formulation", "",
             "`reluopt formulate P.json --out P.mps` (big-M with reluopt's progressive neuron bounds), read and "
             "solved by highspy %s (one thread, `mip_rel_gap` 1e-9, time limit %g s), against `reluopt solve "
             "--problem P.json --method %s --time-limit %g --threads 1`. HiGHS's point (the columns x0.. = u) is "
             "mapped back to the problem's variables and re-evaluated by float64 forward passes. Accepted: both "
             "`optimal`, the optima within 1e-6 relative, HiGHS's point feasible." % (
                 version("highspy"), args.time_limit, args.method, args.time_limit), "",
             "Command: `bench/.venv-peers/bin/python bench/models_highs_mps.py %s`; load average at the end %.1f "
             "(2 cores shared with other work)." % (" ".join(sys.argv[1:]), load[0]), "",
             "| problem | MPS columns x rows | reluopt status | reluopt optimum | reluopt s | HiGHS status | HiGHS "
             "optimum | HiGHS bound | HiGHS s | HiGHS point re-evaluated | accepted |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    del highspy
    for row in rows:
        r, h, hp = row["reluopt"], row["highs"], row.get("highs_point")
        check = "—" if hp is None else "%.10g (violation %.1e%s)" % (hp["value"], hp["violation"],
                                                                     "" if hp["feasible"] else ", " + hp["where"])
        lines.append("| %s | %d x %d | %s | %.10g | %.2f | %s | %.10g | %.10g | %.2f | %s | %s |" % (
            row["problem"], h["columns"], h["rows"], r["status"], r["objective"] or float("nan"), r["seconds"],
            h["status"], h["objective"], h["bound"], h["seconds"], check, "yes" if row["accepted"] else "**no**"))
    ok = sum(row["accepted"] for row in rows)
    lines += ["", "%d of %d accepted." % (ok, len(rows)), ""]
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
