#!/usr/bin/python3
"""Tables 1-4 of Perakis & Tsiourvas, "Optimizing Objective Functions from Trained ReLU Neural Networks
via Sampling" (Section 5), rerun with reluopt, plus a table of root LP relaxation bounds.

The paper's grid: 1 and 2 hidden layers of 100 neurons, one output, d in {5, 10, 20, 50, 100, 200, 500,
750, 1000}, uniform-Xavier networks (bench/netgen.py; network (d, L) uses seed net_seed + 10000*L + d),
domain [0,1]^d, maximise the output. Every method gets the same wall-clock budget per cell (--budget,
passed as --time-limit; the paper gave each one hour):

    sampling      reluopt solve M --method sampling --samples <huge> --time-limit B --threads T --seed K
    mip           reluopt solve M --method mip ...              (big-M, Fischetti & Jo)
    mip-cuts      reluopt solve M --method mip-cuts ...         (big-M + Anderson et al. cuts)
    partitionN    reluopt solve M --method partition --partitions N ...   (Tsay et al.)
    enhanced      reluopt solve M --method enhanced ...         (Algorithm 2)

The paper's models by default: every method runs with `--concave-neurons fixed` (every unstable neuron fixed
in the LPs, a binary in the MIPs) and enhanced with `--mip-share 0` (Algorithm 2 alone), so the columns are
the paper's algorithms; `--reluopt-defaults` runs reluopt's defaults instead (concave neurons free, the last
quarter of an enhanced run on the big-M MIP).

Tables 1-2 (cold): every method as is. Tables 3-4 (warm): the MIP methods again with
`--warm-start sampling --warm-start-samples 1000` (inside the same budget); the sampling-type columns
(sampling, enhanced) are the same runs as in Tables 1-2. Then `reluopt relax` for big-M and partition
N = 2, 4, each with neuron bounds interval, lp, progressive: the root LP bound of each formulation.

Every answer is checked: the objective equals the numpy forward value of x (netgen.forward) within
1e-6 * max(1, |objective|); x lies in [0,1]^d within 1e-7; a bound, when there is one, is >= the
objective - 1e-9 * max(1, |objective|) and >= the best objective any method found on that network
- 1e-6 * max(1, |best|) (also for every root LP bound). A bound below a known feasible value is a
BUG: printed loudly, listed first in the Markdown, exit status 1.

Results are rewritten after every run (bench/results/paper_tables.{md,json}; --quick:
paper_tables_quick.*), so a stopped run leaves partial tables; --resume reuses the runs already in
the JSON that ran with the same command line (budget, threads, seed, method flags).

    /usr/bin/python3 bench/paper_tables.py --quick              # smoke test: d in {5, 10}, 5 s
    /usr/bin/python3 bench/paper_tables.py                      # full grid, 60 s per cell
    /usr/bin/python3 bench/paper_tables.py --budget 10 --resume

Exit status: 0 all checks passed and every run finished; 1 a BUG or a check mismatch (see "Checks");
2 reluopt binary missing or bad usage; 3 no BUG, but some runs failed (error cells, e.g. a method
that is not implemented yet).
"""
import argparse
import datetime
import json
import math
import os
import platform
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import netgen  # noqa: E402
from bench_sampling import (as_count, cpu_model, fmt_num, git_head, log, loud,  # noqa: E402
                            resolve_binary, sha256, tail)

PAPER_DIMS = [5, 10, 20, 50, 100, 200, 500, 750, 1000]
DEFAULT_METHODS = "sampling,enhanced,mip,mip-cuts,partition2,partition4"
SAMPLING_LIKE = ("sampling", "enhanced")  # no proven bound, not warm-started, same runs in all tables
HUGE_SAMPLES = 10 ** 12                   # so that the time limit ends the sampling runs
FORWARD_RTOL = 1e-6
BOX_TOL = 1e-7
BOUND_OBJ_TOL = 1e-9
BOUND_BEST_TOL = 1e-6
OVERRUN_FACTOR, OVERRUN_SLACK = 1.05, 1.0  # wall > budget * 1.05 + 1 s: the time limit was overrun
STATUSES = ("optimal", "feasible", "no_solution")
PAPER_NAMES = {"sampling": "Sampling", "enhanced": "Enhanced Sampling", "mip": "MIP",
               "mip-cuts": "Big-M + cuts"}
NOTE = ("Budgets differ from the paper's: it gave every method one hour per cell on a Xeon Gold 5120 "
        "with Gurobi 9.5; here every method gets the budget above (wall clock, passed as --time-limit, "
        "warm-start sampling included) and the MIP solver is CBC (COIN-OR), not Gurobi. The networks are "
        "new Xavier draws from the recorded seeds, not the paper's, so compare trends (which method wins "
        "as d grows, where MIPs find nothing), not the numbers.")


# --------------------------------------------------------------------------------------------- methods

def method_args(name):
    """reluopt solve arguments of a method column name."""
    if name.startswith("partition"):
        n = name[len("partition"):]
        if not n.isdigit() or int(n) < 1:
            raise ValueError("partition methods are written partitionN, N >= 1 (got %r)" % name)
        return ["--method", "partition", "--partitions", n]
    if name in SAMPLING_LIKE:
        return ["--method", name, "--samples", str(HUGE_SAMPLES)]
    return ["--method", name]


def solve_flags(args, method, warm):
    """The reluopt solve flags of one cell (also its --resume signature)."""
    flags = method_args(method)
    if is_mip(method) and args.bounds:
        flags += ["--bounds", args.bounds]
    if warm:
        flags += ["--warm-start", "sampling", "--warm-start-samples", str(args.warm_samples)]
    if not args.reluopt_defaults:
        flags += ["--concave-neurons", "fixed"] + (["--mip-share", "0"] if method == "enhanced" else [])
    return flags + ["--time-limit", fmt_num(args.budget), "--threads", str(args.threads), "--seed", str(args.seed)]


def relax_flags(args, form, bounds):
    """The reluopt relax flags of one root-bound cell (also its --resume signature)."""
    flags = (["--method", "mip"] if form == "big-M" else
             ["--method", "partition", "--partitions", form[len("partition"):]])
    if not args.reluopt_defaults:
        flags += ["--concave-neurons", "fixed"]
    return flags + ["--bounds", bounds, "--threads", str(args.threads)]


def is_mip(name):
    return name not in SAMPLING_LIKE


def column_title(name):
    if name in PAPER_NAMES:
        return "%s (`%s`)" % (PAPER_NAMES[name], name)
    if name.startswith("partition"):
        return "%s Partitions (`%s`)" % (name[len("partition"):], name)
    return "`%s`" % name


def net_key(nl, d):
    return "L%d_d%d" % (nl, d)


def run_key(nl, d, method, warm):
    return "%s/%s/%s" % (net_key(nl, d), method, "warm" if warm else "cold")


def relax_key(nl, d, form, bounds):
    return "%s/%s/%s" % (net_key(nl, d), form, bounds)


# --------------------------------------------------------------------------------------------- running

def run_process(cmd, timeout):
    """Run cmd; returns a dict with wall/cpu seconds, exit code, stdout/stderr tails or an error."""
    rec = dict(load1_before=os.getloadavg()[0],
               started=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"))
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        rec["wall_seconds"] = time.perf_counter() - t0
        rec["error"] = "killed after %.0f s (timeout)" % timeout
        rec["stderr_tail"] = tail(e.stderr)
        return rec, None
    except OSError as e:
        rec["error"] = "could not start %s: %s" % (cmd[0], e)
        return rec, None
    rec["wall_seconds"] = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec["cpu_seconds"] = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    rec["exit_code"] = p.returncode
    if p.returncode != 0:
        err = (p.stderr or "").strip().splitlines()
        rec["error"] = "exit code %d%s" % (p.returncode, (": " + err[-1]) if err else "")
        rec["stderr_tail"] = tail(p.stderr)
        rec["stdout_tail"] = tail(p.stdout)
    return rec, p


def read_json(path, rec):
    try:
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError) as e:
        rec["error"] = "no readable JSON at %s: %s" % (os.path.basename(path), e)
        return None


def num(v):
    """A finite float or None."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return float(v)


def check_solve(layers, js, method, warm, threads):
    """Checks of one solve JSON on its own (cross-run checks are in cross_check). Returns
    (problems, bugs, warnings, info)."""
    d = layers[0][0].shape[1]
    problems, bugs, warnings, info = [], [], [], {}
    status = js.get("status")
    if status not in STATUSES:
        problems.append("status %r is none of %s" % (status, ", ".join(STATUSES)))
    obj_raw, bound_raw = js.get("objective"), js.get("bound")
    obj, bound = num(obj_raw), num(bound_raw)
    if obj_raw is not None and obj is None:
        problems.append("objective is not a finite number: %r" % (obj_raw,))
    if bound_raw is not None and bound is None and not (isinstance(bound_raw, (int, float)) and bound_raw == math.inf):
        problems.append("bound is not a number: %r" % (bound_raw,))
    if status == "no_solution" and obj_raw is not None:
        problems.append("status no_solution but objective = %r" % (obj_raw,))
    if status in ("optimal", "feasible") and obj is None:
        problems.append("status %s but no objective" % status)
    if obj is not None:
        x = js.get("x")
        try:
            x = np.asarray(x, dtype=np.float64).reshape(-1) if x is not None else None
        except (TypeError, ValueError):
            x = None
        if x is None or x.size != d or not np.all(np.isfinite(x)):
            problems.append("x missing, not finite or of the wrong length (d = %d)" % d)
        else:
            viol = max(0.0, float(-x.min()), float(x.max() - 1.0))
            info.update(x_min=float(x.min()), x_max=float(x.max()), box_violation=viol)
            if viol > BOX_TOL:
                problems.append("x leaves [0,1]^d by %.3g > %.0e" % (viol, BOX_TOL))
            fwd = float(netgen.forward(layers, x)[0])
            err = abs(fwd - obj) / max(1.0, abs(obj))
            info.update(forward_at_x=fwd, forward_rel_err=err)
            if not err <= FORWARD_RTOL:
                problems.append("forward(x) = %.12g but objective = %.12g (rel err %.3g > %.0e)"
                                % (fwd, obj, err, FORWARD_RTOL))
    if obj is not None and bound is not None and bound < obj - BOUND_OBJ_TOL * max(1.0, abs(obj)):
        bugs.append("bound %.12g < its own objective %.12g" % (bound, obj))
    if status == "optimal" and bound is None:
        problems.append("status optimal without a finite bound")
    if is_mip(method):
        form = js.get("formulation") or {}
        if not isinstance(form, dict) or "warm_start" not in form:
            problems.append("JSON lacks formulation.warm_start")
        elif not warm and form.get("warm_start"):
            problems.append("no warm start asked for, the JSON says formulation.warm_start = %r" % form.get("warm_start"))
        elif warm and not form.get("warm_start"):
            # formulation.warm_start says whether a start reached the MIP, not whether one was asked for
            warnings.append("warm start asked for but none reached the MIP (warm-start samples %s, LPs %s)"
                            % (js.get("samples"), js.get("lps")))
    if as_count(js.get("threads")) is not None and as_count(js["threads"]) != threads:
        problems.append("asked for --threads %d, the JSON says threads = %r" % (threads, js["threads"]))
    return problems, bugs, warnings, info


def solve_cell(ctx, nl, d, method, warm):
    args, layers, model = ctx["args"], ctx["layers"], ctx["model"]
    key = run_key(nl, d, method, warm)
    out = os.path.join(ctx["workdir"], key.replace("/", "_") + ".json")
    if os.path.exists(out):
        os.remove(out)
    flags = solve_flags(args, method, warm)
    cmd = [ctx["binary"], "solve", model] + flags + ["--json", out, "--quiet"]
    rec = dict(key=key, layers=nl, d=d, net_seed=ctx["net_seed"], method=method, warm=warm,
               signature=flags, budget=args.budget, threads=args.threads, seed=args.seed,
               reluopt_sha256=ctx["binary_sha"], command=display_command(cmd, ctx))
    log("   %-28s ..." % key)
    prec, _ = run_process(cmd, args.budget * 3 + args.timeout_slack)
    rec.update(prec)
    rec["problems"], rec["bugs"], rec["warnings"] = [], [], []
    if "error" not in rec:
        js = read_json(out, rec)
        if js is not None:
            problems, bugs, warnings, info = check_solve(layers, js, method, warm, args.threads)
            rec["problems"] += problems
            rec["bugs"] += bugs
            rec["warnings"] += warnings
            rec["checks"] = info
            rec["result"] = {k: v for k, v in js.items() if k != "x"}
    if rec.get("wall_seconds") is not None and rec["wall_seconds"] > args.budget * OVERRUN_FACTOR + OVERRUN_SLACK:
        rec["warnings"].append("wall %.1f s for a %s s time limit" % (rec["wall_seconds"], fmt_num(args.budget)))
    res = rec.get("result") or {}
    if "error" in rec:
        loud("reluopt FAILED on %s: %s%s" % (key, rec["error"],
                                             ("\n--- stderr (tail) ---\n" + rec["stderr_tail"].rstrip())
                                             if rec.get("stderr_tail") else ""))
    else:
        log("   %-28s %-11s obj %-14s bound %-14s gap %-8s %6.1f s wall, %s"
            % (key, res.get("status"), fmt_val(res.get("objective"), "%.6f"), fmt_val(res.get("bound"), "%.6f"),
               fmt_gap(res.get("gap")), rec["wall_seconds"], res.get("stopped_by")))
    for p in rec["problems"]:
        loud("MISMATCH %s: %s" % (key, p))
    for b in rec["bugs"]:
        loud("BUG %s: %s" % (key, b))
    for w in rec["warnings"]:
        log("   warning %s: %s" % (key, w))
    return rec


def relax_cell(ctx, nl, d, form, bounds):
    args, model = ctx["args"], ctx["model"]
    key = relax_key(nl, d, form, bounds)
    out = os.path.join(ctx["workdir"], "relax_" + key.replace("/", "_") + ".json")
    if os.path.exists(out):
        os.remove(out)
    flags = relax_flags(args, form, bounds)
    cmd = [ctx["binary"], "relax", model] + flags + ["--json", out]
    rec = dict(key=key, layers=nl, d=d, net_seed=ctx["net_seed"], formulation_asked=form, bounds_asked=bounds,
               signature=flags, threads=args.threads, reluopt_sha256=ctx["binary_sha"],
               command=display_command(cmd, ctx), problems=[], bugs=[], warnings=[])
    prec, _ = run_process(cmd, args.relax_timeout)
    rec.update(prec)
    if "error" not in rec:
        js = read_json(out, rec)
        if js is not None:
            rec["result"] = js
            if num(js.get("bound")) is None:
                rec["problems"].append("bound is not a finite number: %r" % (js.get("bound"),))
            if js.get("bound_method") != bounds:
                rec["problems"].append("asked for --bounds %s, the JSON says %r" % (bounds, js.get("bound_method")))
            want = "big-M" if form == "big-M" else "partition"
            if not str(js.get("formulation", "")).lower().startswith(want.lower()):
                rec["problems"].append("asked for %s, the JSON says formulation %r" % (form, js.get("formulation")))
    res = rec.get("result") or {}
    if "error" in rec:
        log("   relax %-26s FAILED: %s" % (key, rec["error"]))
    else:
        log("   relax %-26s bound %-14s %s binaries, bounds %s s, LP %s s"
            % (key, fmt_val(res.get("bound"), "%.6f"), res.get("binaries"), fmt_val(res.get("bounds_seconds"), "%.3f"),
               fmt_val(res.get("lp_seconds"), "%.3f")))
    for p in rec["problems"]:
        loud("MISMATCH relax %s: %s" % (key, p))
    return rec


def display_command(cmd, ctx):
    s = " ".join(shlex.quote(c) for c in cmd)
    s = s.replace(shlex.quote(ctx["binary"]), ctx["binary_display"]).replace(ctx["binary"], ctx["binary_display"])
    return s.replace(ctx["workdir"], "$WORK")


# --------------------------------------------------------------------------------------------- checks

def cross_check(state):
    """Best objective per network (runs whose own checks passed) and the checks that need it: every
    bound (solve and relax) >= best - tol. Fills state['networks'][*]['best_known'] and returns
    (bugs, problems, warnings, errors) as lists of strings; also marks the runs' cross_bugs."""
    bugs, problems, warnings, errors = [], [], [], []
    for net in state["networks"]:
        net["best_known"], net["best_known_by"] = None, None
    nets = {net_key(n["layers"], n["d"]): n for n in state["networks"]}
    for key, r in state["runs"].items():
        res = r.get("result") or {}
        obj = num(res.get("objective"))
        n = nets.get(net_key(r["layers"], r["d"]))
        if n is None or obj is None or r["problems"]:
            continue
        if n["best_known"] is None or obj > n["best_known"]:
            n["best_known"], n["best_known_by"] = obj, key
    for coll, what in ((state["runs"], "solve"), (state["relax"], "relax")):
        for key, r in coll.items():
            r["cross_bugs"] = []
            n = nets.get(net_key(r["layers"], r["d"]))
            res = r.get("result") or {}
            bound = num(res.get("bound"))
            best = n["best_known"] if n else None
            if bound is not None and best is not None and bound < best - BOUND_BEST_TOL * max(1.0, abs(best)):
                r["cross_bugs"].append("bound %.12g < %.12g, a feasible value found by %s (by %.3g)"
                                       % (bound, best, n["best_known_by"], best - bound))
            for b in r.get("bugs", []) + r["cross_bugs"]:
                bugs.append("%s %s: %s" % (what, key, b))
            for p in r.get("problems", []):
                problems.append("%s %s: %s" % (what, key, p))
            for w in r.get("warnings", []):
                warnings.append("%s %s: %s" % (what, key, w))
            if "error" in r:
                errors.append("%s %s: %s" % (what, key, r["error"]))
    # soft relaxation checks: tighter neuron bounds / more partitions should not weaken the root bound
    for n in state["networks"]:
        nk = net_key(n["layers"], n["d"])
        val = {}
        for r in state["relax"].values():
            if net_key(r["layers"], r["d"]) == nk and num((r.get("result") or {}).get("bound")) is not None:
                val[(r["formulation_asked"], r["bounds_asked"])] = r["result"]["bound"]
        for (form, b), v in sorted(val.items()):
            iv = val.get((form, "interval"))
            if b != "interval" and iv is not None and v > iv + 1e-6 * max(1.0, abs(iv)):
                warnings.append("relax %s/%s: %s bounds give a weaker root bound (%.9g) than interval (%.9g)"
                                % (nk, form, b, v, iv))
            bm = val.get(("big-M", b))
            if form != "big-M" and bm is not None and v > bm + 1e-6 * max(1.0, abs(bm)):
                warnings.append("relax %s/%s/%s: root bound %.9g weaker than big-M's %.9g with the same bounds"
                                % (nk, form, b, v, bm))
    return bugs, problems, warnings, errors


# --------------------------------------------------------------------------------------------- output

def fmt_val(v, spec="%.4f"):
    v2 = num(v)
    if v2 is None:
        return "inf" if v == math.inf else ("-inf" if v == -math.inf else "n/a")
    return spec % v2


def fmt_gap(g):
    g = num(g)
    if g is None:
        return "n/a"
    p = 100.0 * g
    return ("%.0f%%" % p) if abs(p) >= 10 else ("%.2f%%" % p)


def cell_of(r, method):
    """(value for bolding or None, cell dict)."""
    if r is None:
        return None, dict(text="(not run)")
    res = r.get("result") or {}
    obj = num(res.get("objective"))
    c = dict(status=res.get("status"), objective=obj, bound=num(res.get("bound")), gap=num(res.get("gap")),
             stopped_by=res.get("stopped_by"), run=r["key"])
    if "error" in r or not res:
        c["error"] = r.get("error", "no result")
        c["text"] = "ERR"
        return None, c
    txt = "NA" if obj is None else "%.4f" % obj
    if is_mip(method):
        if c["bound"] is not None:
            txt += " (≤%s%s)" % ("%.4f" % c["bound"], "" if obj is None else ", " + fmt_gap(c["gap"]))
        elif obj is not None:
            txt += " (no bound)"
    if is_mip(method) and r.get("warm") and not (res.get("formulation") or {}).get("warm_start"):
        c["no_warm_start"] = True
        txt += " †"
    c["text"] = txt
    flagged = bool(r.get("bugs") or r.get("cross_bugs") or r.get("problems"))
    c["flag"] = flagged
    return (obj if not r.get("problems") else None), c


def best_proven_bound(state, nl, d):
    """The least upper bound any run on network (nl, d) proved, warm or cold, that no check flagged."""
    bounds = [num((r.get("result") or {}).get("bound")) for r in state["runs"].values()
              if r.get("layers") == nl and r.get("d") == d and not (r.get("bugs") or r.get("cross_bugs") or r.get("problems"))]
    bounds = [b for b in bounds if b is not None]
    return min(bounds) if bounds else None


def build_tables(state, args):
    tables = []
    n = 0
    for warm in (False, True):
        if warm and args.no_warm:
            continue
        for nl in args.layers:
            n += 1
            paper = (2 * warm + nl) if nl in (1, 2) else None
            title = "Table %d: %d hidden layer%s of %d, %s%s" % (
                paper or n, nl, "s" if nl > 1 else "", args.width,
                ("MIP methods warm-started by %d sampling iterations" % args.warm_samples) if warm
                else "no warm start", (" (the paper's Table %d)" % paper) if paper else "")
            rows = []
            for d in args.dims:
                seed = args.net_seed + 10000 * nl + d
                cells, vals = {}, {}
                for m in args.methods:
                    r = state["runs"].get(run_key(nl, d, m, warm and is_mip(m)))
                    vals[m], cells[m] = cell_of(r, m)
                known = [v for v in vals.values() if v is not None]
                best = max(known) if known else None
                best_bound = best_proven_bound(state, nl, d)
                for m in args.methods:
                    cells[m]["bold"] = (vals[m] is not None and best is not None
                                        and round(vals[m], 4) == round(best, 4))
                    if vals[m] is not None and best_bound is not None:
                        cells[m]["gap_to_best_bound"] = (best_bound - vals[m]) / max(abs(vals[m]), 1e-9)
                rows.append(dict(d=d, net_seed=seed, cells=cells, best_bound=best_bound))
            tables.append(dict(title=title, layers=nl, warm=warm, columns=list(args.methods), rows=rows))
    return tables


# What the paper reports about its Tables 1-4 (Section 5.1, one hour per cell, Gurobi), for the comparison below.
PAPER_FINDINGS = {
    "L1": "for d = 5-10 every MIP method and enhanced sampling reach the same value; for d >= 20 enhanced "
          "sampling is at least as good as every other method (the improved MIP and big-M + cuts a bit worse in "
          "some cases)",
    "L2": "for d = 5, 10 enhanced sampling and the improved MIP tie; for d > 10 enhanced sampling is best, "
          "4.3%-25.0% above the second-best method; some MIP methods find no solution at all",
    "warm": "warm starts raise the MIP methods' values by 0.16%-1.29% on one layer; on two layers by 4.07% "
            "(MIP), 22.57% (big-M + cuts), 63.75% and 2511% (partitions N = 2, 4) on average, and every MIP "
            "then has a solution",
}


def comparison_with_paper(tables):
    """Markdown lines that set what the tables here show beside what the paper reports."""
    by = {(t["layers"], t["warm"]): t for t in tables}

    def value(row, m):
        return row["cells"].get(m, {}).get("objective")

    L = ["## Comparison with the paper", "",
         "The paper's findings (one hour per cell, Gurobi 9.5) beside what the tables above show (the budget above, "
         "CBC). Computed from the tables by `bench/paper_tables.py`; best = bold, to 4 decimals.", ""]
    for nl in (1, 2):
        t = by.get((nl, False))
        if t is None or "enhanced" not in t["columns"]:
            continue
        rows = [r for r in t["rows"] if value(r, "enhanced") is not None]
        best = [r["d"] for r in rows if r["cells"]["enhanced"].get("bold")]
        beaten = ["d=%d (%s)" % (r["d"], ", ".join(m for m in t["columns"] if m != "enhanced" and r["cells"][m].get("bold")))
                  for r in rows if not r["cells"]["enhanced"].get("bold")]
        mips = [m for m in t["columns"] if is_mip(m)]
        none = sum(1 for r in t["rows"] for m in mips if r["cells"][m].get("objective") is None)
        line = ("- **%d hidden layer%s, no warm start.** Paper: %s. Here: enhanced is best on %d of %d networks%s; "
                "%d of %d cold MIP cells have no solution."
                % (nl, "s" if nl > 1 else "", PAPER_FINDINGS["L%d" % nl], len(best), len(rows),
                   "" if not beaten else " (beaten at %s)" % "; ".join(beaten), none, len(mips) * len(t["rows"])))
        if nl == 2:
            margins = []
            for r in rows:
                others = [value(r, m) for m in t["columns"] if m != "enhanced" and value(r, m) is not None]
                if r["d"] > 10 and others and max(others) != 0:
                    margins.append((value(r, "enhanced") - max(others)) / abs(max(others)))
            if margins:
                line += (" For d > 10, enhanced is %.1f%% to %.1f%% above the second-best method (median %.1f%%)."
                         % (100 * min(margins), 100 * max(margins), 100 * sorted(margins)[len(margins) // 2]))
        L.append(line)
    cold_warm = [(by.get((nl, False)), by.get((nl, True)), nl) for nl in (1, 2)]
    parts = []
    for cold, warm, nl in cold_warm:
        if cold is None or warm is None:
            continue
        for m in [c for c in warm["columns"] if is_mip(c)]:
            gains, rescued = [], 0
            for rc, rw in zip(cold["rows"], warm["rows"]):
                vc, vw = value(rc, m), value(rw, m)
                if vc is None and vw is not None:
                    rescued += 1
                elif vc is not None and vw is not None and vc != 0:
                    gains.append((vw - vc) / abs(vc))
            if gains or rescued:
                parts.append("%d layer%s %s: %s%s" % (
                    nl, "s" if nl > 1 else "", column_title(m),
                    "mean %+.2f%% over %d network%s" % (100 * sum(gains) / len(gains), len(gains), "s" if len(gains) > 1 else "") if gains else "no pair",
                    ", a solution where cold had none on %d" % rescued if rescued else ""))
    if parts:
        L.append("- **Warm starts.** Paper: %s. Here, the warm-started value against the cold one: %s."
                 % (PAPER_FINDINGS["warm"], "; ".join(parts)))
    L.append("")
    return L


def md_cell(c):
    t = c["text"]
    if c.get("gap_to_best_bound") is not None:
        t += " [%s]" % fmt_gap(c["gap_to_best_bound"])
    if c.get("bold"):
        t = "**%s**" % t if " (" not in t else "**%s** %s" % tuple(t.split(" ", 1))
    if c.get("error"):
        t = "**ERR**"
    if c.get("flag"):
        t += " **BUG/CHECK!**"
    return t


def write_outputs(state, args, paths, final=False):
    bugs, problems, warnings, errors = cross_check(state)
    tables = build_tables(state, args)
    state["tables"] = tables
    state["bugs"], state["problems"], state["warnings"], state["errors"] = bugs, problems, warnings, errors
    state["meta"]["finished"] = final
    state["meta"]["written"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    atomic_write(paths["json"], json.dumps(state, indent=1, sort_keys=False, default=str))
    atomic_write(paths["md"], render_md(state, args, tables))


def atomic_write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


def esc(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def render_md(state, args, tables):
    meta = state["meta"]
    L = ["# Paper Tables 1-4 with reluopt (Perakis & Tsiourvas, Section 5)", ""]
    L.append("Generated by `bench/paper_tables.py`, started %s, last written %s%s." % (
        meta["date"], meta["written"], "" if meta["finished"] else
        " — **PARTIAL: the run is still going or was stopped; cells marked (not run) are missing**"))
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
    for k in ("machine", "nproc", "load_average_at_start", "python", "numpy", "reluopt", "reluopt_version",
              "reluopt_sha256", "git_head", "budget", "threads", "seed", "networks", "domain"):
        L.append("| %s | %s |" % (k, esc(meta.get(k))))
    L.append("")
    L.append("**Note.** " + NOTE)
    L.append("")
    fr = sorted(r["cpu_seconds"] / r["wall_seconds"] for r in state["runs"].values()
                if not is_mip(r["method"]) and r.get("cpu_seconds") is not None and r.get("wall_seconds"))
    if fr and fr[len(fr) // 2] < 0.9 * args.threads:
        L.append("**CPU contention:** the sampling runs, which keep all %d threads busy, got a median %.2f CPU "
                 "seconds per wall second: other processes shared the machine, so every method had less CPU "
                 "than its budget suggests." % (args.threads, fr[len(fr) // 2]))
        L.append("")
    if len(set(meta.get("binaries_used", []))) > 1:
        L.append("**Warning:** the runs below come from %d different reluopt binaries (sha256 prefixes %s): "
                 "the binary changed between (resumed) runs." % (len(set(meta["binaries_used"])),
                                                                  ", ".join(sorted(set(meta["binaries_used"])))))
        L.append("")
    if state["bugs"]:
        L.append("## !!! BUGS: bounds below known feasible values !!!")
        L.append("")
        for b in state["bugs"]:
            L.append("- **BUG** %s" % esc(b))
        L.append("")
    L.append("Cells: best objective found (the forward value of the returned x, re-checked in numpy); for the "
             "MIP methods also `(≤ proven bound, gap)`, gap as reluopt reports it. **Bold**: best of the row "
             "(to 4 decimals). `[g%]`: the cell's gap to the best bound, the least upper bound any MIP run on the "
             "network proved (cold or warm; column `best bound`), as (best bound - value) / |value|. "
             "NA: no solution within the budget. ERR: the run failed (listed below the table). "
             "BUG/CHECK!: the cell failed a check (see Checks).")
    L.append("")
    for t in tables:
        L.append("## " + t["title"])
        L.append("")
        hdr = ["d", "net seed", "best bound"] + [column_title(m) for m in t["columns"]]
        L.append("| " + " | ".join(hdr) + " |")
        L.append("|" + "|".join("---:" for _ in hdr) + "|")
        notes = []
        for row in t["rows"]:
            cells = [str(row["d"]), str(row["net_seed"]), fmt_val(row.get("best_bound"))]
            for m in t["columns"]:
                c = row["cells"][m]
                cells.append(md_cell(c))
                if c.get("error"):
                    notes.append("d=%d %s: %s" % (row["d"], m, c["error"]))
            L.append("| " + " | ".join(esc(c) for c in cells) + " |")
        if any(c.get("no_warm_start") for row in t["rows"] for c in row["cells"].values()):
            L.append("")
            L.append("†: the warm start never reached the MIP (formulation.warm_start = false): the budget ran "
                     "out before the warm-start sampling found a point (reluopt computes the neuron bounds first).")
        if t["warm"]:
            sl = [m for m in t["columns"] if not is_mip(m)]
            if sl:
                L.append("")
                L.append("%s: the same runs as in the table without warm start." % ", ".join("`%s`" % m for m in sl))
        if notes:
            L.append("")
            L.append("Errors:")
            L.append("")
            for s in notes:
                L.append("- " + esc(s))
        L.append("")
    L += comparison_with_paper(tables)
    if state["relax"]:
        L.append("## Root LP relaxation bounds (`reluopt relax`)")
        L.append("")
        L.append("Per network and formulation: the root LP bound with each kind of neuron bounds, as "
                 "`bound (binaries, seconds for the neuron bounds)`; best known = the best objective any run "
                 "found on that network (a root bound below it is a BUG).")
        L.append("")
        L.append("| L | d | net seed | formulation | %s | best known |" % " | ".join(args.relax_bounds))
        L.append("|---:|---:|---:|---|%s---:|" % ("---:|" * len(args.relax_bounds)))
        nets = {net_key(n["layers"], n["d"]): n for n in state["networks"]}
        errs = []
        for nl in args.layers:
            for d in args.dims:
                n = nets.get(net_key(nl, d))
                for form in args.relax_forms:
                    cells = []
                    for b in args.relax_bounds:
                        r = state["relax"].get(relax_key(nl, d, form, b))
                        if r is None:
                            cells.append("(not run)")
                        elif "error" in r or not r.get("result"):
                            cells.append("**ERR**")
                            errs.append("L=%d d=%d %s %s: %s" % (nl, d, form, b, r.get("error", "no result")))
                        else:
                            res = r["result"]
                            s = "%s (%s, %s s)" % (fmt_val(res.get("bound")), res.get("binaries"),
                                                   fmt_val(res.get("bounds_seconds"), "%.2f"))
                            if r.get("cross_bugs") or r.get("problems"):
                                s += " **BUG/CHECK!**"
                            cells.append(s)
                    if all(c == "(not run)" for c in cells) and n is None:
                        continue
                    L.append("| %d | %d | %d | %s | %s | %s |" % (
                        nl, d, args.net_seed + 10000 * nl + d, form, " | ".join(esc(c) for c in cells),
                        fmt_val(n["best_known"]) if n else "n/a"))
        if errs:
            L.append("")
            L.append("Errors:")
            L.append("")
            for s in errs:
                L.append("- " + esc(s))
        L.append("")
    L.append("## Runs in detail")
    L.append("")
    L.append("| run | status | stopped by | objective | bound | gap | nodes | samples | LPs | binaries | bounds "
             "| tool s | wall s | CPU/wall | load1 before |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for key in ordered_run_keys(state, args):
        r = state["runs"][key]
        res = r.get("result") or {}
        form = res.get("formulation") or {}
        if "error" in r:
            L.append("| %s | **FAILED: %s** | | | | | | | | | | | %s | | %.2f |" % (
                key, esc(r["error"]), fmt_val(r.get("wall_seconds"), "%.1f"), r["load1_before"]))
            continue
        cpu = r.get("cpu_seconds")
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %s | %.2f |" % (
            key, res.get("status"), res.get("stopped_by"), fmt_val(res.get("objective"), "%.6f"),
            fmt_val(res.get("bound"), "%.6f"), fmt_gap(res.get("gap")), res.get("nodes"), res.get("samples"),
            res.get("lps"), form.get("binaries", ""), form.get("bounds", ""), fmt_val(res.get("seconds"), "%.1f"),
            r["wall_seconds"], fmt_val(cpu / r["wall_seconds"] if cpu is not None and r["wall_seconds"] else None, "%.2f"),
            r["load1_before"]))
    L.append("")
    L.append("## Checks")
    L.append("")
    L.append("Every run: objective = numpy forward value of x within %.0e * max(1, |objective|); x in [0,1]^d "
             "within %.0e; bound >= objective - %.0e * max(1, |objective|); every bound (solve and relax) >= the "
             "best objective found on that network by any run - %.0e * max(1, |best|); status consistent with "
             "the objective; the JSON echoes the thread count asked for and a cold run has no warm start."
             % (FORWARD_RTOL, BOX_TOL, BOUND_OBJ_TOL, BOUND_BEST_TOL))
    L.append("")
    if state["bugs"]:
        L.append("**BUGS (%d):**" % len(state["bugs"]))
        L.append("")
        L += ["- " + esc(b) for b in state["bugs"]]
        L.append("")
    if state["problems"]:
        L.append("**MISMATCHES (%d):**" % len(state["problems"]))
        L.append("")
        L += ["- " + esc(p) for p in state["problems"]]
        L.append("")
    if state["errors"]:
        L.append("**Failed runs (%d)** (error cells; not checked):" % len(state["errors"]))
        L.append("")
        L += ["- " + esc(e) for e in state["errors"]]
        L.append("")
    if state["warnings"]:
        L.append("**Warnings (%d)** (not failures):" % len(state["warnings"]))
        L.append("")
        L += ["- " + esc(w) for w in state["warnings"]]
        L.append("")
    if not (state["bugs"] or state["problems"] or state["errors"]):
        L.append("All runs finished and passed every check.")
        L.append("")
    L.append("## Commands")
    L.append("")
    L.append("```")
    L.append(meta["command"])
    L.append("```")
    L.append("")
    L.append("Per network; `$WORK` was `%s`%s. The netgen line regenerates each model bit for bit. `%s` is "
             "the binary asked for; a copy of it (sha256 %s...) was run, so a rebuild during the benchmark "
             "does not mix binaries." % (meta["workdir"], "" if meta["models_kept"] else " (a temporary directory, deleted)",
                                         meta["reluopt"], meta["reluopt_sha256"]))
    L.append("")
    L.append("```")
    for n in state["networks"]:
        nk = net_key(n["layers"], n["d"])
        L.append("# %s, seed %d" % (nk, n["net_seed"]))
        L.append(n["netgen_command"])
        for key in ordered_run_keys(state, args):
            if key.startswith(nk + "/"):
                L.append(state["runs"][key]["command"])
        for key, r in state["relax"].items():
            if key.startswith(nk + "/"):
                L.append(r["command"])
    L.append("```")
    L.append("")
    return "\n".join(L)


def ordered_run_keys(state, args):
    keys = []
    for nl in args.layers:
        for d in args.dims:
            for warm in (False, True):
                for m in args.methods:
                    k = run_key(nl, d, m, warm)
                    if k in state["runs"]:
                        keys.append(k)
    keys += [k for k in state["runs"] if k not in keys]
    return keys


# --------------------------------------------------------------------------------------------- main

def main(argv=None):
    ap = argparse.ArgumentParser(description="Tables 1-4 of Perakis & Tsiourvas (Section 5) with reluopt, "
                                 "plus root LP relaxation bounds.",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--budget", type=float, default=None, help="seconds per cell, passed as --time-limit "
                    "(default 60; --quick 5; the paper used 3600)")
    ap.add_argument("--dims", type=int, nargs="+", default=None,
                    help="input dimensions (default the paper's 5 ... 1000; --quick 5 10)")
    ap.add_argument("--layers", type=int, nargs="+", default=[1, 2], help="numbers of hidden layers")
    ap.add_argument("--width", type=int, default=100, help="hidden layer width")
    ap.add_argument("--methods", default=DEFAULT_METHODS,
                    help="comma-separated columns: sampling, enhanced, mip, mip-cuts, partitionN")
    ap.add_argument("--threads", type=int, default=2, help="reluopt --threads")
    ap.add_argument("--seed", type=int, default=1, help="reluopt --seed")
    ap.add_argument("--net-seed", type=int, default=0, help="network (d, L) uses net_seed + 10000*L + d")
    ap.add_argument("--bounds", default=None, choices=["interval", "lp", "progressive"],
                    help="--bounds for the MIP solves (default: reluopt's default)")
    ap.add_argument("--reluopt-defaults", action="store_true",
                    help="run reluopt's defaults (concave neurons free, enhanced with its MIP share) instead of "
                         "the paper's models (--concave-neurons fixed, enhanced --mip-share 0)")
    ap.add_argument("--warm-samples", type=int, default=1000, help="--warm-start-samples (the paper: 1000)")
    ap.add_argument("--no-warm", action="store_true", help="skip the warm-started runs (Tables 3-4)")
    ap.add_argument("--no-relax", action="store_true", help="skip the root LP bound table")
    ap.add_argument("--relax-partitions", default="2,4", help="partition counts for the relax table")
    ap.add_argument("--relax-bounds", default="interval,lp,progressive",
                    help="neuron bounds for the relax table (lp and progressive take minutes at d >= 500, L = 2)")
    ap.add_argument("--relax-timeout", type=float, default=900.0, help="seconds before a relax run is killed")
    ap.add_argument("--out", default=None, help="output prefix (default bench/results/paper_tables; "
                    "--quick: bench/results/paper_tables_quick); writes PREFIX.md and PREFIX.json")
    ap.add_argument("--reluopt", default="build/reluopt",
                    help="reluopt binary (relative paths: cwd first, then the repo root)")
    ap.add_argument("--quick", action="store_true", help="smoke test: d in {5, 10}, 5 s budget")
    ap.add_argument("--resume", action="store_true",
                    help="reuse the runs already in PREFIX.json that ran with the same command line "
                    "(failed runs are run again)")
    ap.add_argument("--keep-models", default=None, help="write the ONNX files and reluopt JSONs here and keep them")
    ap.add_argument("--timeout-slack", type=float, default=120.0,
                    help="a solve is killed after 3 * budget + this many seconds")
    args = ap.parse_args(argv)
    if args.budget is None:
        args.budget = 5.0 if args.quick else 60.0
    if args.dims is None:
        args.dims = [5, 10] if args.quick else list(PAPER_DIMS)
    args.methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    try:
        for m in args.methods:
            method_args(m)
        args.relax_forms = ["big-M"] + ["partition%d" % int(p) for p in args.relax_partitions.split(",") if p.strip()]
    except ValueError as e:
        ap.error(str(e))
    args.relax_bounds = [b.strip() for b in args.relax_bounds.split(",") if b.strip()]
    if not args.relax_bounds or any(b not in ("interval", "lp", "progressive") for b in args.relax_bounds):
        ap.error("--relax-bounds takes a comma-separated subset of interval,lp,progressive")
    if args.budget <= 0 or args.threads <= 0 or not args.methods or len(set(args.methods)) != len(args.methods):
        ap.error("--budget and --threads must be positive, --methods non-empty without repeats")
    prefix = args.out or os.path.join(HERE, "results", "paper_tables" + ("_quick" if args.quick else ""))
    paths = dict(md=prefix + ".md", json=prefix + ".json")

    asked = resolve_binary(args.reluopt)
    if asked is None:
        log("error: reluopt binary not found or not executable: %r.\n"
            "  Build it with `cmake --build build -j2 --target reluopt_cli` (or `make build`), or pass --reluopt PATH."
            % args.reluopt)
        return 2
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    if args.keep_models:
        os.makedirs(args.keep_models, exist_ok=True)
        workdir, tmp = os.path.abspath(args.keep_models), None
    else:
        tmp = tempfile.TemporaryDirectory(prefix="paper_tables_")
        workdir = tmp.name
    # Run a private copy: other people rebuild build/reluopt while this runs for hours.
    binary = os.path.join(workdir, "reluopt_under_test")
    shutil.copy2(asked, binary)
    binary_sha = sha256(binary)[:16]
    try:
        version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        version = "unknown"

    old = {}
    if args.resume and os.path.exists(paths["json"]):
        try:
            with open(paths["json"]) as fh:
                old = json.load(fh)
        except (OSError, ValueError) as e:
            log("error: --resume: cannot read %s: %s" % (paths["json"], e))
            return 2
    binaries_used = [binary_sha]
    meta = dict(
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        machine="%s, %s" % (cpu_model(), platform.platform()),
        nproc=os.cpu_count(),
        load_average_at_start="%.2f %.2f %.2f" % os.getloadavg(),
        python=sys.version.split()[0] + " (" + sys.executable + ")",
        numpy=np.__version__,
        reluopt=os.path.relpath(asked, REPO) if asked.startswith(REPO + os.sep) else asked,
        reluopt_version=version,
        reluopt_sha256=binary_sha,
        git_head=git_head(),
        budget="%s s wall clock per cell (--time-limit), the same for every method; the paper: 3600 s"
               % fmt_num(args.budget),
        budget_seconds=args.budget,
        threads=args.threads,
        seed=args.seed,
        methods=args.methods,
        warm_start="--warm-start sampling --warm-start-samples %d" % args.warm_samples,
        sampling_samples=HUGE_SAMPLES,
        networks="%s hidden layer(s) of %d, one output, d in %s, uniform Xavier (bench/netgen.py), "
                 "seed = %d + 10000*L + d" % ("/".join(map(str, args.layers)), args.width,
                                              "{%s}" % ", ".join(map(str, args.dims)), args.net_seed),
        domain="[0,1]^d, maximise the output",
        note=NOTE,
        command=" ".join(shlex.quote(c) for c in [sys.executable, os.path.relpath(os.path.abspath(__file__))]
                         + list(sys.argv[1:] if argv is None else argv)),
        workdir=workdir,
        models_kept=bool(args.keep_models),
        resumed_from=paths["json"] if old else None,
    )
    state = dict(meta=meta, networks=[], runs={}, relax={})
    ctx = dict(args=args, binary=binary, binary_sha=binary_sha, workdir=workdir,
               binary_display=meta["reluopt"])
    log("paper_tables: nproc %s, load %s, budget %s s, threads %d, methods %s -> %s"
        % (meta["nproc"], meta["load_average_at_start"], fmt_num(args.budget), args.threads,
           ",".join(args.methods), paths["md"]))

    def reusable(coll, key, signature):
        r = (old.get(coll) or {}).get(key)
        if not r or "error" in r or r.get("signature") != signature or not r.get("result"):
            return None
        return r

    def stop(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)
    signal.signal(signal.SIGTERM, stop)  # `kill PID` / `timeout`: write what was measured, then stop

    t_start = time.perf_counter()
    interrupted = False
    try:
        for nl in args.layers:
            for d in args.dims:
                hidden = [args.width] * nl
                net_seed = args.net_seed + 10000 * nl + d
                layers = netgen.make_network(d, hidden, net_seed)
                model = os.path.join(workdir, "net_d%d_L%d.onnx" % (d, nl))
                netgen.write_onnx(layers, model)
                back = netgen.load_onnx(model)
                assert all(np.array_equal(W, W2) and np.array_equal(b, b2)
                           for (W, b), (W2, b2) in zip(layers, back)), "ONNX round trip changed the weights"
                state["networks"].append(dict(
                    layers=nl, d=d, hidden=hidden, net_seed=net_seed, model=os.path.basename(model),
                    netgen_command="/usr/bin/python3 bench/netgen.py --d %d --hidden %s --seed %d -o $WORK/%s"
                                   % (d, " ".join(map(str, hidden)), net_seed, os.path.basename(model))))
                ctx.update(layers=layers, model=model, net_seed=net_seed)
                log("\n== %s: d=%d hidden=%s (seed %d)" % (net_key(nl, d), d, hidden, net_seed))
                jobs = [(m, False) for m in args.methods]
                if not args.no_warm:
                    jobs += [(m, True) for m in args.methods if is_mip(m)]
                for m, warm in jobs:
                    key = run_key(nl, d, m, warm)
                    r = reusable("runs", key, solve_flags(args, m, warm))
                    if r is not None:
                        r["resumed"] = True
                        # the checks are rerun on the stored numbers where possible (x is not stored)
                        state["runs"][key] = r
                        binaries_used.append(r.get("reluopt_sha256"))
                        log("   %-28s (resumed) obj %s" % (key, fmt_val((r.get("result") or {}).get("objective"), "%.6f")))
                        continue
                    state["runs"][key] = solve_cell(ctx, nl, d, m, warm)
                    meta["binaries_used"] = sorted(set(b for b in binaries_used if b))
                    write_outputs(state, args, paths)
                if not args.no_relax:
                    for form in args.relax_forms:
                        for b in args.relax_bounds:
                            key = relax_key(nl, d, form, b)
                            r = reusable("relax", key, relax_flags(args, form, b))
                            if r is not None:
                                r["resumed"] = True
                                state["relax"][key] = r
                                binaries_used.append(r.get("reluopt_sha256"))
                                continue
                            state["relax"][key] = relax_cell(ctx, nl, d, form, b)
                    write_outputs(state, args, paths)
    except KeyboardInterrupt:
        interrupted = True
        meta["interrupted"] = True
        log("interrupted: writing what was measured so far")
    finally:
        meta["binaries_used"] = sorted(set(b for b in binaries_used if b))
        meta["elapsed_seconds"] = time.perf_counter() - t_start
        write_outputs(state, args, paths, final=not interrupted)
        if tmp is not None:
            tmp.cleanup()

    with open(paths["md"]) as fh:
        print(fh.read())
    log("\nwrote %s and %s (%.0f s)" % (paths["md"], paths["json"], meta["elapsed_seconds"]))
    if state["bugs"]:
        loud("BUGS (%d): bounds below known feasible values or below their own objective:\n%s"
             % (len(state["bugs"]), "\n".join("  " + b for b in state["bugs"])))
    if state["problems"]:
        loud("CHECK MISMATCHES (%d):\n%s" % (len(state["problems"]), "\n".join("  " + p for p in state["problems"])))
    if state["errors"]:
        log("\n%d runs failed (error cells):\n%s" % (len(state["errors"]), "\n".join("  " + e for e in state["errors"])))
    if state["bugs"] or state["problems"]:
        return 1
    if state["errors"] or interrupted:
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
