#!/usr/bin/python3
"""Time to proof of the default (no --method, with --time-limit) against --method bab and --method mip, on the
small certified set (acceptance_common.SMALL_SPECS: Xavier and trained networks, boxes and polyhedra), the digits
classifier (tests/fixtures/digits) and the example models of examples/models that a prover settles, on 1 and 2 threads.

For each instance, thread count and method the same command runs `--repeats` times (interleaved: default, bab,
mip, default, ...; `--fast-repeats` times when every run proves in under a second) and the median of the solve
times (the JSON's run.seconds) of the runs that end `optimal` (or `infeasible`) is the time to proof; a run that does not prove within the limit counts as the limit. The ratio is
default / min(bab, mip); the acceptance (issue 27) is a ratio of at most 1.5 wherever bab or mip proves.
Every answer of the array instances is checked against a numpy forward pass (acceptance_common.check_result), and
the proven optima of the three methods must agree.

With --grid SECONDS, the cost of the first proof where no prover settles the instance: the default with and
without it (--first-proof 0) on the paper grid's 1x100 d=100 and 2x100 d=20 (Xavier seed 777 + 10000 L + d, [0,1]^d,
maximise output 0; acceptance_bounds.py's networks), one thread, SECONDS each: the value and bound at the end, and
the best value found within the first quarter and half of the run (the anytime profile).

    /usr/bin/python3 bench/default_proof.py [--reluopt build/reluopt] [--time-limit 20] [--repeats 3]
        [--only NAME ...] [--threads 1 2] [--grid 60] [--out bench/results/default_proof]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acceptance_common as ac  # noqa: E402

METHODS = {"default": [], "bab": ["--method", "bab"], "mip": ["--method", "mip"]}
# The example models that bab or mip proves within a minute (design_s3, pricing_s3 and the s4 are not).
EXAMPLES = [("design", 1), ("design", 2), ("pricing", 1), ("pricing", 2), ("process", 1), ("process", 2),
            ("process", 3)]
PROVEN = ("optimal", "infeasible")


class ProblemFile:
    """An example model: reluopt solve --problem FILE."""

    def __init__(self, kind, size):
        self.name = "%s_s%d" % (kind, size)
        self.path = os.path.join(ac.REPO, "examples", "models", kind, self.name + ".json")

    def args(self):
        return ["--problem", self.path]

    def check(self, res):
        return []


class ArrayInstance:
    def __init__(self, inst, workdir):
        self.inst = inst.write(workdir)
        self.name = inst.name

    def args(self):
        i = self.inst
        return [i.model_path, "--domain", i.domain_path, "--objective", i.objective_path]

    def check(self, res):
        return ac.check_result(self.inst, res)


def digits_fixture():
    """The digits classifier of tests/fixtures/digits (radius 0.1 around a test image, logit 3 - logit 2)."""
    folder = os.path.join(ac.REPO, "tests", "fixtures", "digits")
    with open(os.path.join(folder, "domain_r0.1_img0.json")) as f:
        domain = json.load(f)
    with open(os.path.join(folder, "objective_logit3_minus_logit2.json")) as f:
        objective = json.load(f)
    model = os.path.join(folder, "digits_mlp.onnx")
    inst = ac.Instance("digits_r0.1", ac.netgen.load_onnx(model), domain, objective)
    inst.model_path = model
    return inst


def instances(workdir, only):
    out = [ArrayInstance(i, workdir) for i in ac.small_instances()]
    out.append(ArrayInstance(digits_fixture(), workdir))
    out += [ProblemFile(kind, size) for kind, size in EXAMPLES]
    return [i for i in out if not only or i.name in only]


def run(binary, inst, method, threads, limit, workdir, counter):
    out = os.path.join(workdir, "%s_%s_%d_%d.json" % (inst.name, method, threads, counter))
    cmd = [binary, "solve"] + inst.args() + METHODS[method] + [
        "--time-limit", str(limit), "--threads", str(threads), "--seed", "1", "--json", out, "--quiet"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=3 * limit + 60)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return dict(error=(p.stderr or "").strip().splitlines()[-1:], wall=wall)
    with open(out) as f:
        res = json.load(f)
    seconds = res.get("run", {}).get("seconds", wall)
    return dict(status=res.get("status"), objective=res.get("objective"), bound=res.get("bound"),
                prover=res.get("prover"), seconds=seconds, wall=wall, violations=inst.check(res))


def proof_time(runs, limit):
    times = [r["seconds"] if r.get("status") in PROVEN else limit for r in runs]
    return statistics.median(times)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reluopt", default="build/reluopt")
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--fast-repeats", type=int, default=9)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--grid", type=float, default=0.0, help="seconds per grid run (0: no grid part)")
    ap.add_argument("--out", default=os.path.join(ac.RESULTS, "default_proof"))
    args = ap.parse_args(argv)
    workdir, tmp = ac.make_workdir(prefix="default_proof_")
    binary = ac.Reluopt(args.reluopt, workdir)
    meta = ac.make_meta("default_proof.py", argv, binary)
    rows, violations, failures, counter = [], [], [], 0
    for inst in instances(workdir, args.only):
        for threads in args.threads:
            runs = {m: [] for m in METHODS}
            repeat = 0
            # Instances proven in under a second by every method get --fast-repeats runs: their times are tens
            # of milliseconds, where a loaded machine's noise is as large as the times.
            while repeat < args.repeats or (repeat < args.fast_repeats and all(
                    r.get("status") in PROVEN and r["seconds"] < 1.0 for m in METHODS for r in runs[m])):
                repeat += 1
                for m in METHODS:
                    counter += 1
                    r = run(binary.path, inst, m, threads, args.time_limit, workdir, counter)
                    runs[m].append(r)
                    violations += ["%s %s t%d: %s" % (inst.name, m, threads, v) for v in r.get("violations", [])]
                    if "error" in r:
                        violations.append("%s %s t%d: %s" % (inst.name, m, threads, r["error"]))
            t = {m: proof_time(runs[m], args.time_limit) for m in METHODS}
            optima = [r["objective"] for m in METHODS for r in runs[m] if r.get("status") == "optimal"]
            if optima and max(optima) - min(optima) > 1e-4 * max(1.0, abs(max(optima))):
                violations.append("%s t%d: proven optima differ: %s" % (inst.name, threads, optima))
            best = min(t["bab"], t["mip"])
            ratio = t["default"] / best if best < args.time_limit else None
            row = dict(instance=inst.name, threads=threads, times=t, ratio=ratio,
                       provers=sorted({r.get("prover") or "" for r in runs["default"]}),
                       optimum=optima[0] if optima else None, runs=runs)
            rows.append(row)
            if ratio is not None and ratio > 1.5:
                failures.append("%s t%d: %.2f" % (inst.name, threads, ratio))
            ac.log("%-22s t%d default %7.3f bab %7.3f mip %7.3f ratio %s" % (
                inst.name, threads, t["default"], t["bab"], t["mip"], "n/a" if ratio is None else "%.2f" % ratio))
    grid = grid_part(binary.path, workdir, args.grid, violations) if args.grid > 0 else []
    meta["load_average_at_end"] = "%.2f %.2f %.2f" % os.getloadavg()
    ac.write_json(args.out + ".json", dict(meta=meta, rows=rows, grid=grid, violations=violations,
                                             failures=failures))
    write_table(args, meta, rows, grid, violations, failures)
    if tmp is not None:
        tmp.cleanup()
    if violations:
        ac.loud("CHECK VIOLATIONS:\n" + "\n".join(violations))
        return 1
    return 3 if failures else 0


def best_by(trajectory, seconds, sign):
    values = [v for t, v in trajectory if t <= seconds]
    return (max if sign > 0 else min)(values) if values else None


def grid_part(binary, workdir, seconds, violations):
    out = []
    for nl, d in ((1, 100), (2, 20)):
        seed = 777 + 10000 * nl + d
        inst = ac.Instance("grid_L%d_d%d" % (nl, d), ac.netgen.make_network(d, [100] * nl, seed), ac.box_domain(d),
                           ac.max_output_objective()).write(workdir)
        for first in ("0.25", "0"):
            path = os.path.join(workdir, "%s_first%s.json" % (inst.name, first))
            cmd = [binary, "solve", inst.model_path, "--domain", inst.domain_path, "--objective", inst.objective_path,
                   "--time-limit", str(seconds), "--threads", "1", "--seed", "1", "--first-proof", first, "--json",
                   path, "--quiet"]
            subprocess.run(cmd, capture_output=True, text=True, timeout=3 * seconds + 60, check=True)
            with open(path) as f:
                res = json.load(f)
            violations += ["%s first %s: %s" % (inst.name, first, v) for v in ac.check_result(inst, res)]
            trajectory = res.get("trajectory") or []
            trajectory = [(p["seconds"], p["objective"]) if isinstance(p, dict) else tuple(p) for p in trajectory]
            row = dict(instance=inst.name, first_proof=first, objective=res.get("objective"), bound=res.get("bound"),
                       quarter=best_by(trajectory, seconds / 4, 1), half=best_by(trajectory, seconds / 2, 1),
                       status=res.get("status"), seconds=seconds)
            out.append(row)
            ac.log("%s --first-proof %s: value %s bound %s (quarter %s, half %s)" % (
                inst.name, first, row["objective"], row["bound"], row["quarter"], row["half"]))
    return out


def write_table(args, meta, rows, grid, violations, failures):
    L = ["# Time to proof: the default against bab and mip", "",
         "Generated by `bench/default_proof.py` (its docstring says how). Median of %d runs (%d when all prove "
         "within a second), --time-limit %g "
         "(a run without a proof counts as the limit, shown `>%g`); ratio = default / min(bab, mip), n/a when "
         "neither proves." % (args.repeats, args.fast_repeats, args.time_limit, args.time_limit), ""]
    L += ac.meta_table(meta) + [""]
    L += ["| instance | threads | default s | bab s | mip s | ratio | default's prover | optimum |",
          "|---|---|---|---|---|---|---|---|"]

    def sec(v):
        return ">%g" % args.time_limit if v >= args.time_limit else "%.3f" % v

    for r in rows:
        t = r["times"]
        L.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
            r["instance"], r["threads"], sec(t["default"]), sec(t["bab"]), sec(t["mip"]),
            "n/a" if r["ratio"] is None else "%.2f" % r["ratio"], ", ".join(r["provers"]), ac.fmt(r["optimum"], "%.6g")))
    if grid:
        L += ["", "## What the first proof costs where no prover settles the instance", "",
              "The default with `--first-proof 0.25` (the default) and `0`, %g s, one thread, seed 1: the value "
              "and the bound at the end, and the best value found by a quarter and by half of the run." % args.grid,
              "", "| instance | --first-proof | value | bound | best by 1/4 | best by 1/2 |", "|---|---|---|---|---|---|"]
        for g in grid:
            L.append("| %s | %s | %s | %s | %s | %s |" % (g["instance"], g["first_proof"], ac.fmt(g["objective"]),
                                                      ac.fmt(g["bound"]), ac.fmt(g["quarter"]), ac.fmt(g["half"])))
    L += ["", "Ratios above 1.5: %s" % (", ".join(failures) or "none"),
          "Check violations: %s" % (", ".join(violations) or "none"), ""]
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(L))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
