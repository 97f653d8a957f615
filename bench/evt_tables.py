#!/usr/bin/python3
"""Tables 5-6 of Perakis & Tsiourvas (Appendix, "Verifying von Mises' condition"), rerun with reluopt: the top
three distributions fitted to the sampled LP maxima X_i, with their RSS, for the 1- and 2-hidden-layer grid
networks, plus figures like the paper's, and the stopping rule on a few of the same networks.

The paper's set-up: 1 and 2 hidden layers of 100 neurons, one output, uniform-Xavier weights, d in {5, 10, 20,
50, 100, 200, 500, 1000}, domain [0,1]^d, the sampling algorithm (Algorithm 1) run for 30 minutes, distfit
ranking the fits by the RSS between histogram density and pdf. Here every network (bench/netgen.py; network
(d, L) uses seed net_seed + 10000*L + d, as bench/paper_tables.py) is sampled for --seconds on ONE thread
(capped at --samples), and its values are analysed by `reluopt evt`:

    nice -n 10 reluopt solve M --method sampling --samples CAP --time-limit S --threads 1 --seed K
                             --values-out V.csv --json R.json --quiet
    nice -n 10 reluopt evt V.csv --json E.json --threads 1 [--plot F.png]

The tables rank by RSS alone (distfit's order, as the paper). reluopt's own order (fits whose RSS differ by less
than the histogram's noise ordered by AIC) is shown beside it. Then, for the networks of --stop-networks:

    nice -n 10 reluopt solve M --method sampling --stop-rule EPS,0.05 --time-limit S2 --threads 1 --seed K ...

with EPS a fraction (--stop-eps) of the range of the X_i of the table run, and the rule's verdict is checked
against that longer run: is the stopped run's best value within EPS of the endpoint the longer run estimates?

Every solve is checked: the objective equals the numpy forward value of x within 1e-6 * max(1, |objective|).
Output: bench/results/evt_tables.{md,json} (--quick: evt_tables_quick.*) and bench/results/evt_L{L}_d{d}.png for
the networks of --plots. Exit status: 0 all runs and checks passed, 1 otherwise, 2 no binary.

    /usr/bin/python3 bench/evt_tables.py --quick     # smoke test: d in {5, 10}, 5 s per network
    /usr/bin/python3 bench/evt_tables.py             # the grid, 40 s per network: about 20 minutes
"""
import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import netgen  # noqa: E402
from bench_sampling import cpu_model, git_head, log, loud, resolve_binary, tail  # noqa: E402

PAPER_DIMS = [5, 10, 20, 50, 100, 200, 500, 1000]
FORWARD_RTOL = 1e-6
# Tables 5 (one hidden layer) and 6 (two) of the paper: the top three fits and their RSS. Printed as is: "F (0.8)"
# at L = 1, d = 20 (between 0.05 and 0.10, so probably 0.08) and "789.92.23" at L = 2, d = 5.
PAPER = {
    1: {5: [("beta", "5.30"), ("f", "6.13"), ("student_t", "6.14")],
        10: [("beta", "0.12"), ("genextreme", "0.35"), ("student_t", "0.37")],
        20: [("student_t", "0.05"), ("f", "0.8"), ("beta", "0.10")],
        50: [("beta", "0.04"), ("student_t", "0.20"), ("f", "0.20")],
        100: [("beta", "0.05"), ("student_t", "0.40"), ("f", "0.41")],
        200: [("beta", "0.02"), ("student_t", "0.13"), ("f", "0.14")],
        500: [("beta", "0.01"), ("student_t", "0.06"), ("f", "0.12")],
        1000: [("beta", "0.41"), ("student_t", "0.58"), ("f", "0.64")]},
    2: {5: [("beta", "4.61"), ("student_t", "10.45"), ("exponential", "789.92.23")],
        10: [("beta", "0.31"), ("student_t", "0.77"), ("f", "0.78")],
        20: [("beta", "0.02"), ("student_t", "1.27"), ("f", "1.39")],
        50: [("student_t", "0.04"), ("beta", "0.05"), ("genextreme", "1.62")],
        100: [("beta", "0.01"), ("student_t", "0.02"), ("f", "0.02")],
        200: [("beta", "0.004"), ("student_t", "0.04"), ("f", "0.04")],
        500: [("beta", "0.002"), ("student_t", "0.02"), ("f", "0.02")],
        1000: [("beta", "0.01"), ("student_t", "0.02"), ("f", "0.02")]},
}
NAMES = {"beta": "Beta", "f": "F", "student_t": "Student's t", "genextreme": "GenExtreme",
         "exponential": "Exponential", "pareto": "Pareto", "reversed_weibull": "Weibull (reversed)",
         "gamma": "Gamma", "lognormal": "Lognormal", "normal": "Normal", "uniform": "Uniform"}


def run(cmd, timeout):
    """(completed process or None, wall seconds, error text or None)."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, "killed after %.0f s" % timeout
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return p, wall, "exit code %d: %s" % (p.returncode, tail(p.stderr, 300).strip())
    return p, wall, None


def check_forward(layers, result):
    """None when the reported objective is the forward value of x, else the problem."""
    x = np.array(result.get("x") or [], dtype=np.float64)
    if x.shape != (layers[0][0].shape[1],):
        return "x has %d entries" % x.size
    value = float(netgen.forward(layers, x)[0])
    if not abs(value - result["objective"]) <= FORWARD_RTOL * max(1.0, abs(value)):
        return "objective %.12g but the forward value of x is %.12g" % (result["objective"], value)
    if np.any(x < -1e-7) or np.any(x > 1 + 1e-7):
        return "x leaves [0,1]^d"
    return None


def fmt(v, spec="%.4g"):
    return "-" if v is None or (isinstance(v, float) and not math.isfinite(v)) else spec % v


def summarize_evt(evt):
    fits = evt["fits"]
    by_rss = sorted(fits, key=lambda f: f["rss"] if f["rss"] is not None else math.inf)
    end = evt["endpoint"]
    return dict(n=evt["n"], min=evt["min"], max=evt["max"], bins=evt["histogram"]["bins"],
                top3_rss=[(f["family"], f["rss"]) for f in by_rss[:3]],
                top3_reluopt=[(f["family"], f["rss"]) for f in fits[:3]],
                gamma_best_fit=evt["gamma"]["best_fit"], gamma_best_family=evt["gamma"]["best_fit_family"],
                gamma_rss_best=by_rss[0]["gamma"], moment=evt["gamma"]["moment"], moment_ci=evt["gamma"]["moment_ci"],
                endpoint=end["estimate"] if end else None, endpoint_ci=end["ci"] if end else None,
                endpoint_family=end["family"] if end else None)


def table_run(args, binary, workdir, L, d, plot_path):
    seed = args.net_seed + 10000 * L + d
    layers = netgen.make_network(d, [args.width] * L, seed)
    model = os.path.join(workdir, "L%d_d%d.onnx" % (L, d))
    netgen.write_onnx(layers, model)
    values = os.path.join(workdir, "L%d_d%d_values.csv" % (L, d))
    result_path, evt_path = values.replace("_values.csv", "_result.json"), values.replace("_values.csv", "_evt.json")
    rec = dict(layers=L, d=d, net_seed=seed)
    solve = ["nice", "-n", "10", binary, "solve", model, "--method", "sampling", "--samples", str(args.samples),
             "--time-limit", str(args.seconds), "--threads", "1", "--seed", str(args.seed),
             "--values-out", values, "--json", result_path, "--quiet"]
    log("L=%d d=%4d: sampling for %g s ..." % (L, d, args.seconds))
    _, rec["solve_wall"], error = run(solve, args.seconds + 300)
    if error:
        rec["error"] = "solve: " + error
        return rec
    with open(result_path) as f:
        result = json.load(f)
    rec.update(samples=result["samples"], lps=result["lps"], duplicates=result["duplicate_patterns"],
               solve_seconds=result["seconds"], objective=result["objective"], stopped_by=result["stopped_by"])
    problem = check_forward(layers, result)
    if problem:
        rec["error"] = "check: " + problem
        return rec
    evt = ["nice", "-n", "10", binary, "evt", values, "--json", evt_path, "--threads", "1"]
    if plot_path:
        evt += ["--plot", plot_path]
    log("L=%d d=%4d: %d samples (%d LPs); evt ..." % (L, d, rec["samples"], rec["lps"]))
    _, rec["evt_wall"], error = run(evt, 1800)
    if error:
        rec["error"] = "evt: " + error
        return rec
    with open(evt_path) as f:
        rec["evt"] = summarize_evt(json.load(f))
    if plot_path:
        rec["plot"] = os.path.relpath(plot_path, REPO)
    return rec


def stop_run(args, binary, workdir, table_rec, fraction):
    L, d = table_rec["layers"], table_rec["d"]
    layers = netgen.make_network(d, [args.width] * L, table_rec["net_seed"])
    model = os.path.join(workdir, "L%d_d%d.onnx" % (L, d))
    eps = float("%.3g" % (fraction * (table_rec["evt"]["max"] - table_rec["evt"]["min"])))
    out = os.path.join(workdir, "L%d_d%d_stop_%g.json" % (L, d, fraction))
    cmd = ["nice", "-n", "10", binary, "solve", model, "--method", "sampling", "--stop-rule", "%g,0.05" % eps,
           "--time-limit", str(args.stop_seconds), "--threads", "1", "--seed", str(args.seed), "--json", out,
           "--quiet"]
    rec = dict(layers=L, d=d, fraction=fraction, eps=eps, delta=0.05, command=" ".join(cmd[3:]))
    log("L=%d d=%4d: stop rule eps %g (%g of the range) ..." % (L, d, eps, fraction))
    _, rec["wall"], error = run(cmd, args.stop_seconds + 300)
    if error:
        rec["error"] = error
        return rec
    with open(out) as f:
        result = json.load(f)
    problem = check_forward(layers, result)
    if problem:
        rec["error"] = "check: " + problem
        return rec
    rec.update(samples=result["samples"], seconds=result["seconds"], objective=result["objective"],
               stopped_by=result["stopped_by"], rule=result["stop_rule"])
    long_end = table_rec["evt"]["endpoint"]
    rec["long_best"] = table_rec["objective"]
    rec["long_endpoint"] = long_end
    # The claim of a stop: the best value is within eps of the maximum. The table run (more samples) gives the
    # best value known and an endpoint estimate to check it against.
    if result["stop_rule"]["verdict"] == "stopped":
        rec["within_eps_of_long_best"] = result["objective"] >= table_rec["objective"] - eps
        rec["within_eps_of_long_endpoint"] = long_end is None or result["objective"] >= long_end - eps
    return rec


def fams(pairs, rss=True):
    return " | ".join("%s (%s)" % (NAMES.get(f, f), fmt(r, "%.3g")) if rss else NAMES.get(f, f) for f, r in pairs)


def render_md(state, args):
    L_ = []
    meta = state["meta"]
    L_.append("# Extreme-value analysis of the sampled values: the paper's Tables 5-6 with reluopt\n")
    L_.append("Generated by `bench/evt_tables.py` on %s.\n" % meta["date"])
    L_.append("| | |\n|---|---|")
    for key in ("machine", "nproc", "load_average_at_start", "reluopt", "git_head", "budget", "tables_from",
                "total_minutes"):
        if key not in meta:
            continue
        L_.append("| %s | %s |" % (key, meta.get(key, "")))
    L_.append("")
    L_.append(
        "**Set-up.** As the paper's appendix: 1 and 2 hidden layers of %d neurons, one output, uniform-Xavier "
        "weights (bench/netgen.py; network (d, L) uses seed %d + 10000 L + d), domain [0,1]^d, Algorithm 1 "
        "(`--method sampling`), the X_i written by `--values-out` and analysed by `reluopt evt`. **Differences**: "
        "the paper sampled each network for 30 minutes (its sample counts are not given); here each gets %g s on "
        "one thread, at most %d samples (the counts are in the tables), so the histograms of the large networks "
        "hold far fewer values than the paper's. The networks are new draws from recorded seeds, not the paper's. "
        "reluopt fits eleven families (exponential, Pareto, reversed Weibull, Student t, F, GEV, beta, gamma, "
        "lognormal, normal, uniform) by maximum likelihood with location and scale; distfit's default list differs "
        "a little (it has no F and no reversed Weibull but a double Weibull and log-gamma). A GEV with shape "
        "xi < 0 is a reversed Weibull, so the two often stand next to each other with the same RSS; in distfit's "
        "list the next family would take the second place. RSS is in units of "
        "density squared, so it scales with 1 / (range of the values)^2: compare RSS within a row, not across rows "
        "or with the paper's numbers.\n" % (args.width, args.net_seed, args.seconds, args.samples))
    for L in args.layers:
        rows = [r for r in state["runs"] if r["layers"] == L]
        L_.append("## Table %d: top three fits, %s (RSS in parentheses)\n" % (4 + L, "one hidden layer" if L == 1
                                                                             else "two hidden layers"))
        L_.append("Ranked by RSS alone, as distfit and the paper. *reluopt order*: the best fit when fits closer in "
                  "RSS than the histogram's noise are ordered by AIC (reluopt's default). gamma: closed form of the "
                  "RSS-best fit; moment: the Dekkers-Einmahl-de Haan estimator with its 95% bootstrap interval; "
                  "M: the right endpoint of reluopt's best fit with its 95% profile-likelihood interval.\n")
        L_.append("| d | samples (LPs) | 1st | 2nd | 3rd | paper: 1st, 2nd, 3rd | reluopt order | gamma | "
                  "moment [95%] | best value | M [95%] |")
        L_.append("|---:|---:|---|---|---|---|---|---:|---|---:|---|")
        for r in rows:
            paper = PAPER.get(L, {}).get(r["d"])
            paper_text = ", ".join("%s (%s)" % (NAMES[f], v) for f, v in paper) if paper else "-"
            if "error" in r:
                L_.append("| %d | - | ERROR: %s | | | %s | | | | | |" % (r["d"], r["error"].replace("|", "/"),
                                                                         paper_text))
                continue
            e = r["evt"]
            top = ["%s (%s)" % (NAMES.get(f, f), fmt(v, "%.3g")) for f, v in e["top3_rss"]]
            top += ["-"] * (3 - len(top))
            moment = fmt(e["moment"], "%.3f")
            if e["moment_ci"]:
                moment += " [%s, %s]" % (fmt(e["moment_ci"][0], "%.3f"), fmt(e["moment_ci"][1], "%.3f"))
            end = "-"
            if e["endpoint"] is not None:
                end = "%s [%s, %s] (%s)" % (fmt(e["endpoint"], "%.5g"), fmt(e["endpoint_ci"][0], "%.5g"),
                                            fmt(e["endpoint_ci"][1], "%.5g"), NAMES.get(e["endpoint_family"]))
            L_.append("| %d | %d (%d) | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["d"], r["samples"], r["lps"], top[0], top[1], top[2], paper_text,
                NAMES.get(e["top3_reluopt"][0][0]), fmt(e["gamma_rss_best"], "%.3f"), moment,
                fmt(r["objective"], "%.5g"), end))
        L_.append("")
    L_.append("## Comparison with the paper\n")
    L_.extend(comparison(state, args))
    figures = [r for r in state["runs"] if r.get("plot")]
    if figures:
        L_.append("\n## Figures\n")
        L_.append("The histogram of the X_i with the top three fits (reluopt's order) and the endpoint, as the "
                  "paper's Figures 3-4:\n")
        for r in figures:
            L_.append("- L = %d, d = %d: `%s`" % (r["layers"], r["d"], os.path.basename(r["plot"])))
        L_.append("")
        for r in figures:
            L_.append("![L = %d, d = %d](%s)" % (r["layers"], r["d"], os.path.basename(r["plot"])))
    if state["stops"]:
        L_.append("\n## The stopping rule on grid networks\n")
        L_.append("`--stop-rule EPS,0.05` with EPS a fraction of the range (max - min) of the table run's X_i, %g s "
                  "time limit, one thread. The rule stops once P(best value < M_up - EPS) <= delta/2 under the "
                  "fit with its endpoint at the far end M_up of its interval. *check*: the stopped run's best value "
                  "against the table run's best value and its fitted endpoint M (both from more samples), each "
                  "minus EPS. A stop more than EPS short is a miss, which the rule allows with probability about "
                  "delta when its fits are right.\n\nAn earlier version of the rule decided on the best-ranked fit "
                  "alone. On L = 1, d = 100 with EPS = 0.21 (0.1 of the range) it stopped at the first check, n = 100, "
                  "best value 3.1457: a reversed Weibull fit, which ties its tail to the bulk of the sample, put the "
                  "far end of the endpoint's interval at 3.28, while the network reaches 3.47 (a miss). The beta fit, "
                  "as close to the histogram, put it above 4. The rule now stops only when every fit within the "
                  "histogram's noise of the best passes (src/stats/stopping_rule.cc; the values of that run are the "
                  "regression test tests/fixtures/evt/xavier_d100_values.csv).\n" % args.stop_seconds)
        L_.append("| L | d | EPS (of range) | verdict | samples | seconds | best value | fit | M | interval | "
                  "P_up | N | table run: best, M | check |")
        L_.append("|---:|---:|---|---|---:|---:|---:|---|---:|---|---:|---:|---|---|")
        for s in state["stops"]:
            if "error" in s:
                L_.append("| %d | %d | %g | ERROR: %s | | | | | | | | | | |" % (s["layers"], s["d"], s["eps"],
                                                                             s["error"].replace("|", "/")))
                continue
            rule = s["rule"]
            interval = rule["interval"] or [None, None]
            check = "-"
            if rule["verdict"] == "stopped":
                check = "ok" if s["within_eps_of_long_best"] and s["within_eps_of_long_endpoint"] else "MISSED"
            L_.append("| %d | %d | %g (%g) | %s | %d | %.1f | %s | %s | %s | [%s, %s] | %s | %s | %s, %s | %s |" % (
                s["layers"], s["d"], s["eps"], s["fraction"], rule["verdict"], s["samples"], s["seconds"],
                fmt(s["objective"], "%.5g"), NAMES.get(rule["family"], "-"), fmt(rule["estimate"], "%.5g"),
                fmt(interval[0], "%.5g"), fmt(interval[1], "%.5g"), fmt(rule["probability_upper"], "%.3g"),
                fmt(rule["n_required"], "%.3g"), fmt(s["long_best"], "%.5g"), fmt(s["long_endpoint"], "%.5g"),
                check))
        L_.append("")
    if state["problems"]:
        L_.append("\n## Problems\n")
        L_.extend("- %s" % p for p in state["problems"])
    L_.append("\n## Commands\n")
    L_.append("```\n%s\n```" % meta["command"])
    return "\n".join(L_) + "\n"


def comparison(state, args):
    out = []
    for L in args.layers:
        rows = [r for r in state["runs"] if r["layers"] == L and "evt" in r and r["d"] in PAPER.get(L, {})]
        if not rows:
            continue
        ours_first = [r["evt"]["top3_rss"][0][0] for r in rows]
        paper_first = [PAPER[L][r["d"]][0][0] for r in rows]
        same_first = sum(a == b for a, b in zip(ours_first, paper_first))
        overlap = sum(len({f for f, _ in r["evt"]["top3_rss"]} & {f for f, _ in PAPER[L][r["d"]]}) for r in rows)
        finite = sum(r["evt"]["endpoint"] is not None for r in rows)
        counts = {}
        for f in ours_first:
            counts[f] = counts.get(f, 0) + 1
        out.append("- **%d hidden layer%s** (%d networks): RSS-best fit %s; the paper's: %s. Same best family as "
                   "the paper in %d of %d; %d of the paper's %d top-three entries are in ours. reluopt's best fit has "
                   "a finite right endpoint on %d of %d." % (
                       L, "" if L == 1 else "s", len(rows),
                       ", ".join("%s %d" % (NAMES.get(f, f), c) for f, c in sorted(counts.items(), key=lambda x: -x[1])),
                       ", ".join("%s %d" % (NAMES[f], paper_first.count(f)) for f in sorted(set(paper_first))),
                       same_first, len(rows), overlap, 3 * len(rows), finite, len(rows)))
    open_rows = [r for r in state["runs"] if "evt" in r and r["evt"]["endpoint"] is None]
    open_end = ["L = %d, d = %d" % (r["layers"], r["d"]) for r in open_rows]
    spread = max([r["evt"]["top3_rss"][-1][1] / r["evt"]["top3_rss"][0][1] - 1.0 for r in open_rows] or [0.0])
    out.append("- Second and third places: the paper's are Student's t and F almost everywhere; ours are the GEV / "
               "reversed Weibull pair (one family when xi < 0) or the normal and Student's t. Where the X_i look "
               "normal (large d: see the figures), Student's t with a large df, F with large dfs and the normal "
               "are the same curve, and their order among themselves is histogram noise.")
    if open_end:
        out.append("- reluopt's best fit has no finite right end on %s: with the few thousand values these "
                   "networks give in the budget, the top of the histogram does not separate a bounded from an "
                   "unbounded tail (the top three RSS there differ by at most %.0f%%)."
                   % ("; ".join(open_end), 100.0 * spread))
    gammas = [r["evt"]["gamma_rss_best"] for r in state["runs"] if "evt" in r]
    moments = [r["evt"]["moment"] for r in state["runs"] if "evt" in r and r["evt"]["moment"] is not None]
    if gammas:
        out.append("- gamma of the RSS-best fit ranges over [%.3f, %.3f]; the moment estimator over [%s, %s]: a "
                   "negative gamma (a finite right end, Weibull domain of attraction) is what the paper argues "
                   "for from the bounded domain." % (min(gammas), max(gammas), fmt(min(moments) if moments else None,
                                                                                       "%.3f"),
                                                       fmt(max(moments) if moments else None, "%.3f")))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--seconds", type=float, default=40.0, help="sampling time per network (the paper: 1800)")
    ap.add_argument("--samples", type=int, default=1000000, help="sample cap per network")
    ap.add_argument("--dims", type=int, nargs="+", default=PAPER_DIMS)
    ap.add_argument("--layers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--width", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1, help="reluopt --seed")
    ap.add_argument("--net-seed", type=int, default=0, help="network (d, L) uses net_seed + 10000*L + d")
    ap.add_argument("--plots", nargs="*", default=["1:10", "1:100", "2:10", "2:100"], help="L:d of the figures")
    ap.add_argument("--stop-networks", nargs="*", default=["1:10", "1:100", "2:10", "2:100"],
                    help="L:d of the stopping-rule runs")
    ap.add_argument("--stop-eps", type=float, nargs="*", default=[0.05, 0.1], help="EPS as fractions of the range")
    ap.add_argument("--stop-seconds", type=float, default=45.0, help="time limit of a stopping-rule run")
    ap.add_argument("--reuse-tables", action="store_true",
                    help="take the table runs from the JSON of an earlier run (same prefix) and redo only the "
                         "stopping-rule runs")
    ap.add_argument("--reluopt", default="build/reluopt")
    ap.add_argument("--quick", action="store_true", help="smoke test: d in {5, 10}, 5 s, one stop-rule network")
    ap.add_argument("--out", default=None, help="output prefix (default bench/results/evt_tables[_quick])")
    args = ap.parse_args(argv)
    if args.quick:
        args.dims, args.seconds, args.stop_seconds = [5, 10], 5.0, 10.0
        args.plots, args.stop_networks, args.stop_eps = ["1:10"], ["1:10"], [0.1]
    binary = resolve_binary(args.reluopt)
    if not binary:
        loud("reluopt binary %s not found (make build)" % args.reluopt)
        return 2
    prefix = args.out or os.path.join(HERE, "results", "evt_tables_quick" if args.quick else "evt_tables")
    results_dir = os.path.dirname(prefix)
    os.makedirs(results_dir, exist_ok=True)
    plots = {tuple(int(v) for v in p.split(":")) for p in args.plots}
    stop_networks = [tuple(int(v) for v in p.split(":")) for p in args.stop_networks]
    start = time.perf_counter()
    state = dict(meta=dict(
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        machine="%s, %s" % (cpu_model(), platform.platform()), nproc=os.cpu_count(),
        load_average_at_start="%.2f %.2f %.2f" % os.getloadavg(), reluopt=binary, git_head=git_head(),
        budget="%g s of sampling per network on one thread (nice -n 10), at most %d samples; stop rule: %g s"
               % (args.seconds, args.samples, args.stop_seconds),
        command="/usr/bin/python3 bench/evt_tables.py " + " ".join(argv if argv is not None else sys.argv[1:])),
        runs=[], stops=[], problems=[])

    def save():
        state["meta"]["total_minutes"] = "%.1f" % ((time.perf_counter() - start) / 60.0)
        with open(prefix + ".json", "w") as f:
            json.dump(state, f, indent=1)
        with open(prefix + ".md", "w") as f:
            f.write(render_md(state, args))

    if args.reuse_tables:
        with open(prefix + ".json") as f:
            earlier = json.load(f)
        state["runs"] = earlier["runs"]
        state["problems"] = [p for p in earlier["problems"] if not p.startswith("stop rule")]
        state["meta"]["tables_from"] = "%s of %s (git %s, %s min), reused" % (
            os.path.basename(prefix) + ".json", earlier["meta"]["date"], earlier["meta"]["git_head"],
            earlier["meta"].get("tables_minutes", earlier["meta"]["total_minutes"]))
        state["meta"]["tables_minutes"] = earlier["meta"].get("tables_minutes", earlier["meta"]["total_minutes"])
        state["meta"]["command"] = earlier["meta"]["command"] + "\n" + state["meta"]["command"]
        state["meta"]["budget"] = earlier["meta"]["budget"]
    with tempfile.TemporaryDirectory(prefix="evt_tables_") as workdir:
        for L in ([] if args.reuse_tables else args.layers):
            for d in args.dims:
                plot = os.path.join(results_dir, "evt_L%d_d%d.png" % (L, d)) if (L, d) in plots else None
                if args.quick and plot:
                    plot = plot.replace(".png", "_quick.png")
                rec = table_run(args, binary, workdir, L, d, plot)
                if "error" in rec:
                    loud("L=%d d=%d: %s" % (L, d, rec["error"]))
                    state["problems"].append("L=%d d=%d: %s" % (L, d, rec["error"]))
                state["runs"].append(rec)
                save()
        for L, d in stop_networks:
            table = next((r for r in state["runs"] if (r["layers"], r["d"]) == (L, d) and "evt" in r), None)
            if table is None:
                continue
            model = os.path.join(workdir, "L%d_d%d.onnx" % (L, d))
            if not os.path.exists(model):
                netgen.write_onnx(netgen.make_network(d, [args.width] * L, table["net_seed"]), model)
            for fraction in args.stop_eps:
                rec = stop_run(args, binary, workdir, table, fraction)
                if "error" in rec:
                    loud("stop rule L=%d d=%d: %s" % (L, d, rec["error"]))
                    state["problems"].append("stop rule L=%d d=%d eps %g: %s" % (L, d, rec["eps"], rec["error"]))
                elif rec["rule"]["verdict"] == "stopped" and not (rec["within_eps_of_long_best"] and
                                                                rec["within_eps_of_long_endpoint"]):
                    state["problems"].append("stop rule L=%d d=%d eps %g stopped more than eps short of the "
                                             "longer run (a miss the rule allows with probability delta)"
                                             % (L, d, rec["eps"]))
                state["stops"].append(rec)
                save()
    save()
    log("wrote %s.md and .json (%.1f min)" % (prefix, (time.perf_counter() - start) / 60.0))
    return 1 if any("error" in r for r in state["runs"] + state["stops"]) else 0


if __name__ == "__main__":
    sys.exit(main())
