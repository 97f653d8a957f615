#!/usr/bin/python3
"""Benchmark of `reluopt verify` on generated VNN-LIB properties with answers decided independently.

Sets (every network from the repository: bench/models, examples/):
  below_t   "output 0 stays below t" over [0,1]^d, t 2% of max(1, |M|) below and above the maximum M
  argmax    "the centre's class stays maximal" on boxes of radius r around points (the unsafe set:
            some other output >= the class's output), and on the first boxes of bench/models/deep_boxes.json
  conv      the argmax property on a small convolutional network (8x8 image, two Conv layers): no HiGHS
            answer ("?"), the sats re-checked with verify_check.py's own Conv
  union     the argmax property on a union of two boxes
The expected answer comes from HiGHS (bench/highs_mip.py, independent of reluopt) on the linear pieces of the
property: sat when one of its points satisfies a piece by the numpy forward pass, unsat when every piece's
bound is below 0, "?" when HiGHS is undecided within its limit; for below_t, from the maximum M that HiGHS
proved optimal (an instance whose M it does not prove is left out). Every sat of reluopt is re-checked by
bench/verify_check.py (numpy forward pass of the ONNX file, own VNN-LIB evaluator). A wrong answer: a sat that
fails the check, a sat where HiGHS proves unsat, an unsat where HiGHS found a violation.

    /usr/bin/python3 bench/verify_bench.py [--time-limit 10] [--binary build/reluopt]

Writes bench/results/verify.md and verify.json. About 5-8 minutes on 2 cores.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import highs_mip  # noqa: E402
import netgen  # noqa: E402
import verify_check  # noqa: E402

SEED = 20261127


def vnnlib_text(boxes, m, disjuncts):
    """boxes: [(lo, hi)]; disjuncts: [[(weights, constant)]] meaning weights . y + constant >= 0 for all in one."""
    d = len(boxes[0][0])
    lines = [f"(declare-const X_{i} Real)" for i in range(d)] + [f"(declare-const Y_{j} Real)" for j in range(m)]
    box_terms = ["(and " + " ".join(f"(>= X_{i} {lo[i]!r}) (<= X_{i} {hi[i]!r})" for i in range(d)) + ")"
                 for lo, hi in boxes]
    lines.append(box_terms[0].replace("(and ", "(assert (and ", 1) + ")" if len(boxes) == 1
                 else "(assert (or " + " ".join(box_terms) + "))")

    def linear(w, c):
        parts = [f"(* {wj!r} Y_{j})" for j, wj in enumerate(w) if wj != 0.0]
        return "(+ " + " ".join(parts) + f" {c!r})"

    conj = ["(and " + " ".join(f"(>= {linear(w, c)} 0.0)" for w, c in terms) + ")" for terms in disjuncts]
    lines.append("(assert (or " + " ".join(conj) + "))")
    return "\n".join(lines) + "\n"


def highs_answer(layers, boxes, disjuncts, time_limit):
    """sat / unsat / ? for: some x in a box with w . y + c >= 0 for every term of one disjunct. HiGHS handles one
    linear term at a time, so only disjuncts of one term are decided exactly (all generated properties are)."""
    undecided = False
    for lo, hi in boxes:
        for terms in disjuncts:
            assert len(terms) == 1
            w, c = terms[0]
            r = highs_mip.solve(layers, np.array(lo), np.array(hi), weights=list(w), constant=c, sense="max",
                                bounds="interval", time_limit=time_limit)
            if r.get("x") is not None and r["objective"] >= 0.0:
                return "sat", r["objective"]
            if r.get("bound") is None or r["bound"] >= 0.0:
                undecided = True
    return ("?" if undecided else "unsat"), None


def argmax_property(layers, centre, radius, lo_clip, hi_clip):
    y = netgen.forward(layers, centre)
    c = int(np.argmax(y))
    m = y.size
    disjuncts = []
    for j in range(m):
        if j != c:
            w = np.zeros(m)
            w[j], w[c] = 1.0, -1.0
            disjuncts.append([(w.tolist(), 0.0)])
    lo = np.maximum(centre - radius, lo_clip).tolist()
    hi = np.minimum(centre + radius, hi_clip).tolist()
    return (lo, hi), disjuncts


def conv_model(path):
    """[1,1,8,8] -> Sub/Div -> Conv 4 3x3 -> ReLU -> Conv 8 3x3 stride 2 -> ReLU -> Flatten -> Gemm 10, random
    weights from a fixed seed (tests/io/make_conv_fixtures.py's Net), FLOAT weights as exporters write them."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "io"))
    from make_conv_fixtures import Net
    from conv_models import write_float_model
    net = Net([1, 1, 8, 8], SEED)
    mean, std = np.full((1, 1, 1, 1), 0.1307), np.full((1, 1, 1, 1), 0.3081)
    net.node("Sub", [net.const(mean)], lambda x: x - mean, net.shape)
    net.node("Div", [net.const(std)], lambda x: x / std, net.shape)
    net.conv(4, (3, 3)).relu().conv(8, (3, 3), strides=(2, 2)).relu().flatten().gemm(10)
    write_float_model(net, path)


def instances(time_highs, tmp):
    rng = np.random.default_rng(SEED)
    models = {name: os.path.join(ROOT, path) for name, path in [
        ("reg2", "bench/models/reg2.onnx"), ("reg4", "bench/models/reg4.onnx"), ("reg8", "bench/models/reg8.onnx"),
        ("cls5", "bench/models/cls5.onnx"), ("xavier_10_50_50", "examples/xavier_10_50_50.onnx"),
        ("digits", "bench/models/digits_mlp.onnx"), ("deep_5x6x50", "bench/models/deep_5x6x50.onnx")]}
    for name in ["reg2", "reg4", "reg8", "cls5", "xavier_10_50_50", "digits"]:
        layers = netgen.load_onnx(models[name])
        d, m = layers[0][0].shape[1], layers[-1][0].shape[0]
        w = [1.0] + [0.0] * (m - 1)
        r = highs_mip.solve(layers, np.zeros(d), np.ones(d), weights=w, sense="max", bounds="lp", time_limit=60)
        box = (np.zeros(d).tolist(), np.ones(d).tolist())
        if r.get("status") == "optimal":
            big = r["objective"]
            cases = [("sat", big - 0.02 * max(1.0, abs(big))), ("unsat", big + 0.02 * max(1.0, abs(big)))]
        else:  # thresholds around the best point HiGHS found; the answers from highs_answer
            best = r["objective"] if r.get("objective") is not None else 0.0
            cases = [(None, best - 0.1), (None, best + 0.02), (None, best + 2.0)]
        for side, t in cases:
            yield "below_t", f"{name} t={t:.4g}", models[name], [box], m, [[(w, -t)]], side
    for name, count, radii in [("cls5", 4, [0.02, 0.1]), ("digits", 3, [0.01, 0.03]), ("xavier_10_50_50", 0, [])]:
        layers = netgen.load_onnx(models[name])
        d = layers[0][0].shape[1]
        for k in range(count):
            centre = rng.uniform(0.0, 1.0, d)
            for radius in radii:
                box, disjuncts = argmax_property(layers, centre, radius, 0.0, 1.0)
                yield "argmax", f"{name} point {k} r={radius}", models[name], [box], layers[-1][0].shape[0], disjuncts, None
    # The first test image of the digits set (tests/fixtures/digits: its r = 0.1 box, clipped to [0,1]).
    layers = netgen.load_onnx(models["digits"])
    image = json.load(open(os.path.join(ROOT, "tests/fixtures/digits/domain_r0.1_img0.json")))
    lo, hi = np.array(image["lower"]), np.array(image["upper"])
    centre = np.round(np.where(hi >= 1.0, lo + 0.1, hi - 0.1) * 16) / 16
    for radius in [0.01, 0.02, 0.024, 0.026, 0.03]:
        box, disjuncts = argmax_property(layers, centre, radius, 0.0, 1.0)
        yield "argmax", f"digits image 0 r={radius}", models["digits"], [box], 10, disjuncts, None
    layers = netgen.load_onnx(models["deep_5x6x50"])
    for spec in json.load(open(os.path.join(ROOT, "bench/models/deep_boxes.json")))[:4]:
        lo, hi = np.array(spec["domain"]["lower"]), np.array(spec["domain"]["upper"])
        centre = 0.5 * (lo + hi)
        box, disjuncts = argmax_property(layers, centre, 0.5 * (hi - lo), lo, hi)
        yield "argmax", f"deep_5x6x50 {spec['name']}", models["deep_5x6x50"], [box], 5, disjuncts, None
    conv = os.path.join(tmp, "conv_8x8.onnx")
    conv_model(conv)
    for k in range(3):
        centre = rng.uniform(0.0, 1.0, 64)
        y = verify_check.forward(onnx.load(conv), centre, np.float64)
        c = int(np.argmax(y))
        disjuncts = [[([1.0 if i == j else -1.0 if i == c else 0.0 for i in range(10)], 0.0)] for j in range(10) if j != c]
        for radius in [0.001, 0.005, 0.05]:
            box = (np.maximum(centre - radius, 0.0).tolist(), np.minimum(centre + radius, 1.0).tolist())
            yield "conv", f"conv 8x8 point {k} r={radius}", conv, [box], 10, disjuncts, "?"
    layers = netgen.load_onnx(models["cls5"])
    for k in range(4):
        a, b = rng.uniform(0.0, 1.0, 5), rng.uniform(0.0, 1.0, 5)
        radius = 0.08 if k < 2 else 0.01
        (box_a, dis), (box_b, _) = argmax_property(layers, a, radius, 0.0, 1.0), argmax_property(layers, b, radius, 0.0, 1.0)
        yield "union", f"cls5 two boxes {k} r={radius}", models["cls5"], [box_a, box_b], 3, dis, None


def run_reluopt(binary, model, prop, result_file, time_limit):
    start = time.perf_counter()
    out = subprocess.run([binary, "verify", model, prop, "--time-limit", str(time_limit), "--threads", "2",
                          "--result-file", result_file, "--quiet"], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"reluopt verify failed on {prop}: {out.stderr.strip()}")
    return out.stdout.split("\n", 1)[0].strip(), seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--highs-time", type=float, default=10.0)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build/reluopt"))
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (kind, label, model, boxes, m, disjuncts, side) in enumerate(instances(args.highs_time, tmp)):
            prop = os.path.join(tmp, f"p{n}.vnnlib")
            open(prop, "w").write(vnnlib_text(boxes, m, disjuncts))
            # below_t: HiGHS proved the maximum M optimal, and t is 2% away from it.
            expected = side or highs_answer(netgen.load_onnx(model), boxes, disjuncts, args.highs_time)[0]
            result_file = os.path.join(tmp, f"r{n}.txt")
            status, seconds = run_reluopt(args.binary, model, prop, result_file, args.time_limit)
            checked, check_text = verify_check.check(model, prop, result_file)
            wrong = (not checked) or (status == "sat" and expected == "unsat") or (status == "unsat" and expected == "sat")
            rows.append(dict(set=kind, instance=label, expected=expected, designed=side, status=status,
                             seconds=round(seconds, 3), check=check_text, wrong=wrong))
            print(f"{kind:8s} {label:36s} expected {expected:5s} reluopt {status:8s} {seconds:6.2f} s  {check_text}"
                  + ("  WRONG" if wrong else ""), flush=True)
    write_results(rows, args)


def write_results(rows, args):
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    json.dump(rows, open(os.path.join(HERE, "results/verify.json"), "w"), indent=1)
    sets = sorted(set(r["set"] for r in rows), key=[r["set"] for r in rows].index)
    lines = ["# reluopt verify on generated properties (bench/verify_bench.py)", "",
             f"`reluopt verify --time-limit {args.time_limit:g} --threads 2`; expected answers from HiGHS "
             f"(bench/highs_mip.py, {args.highs_time:g} s per linear piece); every sat re-checked by "
             "bench/verify_check.py (numpy forward pass of the ONNX file in float64, own VNN-LIB evaluator).", "",
             "| set | instances | sat | unsat | unknown | timeout | wrong | decided | HiGHS decided | median s | max s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in sets + ["all"]:
        rs = [r for r in rows if s == "all" or r["set"] == s]
        count = lambda st: sum(r["status"] == st for r in rs)  # noqa: E731
        times = [r["seconds"] for r in rs]
        lines.append(f"| {s} | {len(rs)} | {count('sat')} | {count('unsat')} | {count('unknown')} | {count('timeout')} "
                     f"| {sum(r['wrong'] for r in rs)} | {count('sat') + count('unsat')} / {len(rs)} "
                     f"| {sum(r['expected'] != '?' for r in rs)} / {len(rs)} | {np.median(times):.2f} | {max(times):.2f} |")
    lines += ["", "| set | instance | HiGHS | reluopt | s | check |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['set']} | {r['instance']} | {r['expected']} | {r['status']}{' WRONG' if r['wrong'] else ''} "
              f"| {r['seconds']:.2f} | {r['check']} |" for r in rows]
    open(os.path.join(HERE, "results/verify.md"), "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
