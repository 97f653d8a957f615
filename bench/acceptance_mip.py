#!/usr/bin/python3
"""Issue 3 acceptance: reluopt's MIP methods (mip, mip-cuts, partition N=2, 4) against optima
certified by an independent solver (bench/highs_mip.py: big-M on HiGHS), and the validity of their
bounds on larger networks.

Part 1, small networks (acceptance_common.SMALL_SPECS): 1-3 hidden layers, widths up to 100,
random Xavier and trained (bench/train_small_models.py), boxes and polyhedral domains, max and min.
Plus the trained digits classifier of acceptance_enhanced.py (c) (64 -> 64 -> 64 -> 10, an L-inf
ball of radius 0.2 around a test image, maximise a logit difference; --no-digits leaves it out).
Each optimum is certified by highs_mip (LP neuron bounds, status optimal, HiGHS mip_rel_gap 1e-6),
cached in bench/results/certified_small.json (digits: certified_digits.json; keyed by a fingerprint of weights, domain and
objective, so a changed instance is recertified). Then
    reluopt solve M --domain D --objective O --method mip --time-limit B --threads T --seed K
and, when the instance has at most --small-binaries binaries (HiGHS's count with LP bounds),
also --method mip-cuts, --method partition --partitions 2 and 4. Acceptance: status optimal, and
objective and bound both within 1e-4 * max(1, |certified|) of the certified value.

Part 2, larger networks: Xavier 2 x 100, d in --large-dims (default 20 50 100), [0,1]^d, maximise
the output, network seed --large-seed + d. Every MIP method cold and with --warm-start sampling,
plus enhanced and highs_mip (same budget) for feasible values. Acceptance: no bound below any known
feasible value (best of all methods and HiGHS), and every warm-started run returns a solution
(even where the cold run found none).

Every reluopt answer is checked (acceptance_common.check_result): objective = numpy forward value
of x within 1e-6 relative, x in the domain within 1e-7, bound >= every known feasible value - 1e-6
(<= for min). A violation is printed loudly and makes the exit status 1.

Output: bench/results/acceptance_mip.{md,json} (--quick: acceptance_mip_quick.*).
Exit status: 0 all accepted; 1 a check violation (wrong objective, x outside the domain, a bound
that cuts off a feasible point, "optimal" at a wrong value); 2 bad usage / binary missing;
3 no violation, but an acceptance criterion not met (e.g. not proven optimal within the budget,
uncertified instance, a warm run without a solution).

    /usr/bin/python3 bench/acceptance_mip.py --quick        # smoke test, ~3 min (certificates cached)
    /usr/bin/python3 bench/acceptance_mip.py                # full: ~1 h on 2 quiet cores
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acceptance_common as ac  # noqa: E402
import netgen  # noqa: E402
from acceptance_common import fmt, log, loud  # noqa: E402

QUICK_SMALL = ["x_d2_1x100_box", "x_d3_3x20_poly", "t_cls5_box_logit"]
MIP_METHODS = ["mip", "mip-cuts", "partition2", "partition4"]


def parse(argv):
    ap = argparse.ArgumentParser(description="Issue 3 acceptance: reluopt's MIP methods vs HiGHS-certified optima.",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--reluopt", default="build/reluopt")
    ap.add_argument("--budget", type=float, default=None, help="reluopt time limit on the small instances (default 60, --quick 20)")
    ap.add_argument("--instances", nargs="+", default=None, help="small instance names (default all; --quick 3)")
    ap.add_argument("--small-binaries", type=int, default=80,
                    help="run mip-cuts and partition N=2,4 on instances with at most this many binaries")
    ap.add_argument("--cert-time", type=float, default=1800.0, help="HiGHS time limit to certify an uncached optimum")
    ap.add_argument("--recertify", action="store_true", help="ignore the cached certificates")
    ap.add_argument("--large-dims", type=int, nargs="*", default=None, help="default 20 50 100, --quick 20")
    ap.add_argument("--large-budget", type=float, default=None, help="default 60, --quick 10")
    ap.add_argument("--large-methods", default=None, help="comma list (default mip,mip-cuts,partition2,partition4; --quick mip)")
    ap.add_argument("--large-seed", type=int, default=5500, help="large network (d) uses seed large_seed + d")
    ap.add_argument("--no-digits", action="store_true",
                    help="leave out the trained digits classifier (acceptance_enhanced.py (c)) from the small instances")
    ap.add_argument("--digits-radius", type=float, default=0.2, help="its L-inf radius")
    ap.add_argument("--no-small", action="store_true")
    ap.add_argument("--no-large", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="smoke test: 3 small instances at 20 s, d=20 at 10 s, mip only")
    ap.add_argument("--keep", default=None, help="keep models and reluopt JSONs in this directory")
    ap.add_argument("--out-dir", default=ac.RESULTS)
    a = ap.parse_args(argv)
    if a.budget is None:
        a.budget = 20.0 if a.quick else 60.0
    if a.large_budget is None:
        a.large_budget = 10.0 if a.quick else 60.0
    if a.large_dims is None:
        a.large_dims = [20] if a.quick else [20, 50, 100]
    if a.large_methods is None:
        a.large_methods = "mip" if a.quick else ",".join(MIP_METHODS)
    a.large_methods = [m for m in a.large_methods.split(",") if m]
    if a.instances is None and a.quick:
        a.instances = QUICK_SMALL
    return a


def small_part(a, ro, workdir, state, save):
    cache = ac.CertCache(os.path.join(ac.RESULTS, "certified_small.json"))
    insts = [(i, cache) for i in ac.small_instances(a.instances)]
    if a.instances:
        unknown = set(a.instances) - {i.name for i, _ in insts}
        if unknown:
            raise SystemExit("unknown instance(s): %s (known: %s)" % (", ".join(sorted(unknown)),
                                                                       ", ".join(s[0] for s in ac.SMALL_SPECS)))
    if not a.no_digits:
        # the trained image classifier of acceptance_enhanced.py (c), same certificate cache
        insts.append((ac.digits_instance(a.digits_radius)[0],
                      ac.CertCache(os.path.join(ac.RESULTS, "certified_digits.json"))))
    for inst, cache in insts:
        inst.write(workdir)
        cert = ac.certify(inst, cache, a.cert_time, force=a.recertify, log_prefix="   ")
        row = dict(instance=inst.name, arch=inst.arch(), desc=inst.desc, domain=inst.domain_desc(), sense=inst.sense,
                   fingerprint=inst.fingerprint(), certificate={k: v for k, v in cert.items() if k != "x"}, runs=[],
                   violations=[], failures=[])
        state["small"].append(row)
        log("\n== %s: %s, %s, %s; certified %s = %s (%s binaries, %.1f s%s)"
            % (inst.name, inst.arch(), inst.domain_desc(), inst.sense, cert["status"], fmt(cert["objective"], "%.9g"),
               cert["binaries"], cert["seconds"], ", cached" if cert.get("cached") else ""))
        certified = cert["status"] == "optimal"
        if not certified:
            row["failures"].append("no certified optimum (HiGHS: %s in %s s)" % (cert["status"], fmt(cert["seconds"], "%.0f")))
        cval = cert["objective"] if certified else None
        known = cert.get("objective")
        methods = ["mip"] + (MIP_METHODS[1:] if cert["binaries"] <= a.small_binaries else [])
        for m in methods:
            rec = ro.solve(inst, ac.method_flags(m), a.budget, a.threads, a.seed, tag=m)
            rec["method"] = m
            res = rec.get("result") or {}
            row["runs"].append(rec)
            if "error" in rec:
                loud("reluopt FAILED on %s %s: %s\n%s" % (inst.name, m, rec["error"], rec.get("stderr_tail", "")))
                row["failures"].append("%s: %s" % (m, rec["error"]))
                continue
            obj, bound = ac.num(res.get("objective")), ac.num(res.get("bound"))
            known = ac.better(inst, known, obj) if not ac.check_result(inst, res) else known
            rec["violations"] = ac.check_result(inst, res, known=cert.get("objective"))
            acc = []
            if certified:
                if res.get("status") != "optimal":
                    acc.append("status %s (not proven optimal in %s s)" % (res.get("status"), ac.fmt_num(a.budget)))
                if not ac.close(obj, cval):
                    acc.append("objective %s != certified %.9g" % (fmt(obj, "%.9g"), cval))
                if not ac.close(bound, cval):
                    acc.append("bound %s != certified %.9g" % (fmt(bound, "%.9g"), cval))
                # "optimal" at a value the certificate contradicts is wrong, not merely slow
                if res.get("status") == "optimal" and obj is not None and not ac.close(obj, cval):
                    rec["violations"].append("status optimal at %.12g but the certified optimum is %.12g" % (obj, cval))
            rec["acceptance"] = acc
            rec["accepted"] = certified and not acc and not rec["violations"]
            log("   %-11s %-11s obj %-16s bound %-16s %6.1f s  %s"
                % (m, res.get("status"), fmt(obj, "%.9g"), fmt(bound, "%.9g"), rec["wall_seconds"],
                   "ok" if rec["accepted"] else "NOT ACCEPTED: " + "; ".join(acc + rec["violations"])))
            for v in rec["violations"]:
                loud("VIOLATION %s %s: %s" % (inst.name, m, v))
        # cross check: every bound against the best feasible value any run found
        row["best_known"] = known
        for rec in row["runs"]:
            res = rec.get("result")
            if res:
                extra = [v for v in ac.check_result(inst, res, known=known) if v not in rec["violations"]]
                for v in extra:
                    loud("VIOLATION %s %s: %s" % (inst.name, rec["method"], v))
                rec["violations"] += extra
                rec["accepted"] = rec.get("accepted", False) and not extra
        save()


def large_part(a, ro, workdir, state, save):
    for d in a.large_dims:
        seed = a.large_seed + d
        layers = netgen.make_network(d, [100, 100], seed)
        inst = ac.Instance("large_d%d_2x100" % d, layers, ac.box_domain(d), ac.max_output_objective(),
                           desc="Xavier seed %d" % seed).write(workdir)
        row = dict(instance=inst.name, d=d, seed=seed, arch=inst.arch(), runs=[], violations=[], failures=[])
        state["large"].append(row)
        log("\n== %s (seed %d), budget %s s" % (inst.name, seed, ac.fmt_num(a.large_budget)))
        for m in a.large_methods:
            for warm in (False, True):
                tag = m + ("_warm" if warm else "")
                rec = ro.solve(inst, ac.method_flags(m, warm=warm), a.large_budget, a.threads, a.seed, tag=tag)
                rec.update(method=m, warm=warm)
                row["runs"].append(rec)
                res = rec.get("result") or {}
                if "error" in rec:
                    loud("reluopt FAILED on %s %s: %s\n%s" % (inst.name, tag, rec["error"], rec.get("stderr_tail", "")))
                    row["failures"].append("%s: %s" % (tag, rec["error"]))
                    continue
                rec["violations"] = ac.check_result(inst, res)
                log("   %-16s %-11s obj %-14s bound %-14s %6.1f s%s"
                    % (tag, res.get("status"), fmt(res.get("objective")), fmt(res.get("bound")), rec["wall_seconds"],
                       "" if not rec["violations"] else "  VIOLATION"))
        rec = ro.solve(inst, ac.method_flags("enhanced"), a.large_budget, a.threads, a.seed, tag="enhanced")
        rec.update(method="enhanced", warm=False)
        row["runs"].append(rec)
        if "error" in rec:
            row["failures"].append("enhanced: %s" % rec["error"])
        else:
            rec["violations"] = ac.check_result(inst, rec["result"])
            log("   %-16s %-11s obj %-14s %6.1f s" % ("enhanced", rec["result"].get("status"),
                                                     fmt(rec["result"].get("objective")), rec["wall_seconds"]))
        t0 = time.perf_counter()
        h = inst.highs(bounds="lp", time_limit=a.large_budget)
        row["highs"] = {k: v for k, v in h.items() if k not in ("x", "neuron_bounds")}
        row["highs"]["wall_seconds"] = time.perf_counter() - t0
        log("   %-16s %-11s obj %-14s bound %-14s %6.1f s" % ("highs_mip", h["status"], fmt(h.get("objective")),
                                                             fmt(h.get("bound")), row["highs"]["wall_seconds"]))
        # best known feasible value; then every bound against it
        known = h.get("objective")
        for r in row["runs"]:
            res = r.get("result")
            if res and not r.get("violations"):
                known = ac.better(inst, known, ac.num(res.get("objective")))
        row["best_known"] = known
        for r in row["runs"]:
            res = r.get("result")
            if not res:
                continue
            extra = [v for v in ac.check_result(inst, res, known=known) if v not in r["violations"]]
            r["violations"] += extra
            for v in extra:
                loud("VIOLATION %s %s: %s" % (inst.name, r["tag"], v))
        hb = ac.num(h.get("bound"))
        if hb is not None and known is not None and hb < known - ac.BOUND_TOL * max(1.0, abs(known)):
            row["highs_bound_below_known"] = True
            loud("HiGHS's bound %.12g is below a known feasible value %.12g on %s: the independent solver "
                 "(or its neuron bounds) is wrong here" % (hb, known, inst.name))
            row["violations"].append("highs_mip bound %.12g below known %.12g" % (hb, known))
        for r in row["runs"]:
            if r.get("warm") and "error" not in r and ac.num(r["result"].get("objective")) is None:
                row["failures"].append("%s with --warm-start sampling returned no solution" % r["method"])
        save()


def write_md(path, state, a):
    meta = state["meta"]
    L = ["# Issue 3 acceptance: reluopt's MIP methods%s" % (" (QUICK smoke test)" if a.quick else ""), ""]
    L.append("Generated by `bench/acceptance_mip.py` on %s%s." % (meta["date"], " — PARTIAL" if state.get("partial") else ""))
    L.append("")
    L += ac.meta_table(meta, ["machine", "nproc", "load_average_at_start", "python", "numpy", "scipy", "sklearn",
                              "reluopt", "reluopt_version", "reluopt_sha256", "git_head", "command"])
    L.append("")
    viol = state["violations"]
    fails = state["failures"]
    L.append("**Verdict: %s**" % ("CHECK VIOLATIONS (see below)" if viol else
                                  ("acceptance NOT met (see below)" if fails else "all accepted")))
    L.append("")
    if viol:
        L.append("## VIOLATIONS")
        L.append("")
        L += ["- %s" % v for v in viol]
        L.append("")
    if fails:
        L.append("## Acceptance not met")
        L.append("")
        L += ["- %s" % f for f in fails]
        L.append("")
    if state["small"]:
        L.append("## Small networks: certified optima")
        L.append("")
        L.append("reluopt: `--time-limit %s --threads %d --seed %d`. Certified = HiGHS big-M (bench/highs_mip.py, LP "
                 "neuron bounds) status optimal; its value is the numpy forward value of HiGHS's x. A run is accepted when "
                 "it says optimal and its objective and bound are within 1e-4 * max(1, |certified|) of the certified value. "
                 "mip-cuts and partitions run where HiGHS's model has at most %d binaries."
                 % (ac.fmt_num(a.budget), a.threads, a.seed, a.small_binaries))
        L.append("")
        L.append("| instance | network | domain | sense | binaries | certified optimum | HiGHS s | method | status | objective | bound | s | accepted |")
        L.append("|---|---|---|---|---:|---:|---:|---|---|---:|---:|---:|---|")
        for row in state["small"]:
            c = row["certificate"]
            first = True
            for r in row["runs"] or [dict(method="(none)")]:
                res = r.get("result") or {}
                cells = ([row["instance"], row["arch"], row["domain"], row["sense"], str(c["binaries"]),
                          "%s%s" % (fmt(c["objective"], "%.9g"), "" if c["status"] == "optimal" else " (%s)" % c["status"]),
                          fmt(c["seconds"], "%.1f")] if first else [""] * 7)
                first = False
                ok = r.get("accepted")
                cells += [r["method"], str(res.get("status", r.get("error", ""))), fmt(res.get("objective"), "%.9g"),
                          fmt(res.get("bound"), "%.9g"), fmt(r.get("wall_seconds"), "%.1f"),
                          "yes" if ok else "**NO**"]
                L.append("| " + " | ".join(c_.replace("|", "\\|") for c_ in cells) + " |")
        L.append("")
    if state["large"]:
        L.append("## Larger networks: bounds never below a known feasible value; warm starts always return a solution")
        L.append("")
        L.append("Xavier 2 x 100, [0,1]^d, maximise the output; every run `--time-limit %s --threads %d --seed %d`. "
                 "Best known = the best objective of every run here and of HiGHS (bench/highs_mip.py, same budget)."
                 % (ac.fmt_num(a.large_budget), a.threads, a.seed))
        L.append("")
        L.append("| d | seed | method | cold: status | objective | bound | warm: status | objective | bound | bounds >= best known |")
        L.append("|---:|---:|---|---|---:|---:|---|---:|---:|---|")
        for row in state["large"]:
            by = {}
            for r in row["runs"]:
                by[(r["method"], r.get("warm", False))] = r
            for m in [m for m in a.large_methods] + ["enhanced"]:
                c, w = by.get((m, False)), by.get((m, True))
                if c is None and w is None:
                    continue
                cells = [str(row["d"]), str(row["seed"]), m]
                okb = True
                for r in (c, w):
                    if r is None:
                        cells += ["", "", ""]
                        continue
                    res = r.get("result") or {}
                    cells += [str(res.get("status", r.get("error", ""))), fmt(res.get("objective")), fmt(res.get("bound"))]
                    okb = okb and not r.get("violations")
                cells.append("yes" if okb else "**NO**")
                L.append("| " + " | ".join(cells) + " |")
            h = row.get("highs") or {}
            L.append("| %d | %d | HiGHS big-M | %s | %s | %s | | | | |" % (row["d"], row["seed"], h.get("status"),
                                                                       fmt(h.get("objective")), fmt(h.get("bound"))))
            L.append("| %d | %d | **best known** | | %s | | | | | |" % (row["d"], row["seed"], fmt(row.get("best_known"))))
        L.append("")
    L.append("## Runs in detail")
    L.append("")
    L.append("| instance | run | status | stopped by | nodes | samples | objective | bound | gap | tool s | wall s | CPU/wall | load1 before |")
    L.append("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in state["small"] + state["large"]:
        for r in row["runs"]:
            res = r.get("result") or {}
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f |" % (
                row["instance"], r["tag"], res.get("status", r.get("error", "")), res.get("stopped_by", ""),
                res.get("nodes", ""), res.get("samples", ""), fmt(res.get("objective"), "%.9g"),
                fmt(res.get("bound"), "%.9g"), fmt(res.get("gap"), "%.2e"), fmt(res.get("seconds"), "%.2f"),
                fmt(r.get("wall_seconds"), "%.2f"),
                fmt((r.get("cpu_seconds") or 0) / r["wall_seconds"] if r.get("wall_seconds") else None, "%.2f"),
                r["load1_before"]))
    L.append("")
    L.append("## Commands")
    L.append("")
    L.append("```")
    L.append(meta["command"])
    for row in state["small"] + state["large"]:
        for r in row["runs"]:
            L.append(r["command"])
    L.append("```")
    L.append("")
    L.append("`$WORK` was a temporary directory holding the models (Xavier: `netgen.make_network(d, hidden, seed)`; "
             "trained: bench/models/*.onnx), the domain and objective JSONs.")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    workdir, tmp = ac.make_workdir(a.keep, "acceptance_mip_")
    try:
        ro = ac.Reluopt(a.reluopt, workdir)
    except FileNotFoundError:
        log("error: reluopt binary not found: %s (build: cmake --build build -j2 --target reluopt_cli)" % a.reluopt)
        return 2
    state = dict(meta=ac.make_meta("acceptance_mip.py", argv, ro), args=vars(a), small=[], large=[],
                 violations=[], failures=[])
    name = "acceptance_mip" + ("_quick" if a.quick else "")
    os.makedirs(a.out_dir, exist_ok=True)
    pmd, pjs = os.path.join(a.out_dir, name + ".md"), os.path.join(a.out_dir, name + ".json")

    def save(final=False):
        state["violations"], state["failures"] = [], []
        for row in state["small"] + state["large"]:
            state["violations"] += ["%s: %s" % (row["instance"], v) for v in row.get("violations", [])]
            state["failures"] += ["%s: %s" % (row["instance"], f) for f in row.get("failures", [])]
            for r in row["runs"]:
                state["violations"] += ["%s %s: %s" % (row["instance"], r["tag"], v) for v in r.get("violations", [])]
                if r.get("acceptance"):
                    state["failures"] += ["%s %s: %s" % (row["instance"], r["tag"], x) for x in r["acceptance"]]
        state["partial"] = not final
        out = dict(state)
        out["small"] = [dict(row, runs=[dict(r, result=ac.strip_x(r.get("result"))) for r in row["runs"]])
                        for row in state["small"]]
        out["large"] = [dict(row, runs=[dict(r, result=ac.strip_x(r.get("result"))) for r in row["runs"]])
                        for row in state["large"]]
        ac.write_json(pjs, out)
        write_md(pmd, state, a)

    log("acceptance_mip: load %s, reluopt %s (sha %s)" % (state["meta"]["load_average_at_start"], ro.source, ro.sha))
    steps = []
    if not a.no_small:
        steps.append(lambda: small_part(a, ro, workdir, state, save))
    if not a.no_large:
        steps.append(lambda: large_part(a, ro, workdir, state, save))
    return ac.run_to_the_end(steps, state, save, tmp, (pmd, pjs))


if __name__ == "__main__":
    sys.exit(main())
