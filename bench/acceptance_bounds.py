#!/usr/bin/python3
"""Issue 11 acceptance ("Deep networks" and proven bounds): reluopt's default method on the paper's grid and on a
deep trained network, and `--method mip` on the deep network.

Parts (--parts, any of grid, deep, deep-mip; default all three):

grid      The 18 networks of bench/acceptance_enhanced.py part (a), generated the same way: Xavier
          (netgen.make_network), 1 and 2 hidden layers of 100, one output, d in 5 10 20 50 100 200 500 750 1000,
          network (d, L) with seed --net-seed + 10000 L + d (base 777), box [0,1]^d, maximise output 0. Each runs
              reluopt solve M --domain D --objective O --time-limit B --threads 2 --seed 1 --json OUT --quiet
          (no --method: the default method with its default options). Recorded: status, value, bound, gap,
          reluopt's seconds and the wall time.
deep      bench/models/deep_5x6x50.onnx (5 -> 50 x 6 -> 5, trained by bench/deep_networks.py) over the 20 boxes of
          bench/models/deep_boxes.json (1-3 inputs over all of [-1,1], the others over 1-10% of it; maximise one
          output). The same command as grid (default method). proven = gap <= 1e-4, where gap is the JSON's
          "gap" ((bound - value) / |value|), or computed so from value and bound when the JSON has none.
deep-mip  The same boxes with `--method mip` added. point = status != "no_solution" (and a value).

Acceptance (the issue's):
  * grid: geometric mean over the networks of gap = (bound - value) / |value|, each floored at 1e-6 (a proven
    optimum's gap of 0 would otherwise make the mean 0), after <= half of before. Needs --before (a previous
    result of this script, or bench/results/acceptance_enhanced.json, whose part (a) "enhanced" results hold
    objective and bound); only the networks in both are averaged; without --before it is not judged;
  * grid: every network with one hidden layer and d <= 20, and with two and d <= 10, ends with status "optimal";
  * deep: proven on at least 18 of 20 boxes (90%, rounded up, of the boxes run) within the budget (a proven run
    counts when its wall time is at most budget * 1.05 + 1 s);
  * deep-mip: a point on every box.

Every reluopt answer is checked (acceptance_common.check_result): the objective equals the numpy forward value of x
(netgen.forward) within 1e-6 * max(1, |objective|), x lies in the domain within 1e-7, and a bound is never below
the run's own value nor below any feasible value known on that instance (the other part's value on the same box;
for grid, the values of the --before file when its network has the same seed) by more than 1e-6 relative; a new
value above a --before proven bound is flagged too. A violation is printed between rows of '!' and gives exit
status 1.

Output: bench/results/acceptance_bounds[_LABEL][_quick].{md,json}, rewritten after every run, so a stopped run
keeps what it measured (the files then say PARTIAL). Ctrl-C or `kill PID` (SIGTERM) stops it after writing them
(the run in progress is dropped).
Exit status: 0 all accepted; 1 a check violation; 2 bad usage / binary missing; 3 acceptance not met, a run
failed, or the run was interrupted.

    /usr/bin/python3 bench/acceptance_bounds.py --quick --reluopt /tmp/reluopt            # smoke test, ~1 min
    /usr/bin/python3 bench/acceptance_bounds.py --before bench/results/acceptance_enhanced.json   # ~ 58 runs x 60 s
    /usr/bin/python3 bench/acceptance_bounds.py --parts deep deep-mip --budget 30 --label b30
"""
import argparse
import json
import math
import os
import shlex
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acceptance_common as ac  # noqa: E402
import netgen  # noqa: E402
from acceptance_common import fmt, log, loud  # noqa: E402
from acceptance_enhanced import PAPER_DIMS  # noqa: E402

PARTS = ("grid", "deep", "deep-mip")
DEEP_MODEL = os.path.join(ac.MODELS, "deep_5x6x50.onnx")
DEEP_BOXES = os.path.join(ac.MODELS, "deep_boxes.json")
PROVEN_GAP = 1e-4
GAP_FLOOR = 1e-6
DEEP_NEED = 0.9          # of the boxes run: 18 of 20


def parse(argv):
    ap = argparse.ArgumentParser(description="Issue 11 acceptance: proven bounds on the grid and a deep network.",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--reluopt", default="build/reluopt")
    ap.add_argument("--budget", type=float, default=None, help="seconds per run, --time-limit (default 60, --quick 5)")
    ap.add_argument("--parts", nargs="+", default=None,
                    help="any of grid, deep, deep-mip (space or comma separated; default all)")
    ap.add_argument("--quick", action="store_true", help="smoke test: 3 boxes, grid d in {5, 20}, budget 5")
    ap.add_argument("--out-dir", default=ac.RESULTS)
    ap.add_argument("--label", default=None, help="output files acceptance_bounds_LABEL.{md,json}")
    ap.add_argument("--before", default=None,
                    help="a previous result JSON (this script's, or acceptance_enhanced.json) to compare the grid with")
    ap.add_argument("--dims", type=int, nargs="+", default=None, help="grid input dimensions (default the paper's)")
    ap.add_argument("--layers", type=int, nargs="+", default=[1, 2], help="grid numbers of hidden layers of 100")
    ap.add_argument("--net-seed", type=int, default=777, help="grid network (d, L) uses net_seed + 10000 L + d")
    ap.add_argument("--boxes", type=int, default=None, help="the first N deep boxes (default 20, --quick 3)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--extra-flags", default="",
                    help="more reluopt solve flags for every run, as one string, e.g. --extra-flags='--samples 1000000'")
    ap.add_argument("--keep", default=None, help="keep the domain/objective/result JSONs in this directory")
    a = ap.parse_args(argv)
    parts = []
    for p in a.parts or PARTS:
        parts += [q for q in p.split(",") if q]
    bad = [p for p in parts if p not in PARTS]
    if bad:
        ap.error("unknown part(s) %s; choose among %s" % (", ".join(bad), ", ".join(PARTS)))
    a.parts = [p for p in PARTS if p in parts]
    a.extra = shlex.split(a.extra_flags)
    if a.dims is None:
        a.dims = [5, 20] if a.quick else PAPER_DIMS
    if a.budget is None:
        a.budget = 5.0 if a.quick else 60.0
    if a.boxes is None:
        a.boxes = 3 if a.quick else 20
    if a.label is not None and not a.label.replace("-", "").replace("_", "").replace(".", "").isalnum():
        ap.error("--label takes letters, digits, '-', '_' and '.'")
    return a


# --------------------------------------------------------------------------------------------- helpers

def rel_gap(value, bound, sgn=1.0):
    """(bound - value) / |value| in the objective's sense; None without both; inf at a zero value below its bound."""
    value, bound = ac.num(value), ac.num(bound)
    if value is None or bound is None:
        return None
    diff = sgn * (bound - value)
    if value == 0.0:
        return 0.0 if diff <= 0 else math.inf
    return max(0.0, diff) / abs(value)


def floored(g):
    return None if g is None else max(g, GAP_FLOOR)


def geomean(vals):
    if not vals:
        return None
    if any(v is None or not math.isfinite(v) for v in vals):
        return math.inf
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def summary(inst, rec):
    """The fields of one run that the tables use."""
    res = rec.get("result") or {}
    obj, bound = ac.num(res.get("objective")), ac.num(res.get("bound"))
    gap = ac.num(res.get("gap"))
    if gap is None:
        gap = rel_gap(obj, bound, inst.sgn)
    return dict(status=res.get("status", "ERROR" if "error" in rec else None), value=obj, bound=bound,
                gap_json=ac.num(res.get("gap")), gap=gap, seconds=ac.num(res.get("seconds")),
                wall_seconds=rec.get("wall_seconds"), stopped_by=res.get("stopped_by"), method=res.get("method"),
                nodes=res.get("nodes"), samples=res.get("samples"), error=rec.get("error"))


def late(a, wall):
    return wall is not None and wall > a.budget * 1.05 + 1.0


def run_one(a, ro, inst, flags, tag, known=None, before_bound=None):
    """Run reluopt on inst, check the answer; returns (record without x, summary, violations)."""
    rec = ro.solve(inst, list(flags) + a.extra, a.budget, a.threads, a.seed, tag=tag)
    rec["run_index"] = ro.counter
    rec["command"] = rec["command"].replace(ac.REPO + "/", "")
    viol = []
    if "error" in rec:
        loud("reluopt FAILED on %s (%s): %s\n%s" % (inst.name, tag, rec["error"], rec.get("stderr_tail", "")))
    else:
        res = rec["result"]
        viol += ac.check_result(inst, res, known)
        v = ac.num(res.get("objective"))
        if v is not None and before_bound is not None and inst.sgn * (v - before_bound) > ac.BOUND_TOL * max(1.0, abs(v)):
            viol.append("value %.12g is above the --before run's proven bound %.12g" % (v, before_bound))
    for v in viol:
        loud("VIOLATION %s (%s): %s" % (inst.name, tag, v))
    s = summary(inst, rec)
    log("   %-9s %-12s value %-14s bound %-14s gap %-10s %s s (wall %s s)%s"
        % (tag, s["status"], fmt(s["value"], "%.9g"), fmt(s["bound"], "%.9g"), fmt(s["gap"], "%.3g"),
           fmt(s["seconds"], "%.1f"), fmt(s["wall_seconds"], "%.1f"), "" if s["error"] is None else "  " + s["error"]))
    return dict(rec, result=ac.strip_x(rec.get("result"))), s, viol


# --------------------------------------------------------------------------------------------- --before

def load_before(path):
    """{instance name: dict(value, bound, gap, status, seed, known_values, proven_bounds)} and a description."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    if isinstance(data, dict) and isinstance(data.get("grid"), list):
        kind = "acceptance_bounds.py"
        for row in data["grid"]:
            s = row.get("run_summary") or {}
            out[row["instance"]] = dict(value=s.get("value"), bound=s.get("bound"), gap=s.get("gap"),
                                        status=s.get("status"), seed=row.get("seed"),
                                        known_values=[v for v in [s.get("value")] if v is not None],
                                        proven_bounds=[b for b in [s.get("bound")] if b is not None])
    elif isinstance(data, dict) and isinstance(data.get("a"), list):
        kind = "acceptance_enhanced.py part (a), its enhanced runs"
        for row in data["a"]:
            res = (row.get("enhanced") or {}).get("result") or {}
            obj, bound = ac.num(res.get("objective")), ac.num(res.get("bound"))
            known = [v for v in (obj, ac.num((row.get("reference") or {}).get("objective")),
                                 ac.num((row.get("highs") or {}).get("objective"))) if v is not None]
            bounds = [b for b in (bound, ac.num((row.get("highs") or {}).get("bound"))) if b is not None]
            out[row["instance"]] = dict(value=obj, bound=bound, gap=rel_gap(obj, bound), status=res.get("status"),
                                        seed=row.get("seed"), known_values=known, proven_bounds=bounds)
    else:
        raise ValueError("%s: neither a result of acceptance_bounds.py (key 'grid') nor of acceptance_enhanced.py "
                         "(key 'a')" % path)
    args = data.get("args") or {}
    meta = data.get("meta") or {}
    p = os.path.abspath(path)
    desc = dict(path=os.path.relpath(p, ac.REPO) if p.startswith(ac.REPO + os.sep) else p, kind=kind,
                budget=args.get("budget"),
                threads=args.get("threads"), date=meta.get("date"), reluopt_sha256=meta.get("reluopt_sha256"),
                git_head=meta.get("git_head"), networks=len(out))
    return out, desc


# --------------------------------------------------------------------------------------------- parts

def grid_instance(a, nl, d, workdir):
    """The network of acceptance_enhanced.py part (a), built by the same calls."""
    seed = a.net_seed + 10000 * nl + d
    layers = netgen.make_network(d, [100] * nl, seed)
    inst = ac.Instance("grid_L%d_d%d" % (nl, d), layers, ac.box_domain(d), ac.max_output_objective(),
                       desc="Xavier seed %d" % seed).write(workdir)
    return inst, seed


def must_be_optimal(nl, d):
    return (nl == 1 and d <= 20) or (nl == 2 and d <= 10)


def part_grid(a, ro, workdir, state, save, before):
    for nl in a.layers:
        for d in a.dims:
            inst, seed = grid_instance(a, nl, d, workdir)
            row = dict(instance=inst.name, layers=nl, d=d, seed=seed, must_be_optimal=must_be_optimal(nl, d),
                       violations=[], failures=[])
            b = before.get(inst.name)
            if b is not None and b.get("seed") not in (None, seed):
                row["before_note"] = "the --before network %s has seed %s, not %d: not compared" % (inst.name,
                                                                                                   b["seed"], seed)
                b = None
            if b is not None:
                row["before"] = {k: b[k] for k in ("value", "bound", "gap", "status")}
            state["grid"].append(row)
            log("\n== grid %s: %s, seed %d, %s s" % (inst.name, inst.arch(), seed, ac.fmt_num(a.budget)))
            known = max(b["known_values"]) if b and b["known_values"] else None
            bb = min(b["proven_bounds"]) if b and b["proven_bounds"] else None
            rec, s, viol = run_one(a, ro, inst, [], "default", known, bb)
            row.update(run=rec, run_summary=s)
            row["violations"] += viol
            if "error" in rec:
                row["failures"].append("default method: %s" % rec["error"])
            if row["must_be_optimal"] and s["status"] != "optimal":
                row["failures"].append("status %s, not optimal (required for %d hidden layer%s and d <= %d)"
                                       % (s["status"], nl, "" if nl == 1 else "s", 20 if nl == 1 else 10))
            if late(a, s["wall_seconds"]):
                row["warning"] = "wall time %.1f s > budget * 1.05 + 1 s" % s["wall_seconds"]
            save()


def deep_instances(a, workdir):
    layers = netgen.load_onnx(DEEP_MODEL)
    with open(DEEP_BOXES) as f:
        boxes = json.load(f)
    insts = []
    for box in boxes[:a.boxes]:
        inst = ac.Instance(box["name"], layers, box["domain"], box["objective"], desc="deep_5x6x50")
        inst.model_path = DEEP_MODEL
        inst.write(workdir)
        lo, hi = box["domain"]["lower"], box["domain"]["upper"]
        inst.meta = dict(wide=[j for j, (l, h) in enumerate(zip(lo, hi)) if l == -1.0 and h == 1.0],
                         output=int(max(range(len(box["objective"]["weights"])),
                                        key=lambda j: box["objective"]["weights"][j])))
        insts.append(inst)
    return insts


def deep_row(state, inst):
    for row in state["deep"]:
        if row["instance"] == inst.name:
            return row
    row = dict(instance=inst.name, wide_inputs=inst.meta["wide"], output=inst.meta["output"],
               domain=inst.domain, violations=[], failures=[])
    state["deep"].append(row)
    return row


def part_deep(a, ro, workdir, state, save, mip):
    tag = "mip" if mip else "default"
    flags = ["--method", "mip"] if mip else []
    for inst in deep_instances(a, workdir):
        row = deep_row(state, inst)
        log("\n== %s %s: %s, inputs %s over [-1,1], maximise output %d, %s s"
            % ("deep-mip" if mip else "deep", inst.name, inst.arch(), inst.meta["wide"], inst.meta["output"],
               ac.fmt_num(a.budget)))
        other = (row.get("default_summary") if mip else row.get("mip_summary")) or {}
        rec, s, viol = run_one(a, ro, inst, flags, tag, other.get("value"))
        row[tag] = rec
        row[tag + "_summary"] = s
        row["violations"] += viol
        if "error" in rec:
            row["failures"].append("%s: %s" % (tag, rec["error"]))
        if mip:
            row["point"] = s["status"] not in (None, "no_solution", "ERROR") and s["value"] is not None
        else:
            row["proven"] = s["gap"] is not None and s["gap"] <= PROVEN_GAP
            row["proven_in_budget"] = row["proven"] and not late(a, s["wall_seconds"])
        # the earlier part's bound against this part's value (this run's bound was checked against the other value)
        o = row.get(("default" if mip else "mip") + "_summary")
        if o and o["bound"] is not None and s["value"] is not None and \
                inst.sgn * (s["value"] - o["bound"]) > ac.BOUND_TOL * max(1.0, abs(s["value"])):
            v = "%s run's bound %.12g is %s this run's value %.12g" % ("default" if mip else "mip", o["bound"],
                                                                      "below" if inst.sgn > 0 else "above", s["value"])
            row["violations"].append(v)
            loud("VIOLATION %s (%s): %s" % (inst.name, tag, v))
        save()


# --------------------------------------------------------------------------------------------- verdicts

def verdicts(a, state):
    """[(criterion, 'met' | 'NOT met' | 'not judged', detail)]."""
    out = []
    g = state["grid"]
    if g:
        stats = grid_geomeans(state)
        if stats is None:
            out.append(("grid: geometric mean of the gaps after <= half of before", "not judged",
                        "no --before file" if not state.get("before") else "no network in both runs"))
        else:
            gb, ga, n = stats
            ok = ga <= 0.5 * gb
            out.append(("grid: geometric mean of the gaps after <= half of before", "met" if ok else "NOT met",
                        "after %s vs before %s (ratio %s) over %d networks, gaps floored at %g"
                        % (fmt_gap(ga), fmt_gap(gb), fmt(ga / gb if gb and math.isfinite(ga) else None, "%.3g"), n,
                           GAP_FLOOR)))
        req = [r for r in g if r["must_be_optimal"]]
        if req:
            bad = [r["instance"] for r in req if (r.get("run_summary") or {}).get("status") != "optimal"]
            out.append(("grid: status optimal for 1 layer with d <= 20 and 2 layers with d <= 10",
                        "NOT met" if bad else "met", "%d of %d optimal%s" % (len(req) - len(bad), len(req),
                                                                             ("; not: " + ", ".join(bad)) if bad else "")))
    rows = [r for r in state["deep"] if "default" in r]
    if rows:
        n = sum(1 for r in rows if r.get("proven_in_budget"))
        need = math.ceil(DEEP_NEED * len(rows) - 1e-9)
        out.append(("deep: proven (gap <= 1e-4) within the budget on >= %d of %d" % (need, len(rows)),
                    "met" if n >= need else "NOT met",
                    "%d of %d proven%s" % (n, len(rows), "" if sum(1 for r in rows if r.get("proven")) == n else
                                           " (%d more proven after the budget)"
                                           % (sum(1 for r in rows if r.get("proven")) - n))))
    rows = [r for r in state["deep"] if "mip" in r]
    if rows:
        n = sum(1 for r in rows if r.get("point"))
        out.append(("deep-mip: a point on every box", "met" if n == len(rows) else "NOT met",
                    "%d of %d with a point" % (n, len(rows))))
    return out


def grid_geomeans(state):
    pairs = []
    for r in state["grid"]:
        b, s = r.get("before"), r.get("run_summary")
        if b is None or s is None:
            continue
        pairs.append((floored(b["gap"]), floored(rel_gap(s["value"], s["bound"]))))
    if not pairs:
        return None
    return geomean([p[0] for p in pairs]), geomean([p[1] for p in pairs]), len(pairs)


def fmt_gap(g):
    if g is None:
        return "n/a"
    if not math.isfinite(g):
        return "inf"
    return "%.3g%%" % (100 * g) if g >= 1e-4 else "%.2g" % g


# --------------------------------------------------------------------------------------------- output

def write_md(path, state, a):
    meta = state["meta"]
    L = ["# Issue 11 acceptance: proven bounds on the grid and on a deep network%s"
         % (" (QUICK smoke test)" if a.quick else ""), ""]
    L.append("Generated by `bench/acceptance_bounds.py` on %s%s."
             % (meta["date"], " — PARTIAL" if state.get("partial") else ""))
    L.append("")
    L += ac.meta_table(meta, ["machine", "nproc", "load_average_at_start", "python", "numpy", "scipy", "reluopt",
                              "reluopt_version", "reluopt_sha256", "git_head", "command"])
    L.append("")
    L.append("Every run: `reluopt solve MODEL --domain D --objective O [--method mip]%s --time-limit %s --threads %d "
             "--seed %d --json OUT --quiet` (no `--method`: reluopt's default method%s)."
             % ("".join(" " + shlex.quote(f) for f in a.extra), ac.fmt_num(a.budget), a.threads, a.seed,
                " and its default options" if not a.extra else ""))
    L.append("")
    L.append("**Verdict: %s%s**" % ("INTERRUPTED; " if state.get("interrupted") else "",
                                    "CHECK VIOLATIONS (see below)" if state["violations"] else
                                    ("acceptance NOT met (see below)" if state["failures"] else
                                     ("so far accepted" if state.get("interrupted") else "all accepted"))))
    L.append("")
    L.append("| criterion | verdict | detail |")
    L.append("|---|---|---|")
    for c, v, d in state.get("verdicts", []):
        L.append("| %s | %s | %s |" % (c, "**%s**" % v if v == "NOT met" else v, d))
    L.append("")
    if state["violations"]:
        L += ["## VIOLATIONS", ""] + ["- %s" % v for v in state["violations"]] + [""]
    if state["failures"]:
        L += ["## Acceptance not met / failed runs", ""] + ["- %s" % v for v in state["failures"]] + [""]
    if state["grid"]:
        b = state.get("before")
        L.append("## Grid: the networks of acceptance_enhanced.py part (a) (seed base %d)" % a.net_seed)
        L.append("")
        L.append("Xavier, hidden layers of 100, one output, [0,1]^d, maximise output 0; the default method, %s s. "
                 "gap = (bound - value) / |value|. The geometric means floor every gap at %g: a proven optimum "
                 "(gap 0) would otherwise make the mean 0. Optimal required: 1 hidden layer with d <= 20, "
                 "2 with d <= 10." % (ac.fmt_num(a.budget), GAP_FLOOR))
        if b:
            L.append("Before: `%s` (%s; budget %s s, %s threads, reluopt %s, %s, git %s)."
                     % (b["path"], b["kind"], fmt(b.get("budget"), "%g"), b.get("threads"), b.get("reluopt_sha256"),
                        b.get("date"), b.get("git_head")))
        L.append("")
        if b:
            L.append("| layers | d | seed | before value | before bound | before gap | value | bound | gap | status "
                     "| reluopt s | wall s | optimal required |")
            L.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|")
        else:
            L.append("| layers | d | seed | value | bound | gap | status | reluopt s | wall s | optimal required |")
            L.append("|---:|---:|---:|---:|---:|---:|---|---:|---:|---|")
        for r in state["grid"]:
            s = r.get("run_summary") or {}
            req = ("yes" if s.get("status") == "optimal" else "**NO**") if r["must_be_optimal"] else ""
            cells = ["%d" % r["layers"], "%d" % r["d"], "%d" % r["seed"]]
            if b:
                bf = r.get("before") or {}
                cells += [fmt(bf.get("value")), fmt(bf.get("bound")),
                          fmt_gap(bf.get("gap")) + ("" if bf.get("status") != "optimal" else " (optimal)")]
            cells += [fmt(s.get("value")), fmt(s.get("bound")), fmt_gap(rel_gap(s.get("value"), s.get("bound"))),
                      str(s.get("status")), fmt(s.get("seconds"), "%.1f"), fmt(s.get("wall_seconds"), "%.1f"), req]
            L.append("| " + " | ".join(cells) + " |")
        L.append("")
        stats = grid_geomeans(state)
        if stats:
            gb, ga, n = stats
            L.append("Geometric mean of the gaps, each floored at %g, over the %d networks in both: before %s, "
                     "after %s (after / before = %s; acceptance: <= 0.5)."
                     % (GAP_FLOOR, n, fmt_gap(gb), fmt_gap(ga), fmt(ga / gb if gb and math.isfinite(ga) else None,
                                                                   "%.3g")))
        elif not b:
            L.append("No `--before` file: the geometric-mean criterion is not judged.")
        notes = [r["before_note"] for r in state["grid"] if r.get("before_note")]
        notes += ["%s: %s" % (r["instance"], r["warning"]) for r in state["grid"] if r.get("warning")]
        if notes:
            L.append("")
            L += ["- %s" % n for n in notes]
        L.append("")
    if state["deep"]:
        L.append("## Deep network: bench/models/deep_5x6x50.onnx over bench/models/deep_boxes.json")
        L.append("")
        L.append("5 -> 50 x 6 -> 5 ReLU regression network trained by `bench/deep_networks.py`; each box lets the listed "
                 "inputs range over [-1, 1] and the others over 1-10%% of it; maximise the listed output. %s s per run. "
                 "proven = gap <= %g (gap from the JSON, or (bound - value) / |value|); a run proven after "
                 "budget * 1.05 + 1 s wall is marked late and does not count. point = status other than no_solution."
                 % (ac.fmt_num(a.budget), PROVEN_GAP))
        L.append("")
        L.append("| box | wide inputs | output | default: status | value | bound | gap | s | wall s | proven "
                 "| mip: status | value | bound | gap | s | wall s | point |")
        L.append("|---|---|---:|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---|")
        for r in state["deep"]:
            cells = [r["instance"], " ".join("x%d" % j for j in r["wide_inputs"]), "%d" % r["output"]]
            for tag, flag in (("default", "proven"), ("mip", "point")):
                s = r.get(tag + "_summary")
                if s is None:
                    cells += [""] * 7
                    continue
                mark = "yes" if r.get(flag) else "**no**"
                if flag == "proven" and r.get("proven") and not r.get("proven_in_budget"):
                    mark = "late"
                cells += [str(s["status"]), fmt(s["value"]), fmt(s["bound"]), fmt_gap(s["gap"]),
                          fmt(s["seconds"], "%.1f"), fmt(s["wall_seconds"], "%.1f"), mark]
            L.append("| " + " | ".join(cells) + " |")
        L.append("")
        nd = [r for r in state["deep"] if "default" in r]
        nm = [r for r in state["deep"] if "mip" in r]
        if nd:
            L.append("Default method: proven on %d of %d (%d within the budget)."
                     % (sum(1 for r in nd if r.get("proven")), len(nd), sum(1 for r in nd if r.get("proven_in_budget"))))
        if nm:
            L.append("`--method mip`: a point on %d of %d, proven on %d."
                     % (sum(1 for r in nm if r.get("point")), len(nm),
                        sum(1 for r in nm if (r["mip_summary"]["gap"] is not None
                                              and r["mip_summary"]["gap"] <= PROVEN_GAP))))
        L.append("")
    L.append("## Runs in detail")
    L.append("")
    L.append("| instance | run | method | status | stopped by | nodes | samples | objective | tool s | wall s | CPU/wall "
             "| load1 before |")
    L.append("|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    runs = [(r["instance"], "default", r["run"]) for r in state["grid"] if r.get("run")]
    runs += [(r["instance"], tag, r[tag]) for r in state["deep"] for tag in ("default", "mip") if r.get(tag)]
    runs.sort(key=lambda t: t[2].get("run_index", 0))
    for name, tag, rec in runs:
        res = rec.get("result") or {}
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f |" % (
            name, tag, res.get("method", ""), res.get("status", rec.get("error", "")), res.get("stopped_by", ""),
            res.get("nodes", ""), res.get("samples", ""), fmt(res.get("objective"), "%.9g"),
            fmt(res.get("seconds"), "%.2f"), fmt(rec.get("wall_seconds"), "%.2f"),
            fmt((rec.get("cpu_seconds") or 0) / rec["wall_seconds"] if rec.get("wall_seconds") else None, "%.2f"),
            rec["load1_before"]))
    L.append("")
    L.append("## Commands")
    L.append("")
    L.append("```")
    L.append(meta["command"])
    for _, _, rec in runs:
        L.append(rec["command"])
    L.append("```")
    L.append("")
    L.append("`$WORK` was a temporary directory with the grid models and the domain/objective JSONs. Grid models: "
             "`bench/netgen.py --d D --hidden 100 [100] --seed S`; the deep model and boxes: "
             "`bench/deep_networks.py` (committed in bench/models/).")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def interrupt(signum, frame):
    raise KeyboardInterrupt("signal %d" % signum)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    # Ctrl-C or kill PID (SIGTERM) stops the run after writing what was measured (the run in progress is dropped);
    # SIGINT too when the shell started us in the background with SIGINT ignored
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    before, before_desc = {}, None
    if a.before:
        try:
            before, before_desc = load_before(a.before)
        except (OSError, ValueError, KeyError) as e:
            log("error: --before %s: %s" % (a.before, e))
            return 2
    if ("deep" in a.parts or "deep-mip" in a.parts) and not (os.path.exists(DEEP_MODEL) and os.path.exists(DEEP_BOXES)):
        log("error: %s or %s missing: run bench/deep_networks.py" % (DEEP_MODEL, DEEP_BOXES))
        return 2
    workdir, tmp = ac.make_workdir(a.keep, "acceptance_bounds_")
    try:
        ro = ac.Reluopt(a.reluopt, workdir)
    except FileNotFoundError:
        log("error: reluopt binary not found: %s (build: cmake --build build -j2 --target reluopt_cli)" % a.reluopt)
        if tmp is not None:
            tmp.cleanup()
        return 2
    state = dict(meta=ac.make_meta("acceptance_bounds.py", argv, ro), args=vars(a), before=before_desc, grid=[],
                 deep=[], verdicts=[], violations=[], failures=[])
    name = "acceptance_bounds" + ("_" + a.label if a.label else "") + ("_quick" if a.quick else "")
    os.makedirs(a.out_dir, exist_ok=True)
    pmd, pjs = os.path.join(a.out_dir, name + ".md"), os.path.join(a.out_dir, name + ".json")

    def save(final=False):
        state["violations"], state["failures"] = [], []
        for row in state["grid"] + state["deep"]:
            state["violations"] += ["%s: %s" % (row["instance"], v) for v in row["violations"]]
            state["failures"] += ["%s: %s" % (row["instance"], v) for v in row["failures"]]
        state["verdicts"] = verdicts(a, state)
        state["failures"] += ["%s: %s" % (c, d) for c, v, d in state["verdicts"]
                              if v == "NOT met" and not c.startswith("grid: status optimal")]
        state["partial"] = not final
        ac.write_json(pjs, state)
        write_md(pmd, state, a)

    log("acceptance_bounds: parts %s, budget %s s, load %s, reluopt %s (sha %s)"
        % (" ".join(a.parts), ac.fmt_num(a.budget), state["meta"]["load_average_at_start"], ro.source, ro.sha))
    steps = []
    if "grid" in a.parts:
        steps.append(lambda: part_grid(a, ro, workdir, state, save, before))
    if "deep" in a.parts:
        steps.append(lambda: part_deep(a, ro, workdir, state, save, mip=False))
    if "deep-mip" in a.parts:
        steps.append(lambda: part_deep(a, ro, workdir, state, save, mip=True))
    rc = ac.run_to_the_end(steps, state, save, tmp, (pmd, pjs))
    for c, v, d in state["verdicts"]:
        log("  %-75s %-10s %s" % (c, v, d))
    return rc


if __name__ == "__main__":
    sys.exit(main())
