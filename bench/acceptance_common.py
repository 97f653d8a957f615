#!/usr/bin/python3
"""Shared pieces of the acceptance benchmarks (acceptance_mip.py, acceptance_enhanced.py,
anytime_profiles.py): running a private copy of reluopt, checking every answer against the network,
instance definitions (networks, domains, objectives), the cache of certified optima, and the
machine/version record.

Checks on every reluopt result (check_result):
  * the objective equals g(x) = c^T y(x) + c_0 by a numpy forward pass (netgen.forward) within
    1e-6 * max(1, |objective|);
  * x lies in the domain (box and A x <= b) within 1e-7;
  * a bound, when there is one, is on the right side of the objective and of every known feasible
    value (>= for max, <= for min) within 1e-6 * max(1, |value|).
A failed check is a violation: printed between rows of '!' and makes the scripts exit with status 1.
"""
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
RESULTS = os.path.join(HERE, "results")
MODELS = os.path.join(HERE, "models")
sys.path.insert(0, HERE)
import netgen  # noqa: E402
import highs_mip  # noqa: E402
from bench_sampling import cpu_model, fmt_num, git_head, log, loud, resolve_binary, sha256, tail  # noqa: E402,F401

FORWARD_RTOL = 1e-6
DOMAIN_TOL = 1e-7
BOUND_TOL = 1e-6
OPT_RTOL = 1e-4          # "equal to the certified value": |v - cert| <= OPT_RTOL * max(1, |cert|)
HUGE_SAMPLES = 10 ** 12  # so that the time limit ends sampling / enhanced runs


def num(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return float(v)


def close(v, ref, rtol=OPT_RTOL):
    return v is not None and ref is not None and abs(v - ref) <= rtol * max(1.0, abs(ref))


# --------------------------------------------------------------------------------------------- instances

class Instance:
    """A network with a domain and an objective, written to files for reluopt.
    layers: [(W, b)]; domain: dict(lower, upper[, A, b]); objective: dict(sense, weights, constant)."""

    def __init__(self, name, layers, domain, objective, desc="", meta=None):
        self.name = name
        self.layers = layers
        self.domain = domain
        self.objective = objective
        self.desc = desc
        self.meta = meta or {}
        d = layers[0][0].shape[1]
        self.lo, self.hi, self.A, self.b = highs_mip.domain_arrays(domain, d)
        self.model_path = self.domain_path = self.objective_path = None

    @property
    def d(self):
        return self.layers[0][0].shape[1]

    @property
    def sense(self):
        return self.objective.get("sense", "max")

    @property
    def sgn(self):
        return 1.0 if self.sense == "max" else -1.0

    def rows(self):
        return 0 if self.A is None else self.A.shape[0]

    def arch(self):
        return netgen.describe(self.layers)

    def fingerprint(self):
        """sha256 prefix of the weights, the domain and the objective: a cached certificate is
        reused only for the very same instance."""
        h = hashlib.sha256()
        for W, b in self.layers:
            h.update(np.ascontiguousarray(W, dtype=np.float64).tobytes())
            h.update(np.ascontiguousarray(b, dtype=np.float64).tobytes())
        for arr in (self.lo, self.hi, self.A, self.b):
            h.update(b"none" if arr is None else np.ascontiguousarray(arr, dtype=np.float64).tobytes())
        h.update(json.dumps(self.objective, sort_keys=True).encode())
        return h.hexdigest()[:16]

    def write(self, workdir, write_model=True):
        """Write MODEL.onnx (unless model_path is already set), domain and objective JSONs."""
        if self.model_path is None or write_model and not os.path.exists(self.model_path):
            self.model_path = os.path.join(workdir, self.name + ".onnx")
            netgen.write_onnx(self.layers, self.model_path)
        self.domain_path = os.path.join(workdir, self.name + "_domain.json")
        with open(self.domain_path, "w") as f:
            json.dump(self.domain, f)
        self.objective_path = os.path.join(workdir, self.name + "_objective.json")
        with open(self.objective_path, "w") as f:
            json.dump(self.objective, f)
        return self

    def value(self, x):
        return highs_mip.objective_value(self.layers, self.objective["weights"],
                                         self.objective.get("constant", 0.0), x)

    def domain_desc(self):
        box = "[0,1]^%d" % self.d if (np.all(self.lo == 0) and np.all(self.hi == 1)) else "box"
        return box if self.A is None else "%s + %d rows" % (box, self.A.shape[0])

    def highs(self, bounds="lp", time_limit=60.0, **kw):
        return highs_mip.solve(self.layers, self.lo, self.hi, self.A, self.b,
                               weights=self.objective["weights"], constant=self.objective.get("constant", 0.0),
                               sense=self.sense, bounds=bounds, time_limit=time_limit, **kw)


def max_output_objective(m=1):
    return dict(sense="max", weights=[1.0] + [0.0] * (m - 1), constant=0.0)


def polyhedral_domain(d, rows, seed, lo=0.0, hi=1.0):
    """The box [lo,hi]^d cut by `rows` random half-spaces a^T x <= b that keep the centre c strictly
    inside: a ~ N(0, I), and the face sits at a distance U(0.3, 0.8) times the box's extent
    from c along a (the box reaches 0.5 (hi-lo) |a|_1 / |a|_2 from c in that direction), so every
    row cuts off a real part of the box."""
    rng = np.random.default_rng(seed)
    c = np.full(d, 0.5 * (lo + hi))
    A = rng.normal(size=(rows, d))
    reach = 0.5 * (hi - lo) * np.abs(A).sum(axis=1) / np.linalg.norm(A, axis=1)
    dist = rng.uniform(0.3, 0.8, size=rows) * reach
    b = A @ c + dist * np.linalg.norm(A, axis=1)
    return dict(lower=[float(lo)] * d, upper=[float(hi)] * d, A=A.tolist(), b=b.tolist())


def box_domain(d, lo=0.0, hi=1.0):
    return highs_mip.box_domain(d, lo, hi)


# --------------------------------------------------------------------------------------------- certified cache

class CertCache:
    """bench/results/certified_<name>.json: {instance name: {fingerprint, status, objective, bound, x,
    seconds, ...}}. An entry is reused only when the fingerprint matches."""

    def __init__(self, path):
        self.path = path
        self.data = {}
        if os.path.exists(path):
            with open(path) as f:
                self.data = json.load(f)

    def get(self, inst):
        e = self.data.get(inst.name)
        if e and e.get("fingerprint") == inst.fingerprint():
            return e
        return None

    def put(self, inst, entry):
        entry = dict(entry)
        entry["fingerprint"] = inst.fingerprint()
        self.data[inst.name] = entry
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=1)
        os.replace(tmp, self.path)


def certify(inst, cache, time_limit, bounds="lp", force=False, log_prefix=""):
    """The certified optimum of inst by highs_mip (cached). Returns the cache entry; status
    'optimal' means certified. A cached entry that did not certify is retried only when the new
    time limit is larger (or force)."""
    e = cache.get(inst)
    if e and not force and (e["status"] == "optimal" or e.get("time_limit", 0) >= time_limit):
        e = dict(e)
        e["cached"] = True
        return e
    log("%scertifying %s (%s, %s, %s) with HiGHS, time limit %s s ..."
        % (log_prefix, inst.name, inst.arch(), inst.domain_desc(), inst.sense, fmt_num(time_limit)))
    load1 = os.getloadavg()[0]
    c0 = time.process_time()
    r = inst.highs(bounds=bounds, time_limit=time_limit, bounds_time_limit=time_limit)
    cpu = time.process_time() - c0
    entry = dict(status=r["status"], objective=r.get("objective"), objective_solver=r.get("objective_solver"),
                 bound=r.get("bound"), gap=r.get("gap"), x=r.get("x"), nodes=r.get("nodes"),
                 seconds=r["seconds"], bounds_seconds=r["bounds_seconds"], cpu_seconds=cpu, binaries=r["binaries"],
                 bounds=bounds, time_limit=time_limit, load1_before=load1, mip_rel_gap=r["mip_rel_gap"],
                 domain_violation=r.get("domain_violation"), scipy=scipy.__version__,
                 date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
                 arch=inst.arch(), domain=inst.domain_desc(), sense=inst.sense)
    # the certificate must be self-consistent: x feasible, its value within the proven bound
    if entry["status"] == "optimal":
        if not close(entry["objective"], entry["bound"], 1e-5):
            entry["status"] = "inconsistent"
            entry["note"] = "HiGHS said optimal but forward(x) = %r vs bound %r" % (entry["objective"], entry["bound"])
        elif (entry.get("domain_violation") or 0.0) > DOMAIN_TOL:
            entry["status"] = "inconsistent"
            entry["note"] = "HiGHS's x leaves the domain by %g" % entry["domain_violation"]
    cache.put(inst, entry)
    log("%s  -> %s objective %s bound %s, %s binaries, %s nodes, %.1f s (load %.1f)"
        % (log_prefix, entry["status"], entry["objective"], entry["bound"], entry["binaries"], entry["nodes"],
           entry["seconds"], load1))
    return entry


# --------------------------------------------------------------------------------------------- reluopt

class Reluopt:
    """A private copy of the reluopt binary (others rebuild build/reluopt while we run)."""

    def __init__(self, path, workdir):
        src = resolve_binary(path)
        if src is None:
            raise FileNotFoundError(path)
        self.source = src
        self.path = os.path.join(workdir, "reluopt")
        shutil.copy2(src, self.path)
        self.sha = sha256(self.path)[:16]
        try:
            self.version = subprocess.run([self.path, "--version"], capture_output=True, text=True,
                                          timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            self.version = "unknown"
        self.workdir = workdir
        self.counter = 0

    def solve(self, inst, flags, time_limit, threads=2, seed=1, tag="run", timeout_slack=120.0):
        """reluopt solve MODEL --domain D --objective O FLAGS --time-limit S --threads T --seed K
        --json OUT --quiet. Returns a record (command, wall/cpu seconds, load, result or error)."""
        self.counter += 1
        out = os.path.join(self.workdir, "%s_%s_%d.json" % (inst.name, tag, self.counter))
        cmd = [self.path, "solve", inst.model_path, "--domain", inst.domain_path, "--objective",
               inst.objective_path] + list(flags) + ["--time-limit", fmt_num(time_limit), "--threads", str(threads),
                                                     "--seed", str(seed), "--json", out, "--quiet"]
        rec = dict(instance=inst.name, tag=tag, flags=list(flags), time_limit=time_limit, threads=threads, seed=seed,
                   command=self.display(cmd), load1_before=os.getloadavg()[0])
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=3 * time_limit + timeout_slack)
        except subprocess.TimeoutExpired as e:
            rec.update(wall_seconds=time.perf_counter() - t0, error="killed after %.0f s (timeout)"
                       % (3 * time_limit + timeout_slack), stderr_tail=tail(e.stderr))
            return rec
        rec["wall_seconds"] = time.perf_counter() - t0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        rec["cpu_seconds"] = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        rec["exit_code"] = p.returncode
        if p.returncode != 0:
            err = (p.stderr or "").strip().splitlines()
            rec["error"] = "exit code %d%s" % (p.returncode, (": " + err[-1]) if err else "")
            rec["stderr_tail"] = tail(p.stderr)
            return rec
        try:
            with open(out) as f:
                rec["result"] = json.load(f)
        except (OSError, ValueError) as e:
            rec["error"] = "no readable JSON: %s" % e
        return rec

    def display(self, cmd):
        s = " ".join(shlex.quote(c) for c in cmd)
        return s.replace(self.path, "reluopt").replace(self.workdir + "/", "$WORK/")


def check_result(inst, res, known=None):
    """Checks of one reluopt result JSON against the instance. known: best feasible value known on
    the instance (any method, any solver), in the instance's sense. Returns a list of violations."""
    v = []
    status = res.get("status")
    obj, bound = num(res.get("objective")), num(res.get("bound"))
    if res.get("objective") is not None and obj is None:
        v.append("objective is not a finite number: %r" % (res.get("objective"),))
    if status in ("optimal", "feasible") and obj is None:
        v.append("status %s without an objective" % status)
    if status == "no_solution" and res.get("objective") is not None:
        v.append("status no_solution with objective %r" % (res.get("objective"),))
    if obj is not None:
        x = res.get("x")
        try:
            x = np.asarray(x, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            x = None
        if x is None or x.size != inst.d or not np.all(np.isfinite(x)):
            v.append("x missing, not finite, or not of length d = %d" % inst.d)
        else:
            viol = highs_mip.domain_violation(x, inst.lo, inst.hi, inst.A, inst.b)
            if viol > DOMAIN_TOL:
                v.append("x leaves the domain by %.3g > %.0e" % (viol, DOMAIN_TOL))
            fwd = inst.value(x)
            if abs(fwd - obj) > FORWARD_RTOL * max(1.0, abs(obj)):
                v.append("objective %.12g but the forward value of x is %.12g (rel err %.3g > %.0e)"
                         % (obj, fwd, abs(fwd - obj) / max(1.0, abs(obj)), FORWARD_RTOL))
    if status == "optimal" and bound is None:
        v.append("status optimal without a finite bound")
    s = inst.sgn
    if bound is not None:
        for what, val in (("its own objective", obj), ("the best known feasible value", known)):
            if val is not None and s * (val - bound) > BOUND_TOL * max(1.0, abs(val)):
                v.append("bound %.12g is %s %s %.12g (by %.3g)" % (bound, "below" if s > 0 else "above", what, val,
                                                                   abs(val - bound)))
    return v


def better(inst, a, b):
    """The better of two values in the instance's sense (None-aware)."""
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b) if inst.sgn > 0 else min(a, b)


# --------------------------------------------------------------------------------------------- meta

def versions():
    out = dict(python=sys.version.split()[0] + " (" + sys.executable + ")", numpy=np.__version__,
               scipy=scipy.__version__ + " (HiGHS via scipy.optimize.milp / linprog)")
    try:
        import sklearn
        out["sklearn"] = sklearn.__version__
    except ImportError:
        out["sklearn"] = "not installed"
    return out


def make_meta(script, argv, reluopt=None):
    meta = dict(
        script=script,
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
        machine="%s, %s" % (cpu_model(), platform.platform()),
        nproc=os.cpu_count(),
        load_average_at_start="%.2f %.2f %.2f" % os.getloadavg(),
        git_head=git_head(),
        command=" ".join(shlex.quote(c) for c in ["/usr/bin/python3", "bench/" + script] + list(argv)),
    )
    meta.update(versions())
    if reluopt is not None:
        meta.update(reluopt=reluopt.source, reluopt_version=reluopt.version, reluopt_sha256=reluopt.sha)
    return meta


def meta_table(meta, keys=None):
    keys = keys or [k for k in meta]
    L = ["| | |", "|---|---|"]
    for k in keys:
        if k in meta:
            L.append("| %s | %s |" % (k, str(meta[k]).replace("|", "\\|")))
    return L


def fmt(v, spec="%.6f"):
    v2 = num(v)
    if v2 is None:
        return "n/a" if v is None else str(v)
    return spec % v2


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))
    os.replace(tmp, path)


def strip_x(res):
    return {k: v for k, v in (res or {}).items() if k != "x"}


def run_to_the_end(steps, state, save, tmp, paths, judged=True):
    """Run the benchmark's `steps` in order; on Ctrl-C keep what was measured. Then write the final files, drop
    the temporary directory and return the exit code: 1 for a check violation (a wrong answer), 3 for an
    unmet acceptance criterion (when `judged`) or an interrupted run, else 0."""
    try:
        for step in steps:
            step()
    except KeyboardInterrupt:
        log("interrupted: writing what was measured")
        state["interrupted"] = True
    finally:
        save(final=not state.get("interrupted"))
        if tmp is not None:
            tmp.cleanup()
    log("\nwrote %s and %s" % paths)
    if state["violations"]:
        loud("CHECK VIOLATIONS:\n" + "\n".join(state["violations"]))
        return 1
    if judged and state["failures"]:
        log("\nacceptance NOT met:\n  " + "\n  ".join(state["failures"]))
        return 3
    if state.get("interrupted"):
        return 3
    if judged:
        log("\nall accepted")
    return 0


def make_workdir(keep=None, prefix="acceptance_"):
    if keep:
        os.makedirs(keep, exist_ok=True)
        return os.path.abspath(keep), None
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    return tmp.name, tmp


# --------------------------------------------------------------------------------------------- the small certified set

# Small instances with an optimum that HiGHS certifies (bench/results/certified_small.json caches it).
# (name, kind, d or model, hidden, seed, domain rows (0: box [0,1]^d), sense, objective weights or None)
# Xavier networks: netgen.make_network(d, hidden, seed), one output. Trained: bench/models/NAME.onnx
# (bench/train_small_models.py). Polyhedral domains: polyhedral_domain(d, rows, seed + 1).
SMALL_SPECS = [
    ("x_d2_1x100_box", "xavier", 2, [100], 4201, 0, "max", None),
    ("x_d5_2x50_box", "xavier", 5, [50, 50], 4202, 0, "max", None),
    ("x_d10_1x100_box", "xavier", 10, [100], 4203, 0, "max", None),
    ("x_d3_3x20_poly", "xavier", 3, [20, 20, 20], 4204, 4, "max", None),
    ("x_d8_2x30_poly_min", "xavier", 8, [30, 30], 4205, 6, "min", None),
    ("x_d4_1x100_poly_min", "xavier", 4, [100], 4206, 3, "min", None),
    ("x_d6_2x40_box", "xavier", 6, [40, 40], 4207, 0, "max", None),
    ("x_d2_3x25_box", "xavier", 2, [25, 25, 25], 4208, 0, "max", None),
    ("t_reg2_box", "trained", "reg2", None, 4209, 0, "max", None),
    ("t_reg4_poly_min", "trained", "reg4", None, 4210, 4, "min", None),
    ("t_cls5_box_logit", "trained", "cls5", None, 4211, 0, "max", [-1.0, 1.0, 0.0]),
    ("t_reg8_poly", "trained", "reg8", None, 4212, 5, "max", None),
]


def make_small_instance(spec):
    name, kind, dm, hidden, seed, rows, sense, weights = spec
    if kind == "xavier":
        layers = netgen.make_network(dm, hidden, seed)
        model_path, desc = None, "Xavier seed %d" % seed
    else:
        import train_small_models
        layers = train_small_models.ensure(dm)
        model_path, desc = train_small_models.path_of(dm), "trained %s (bench/models/%s.onnx)" % (dm, dm)
    d, m = layers[0][0].shape[1], layers[-1][0].shape[0]
    dom = polyhedral_domain(d, rows, seed + 1) if rows else box_domain(d)
    obj = dict(sense=sense, weights=list(weights) if weights else [1.0] + [0.0] * (m - 1), constant=0.0)
    inst = Instance(name, layers, dom, obj, desc=desc, meta=dict(kind=kind, seed=seed))
    inst.model_path = model_path
    return inst


def small_instances(names=None):
    return [make_small_instance(s) for s in SMALL_SPECS if names is None or s[0] in names]


def method_flags(name, warm=False, samples=None):
    """reluopt solve flags of a method name: sampling, enhanced, mip, mip-cuts, partitionN."""
    if name.startswith("partition"):
        flags = ["--method", "partition", "--partitions", name[len("partition"):] or "2"]
    elif name in ("sampling", "enhanced"):
        flags = ["--method", name, "--samples", str(samples or HUGE_SAMPLES)]
    else:
        flags = ["--method", name]
    if warm:
        flags += ["--warm-start", "sampling"]
    return flags


# --------------------------------------------------------------------------------------------- the digits classifier

def digits_instance(radius=0.2, image=0):
    """The classifier instance of acceptance_enhanced.py (c): bench/models/digits_mlp.onnx
    (bench/train_digits.py, trained first if missing); x0 = the image-th correctly classified test image,
    t its class, s the runner-up class at x0; domain = the L-inf ball of `radius` around x0 cut to
    [0,1]^64; maximise logit_s - logit_t. Returns (Instance, info dict)."""
    import train_digits
    path = os.path.join(MODELS, "digits_mlp.onnx")
    if not os.path.exists(path):
        train_digits.main(["--out", path])
    layers = netgen.load_onnx(path)
    Xtr, Xte, ytr, yte = train_digits.load_data()
    logits = netgen.forward(layers, Xte)
    pred = np.argmax(logits, axis=1)
    acc = float(np.mean(pred == yte))
    correct = np.nonzero(pred == yte)[0]
    idx = int(correct[image])
    x0, t = Xte[idx], int(yte[idx])
    order = np.argsort(-logits[idx])
    s = int(order[1])
    w = [0.0] * 10
    w[s], w[t] = 1.0, -1.0
    lo, hi = np.maximum(0.0, x0 - radius), np.minimum(1.0, x0 + radius)
    inst = Instance("digits_r%g_img%d" % (radius, idx), layers, dict(lower=lo.tolist(), upper=hi.tolist()),
                    dict(sense="max", weights=w, constant=0.0),
                    desc="digits test image %d (class %d), target class %d, radius %g" % (idx, t, s, radius))
    inst.model_path = path
    info = dict(test_index=idx, true_class=t, target_class=s, radius=radius, test_accuracy=acc,
                train_accuracy=float(np.mean(np.argmax(netgen.forward(layers, Xtr), axis=1) == ytr)),
                logit_gap_at_x0=float(logits[idx, s] - logits[idx, t]), model="bench/models/digits_mlp.onnx")
    return inst, info


