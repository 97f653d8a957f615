#!/usr/bin/python3
"""Issue 4 acceptance: `reluopt solve --method enhanced` (Algorithm 2 of the paper).

(a) The paper's grid on networks used nowhere else: Xavier, 1 and 2 hidden layers of 100, one
    output, [0,1]^d, maximise the output, d in --dims (default 5 10 20 50 100 200 500 750 1000),
    network (d, L) with seed --net-seed + 10000 L + d (default base 777; bench/paper_tables.py uses
    base 0). Same wall-clock budget (--budget, default 60 s) for
        reluopt solve M --method enhanced --samples <huge> --time-limit B --threads T --seed K
        bench/sampling_reference.py (Algorithm 1 in numpy + scipy HiGHS, one thread, seed K)
        bench/highs_mip.py (HiGHS on the big-M MIP, LP neuron bounds for at most half the budget; its incumbent)
    Acceptance: enhanced >= both on every network (within 1e-6 relative).
(b) Six small instances with an optimum certified by highs_mip (acceptance_common.SMALL_SPECS, cache
    bench/results/certified_small.json shared with acceptance_mip.py): enhanced with --small-budget
    (default 30 s) reaches the optimum within 1e-4 * max(1, |optimum|) on at least 5 of 6.
(c) A trained image classifier: bench/models/digits_mlp.onnx (bench/train_digits.py: 64 -> 64 -> 64 -> 10,
    sklearn digits, pixels in [0,1]). x0 = the --image-th correctly classified test image (default the
    first), t its class, s the runner-up class at x0; domain = {|x - x0|_inf <= radius} cut to [0,1]^64
    (a box; --radius, default 0.2); maximise logit_s - logit_t. The optimum is certified by highs_mip
    (cache bench/results/certified_digits.json; --cert-time, default 1800 s); enhanced runs
    --digits-budget (default 30 s). Acceptance: value >= 90% of the certified optimum (when the optimum
    is positive; otherwise value >= optimum - 0.1 |optimum|).

Every reluopt answer is checked (acceptance_common.check_result: objective = forward value of x within
1e-6 relative, x in the domain within 1e-7) and never above a certified optimum or HiGHS's proven bound
(+1e-6 relative); a violation is printed loudly and makes the exit status 1.

Output: bench/results/acceptance_enhanced.{md,json} (--quick: acceptance_enhanced_quick.*).
Exit status: 0 all accepted; 1 a check violation; 2 bad usage / binary missing; 3 acceptance not met.

    /usr/bin/python3 bench/acceptance_enhanced.py --quick                 # smoke test, ~5 min
    /usr/bin/python3 bench/acceptance_enhanced.py                         # full, ~55-60 min on 2 quiet cores
    /usr/bin/python3 bench/acceptance_enhanced.py --parts a --dims 5 10 --budget 20
"""
import argparse
import concurrent.futures
import multiprocessing
import os
import sys
import time


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acceptance_common as ac  # noqa: E402
import netgen  # noqa: E402
import sampling_reference  # noqa: E402
from acceptance_common import fmt, log, loud  # noqa: E402

PAPER_DIMS = [5, 10, 20, 50, 100, 200, 500, 750, 1000]
ENH_SMALL = ["x_d2_1x100_box", "x_d5_2x50_box", "x_d10_1x100_box", "x_d6_2x40_box", "x_d3_3x20_poly", "t_reg2_box"]
GRID_RTOL = 1e-6


def parse(argv):
    ap = argparse.ArgumentParser(description="Issue 4 acceptance: reluopt --method enhanced.",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--reluopt", default="build/reluopt")
    ap.add_argument("--parts", default="abc", help="which parts to run: any of a, b, c")
    ap.add_argument("--dims", type=int, nargs="+", default=None, help="(a) input dimensions (default the paper's; --quick 5 20)")
    ap.add_argument("--layers", type=int, nargs="+", default=[1, 2], help="(a) numbers of hidden layers of 100")
    ap.add_argument("--budget", type=float, default=None, help="(a) seconds per method and network (default 60, --quick 5)")
    ap.add_argument("--net-seed", type=int, default=777, help="(a) network (d, L) uses net_seed + 10000 L + d")
    ap.add_argument("--small-budget", type=float, default=None, help="(b) enhanced seconds (default 30, --quick 10)")
    ap.add_argument("--instances", nargs="+", default=None, help="(b) instance names (default the six)")
    ap.add_argument("--digits-budget", type=float, default=None, help="(c) enhanced seconds (default 30, --quick 10)")
    ap.add_argument("--radius", type=float, default=0.2, help="(c) L-infinity radius around x0")
    ap.add_argument("--image", type=int, default=0, help="(c) use the IMAGE-th correctly classified test image")
    ap.add_argument("--cert-time", type=float, default=1800.0, help="HiGHS time limit to certify an uncached optimum")
    ap.add_argument("--recertify", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--references-side-by-side", action="store_true",
                    help="(a) run the two single-threaded references (sampling, HiGHS) at the same time, one core "
                         "each, after reluopt has run alone (halves part (a)'s time on a 2-core machine)")
    ap.add_argument("--quick", action="store_true", help="smoke test: (a) d in {5, 20} at 5 s, (b) 2 instances and (c) at 10 s")
    ap.add_argument("--keep", default=None)
    ap.add_argument("--out-dir", default=ac.RESULTS)
    a = ap.parse_args(argv)
    if a.dims is None:
        a.dims = [5, 20] if a.quick else PAPER_DIMS
    if a.budget is None:
        a.budget = 5.0 if a.quick else 60.0
    if a.small_budget is None:
        a.small_budget = 10.0 if a.quick else 30.0
    if a.digits_budget is None:
        a.digits_budget = 10.0 if a.quick else 30.0
    if a.instances is None:
        a.instances = ENH_SMALL[:2] if a.quick else ENH_SMALL
    if set(a.parts) - set("abc"):
        ap.error("--parts takes letters among a, b, c")
    return a


def above(inst, v, ref, rtol):
    """v is better than ref by more than rtol * max(1, |ref|) (a violation of an upper bound)."""
    return v is not None and ref is not None and inst.sgn * (v - ref) > rtol * max(1.0, abs(ref))


# --------------------------------------------------------------------------------------------- (a)

def run_reference(layers, budget, seed):
    """The Python/HiGHS Algorithm 1 (bench/sampling_reference.py) for `budget` seconds, single-threaded."""
    load1, c0 = os.getloadavg()[0], time.process_time()
    ref = sampling_reference.run(layers, 10 ** 12, budget, seed)
    ref.pop("values", None)
    ref.pop("x", None)
    ref.update(cpu_seconds=time.process_time() - c0, load1_before=load1)
    return ref


def part_a(a, ro, workdir, state, save):
    for nl in a.layers:
        for d in a.dims:
            seed = a.net_seed + 10000 * nl + d
            layers = netgen.make_network(d, [100] * nl, seed)
            inst = ac.Instance("grid_L%d_d%d" % (nl, d), layers, ac.box_domain(d), ac.max_output_objective(),
                               desc="Xavier seed %d" % seed).write(workdir)
            row = dict(instance=inst.name, layers=nl, d=d, seed=seed, violations=[], failures=[])
            state["a"].append(row)
            log("\n== (a) %s: %s, seed %d, %s s each" % (inst.name, inst.arch(), seed, ac.fmt_num(a.budget)))
            rec = ro.solve(inst, ac.method_flags("enhanced"), a.budget, a.threads, a.seed, tag="enhanced")
            row["enhanced"] = dict(rec, result=ac.strip_x(rec.get("result")))
            enh = None
            if "error" in rec:
                loud("reluopt FAILED on %s: %s\n%s" % (inst.name, rec["error"], rec.get("stderr_tail", "")))
                row["failures"].append("enhanced: %s" % rec["error"])
            else:
                row["violations"] += ac.check_result(inst, rec["result"])
                enh = ac.num(rec["result"].get("objective"))
            log("   enhanced    %-14s %s samples, %s LPs, %s local searches, %.1f s"
                % (fmt(enh), (rec.get("result") or {}).get("samples"), (rec.get("result") or {}).get("lps"),
                   (rec.get("result") or {}).get("local_searches"), rec.get("wall_seconds") or 0))
            side_by_side = None
            if a.references_side_by_side:
                side_by_side = concurrent.futures.ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("fork"))
                pending_ref = side_by_side.submit(run_reference, layers, a.budget, a.seed)
            else:
                ref = run_reference(layers, a.budget, a.seed)
            load1, t0 = os.getloadavg()[0], time.perf_counter()
            h = inst.highs(bounds="lp", time_limit=a.budget)
            highs_wall = time.perf_counter() - t0
            if side_by_side is not None:
                ref = pending_ref.result()
                ref["side_by_side_with_highs"] = True
                side_by_side.shutdown()
            row["reference"] = ref
            log("   reference   %-14s %d samples, %d LPs, %.1f s" % (fmt(ref["objective"]), ref["samples"], ref["lps"],
                                                                    ref["seconds"]))
            row["highs"] = {k: v for k, v in h.items() if k not in ("x", "neuron_bounds")}
            row["highs"].update(wall_seconds=highs_wall, load1_before=load1)
            log("   highs_mip   %-14s %s, bound %s, %s binaries, %.1f s (bounds %.1f s)"
                % (fmt(h.get("objective")), h["status"], fmt(h.get("bound")), h["binaries"], row["highs"]["wall_seconds"],
                   h["bounds_seconds"]))
            hb = ac.num(h.get("bound"))
            for what, v in (("enhanced", enh), ("reference", ref["objective"])):
                if above(inst, v, hb, 1e-6):
                    row["violations"].append("%s value %.12g above HiGHS's proven bound %.12g" % (what, v, hb))
            others = [v for v in (ref["objective"], ac.num(h.get("objective"))) if v is not None]
            row["enhanced_ge_both"] = enh is not None and all(enh >= v - GRID_RTOL * max(1.0, abs(v)) for v in others)
            if not row["enhanced_ge_both"]:
                row["failures"].append("enhanced %s < %s" % (fmt(enh, "%.9g"), " or ".join(fmt(v, "%.9g") for v in others)))
            for v in row["violations"]:
                loud("VIOLATION %s: %s" % (inst.name, v))
            save()


# --------------------------------------------------------------------------------------------- (b)

def part_b(a, ro, workdir, state, save):
    cache = ac.CertCache(os.path.join(ac.RESULTS, "certified_small.json"))
    insts = ac.small_instances(a.instances)
    for inst in insts:
        inst.write(workdir)
        cert = ac.certify(inst, cache, a.cert_time, force=a.recertify, log_prefix="   ")
        row = dict(instance=inst.name, arch=inst.arch(), domain=inst.domain_desc(), sense=inst.sense, desc=inst.desc,
                   certificate={k: v for k, v in cert.items() if k != "x"}, violations=[], failures=[])
        state["b"].append(row)
        log("\n== (b) %s: %s, %s, %s; certified %s = %s" % (inst.name, inst.arch(), inst.domain_desc(), inst.sense,
                                                             cert["status"], fmt(cert["objective"], "%.9g")))
        rec = ro.solve(inst, ac.method_flags("enhanced"), a.small_budget, a.threads, a.seed, tag="enhanced")
        row["enhanced"] = dict(rec, result=ac.strip_x(rec.get("result")))
        if "error" in rec:
            loud("reluopt FAILED on %s: %s\n%s" % (inst.name, rec["error"], rec.get("stderr_tail", "")))
            row["failures"].append("enhanced: %s" % rec["error"])
            row["reached"] = False
        else:
            res = rec["result"]
            obj = ac.num(res.get("objective"))
            row["violations"] += ac.check_result(inst, res)
            cval = cert["objective"] if cert["status"] == "optimal" else None
            if above(inst, obj, cval, 1e-6):
                row["violations"].append("enhanced value %.12g better than the certified optimum %.12g" % (obj, cval))
            row["reached"] = cval is not None and obj is not None and inst.sgn * (cval - obj) <= ac.OPT_RTOL * max(1.0, abs(cval))
            row["time_to_optimum"] = time_to(inst, res.get("trajectory"), cval) if row["reached"] else None
            if cval is None:
                row["failures"].append("no certified optimum")
            log("   enhanced    %-16s %s (%s samples, %s local searches, %.1f s)%s"
                % (fmt(obj, "%.9g"), "reached" if row["reached"] else "NOT reached", res.get("samples"),
                   res.get("local_searches"), rec["wall_seconds"],
                   "" if row["time_to_optimum"] is None else ", optimum at %.2f s" % row["time_to_optimum"]))
        for v in row["violations"]:
            loud("VIOLATION %s: %s" % (inst.name, v))
        save()


def time_to(inst, traj, cval):
    """First time in a trajectory [[t, value], ...] at which the value is within OPT_RTOL of cval."""
    for t, v in traj or []:
        if inst.sgn * (cval - v) <= ac.OPT_RTOL * max(1.0, abs(cval)):
            return float(t)
    return None


# --------------------------------------------------------------------------------------------- (c)

def part_c(a, ro, workdir, state, save):
    inst, info = ac.digits_instance(a.radius, a.image)
    inst.write(workdir)
    cache = ac.CertCache(os.path.join(ac.RESULTS, "certified_digits.json"))
    log("\n== (c) %s: %s; test accuracy %.4f; logit_s - logit_t at x0 = %.6g"
        % (inst.name, inst.desc, info["test_accuracy"], info["logit_gap_at_x0"]))
    cert = ac.certify(inst, cache, a.cert_time, force=a.recertify, log_prefix="   ")
    row = dict(instance=inst.name, arch=inst.arch(), info=info, certificate={k: v for k, v in cert.items() if k != "x"},
               violations=[], failures=[])
    state["c"] = row
    cval = cert["objective"] if cert["status"] == "optimal" else None
    if cval is None:
        row["failures"].append("no certified optimum (HiGHS %s after %.0f s): shrink --radius" % (cert["status"], cert["seconds"]))
    rec = ro.solve(inst, ac.method_flags("enhanced"), a.digits_budget, a.threads, a.seed, tag="enhanced")
    row["enhanced"] = dict(rec, result=ac.strip_x(rec.get("result")))
    if "error" in rec:
        loud("reluopt FAILED on %s: %s\n%s" % (inst.name, rec["error"], rec.get("stderr_tail", "")))
        row["failures"].append("enhanced: %s" % rec["error"])
    else:
        res = rec["result"]
        obj = ac.num(res.get("objective"))
        row["violations"] += ac.check_result(inst, res)
        if above(inst, obj, cval, 1e-6):
            row["violations"].append("enhanced value %.12g above the certified optimum %.12g" % (obj, cval))
        if cval is not None and obj is not None:
            row["ratio"] = obj / cval if cval > 0 else None
            row["accepted"] = (obj >= 0.9 * cval) if cval > 0 else (obj >= cval - 0.1 * abs(cval))
            if not row["accepted"]:
                row["failures"].append("enhanced %.9g < 90%% of the certified optimum %.9g" % (obj, cval))
        log("   enhanced    %s (certified %s, ratio %s), %.1f s" % (fmt(obj, "%.9g"), fmt(cval, "%.9g"),
                                                                   fmt(row.get("ratio"), "%.4f"), rec["wall_seconds"]))
    for v in row["violations"]:
        loud("VIOLATION %s: %s" % (inst.name, v))
    save()


# --------------------------------------------------------------------------------------------- output

def write_md(path, state, a):
    meta = state["meta"]
    L = ["# Issue 4 acceptance: `reluopt solve --method enhanced`%s" % (" (QUICK smoke test)" if a.quick else ""), ""]
    L.append("Generated by `bench/acceptance_enhanced.py` on %s%s." % (meta["date"], " — PARTIAL" if state.get("partial") else ""))
    L.append("")
    L += ac.meta_table(meta, ["machine", "nproc", "load_average_at_start", "python", "numpy", "scipy", "sklearn",
                              "reluopt", "reluopt_version", "reluopt_sha256", "git_head", "command"])
    L.append("")
    L.append("**Verdict: %s**" % ("CHECK VIOLATIONS (see below)" if state["violations"] else
                                  ("acceptance NOT met (see below)" if state["failures"] else "all accepted")))
    L.append("")
    if state["violations"]:
        L += ["## VIOLATIONS", ""] + ["- %s" % v for v in state["violations"]] + [""]
    if state["failures"]:
        L += ["## Acceptance not met", ""] + ["- %s" % v for v in state["failures"]] + [""]
    if state["a"]:
        L.append("## (a) The paper's grid, networks not used elsewhere (seed base %d)" % a.net_seed)
        L.append("")
        L.append("Xavier, hidden layers of 100, one output, [0,1]^d, maximise. Each method %s s wall clock; reluopt "
                 "`--threads %d --seed %d` with its default options; the reference (bench/sampling_reference.py) "
                 "single-threaded with seed %d; HiGHS = bench/highs_mip.py big-M with LP neuron bounds (at most half "
                 "the budget), its incumbent "
                 "(and proven bound). Best of the row in bold.%s"
                 % (ac.fmt_num(a.budget), a.threads, a.seed, a.seed,
                    " reluopt ran alone; the two single-threaded references then ran side by side, one core each "
                    "(`--references-side-by-side`)." if a.references_side_by_side else ""))
        L.append("")
        L.append("| layers | d | seed | enhanced | sampling reference | HiGHS big-M incumbent | HiGHS bound | enhanced >= both |")
        L.append("|---:|---:|---:|---:|---:|---:|---:|---|")
        for row in state["a"]:
            e = ac.num(((row.get("enhanced") or {}).get("result") or {}).get("objective"))
            r = ac.num((row.get("reference") or {}).get("objective"))
            h = row.get("highs") or {}
            hv = ac.num(h.get("objective"))
            vals = [v for v in (e, r, hv) if v is not None]
            best = max(vals) if vals else None

            def cell(v):
                s = fmt(v)
                return "**%s**" % s if v is not None and best is not None and v >= best - 1e-9 * max(1, abs(best)) else s
            L.append("| %d | %d | %d | %s | %s | %s%s | %s | %s |" % (
                row["layers"], row["d"], row["seed"], cell(e), cell(r), cell(hv),
                "" if h.get("status") == "optimal" else " (%s)" % h.get("status"), fmt(h.get("bound")),
                "yes" if row.get("enhanced_ge_both") else "**NO**"))
        n_ok = sum(1 for row in state["a"] if row.get("enhanced_ge_both"))
        L.append("")
        L.append("Enhanced >= both on %d of %d networks." % (n_ok, len(state["a"])))
        L.append("")
    if state["b"]:
        L.append("## (b) Small networks with a certified optimum")
        L.append("")
        L.append("Enhanced `--time-limit %s --threads %d --seed %d`; reached = within 1e-4 * max(1, |optimum|); "
                 "optimum at = first time in reluopt's trajectory at that value. Certified by bench/highs_mip.py "
                 "(cache bench/results/certified_small.json)." % (ac.fmt_num(a.small_budget), a.threads, a.seed))
        L.append("")
        L.append("| instance | network | domain | sense | certified optimum | HiGHS s | enhanced | reached | optimum at (s) |")
        L.append("|---|---|---|---|---:|---:|---:|---|---:|")
        for row in state["b"]:
            c = row["certificate"]
            res = (row.get("enhanced") or {}).get("result") or {}
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                row["instance"], row["arch"], row["domain"], row["sense"], fmt(c["objective"], "%.9g"),
                fmt(c["seconds"], "%.1f"), fmt(res.get("objective"), "%.9g"), "yes" if row.get("reached") else "**NO**",
                fmt(row.get("time_to_optimum"), "%.2f")))
        n = sum(1 for r in state["b"] if r.get("reached"))
        L.append("")
        L.append("Reached on %d of %d (acceptance: at least %d)." % (n, len(state["b"]), need_b(len(state["b"]))))
        L.append("")
    c = state.get("c")
    if c:
        i, ce = c["info"], c["certificate"]
        res = (c.get("enhanced") or {}).get("result") or {}
        L.append("## (c) Trained image classifier (sklearn digits)")
        L.append("")
        L.append("Model `%s` (%s, bench/train_digits.py), test accuracy %.4f (train %.4f). Test image %d (class %d), "
                 "target class %d; domain = L-inf ball of radius %g around it cut to [0,1]^64; maximise logit_%d - "
                 "logit_%d (%.6g at x0)." % (i["model"], c["arch"], i["test_accuracy"], i["train_accuracy"],
                                              i["test_index"], i["true_class"], i["target_class"], i["radius"],
                                              i["target_class"], i["true_class"], i["logit_gap_at_x0"]))
        L.append("")
        L.append("| | |")
        L.append("|---|---|")
        L.append("| certified optimum (HiGHS big-M, LP bounds) | %s (%s; bound %s; %s binaries, %s nodes, %.1f s, load %.1f, %s) |"
                 % (fmt(ce["objective"], "%.9g"), ce["status"], fmt(ce["bound"], "%.9g"), ce["binaries"], ce["nodes"],
                    ce["seconds"], ce.get("load1_before") or 0, ce.get("date")))
        L.append("| enhanced, %s s | %s (%s samples, %s local searches) |" % (
            ac.fmt_num(a.digits_budget), fmt(res.get("objective"), "%.9g"), res.get("samples"), res.get("local_searches")))
        L.append("| value / certified optimum | %s (acceptance >= 0.9: %s) |" % (
            fmt(c.get("ratio"), "%.4f"), "yes" if c.get("accepted") else "**NO**"))
        L.append("")
    L.append("## Runs in detail")
    L.append("")
    L.append("| instance | run | status | samples | LPs | local searches | objective | tool s | wall s | CPU/wall | load1 before |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = state["a"] + state["b"] + ([state["c"]] if state.get("c") else [])
    for row in rows:
        r = row.get("enhanced")
        if r:
            res = r.get("result") or {}
            L.append("| %s | reluopt enhanced | %s | %s | %s | %s | %s | %s | %s | %s | %.2f |" % (
                row["instance"], res.get("status", r.get("error", "")), res.get("samples", ""), res.get("lps", ""),
                res.get("local_searches", ""), fmt(res.get("objective"), "%.9g"), fmt(res.get("seconds"), "%.2f"),
                fmt(r.get("wall_seconds"), "%.2f"),
                fmt((r.get("cpu_seconds") or 0) / r["wall_seconds"] if r.get("wall_seconds") else None, "%.2f"),
                r["load1_before"]))
        ref = row.get("reference")
        if ref:
            L.append("| %s | sampling reference | stopped by %s | %d | %d | | %s | %.2f | %.2f | %.2f | %.2f |" % (
                row["instance"], ref["stopped_by"], ref["samples"], ref["lps"], fmt(ref["objective"], "%.9g"),
                ref["seconds"], ref["seconds"], ref["cpu_seconds"] / ref["seconds"], ref["load1_before"]))
        h = row.get("highs")
        if h:
            L.append("| %s | highs_mip | %s | | %d bound LPs | | %s | %.2f | %.2f | | %.2f |" % (
                row["instance"], h["status"], h.get("bound_lps", 0), fmt(h.get("objective"), "%.9g"), h["seconds"],
                h["wall_seconds"], h["load1_before"]))
    L.append("")
    L.append("## Commands")
    L.append("")
    L.append("```")
    L.append(meta["command"])
    for row in rows:
        if row.get("enhanced"):
            L.append(row["enhanced"]["command"])
    L.append("```")
    L.append("")
    L.append("`$WORK` was a temporary directory with the models, domain and objective JSONs. (a): models from "
             "`bench/netgen.py --d D --hidden 100 [100] --seed S`; the reference ran in-process as "
             "`sampling_reference.run(layers, 10**12, budget, seed)`, HiGHS as `highs_mip.solve(..., bounds='lp', "
             "time_limit=budget)`.")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def need_b(n):
    """At least 5 of 6 (n - 1 of n; all of them when fewer than 3 run)."""
    return n - 1 if n >= 3 else n


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    workdir, tmp = ac.make_workdir(a.keep, "acceptance_enhanced_")
    try:
        ro = ac.Reluopt(a.reluopt, workdir)
    except FileNotFoundError:
        log("error: reluopt binary not found: %s (build: cmake --build build -j2 --target reluopt_cli)" % a.reluopt)
        return 2
    state = dict(meta=ac.make_meta("acceptance_enhanced.py", argv, ro), args=vars(a), a=[], b=[], c=None,
                 violations=[], failures=[])
    name = "acceptance_enhanced" + ("_quick" if a.quick else "")
    os.makedirs(a.out_dir, exist_ok=True)
    pmd, pjs = os.path.join(a.out_dir, name + ".md"), os.path.join(a.out_dir, name + ".json")

    def save(final=False):
        state["violations"], state["failures"] = [], []
        rows = state["a"] + state["b"] + ([state["c"]] if state.get("c") else [])
        for row in rows:
            state["violations"] += ["%s: %s" % (row["instance"], v) for v in row["violations"]]
            state["failures"] += ["%s: %s" % (row["instance"], v) for v in row["failures"]]
        if state["b"]:
            n = sum(1 for r in state["b"] if r.get("reached"))
            if n < need_b(len(state["b"])):
                state["failures"].append("(b) enhanced reached the certified optimum on %d of %d (need %d)"
                                         % (n, len(state["b"]), need_b(len(state["b"]))))
        state["partial"] = not final
        ac.write_json(pjs, state)
        write_md(pmd, state, a)

    log("acceptance_enhanced: load %s, reluopt %s (sha %s)" % (state["meta"]["load_average_at_start"], ro.source, ro.sha))
    parts = {"a": part_a, "b": part_b, "c": part_c}
    steps = [lambda part=parts[p]: part(a, ro, workdir, state, save) for p in "abc" if p in a.parts]
    return ac.run_to_the_end(steps, state, save, tmp, (pmd, pjs))


if __name__ == "__main__":
    sys.exit(main())
