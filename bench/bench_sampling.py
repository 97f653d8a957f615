#!/usr/bin/python3
"""LPs per second of `reluopt solve --method sampling` against the Python reference of Algorithm 1
(bench/sampling_reference.py, scipy's HiGHS), both in the same run on the same Xavier-initialised
networks: d in {10, 100, 1000} x {1, 2} hidden layers of 100, one output, P = [0,1]^d.

For each network: generate it (bench/netgen.py, recorded seed), write the ONNX to a temp dir, run
the reference in-process for the budget (--seconds or --samples, whichever comes first), then run
    <reluopt> solve MODEL.onnx --method sampling --samples N --time-limit S --threads T
              --seed K --json OUT.json --quiet
for every T in --threads (default 1 and 2). Throughput = lps / seconds, with each side's own count
of LPs actually solved and its own measured seconds. reluopt's answer is checked: objective finite
and >= -1e9, x of length d inside [0,1]^d, and the numpy forward value of x equal to the objective
within 1e-6 * max(1, |objective|). Failures are printed loudly, listed in the outputs, and make the
exit status 1.

Writes bench/results/sampling_throughput.{md,json} (with --quick: sampling_throughput_quick.*,
with --ref-only: ..._refonly.*, so smoke tests never overwrite a real result).
Exit status: 0 all good, 1 a run failed or a check flagged a mismatch, 2 reluopt binary missing.

    /usr/bin/python3 bench/bench_sampling.py                 # full run, ~20 s per measurement
    /usr/bin/python3 bench/bench_sampling.py --quick         # smoke test: 3 s, d in {10, 100}
    /usr/bin/python3 bench/bench_sampling.py --ref-only      # the Python reference alone
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import netgen  # noqa: E402
import sampling_reference  # noqa: E402

REQUIRED_KEYS = ("objective", "x", "lps", "samples", "duplicate_patterns", "seconds", "status")
FORWARD_RTOL = 1e-6
OBJ_FLOOR = -1e9


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def loud(msg):
    bar = "!" * 78
    log("\n%s\n!!! %s\n%s" % (bar, msg, bar))


def resolve_binary(path):
    """The reluopt binary: as given if it exists (absolute or relative to cwd), else relative to
    the repo root. Returns an absolute path or None."""
    cands = [path] if os.path.isabs(path) else [os.path.abspath(path), os.path.join(REPO, path)]
    for c in dict.fromkeys(cands):
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    found = shutil.which(path) if os.sep not in path else None
    return found


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def binary_meta(binary):
    """The metadata rows that name the reluopt binary a benchmark ran: its --version line and hash."""
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    return dict(reluopt_version=version, reluopt_sha256=sha256(binary)[:16])


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_head():
    try:
        r = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True, timeout=10)
        head = r.stdout.strip() if r.returncode == 0 else "none"
        r = subprocess.run(["git", "-C", REPO, "status", "--porcelain"],
                           capture_output=True, text=True, timeout=10)
        dirty = bool(r.stdout.strip()) if r.returncode == 0 else False
        return head + (" (dirty work tree)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def as_count(v):
    """A JSON count as int (accepting 12.0), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def check_reluopt(layers, js):
    """Validate reluopt's JSON against the network. Returns (problems, info)."""
    d = layers[0][0].shape[1]
    problems, info = [], {}
    missing = [k for k in REQUIRED_KEYS if k not in js]
    if missing:
        problems.append("JSON lacks keys %s" % ", ".join(missing))
    obj = js.get("objective")
    if not isinstance(obj, (int, float)) or isinstance(obj, bool) or not math.isfinite(obj):
        problems.append("objective is not a finite number: %r" % (obj,))
        obj = None
    elif obj < OBJ_FLOOR:
        problems.append("objective %.9g < %.0e (sanity floor)" % (obj, OBJ_FLOOR))
    x = js.get("x")
    try:
        x = np.asarray(x, dtype=np.float64).reshape(-1) if x is not None else None
    except (TypeError, ValueError):
        problems.append("x is not a list of numbers")
        x = None
    if x is None:
        problems.append("no x")
    elif x.size != d:
        problems.append("x has %d entries, the network has d = %d" % (x.size, d))
        x = None
    elif not np.all(np.isfinite(x)):
        problems.append("x has non-finite entries")
        x = None
    if x is not None:
        info["x_min"], info["x_max"] = float(x.min()), float(x.max())
        viol = max(0.0, -info["x_min"], info["x_max"] - 1.0)
        info["box_violation"] = viol
        if viol > 0.0:
            problems.append("x leaves [0,1]^d by %.3g (min %.17g, max %.17g)" % (viol, x.min(), x.max()))
        fwd = float(netgen.forward(layers, x)[0])
        info["forward_at_x"] = fwd
        if obj is not None:
            err = abs(fwd - obj) / max(1.0, abs(obj))
            info["forward_rel_err"] = err
            if not err <= FORWARD_RTOL:
                problems.append("forward(x) = %.12g but objective = %.12g (rel err %.3g > %.0e)"
                                % (fwd, obj, err, FORWARD_RTOL))
    lps, samples, dups = (as_count(js.get(k)) for k in ("lps", "samples", "duplicate_patterns"))
    secs = js.get("seconds")
    if lps is None or lps < 0:
        problems.append("lps is not a non-negative integer: %r" % (lps,))
    elif lps == 0:
        problems.append("reluopt solved no LP")
    if not isinstance(secs, (int, float)) or not secs > 0:
        problems.append("seconds is not positive: %r" % (secs,))
    if None not in (lps, samples, dups) and lps + dups > samples:
        problems.append("lps (%d) + duplicate_patterns (%d) > samples (%d)" % (lps, dups, samples))
    return problems, info


def run_reluopt(binary, model, args, threads, workdir, layers):
    stem = os.path.splitext(os.path.basename(model))[0]
    out = os.path.join(workdir, "%s_T%d.json" % (stem, threads))
    if os.path.exists(out):
        os.remove(out)
    cmd = [binary, "solve", model, "--method", "sampling", "--samples", str(args.samples),
           "--time-limit", fmt_num(args.seconds), "--threads", str(threads), "--seed", str(args.seed),
           "--json", out, "--quiet"]
    rec = dict(threads=threads, command=cmd, load1_before=os.getloadavg()[0])
    timeout = args.seconds * 3 + args.timeout_slack
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        rec["wall_seconds"] = time.perf_counter() - t0
        rec["error"] = "timed out after %.0f s (time limit %s s)" % (timeout, fmt_num(args.seconds))
        rec["stderr_tail"] = tail(e.stderr)
        return rec
    except OSError as e:
        rec["error"] = "could not start %s: %s" % (binary, e)
        return rec
    rec["wall_seconds"] = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec["cpu_seconds"] = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    rec["exit_code"] = p.returncode
    if p.returncode != 0:
        rec["error"] = "exit code %d" % p.returncode
        rec["stderr_tail"] = tail(p.stderr)
        rec["stdout_tail"] = tail(p.stdout)
        return rec
    try:
        with open(out) as fh:
            js = json.load(fh)
    except (OSError, ValueError) as e:
        rec["error"] = "no readable JSON at %s: %s" % (out, e)
        rec["stderr_tail"] = tail(p.stderr)
        return rec
    problems, info = check_reluopt(layers, js)
    rec.update({k: js.get(k) for k in ("objective", "lps", "samples", "duplicate_patterns", "seconds", "status",
                                       "lp_failures", "stopped_by", "version")})
    if "threads" in js and as_count(js["threads"]) != threads:
        problems.append("asked for --threads %d, the JSON says threads = %r" % (threads, js["threads"]))
    rec.update(info)
    rec["problems"] = problems
    lps, secs = as_count(js.get("lps")), js.get("seconds")
    if lps is not None and isinstance(secs, (int, float)) and not isinstance(secs, bool) and secs > 0:
        rec["lps_per_second"] = lps / secs
        rec["lps_per_wall_second"] = lps / rec["wall_seconds"]
    return rec


def tail(s, n=1500):
    if s is None:
        return ""
    if isinstance(s, bytes):
        s = s.decode("utf-8", "replace")
    return s[-n:]


def fmt_num(v):
    return ("%d" % v) if float(v).is_integer() else ("%g" % v)


def f(v, spec="%.1f"):
    return "n/a" if v is None else spec % v


def ratio(a, b):
    return a / b if (a is not None and b) else None


BUSY_CPU_FRACTION = 0.9


def contention_warnings(rows):
    """Single-threaded runs (the reference, reluopt T=1) whose CPU time / wall time was below
    BUSY_CPU_FRACTION: something else was using the CPU while they ran."""
    out = []
    for r in rows:
        tag = "d=%d hidden=%s" % (r["d"], "x".join(map(str, r["hidden"])))
        ref = r["reference"]
        if ref.get("seconds") and ref["cpu_seconds"] / ref["seconds"] < BUSY_CPU_FRACTION:
            out.append("%s reference %.2f" % (tag, ref["cpu_seconds"] / ref["seconds"]))
        ro = r["reluopt"].get("1")
        if ro and ro.get("cpu_seconds") is not None and ro.get("wall_seconds"):
            frac = ro["cpu_seconds"] / ro["wall_seconds"]
            if frac < BUSY_CPU_FRACTION:
                out.append("%s reluopt T=1 %.2f" % (tag, frac))
    return out


def write_outputs(path_md, path_json, meta, rows, args):
    with open(path_json, "w") as fh:
        json.dump(dict(meta=meta, networks=rows), fh, indent=1)

    T = args.threads
    L = []
    L.append("# Sampling throughput: `reluopt solve --method sampling` vs the scipy/HiGHS reference")
    L.append("")
    L.append("Generated by `bench/bench_sampling.py` on %s." % meta["date"])
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
    for k in ("machine", "nproc", "load_average_at_start", "python", "numpy", "scipy", "reluopt",
              "reluopt_sha256", "git_head", "budget", "reference_highs_options"):
        L.append("| %s | %s |" % (k, str(meta.get(k)).replace("|", "\\|")))
    L.append("")
    L.append("Throughput = LPs solved / seconds, each side counting its own solved LPs and its own measured "
             "seconds (reluopt: the JSON's `seconds`; the reference: wall time of its sampling loop). "
             "Ratios are reluopt / reference. Best = the best objective each run found (reluopt's is "
             "re-checked by a numpy forward pass of its x).")
    L.append("")
    hdr = ["d", "hidden", "net seed", "ref LP/s"]
    for t in T:
        hdr += ["reluopt T=%d LP/s" % t, "ratio T=%d" % t]
    hdr += ["ref best"] + ["reluopt T=%d best" % t for t in T] + ["checks"]
    L.append("| " + " | ".join(hdr) + " |")
    L.append("|" + "|".join("---:" if i < len(hdr) - 1 else "---" for i in range(len(hdr))) + "|")
    for r in rows:
        ref = r["reference"]
        cells = [str(r["d"]), "x".join(map(str, r["hidden"])), str(r["net_seed"]), f(ref["lps_per_second"])]
        for t in T:
            ro = r["reluopt"].get(str(t))
            lp = ro.get("lps_per_second") if ro else None
            cells += [f(lp), f(ratio(lp, ref["lps_per_second"]), "%.2fx")]
        cells.append(f(ref["objective"], "%.6f"))
        for t in T:
            ro = r["reluopt"].get(str(t))
            cells.append(f(ro.get("objective") if ro else None, "%.6f"))
        cells.append("**%s**" % r["verdict"] if r["verdict"] != "ok" else "ok")
        L.append("| " + " | ".join(cells) + " |")
    L.append("")
    L.append("## Runs in detail")
    L.append("")
    L.append("| d | hidden | run | samples | LPs | duplicates | LP failures | seconds | wall s | CPU s / wall s | load1 before | objective | status |")
    L.append("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        ref = r["reference"]
        L.append("| %d | %s | reference | %d | %d | %d | %d | %.2f | %.2f | %.2f | %.2f | %s | stopped by %s |" % (
            r["d"], "x".join(map(str, r["hidden"])), ref["samples"], ref["lps"], ref["duplicates"],
            ref["lp_failures"], ref["seconds"], ref["seconds"], ref["cpu_seconds"] / ref["seconds"],
            ref["load1_before"], f(ref["objective"], "%.9g"), ref["stopped_by"]))
        for t in T:
            ro = r["reluopt"].get(str(t))
            if ro is None:
                continue
            if "error" in ro:
                L.append("| %d | %s | reluopt T=%d | | | | | | %s | | %.2f | | **FAILED: %s** |" % (
                    r["d"], "x".join(map(str, r["hidden"])), t, f(ro.get("wall_seconds"), "%.2f"),
                    ro["load1_before"], ro["error"].replace("|", "\\|")))
                continue
            status = str(ro.get("status")) + (", stopped by %s" % ro["stopped_by"] if ro.get("stopped_by") else "")
            L.append("| %d | %s | reluopt T=%d | %s | %s | %s | %s | %s | %.2f | %s | %.2f | %s | %s |" % (
                r["d"], "x".join(map(str, r["hidden"])), t, ro.get("samples"), ro.get("lps"),
                ro.get("duplicate_patterns"), "" if ro.get("lp_failures") is None else ro["lp_failures"],
                f(ro.get("seconds"), "%.2f"), ro["wall_seconds"],
                f(ratio(ro.get("cpu_seconds"), ro["wall_seconds"]), "%.2f"), ro["load1_before"],
                f(ro.get("objective"), "%.9g"), status.replace("|", "\\|")))
    problems = [(r, p) for r in rows for p in r["problems"]]
    L.append("")
    L.append("## Checks")
    L.append("")
    busy = contention_warnings(rows)
    if busy:
        L.append("**CPU contention** (not a failure, but these throughputs are low; rerun on a quiet machine): "
                 "single-threaded runs that got less than %.0f%% of a core: %s." % (100 * BUSY_CPU_FRACTION,
                                                                                    "; ".join(busy)))
        L.append("")
    if problems:
        L.append("**MISMATCHES / FAILURES:**")
        L.append("")
        for r, p in problems:
            L.append("- d=%d hidden=%s: %s" % (r["d"], "x".join(map(str, r["hidden"])), p))
    elif meta["ref_only"]:
        L.append("reluopt was not run (--ref-only).")
    else:
        L.append("All reluopt answers passed: objective finite and >= %.0e, x in [0,1]^d, numpy forward "
                 "value of x within %.0e * max(1, |objective|) of the objective." % (OBJ_FLOOR, FORWARD_RTOL))
    L.append("")
    L.append("## Commands")
    L.append("")
    L.append("```")
    L.append(meta["command"])
    L.append("```")
    L.append("")
    L.append("Per network. `$WORK` was `%s`%s; the netgen command regenerates each model bit for bit; "
             "the reference ran in-process, the CLI line is its equivalent." % (meta["workdir"], " (a temporary directory, deleted)"
                                                     if not meta.get("models_kept") else ""))
    L.append("")
    L.append("```")
    for r in rows:
        L.append("# d=%d hidden=%s" % (r["d"], " ".join(map(str, r["hidden"]))))
        L.append(r["netgen_command"])
        L.append(r["reference_command"])
        for t in T:
            ro = r["reluopt"].get(str(t))
            if ro is not None:
                L.append(" ".join(shlex.quote(c).replace(meta["workdir"], "$WORK") for c in ro["command"]))
    L.append("```")
    L.append("")
    with open(path_md, "w") as fh:
        fh.write("\n".join(L))
    return "\n".join(L)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Sampling LP throughput: reluopt vs the scipy/HiGHS reference.",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--reluopt", default="build/reluopt",
                    help="reluopt binary (relative paths: cwd first, then the repo root); built by `make build`")
    ap.add_argument("--seconds", type=float, default=None,
                    help="time budget per measurement (default 20, --quick 3)")
    ap.add_argument("--samples", type=int, default=1000000, help="sample budget per measurement")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="reluopt --threads values")
    ap.add_argument("--dims", type=int, nargs="+", default=None,
                    help="input dimensions (default 10 100 1000, --quick 10 100)")
    ap.add_argument("--layers", type=int, nargs="+", default=[1, 2], help="numbers of hidden layers")
    ap.add_argument("--width", type=int, default=100, help="hidden layer width")
    ap.add_argument("--seed", type=int, default=1, help="sampling seed (reference and reluopt --seed)")
    ap.add_argument("--net-seed", type=int, default=0,
                    help="base network seed; network (d, L) uses net_seed + 10000*L + d")
    ap.add_argument("--quick", action="store_true", help="smoke test: 3 s budgets, d in {10, 100}")
    ap.add_argument("--ref-only", action="store_true", help="run only the Python reference")
    ap.add_argument("--ref-presolve", action="store_true",
                    help="give the reference scipy's default linprog options (presolve on; 20-50%% slower "
                    "here) instead of options={'presolve': False}")
    ap.add_argument("--out-dir", default=os.path.join(HERE, "results"))
    ap.add_argument("--name", default=None,
                    help="output file stem (default sampling_throughput[_quick][_refonly])")
    ap.add_argument("--keep-models", default=None, help="write the ONNX files and reluopt JSONs here and keep them")
    ap.add_argument("--timeout-slack", type=float, default=120.0,
                    help="reluopt is killed after 3 * seconds + this many seconds")
    args = ap.parse_args(argv)
    if args.seconds is None:
        args.seconds = 3.0 if args.quick else 20.0
    if args.dims is None:
        args.dims = [10, 100] if args.quick else [10, 100, 1000]
    name = args.name or ("sampling_throughput" + ("_quick" if args.quick else "")
                         + ("_refonly" if args.ref_only else ""))
    if args.seconds <= 0 or args.samples <= 0:
        ap.error("--seconds and --samples must be positive")

    binary = None
    if not args.ref_only:
        binary = resolve_binary(args.reluopt)
        if binary is None:
            looked = [args.reluopt] if os.path.isabs(args.reluopt) else \
                list(dict.fromkeys([os.path.abspath(args.reluopt), os.path.join(REPO, args.reluopt)]))
            log("error: reluopt binary not found or not executable: %r (looked at %s).\n"
                "  Build it with `make build` (it produces build/reluopt), or pass --reluopt PATH,\n"
                "  or run with --ref-only to measure the Python reference alone."
                % (args.reluopt, ", ".join(looked)))
            return 2

    os.makedirs(args.out_dir, exist_ok=True)
    if args.keep_models:
        os.makedirs(args.keep_models, exist_ok=True)
        workdir, tmp = os.path.abspath(args.keep_models), None
    else:
        tmp = tempfile.TemporaryDirectory(prefix="bench_sampling_")
        workdir = tmp.name

    highs_options = None if args.ref_presolve else dict(sampling_reference.DEFAULT_HIGHS_OPTIONS)
    meta = dict(
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        machine="%s, %s" % (cpu_model(), platform.platform()),
        nproc=os.cpu_count(),
        load_average_at_start="%.2f %.2f %.2f" % os.getloadavg(),
        python=sys.version.split()[0] + " (" + sys.executable + ")",
        numpy=np.__version__,
        scipy=scipy.__version__ + " (linprog method='highs')",
        reluopt=binary if binary else "not run (--ref-only)",
        reluopt_sha256=sha256(binary)[:16] if binary else None,
        git_head=git_head(),
        budget="%s s or %d samples per measurement, whichever first; sampling seed %d" % (
            fmt_num(args.seconds), args.samples, args.seed),
        reference_highs_options="linprog(method='highs', options=%r)" % (highs_options,) if highs_options
        else "linprog(method='highs'), scipy default options (presolve on)",
        command=" ".join(shlex.quote(c) for c in [sys.executable, os.path.relpath(os.path.abspath(__file__))]
                         + list(sys.argv[1:] if argv is None else argv)),
        ref_only=args.ref_only,
        workdir=workdir,
        models_kept=bool(args.keep_models),
        threads=args.threads,
        forward_rtol=FORWARD_RTOL,
    )
    log("bench_sampling: nproc %s, load %s, budget %s" % (meta["nproc"], meta["load_average_at_start"], meta["budget"]))
    if (os.cpu_count() or 1) < max(args.threads):
        log("warning: %d CPUs but --threads up to %d" % (os.cpu_count(), max(args.threads)))

    rows = []
    failed = False
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
                row = dict(d=d, hidden=hidden, net_seed=net_seed, model=os.path.basename(model),
                           netgen_command="/usr/bin/python3 bench/netgen.py --d %d --hidden %s --seed %d -o $WORK/%s"
                           % (d, " ".join(map(str, hidden)), net_seed, os.path.basename(model)),
                           reference_command=("/usr/bin/python3 bench/sampling_reference.py --model $WORK/%s "
                                              "--samples %d --time-limit %s --seed %d%s"
                                              % (os.path.basename(model), args.samples, fmt_num(args.seconds), args.seed,
                                                 "" if highs_options else " --presolve")),
                           reluopt={}, problems=[])
                log("\n== d=%d hidden=%s (seed %d)" % (d, hidden, net_seed))

                load1 = os.getloadavg()[0]
                c0 = time.process_time()
                ref = sampling_reference.run(layers, args.samples, args.seconds, args.seed,
                                             highs_options=highs_options)
                ref["cpu_seconds"] = time.process_time() - c0
                ref["load1_before"] = load1
                ref.pop("values", None)
                ref.pop("x", None)
                row["reference"] = ref
                log("   reference:   %6d LPs / %6.2f s = %8.1f LP/s  (%d samples, %d duplicates, best %.9g)"
                    % (ref["lps"], ref["seconds"], ref["lps_per_second"] or 0, ref["samples"],
                       ref["duplicates"], ref["objective"]))
                if ref["lp_failures"]:
                    row["problems"].append("reference: %d LPs did not end optimal" % ref["lp_failures"])

                for t in ([] if args.ref_only else args.threads):
                    ro = run_reluopt(binary, model, args, t, workdir, layers)
                    row["reluopt"][str(t)] = ro
                    if "error" in ro:
                        msg = "reluopt T=%d FAILED on d=%d hidden=%s: %s" % (t, d, hidden, ro["error"])
                        if ro.get("stderr_tail"):
                            msg += "\n--- stderr (tail) ---\n" + ro["stderr_tail"]
                        loud(msg)
                        row["problems"].append("reluopt T=%d: %s" % (t, ro["error"]))
                        continue
                    log("   reluopt T=%d: %6s LPs / %6s s = %8s LP/s  (%s samples, %s duplicates, best %s, status %s)"
                        % (t, ro.get("lps"), f(ro.get("seconds"), "%.2f"), f(ro.get("lps_per_second")),
                           ro.get("samples"), ro.get("duplicate_patterns"), f(ro.get("objective"), "%.9g"),
                           ro.get("status")))
                    for p in ro["problems"]:
                        loud("MISMATCH reluopt T=%d d=%d hidden=%s: %s" % (t, d, hidden, p))
                        row["problems"].append("reluopt T=%d: %s" % (t, p))
                    if ro.get("objective") is not None and ref["objective"] is not None \
                            and ro["objective"] < ref["objective"] - 1e-6 * max(1, abs(ref["objective"])):
                        log("   note: reluopt T=%d found a worse objective than the reference "
                            "(%.9g < %.9g); not an error, both are lower bounds" % (t, ro["objective"], ref["objective"]))
                row["verdict"] = "ok" if not row["problems"] else "MISMATCH/FAILED"
                failed = failed or bool(row["problems"])
                rows.append(row)
    except KeyboardInterrupt:
        log("interrupted: writing what was measured so far")
        meta["interrupted"] = True
    finally:
        if tmp is not None:
            tmp.cleanup()

    path_md = os.path.join(args.out_dir, name + ".md")
    path_json = os.path.join(args.out_dir, name + ".json")
    text = write_outputs(path_md, path_json, meta, rows, args)
    print(text)
    log("\nwrote %s and %s" % (path_md, path_json))
    busy = contention_warnings(rows)
    if busy:
        log("\nwarning: CPU contention during %d single-threaded runs (CPU/wall < %.2f): %s"
            % (len(busy), BUSY_CPU_FRACTION, "; ".join(busy)))
    if failed:
        loud("SOME RUNS FAILED OR MISMATCHED: see the Checks section of %s" % path_md)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
