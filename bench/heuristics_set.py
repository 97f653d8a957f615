#!/usr/bin/python3
"""The heuristics benchmark set of issue 15: the default portfolio against each single method.

Networks (all maximise or minimise one linear function of the outputs):
  grid_*   the paper's grid (bench/paper_tables.py): d -> L x 100 -> 1, seed 10000 L + d, [0,1]^d, max
  walk_*   the relaxing-walk paper's sizes (bench/netgen.py, Xavier): inputs 10, 100, 1000, 1-3 hidden layers
           of 100 and 500, [0,1]^d, max
  poly_*   a netgen network on [0,1]^d cut by random half-spaces (acceptance_common.polyhedral_domain), min
  digits   bench/models/digits_mlp.onnx on [0,1]^64, max logit 1 - logit 7
  reg4/reg8/cls5  bench/models (train_small_models.py) on [0,1]^d (cls5: cut by 6 half-spaces), max/min
  deep     bench/models/deep_5x6x50.onnx on deep_boxes.json's first box, max
Methods, each `reluopt solve M --time-limit T --threads 2 --seed 1 --quiet --json OUT` with sample counts (walk:
rounds) that only the time limit ends:
  default     the default (--method enhanced: gradient-ascended samples, Algorithm 2, the prover at the end)
  old_default the default before the portfolio: --method enhanced --ascent-steps 0 (the same code path as the
              previous commit's default: no mover, Algorithm 2, the prover's quarter)
  enhanced    Algorithm 2 alone: --ascent-steps 0 --mip-share 0
  walk, gradient, sampling
Writes bench/results/<out>.md / .json and the anytime profiles <out>_<T>s.png (gnuplot).

    bench/heuristics_set.py --reluopt build/reluopt [--time-limits 10 60] [--long NAME ...] [--only NAME ...]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acceptance_common as ac  # noqa: E402
import netgen  # noqa: E402
from bench_sampling import binary_meta, resolve_binary  # noqa: E402

MODELS = os.path.join(HERE, "models")
UNBOUNDED = ["--samples", "1000000000"]
METHODS = {
    "default": UNBOUNDED,
    "old_default": UNBOUNDED + ["--ascent-steps", "0"],
    "enhanced": UNBOUNDED + ["--ascent-steps", "0", "--mip-share", "0"],
    "walk": UNBOUNDED + ["--walk-iterations", "1000000000"],
    "gradient": UNBOUNDED,
    "sampling": UNBOUNDED,
}
METHOD_NAME = {"default": "enhanced", "old_default": "enhanced", "enhanced": "enhanced"}
SINGLE = ["enhanced", "walk", "gradient", "sampling"]


def box(d):
    return dict(lower=[0.0] * d, upper=[1.0] * d)


def objective(m, sense, weights=None):
    return dict(sense=sense, weights=weights or [1.0] + [0.0] * (m - 1), constant=0.0)


def network_set(workdir):
    """(name, model path, domain, objective, description) of every network of the set."""
    nets = []
    for d, layers in [(10, 1), (50, 2), (200, 1), (500, 2)]:
        name = f"grid_{d}_{layers}x100"
        path = netgen.cached_onnx(workdir, name, d, [100] * layers, 10000 * layers + d)
        nets.append((name, path, box(d), objective(1, "max"), f"paper grid, seed {10000 * layers + d}"))
    for d, hidden, seed in [(10, [500] * 2, 1), (10, [500] * 2, 2), (10, [100] * 3, 1), (100, [500], 1),
                            (100, [500] * 3, 1), (1000, [100] * 3, 1), (1000, [100] * 3, 2)]:
        name = f"walk_{d}_{len(hidden)}x{hidden[0]}_s{seed}"
        path = netgen.cached_onnx(workdir, name, d, hidden, seed)
        nets.append((name, path, box(d), objective(1, "max"), f"Xavier seed {seed}"))
    path = netgen.cached_onnx(workdir, "poly_20_2x100", 20, [100] * 2, 5)
    nets.append(("poly_20_2x100", path, ac.polyhedral_domain(20, 10, 6), objective(1, "min"),
                 "Xavier seed 5, 10 half-spaces, min"))
    # The images' ball (acceptance_common.digits_instance) needs sklearn's data set; the whole pixel box needs nothing.
    digits_weights = [0.0] * 10
    digits_weights[1], digits_weights[7] = 1.0, -1.0
    nets.append(("digits", os.path.join(MODELS, "digits_mlp.onnx"), box(64), objective(10, "max", digits_weights),
                 "trained 64 -> 2x64 -> 10, [0,1]^64, max logit 1 - logit 7"))
    small = json.load(open(os.path.join(MODELS, "small_models.json")))
    for name, sense, rows in [("reg4", "max", 0), ("reg8", "min", 0), ("cls5", "max", 6)]:
        d = small[name]["d"]
        m = netgen.load_onnx(os.path.join(MODELS, name + ".onnx"))[-1][0].shape[0]
        domain = ac.polyhedral_domain(d, rows, 7) if rows else box(d)
        nets.append((name, os.path.join(MODELS, name + ".onnx"), domain, objective(m, sense),
                     f"trained {small[name]['hidden']}, {sense}" + (f", {rows} half-spaces" if rows else "")))
    first = json.load(open(os.path.join(MODELS, "deep_boxes.json")))[0]
    nets.append(("deep", os.path.join(MODELS, "deep_5x6x50.onnx"), first["domain"], first["objective"],
                 "trained 5 -> 6x50, deep_box_00"))
    return nets


def solve(reluopt, net, method, limit, workdir):
    name, path, domain, obj, _ = net
    dom_file, obj_file = (os.path.join(workdir, f"{name}_{k}.json") for k in ("domain", "objective"))
    for f, v in ((dom_file, domain), (obj_file, obj)):
        with open(f, "w") as out:
            json.dump(v, out)
    out = os.path.join(workdir, f"{name}_{method}_{limit:g}.json")
    cmd = [reluopt, "solve", path, "--domain", dom_file, "--objective", obj_file,
           "--method", METHOD_NAME.get(method, method), *METHODS[method], "--time-limit", str(limit),
           "--threads", "2", "--seed", "1", "--quiet", "--json", out]
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        return dict(method=method, wall=wall, value=None, error=proc.stderr.strip()[-200:], load=os.getloadavg()[0])
    r = json.load(open(out))
    return dict(method=method, wall=wall, value=r["objective"], bound=r.get("bound"), samples=r.get("samples"),
                lps=r.get("lps"), steps=r.get("gradient_steps"), trajectory=r.get("trajectory", []),
                load=os.getloadavg()[0])


def behind(best, value, sign):
    """(best - value) / |best| in the maximised sense: 0 at the best, > 0 behind it."""
    return (sign * best - sign * value) / max(abs(best), 1e-9)


def summarise(nets, rows, limit):
    """Per network: the best single method's value and the default's and old default's shortfalls."""
    out = []
    for name, _, _, obj, _ in nets:
        group = {r["method"]: r for r in rows if r["network"] == name and r["limit"] == limit and r["value"] is not None}
        if "default" not in group:
            continue
        sign = 1.0 if obj["sense"] == "max" else -1.0
        singles = [group[m]["value"] for m in SINGLE if m in group]
        best_single = max(singles, key=lambda v: sign * v)
        best_all = max((r["value"] for r in group.values()), key=lambda v: sign * v)
        d = group["default"]["value"]
        old = group.get("old_default", {}).get("value")
        out.append(dict(network=name, sign=sign, best_single=best_single, best_all=best_all, default=d,
                        default_ok=sign * d >= sign * best_single - 1e-9 * max(1.0, abs(best_single)),
                        vs_old=None if old is None else behind(old, d, sign), group=group))
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def table(nets, rows, limit):
    summary = summarise(nets, rows, limit)
    if not summary:
        return []
    methods = list(METHODS)
    lines = [f"## {limit:g} s, 2 threads", "",
             "Value: the objective at the reported point (a forward pass), in the network's sense. In brackets:",
             "behind = (best - value) / |best| in the maximised sense, best of all six on that network (0: the best).",
             "ok: the default >= the best single method (enhanced, walk, gradient, sampling). Load: 1-minute load",
             "average after the default's run. default vs old: (default - old) / |old| maximised (+: the default is better).", "",
             "| network | " + " | ".join(methods) + " | ok | default vs old | load |",
             "|---|" + "---:|" * len(methods) + "---|---:|---:|"]
    for s in summary:
        cells = []
        for m in methods:
            r = s["group"].get(m)
            ran = any(x["network"] == s["network"] and x["limit"] == limit and x["method"] == m for x in rows)
            cells.append(("fail" if ran else "not run") if r is None else
                         f"{r['value']:.6g} ({behind(s['best_all'], r['value'], s['sign']):.3f})")
        vs = "" if s["vs_old"] is None else f"{-s['vs_old']:+.4f}"
        lines.append(f"| {s['network']} | " + " | ".join(cells) +
                     f" | {'yes' if s['default_ok'] else 'NO'} | {vs} | {s['group']['default']['load']:.1f} |")
    ok = sum(s["default_ok"] for s in summary)
    worst = max((s["vs_old"] for s in summary if s["vs_old"] is not None), default=float("nan"))
    lines += ["", "| acceptance row | value |", "|---|---:|",
              f"| networks | {len(summary)} |",
              f"| default >= best single method | {ok} of {len(summary)} ({100.0 * ok / len(summary):.0f}%) |",
              f"| worst shortfall of the default vs the old default, (old - default) / \\|old\\| maximised | {worst:+.4f} |"]
    lines += ["", "Geometric mean over the networks of 1 + behind (1: the best of all six everywhere):", "",
              "| method | geometric mean |", "|---|---:|"]
    for m in methods:
        xs = [1.0 + behind(s["best_all"], s["group"][m]["value"], s["sign"]) for s in summary if m in s["group"]]
        lines.append(f"| {m} | {geomean(xs):.4f} |" if xs else f"| {m} | not run |")
    return lines + [""]


def plot(nets, rows, limit, png, workdir):
    """Anytime profiles: best value over time per method, one panel per network (gnuplot multiplot)."""
    names = [n[0] for n in nets if any(r["network"] == n[0] and r["limit"] == limit for r in rows)]
    if not names:
        return
    cols = min(4, len(names))
    nrows = (len(names) + cols - 1) // cols
    script = [f"set terminal pngcairo size {cols * 420},{nrows * 300} font ',8'", f"set output '{png}'",
              f"set multiplot layout {nrows},{cols}", "set termoption noenhanced", "set key bottom right font ',6'", "set xlabel 's'"]
    for name in names:
        series = []
        for r in rows:
            if r["network"] != name or r["limit"] != limit or not r.get("trajectory"):
                continue
            data = os.path.join(workdir, f"{name}_{r['method']}_{limit:g}.dat")
            pts = r["trajectory"] + [[r["wall"], r["trajectory"][-1][1]]]
            with open(data, "w") as f:
                f.write("\n".join(f"{t} {v}" for t, v in pts) + "\n")
            series.append(f"'{data}' using 1:2 with steps title '{r['method']}'")
        script += [f"set title '{name}'", "plot " + ", ".join(series) if series else "plot 0 notitle"]
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reluopt", required=True)
    ap.add_argument("--time-limits", type=float, nargs="+", default=[10.0, 60.0])
    ap.add_argument("--long", nargs="*", default=None, help="networks of the passes after the first (default: all)")
    ap.add_argument("--only", nargs="*", default=None, help="networks of every pass (default: all)")
    ap.add_argument("--long-methods", nargs="*", default=None,
                    help="methods of the passes after the first (default: all six)")
    ap.add_argument("--workdir", default="/tmp/reluopt_heuristics_set")
    ap.add_argument("--out", default="heuristics_set")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    a.reluopt = resolve_binary(a.reluopt)
    meta = ac.make_meta("heuristics_set.py", sys.argv[1:])
    meta.update(**binary_meta(a.reluopt))
    nets = [n for n in network_set(a.workdir) if a.only is None or n[0] in a.only]
    out_json = os.path.join(ac.RESULTS, a.out + ".json")
    rows = []
    for i, limit in enumerate(a.time_limits):
        for net in nets:
            if i > 0 and a.long is not None and net[0] not in a.long:
                continue
            for method in METHODS:
                if i > 0 and a.long_methods is not None and method not in a.long_methods:
                    continue
                row = solve(a.reluopt, net, method, limit, a.workdir)
                row.update(network=net[0], limit=limit)
                rows.append(row)
                print(f"{limit:4g}s {net[0]:22s} {method:11s} {row['value']} ({row['wall']:.2f} s, load {row['load']:.1f})",
                      flush=True)
            ac.write_json(out_json, {"meta": meta, "rows": rows})
    lines = ["# The heuristics benchmark set: the default portfolio against each single method", "",
             *ac.meta_table(meta), "", "| network | model | description |", "|---|---|---|"]
    lines += [f"| {n[0]} | {os.path.relpath(n[1], os.path.dirname(HERE)) if n[1].startswith(os.path.dirname(HERE)) else 'bench/netgen.py'} | {n[4]} |"
              for n in nets]
    lines.append("")
    for limit in a.time_limits:
        lines += table(nets, rows, limit)
        png = os.path.join(ac.RESULTS, f"{a.out}_{limit:g}s.png")
        plot(nets, rows, limit, png, a.workdir)
        lines += [f"Anytime profiles: `{os.path.basename(png)}`.", ""]
    with open(os.path.join(ac.RESULTS, a.out + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
