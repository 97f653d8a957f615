#!/usr/bin/python3
"""reluopt verify on properties with many output constraints: time and peak memory as the property grows.

    /usr/bin/python3 bench/verify_big_property.py [--binary build/reluopt] [--out bench/results/verify_big_property.md]
                                                  [--time-limit 5] [--sizes 1000,10000,50000,300000]

The network is tests/fixtures/vnnlib/cls5.onnx (5 inputs in [0, 1], 64 and 32 ReLUs, 3 outputs; its output 1
ranges over about [-24, 31] on the box). Every property bounds the 5 inputs to [0, 1] and then asserts N output
constraints of one kind:

  identical       N copies of (assert (>= Y_1 30))                                  (sat: Y_1 reaches 30.7)
  same-direction  (assert (>= Y_1 c_i)), c_i = 30 - 10 i / N: one direction, N distinct constants (sat)
  random-conj     (assert (<= (+ (* a_i0 Y_0) (* a_i1 Y_1) (* a_i2 Y_2)) c_i)), a_i ~ N(0, 1), c_i = a_i^T y_c + 1
                  + U(0, 1) with y_c the outputs at the box's centre: N distinct directions in one conjunction
                  (sat at the centre)
  random-or       one (assert (or ...)) of N terms (>= a_i^T Y a_i^T y_c + 30 |a_i|): N distinct directions as a
                  disjunction of single-constraint terms, the shape of an image classifier's robustness property

identical runs at every size given; the other kinds at the sizes up to 10000. Each run is
`reluopt verify MODEL PROP --time-limit T --json F` under /usr/bin/time -v; the table gives the answer, the wall
time, the peak resident memory, and what folding left (constraints, disjuncts, runs) from the JSON report.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(REPO, "tests", "fixtures", "vnnlib", "cls5.onnx")
CENTRE_OUTPUTS = np.array([-2.56255752, -2.78599256, -2.0742997])  # cls5 at x = (0.5, ..., 0.5)


def header():
    text = "".join(f"(declare-const X_{i} Real)\n" for i in range(5))
    text += "".join(f"(declare-const Y_{j} Real)\n" for j in range(3))
    return text + "".join(f"(assert (>= X_{i} 0.0))\n(assert (<= X_{i} 1.0))\n" for i in range(5))


def linear(a):
    return "(+ " + " ".join(f"(* {a[j]:.9g} Y_{j})" for j in range(3)) + ")"


def property_text(kind, n, rng):
    if kind == "identical":
        return header() + "(assert (>= Y_1 30))\n" * n
    if kind == "same-direction":
        return header() + "".join(f"(assert (>= Y_1 {30 - 10 * i / n:.9g}))\n" for i in range(n))
    a = rng.normal(size=(n, 3))
    if kind == "random-conj":
        c = a @ CENTRE_OUTPUTS + 1 + rng.random(n)
        return header() + "".join(f"(assert (<= {linear(a[i])} {c[i]:.9g}))\n" for i in range(n))
    c = a @ CENTRE_OUTPUTS + 30 * np.linalg.norm(a, axis=1)
    terms = "\n  ".join(f"(>= {linear(a[i])} {c[i]:.9g})" for i in range(n))
    return header() + f"(assert (or {terms}))\n"


def run(binary, prop, time_limit, doc):
    proc = subprocess.run(["/usr/bin/time", "-v", binary, "verify", MODEL, prop, "--time-limit", str(time_limit),
                           "--json", doc, "--quiet"], capture_output=True, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", proc.stderr).group(1)
    seconds = sum(float(part) * 60 ** k for k, part in enumerate(reversed(wall.split(":"))))
    rss_mb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1)) / 1024
    if proc.returncode != 0:
        error = [line for line in proc.stderr.splitlines() if "reluopt" in line][:1]
        return "error: " + (error[0] if error else f"exit {proc.returncode}"), seconds, rss_mb, ""
    report = json.load(open(doc))
    folded = report["cases"][0].get("folded", {}) if report["cases"] else {}
    left = (f"{folded.get('constraints', '?')} / {folded.get('disjuncts', '?')} / {folded.get('runs', '?')}"
            if folded else "")
    return proc.stdout.splitlines()[0], seconds, rss_mb, left


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(REPO, "build", "reluopt"))
    parser.add_argument("--out", default=os.path.join(REPO, "bench", "results", "verify_big_property.md"))
    parser.add_argument("--time-limit", type=float, default=5.0)
    parser.add_argument("--sizes", default="1000,10000,50000,300000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="reluopt_big_property_") as tmp:
        for kind in ("identical", "same-direction", "random-conj", "random-or"):
            for n in sizes:
                if kind != "identical" and n > 10000:
                    continue
                prop, doc = os.path.join(tmp, f"{kind}_{n}.vnnlib"), os.path.join(tmp, f"{kind}_{n}.json")
                with open(prop, "w") as f:
                    f.write(property_text(kind, n, np.random.default_rng(n)))
                answer, seconds, rss_mb, left = run(args.binary, prop, args.time_limit, doc)
                size_kb = os.path.getsize(prop) / 1024
                rows.append(f"| {n} | {kind} | {size_kb:.0f} | {answer} | {seconds:.2f} | {rss_mb:.0f} | {left} |")
                print(rows[-1], flush=True)
    table = ["| asserts | kind | file KB | answer | wall s | peak RSS MB | left: constraints / disjuncts / runs |",
             "|---|---|---|---|---|---|---|"] + rows
    with open(args.out, "w") as f:
        f.write("\n".join(table) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    sys.exit(main())
