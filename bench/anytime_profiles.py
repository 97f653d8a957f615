#!/usr/bin/python3
"""Anytime profiles: the best objective found against time for
    reluopt solve M --method sampling --samples <huge> ...
    reluopt solve M --method enhanced --samples <huge> ...
    reluopt solve M --method mip --warm-start sampling ...
each `--time-limit B --threads T --seed K`, on four representative networks of the paper's grid
(Xavier, hidden layers of 100, one output, [0,1]^d, maximise; network (d, L) has seed
net_seed + 10000 L + d, default net_seed 0 = the networks of bench/paper_tables.py):
L=1 d=100, L=2 d=20, L=2 d=100, L=2 d=1000 (--nets). The curves are the "trajectory" of reluopt's
result JSON ([[t, value], ...]: every improvement of the incumbent), drawn as step functions up to the
run's end; the MIP's final proven bound is drawn as a dashed line.

One PNG per network: bench/results/anytime_L{L}_d{d}.png (--quick: anytime_quick_L{L}_d{d}.png), and
bench/results/anytime_profiles.{md,json} (--quick: anytime_profiles_quick.*).

Every result is checked (acceptance_common.check_result: objective = forward value of x within 1e-6
relative, x in [0,1]^d within 1e-7, the MIP's bound >= every value any run found - 1e-6 relative);
a violation is printed loudly and makes the exit status 1. The trajectories are checked too
(non-decreasing, times within the run, last value = objective): a failure there is a warning.

Needs matplotlib (Debian: apt-get install -y python3-matplotlib).

    /usr/bin/python3 bench/anytime_profiles.py --quick       # smoke test: 2 networks, 5 s each
    /usr/bin/python3 bench/anytime_profiles.py               # 4 networks x 3 methods x 60 s: ~13 min
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acceptance_common as ac  # noqa: E402
import netgen  # noqa: E402
from acceptance_common import fmt, log, loud  # noqa: E402

DEFAULT_NETS = ["1:100", "2:20", "2:100", "2:1000"]
QUICK_NETS = ["1:20", "2:20"]
METHODS = [("sampling", False, "sampling (Algorithm 1)", "tab:blue", "-"),
           ("enhanced", False, "enhanced (Algorithm 2, then its MIP share)", "tab:green", "-"),
           ("mip", True, "MIP (CBC big-M), warm start from sampling", "tab:red", "-")]


def parse(argv):
    ap = argparse.ArgumentParser(description="Anytime profiles of sampling, enhanced and warm-started MIP.",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--reluopt", default="build/reluopt")
    ap.add_argument("--nets", nargs="+", default=None, help="L:d pairs (default %s; --quick %s)"
                    % (" ".join(DEFAULT_NETS), " ".join(QUICK_NETS)))
    ap.add_argument("--budget", type=float, default=None, help="seconds per run (default 60, --quick 5)")
    ap.add_argument("--width", type=int, default=100)
    ap.add_argument("--net-seed", type=int, default=0, help="network (d, L) uses net_seed + 10000 L + d")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--keep", default=None)
    ap.add_argument("--out-dir", default=ac.RESULTS)
    a = ap.parse_args(argv)
    if a.nets is None:
        a.nets = QUICK_NETS if a.quick else DEFAULT_NETS
    if a.budget is None:
        a.budget = 5.0 if a.quick else 60.0
    try:
        a.nets = [tuple(int(v) for v in s.split(":")) for s in a.nets]
    except ValueError:
        ap.error("--nets takes L:d pairs, e.g. 2:100")
    return a


def trajectory_warnings(res):
    w = []
    traj = res.get("trajectory")
    obj = ac.num(res.get("objective"))
    if not traj:
        if obj is not None:
            w.append("objective %.9g but an empty trajectory" % obj)
        return w
    ts = [p[0] for p in traj]
    vs = [p[1] for p in traj]
    if any(t2 < t1 for t1, t2 in zip(ts, ts[1:])):
        w.append("trajectory times decrease")
    if any(v2 < v1 - 1e-12 * max(1, abs(v1)) for v1, v2 in zip(vs, vs[1:])):
        w.append("trajectory values decrease (max problem)")
    secs = ac.num(res.get("seconds"))
    if secs is not None and ts[-1] > secs + 0.05:
        w.append("trajectory time %.3f s after the run's end %.3f s" % (ts[-1], secs))
    if obj is not None and abs(vs[-1] - obj) > 1e-9 * max(1.0, abs(obj)):
        w.append("last trajectory value %.12g != objective %.12g" % (vs[-1], obj))
    return w


def plot(row, path, budget):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=110)
    tmin = None
    for r in row["runs"]:
        traj = (r.get("result") or {}).get("trajectory") or []
        if traj:
            t0 = min(p[0] for p in traj if p[0] > 0) if any(p[0] > 0 for p in traj) else 1e-3
            tmin = t0 if tmin is None else min(tmin, t0)
    tmin = max(1e-4, (tmin or 1e-3) * 0.8)
    ys, bounds = [], []
    for r in row["runs"]:
        res = r.get("result") or {}
        traj = res.get("trajectory") or []
        label, color = r["label"], r["color"]
        if not traj:
            ax.plot([], [], color=color, label=label + " (no solution)")
            continue
        ts = [max(tmin, p[0]) for p in traj]
        vs = [p[1] for p in traj]
        end = max(ts[-1], ac.num(res.get("seconds")) or ts[-1])
        ax.step(ts + [end], vs + [vs[-1]], where="post", color=color, lw=1.8,
                label="%s: %s" % (label, fmt(res.get("objective"), "%.4f")))
        ax.plot([ts[0]], [vs[0]], "o", color=color, ms=4)
        ax.plot([end], [vs[-1]], "|", color=color, ms=10, mew=2)
        b = ac.num(res.get("bound"))
        if b is not None:
            bounds.append((b, color))
        ys += vs
    # y range from the curves; a proven bound far above them is named in the legend, not drawn
    if ys:
        lo_y, hi_y = min(ys), max(ys)
        pad = 0.08 * max(hi_y - lo_y, 1e-6 * max(1.0, abs(hi_y)))
        top = hi_y + pad
        for b, color in bounds:
            if b <= hi_y + 0.5 * (hi_y - lo_y) + pad:
                ax.axhline(b, color=color, ls="--", lw=1, label="MIP proven bound at the end: %.4f" % b)
                top = max(top, b + pad)
            else:
                ax.plot([], [], color=color, ls="--", lw=1,
                        label="MIP proven bound at the end: %.4f (off the chart)" % b)
        ax.set_ylim(lo_y - pad, top)
    ax.set_xscale("log")
    ax.set_xlim(tmin, budget * 1.15)
    ax.set_xlabel("wall-clock time (s, log scale)")
    ax.set_ylabel("best objective found (network output)")
    ax.set_title("Anytime profile: %s hidden layer%s of %d, d = %d (seed %d), %s s, %d threads"
                 % (row["layers"], "s" if row["layers"] > 1 else "", row["width"], row["d"], row["seed"],
                    ac.fmt_num(budget), row["threads"]), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=8, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_md(path, state, a):
    meta = state["meta"]
    L = ["# Anytime profiles%s" % (" (QUICK smoke test)" if a.quick else ""), ""]
    L.append("Generated by `bench/anytime_profiles.py` on %s%s." % (meta["date"], " — PARTIAL" if state.get("partial") else ""))
    L.append("")
    L += ac.meta_table(meta, ["machine", "nproc", "load_average_at_start", "python", "numpy", "scipy", "matplotlib",
                              "reluopt", "reluopt_version", "reluopt_sha256", "git_head", "command"])
    L.append("")
    if state["violations"]:
        L += ["## VIOLATIONS", ""] + ["- %s" % v for v in state["violations"]] + [""]
    if state["warnings"]:
        L += ["## Warnings", ""] + ["- %s" % v for v in state["warnings"]] + [""]
    L.append("Best objective against time from each run's `trajectory`; every run `--time-limit %s --threads %d "
             "--seed %d`; the MIP is `--method mip --warm-start sampling` (default warm-start samples, inside the "
             "budget). Time to reach 99%% / 99.9%% of the best value any of the three found on the network:"
             % (ac.fmt_num(a.budget), a.threads, a.seed))
    L.append("")
    L.append("| network | plot | method | final objective | bound | improvements | first value (at s) | 99% of best at (s) | 99.9% at (s) |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for row in state["nets"]:
        best = row.get("best")
        for r in row["runs"]:
            res = r.get("result") or {}
            traj = res.get("trajectory") or []
            first = "%s (%.3f)" % (fmt(traj[0][1], "%.4f"), traj[0][0]) if traj else "n/a"
            L.append("| L=%d d=%d | `%s` | %s | %s | %s | %d | %s | %s | %s |" % (
                row["layers"], row["d"], os.path.basename(row["png"]), r["label"], fmt(res.get("objective"), "%.6f"),
                fmt(res.get("bound"), "%.6f"), len(traj), first, fmt(reach(traj, best, 0.01), "%.3f"),
                fmt(reach(traj, best, 0.001), "%.3f")))
    L.append("")
    L.append("## Commands")
    L.append("")
    L.append("```")
    L.append(meta["command"])
    for row in state["nets"]:
        for r in row["runs"]:
            L.append(r["command"])
    L.append("```")
    L.append("")
    L.append("`$WORK/NAME.onnx` = `bench/netgen.py --d D --hidden %s --seed S` (the seeds are in the plot titles)."
             % "100 [100]")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def reach(traj, best, frac):
    """First time the trajectory is within frac * max(1e-9, |best|) of best (max problem)."""
    if not traj or best is None:
        return None
    for t, v in traj:
        if v >= best - frac * max(1e-9, abs(best)):
            return float(t)
    return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    try:
        import matplotlib
    except ImportError:
        log("error: matplotlib missing (apt-get install -y python3-matplotlib)")
        return 2
    workdir, tmp = ac.make_workdir(a.keep, "anytime_")
    try:
        ro = ac.Reluopt(a.reluopt, workdir)
    except FileNotFoundError:
        log("error: reluopt binary not found: %s (build: cmake --build build -j2 --target reluopt_cli)" % a.reluopt)
        return 2
    meta = ac.make_meta("anytime_profiles.py", argv, ro)
    meta["matplotlib"] = matplotlib.__version__
    state = dict(meta=meta, args=vars(a), nets=[], violations=[], warnings=[])
    prefix = "anytime_quick" if a.quick else "anytime"
    name = "anytime_profiles" + ("_quick" if a.quick else "")
    pmd, pjs = os.path.join(a.out_dir, name + ".md"), os.path.join(a.out_dir, name + ".json")
    os.makedirs(a.out_dir, exist_ok=True)

    def save(final=False):
        state["partial"] = not final
        out = dict(state, nets=[dict(n, runs=[dict(r, result=ac.strip_x(r.get("result"))) for r in n["runs"]])
                                for n in state["nets"]])
        ac.write_json(pjs, out)
        write_md(pmd, state, a)

    log("anytime_profiles: load %s, reluopt %s (sha %s)" % (meta["load_average_at_start"], ro.source, ro.sha))
    def profile_networks():
        for nl, d in a.nets:
            seed = a.net_seed + 10000 * nl + d
            layers = netgen.make_network(d, [a.width] * nl, seed)
            inst = ac.Instance("L%d_d%d" % (nl, d), layers, ac.box_domain(d), ac.max_output_objective(),
                               desc="Xavier seed %d" % seed).write(workdir)
            row = dict(layers=nl, d=d, width=a.width, seed=seed, threads=a.threads, runs=[],
                       png=os.path.join(a.out_dir, "%s_L%d_d%d.png" % (prefix, nl, d)))
            state["nets"].append(row)
            log("\n== L=%d d=%d (seed %d)" % (nl, d, seed))
            for m, warm, label, color, _ in METHODS:
                tag = m + ("_warm" if warm else "")
                rec = ro.solve(inst, ac.method_flags(m, warm=warm), a.budget, a.threads, a.seed, tag=tag)
                rec.update(method=m, warm=warm, label=label, color=color)
                row["runs"].append(rec)
                if "error" in rec:
                    loud("reluopt FAILED on %s %s: %s\n%s" % (inst.name, tag, rec["error"], rec.get("stderr_tail", "")))
                    state["violations"].append("%s %s: reluopt failed: %s" % (inst.name, tag, rec["error"]))
                    continue
                res = rec["result"]
                rec["violations"] = ac.check_result(inst, res)
                for w in trajectory_warnings(res):
                    state["warnings"].append("%s %s: %s" % (inst.name, tag, w))
                    log("   warning %s %s: %s" % (inst.name, tag, w))
                log("   %-13s %-11s obj %-14s bound %-14s %3d improvements, %.1f s"
                    % (tag, res.get("status"), fmt(res.get("objective")), fmt(res.get("bound")),
                       len(res.get("trajectory") or []), rec["wall_seconds"]))
            vals = [ac.num((r.get("result") or {}).get("objective")) for r in row["runs"]]
            vals = [v for v, r in zip(vals, row["runs"]) if v is not None and not r.get("violations")]
            row["best"] = max(vals) if vals else None
            for r in row["runs"]:
                if r.get("result"):
                    extra = [v for v in ac.check_result(inst, r["result"], known=row["best"]) if v not in r["violations"]]
                    r["violations"] += extra
                    for v in r["violations"]:
                        loud("VIOLATION %s %s: %s" % (inst.name, r["tag"], v))
                        state["violations"].append("%s %s: %s" % (inst.name, r["tag"], v))
            plot(row, row["png"], a.budget)
            log("   wrote %s" % row["png"])
            save()

    return ac.run_to_the_end([profile_networks], state, save, tmp, (pmd, pjs), judged=False)


if __name__ == "__main__":
    sys.exit(main())
