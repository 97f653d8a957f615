#!/usr/bin/python3
"""Which local search should Algorithm 2 use by default? Runs `reluopt solve --method enhanced` with each
local search (flip, bnb, paper), a few eps values and free-binary caps, on the same Xavier grid networks
with the same time budget and threads, and tabulates the best objective each reaches (and the work done).
Plain sampling is run alongside as the reference.

    /usr/bin/python3 bench/bench_local_search.py [--budget 20] [--threads 2] [--reluopt build/reluopt]
Writes bench/results/local_search.{md,json}.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import acceptance_common as ac  # noqa: E402
import netgen  # noqa: E402
from bench_sampling import cpu_model, resolve_binary  # noqa: E402

NETWORKS = [(1, 20), (1, 200), (2, 20), (2, 100), (2, 1000)]  # (hidden layers, d)
VARIANTS = [
    ("sampling", ["--method", "sampling"]),
    ("enhanced flip", ["--local-search", "flip"]),
    ("enhanced flip-mip", ["--local-search", "flip-mip"]),
    ("enhanced bnb", ["--local-search", "bnb"]),
    ("enhanced bnb, 200 nodes", ["--local-search", "bnb", "--node-limit", "200"]),
    ("enhanced paper (CBC)", ["--local-search", "paper"]),
    ("enhanced paper, 20 free", ["--local-search", "paper", "--max-free", "20"]),
    ("enhanced flip, eps 1e-9", ["--local-search", "flip", "--eps", "1e-9"]),
    ("enhanced flip, eps 1e-4", ["--local-search", "flip", "--eps", "1e-4"]),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=20.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--net-seed", type=int, default=555)
    ap.add_argument("--reluopt", default=os.path.join(os.path.dirname(HERE), "build", "reluopt"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", "local_search"))
    ap.add_argument("--variants", nargs="+", default=None, help="run only these variants (names as in the table)")
    ap.add_argument("--no-digits", action="store_true", help="leave out the digits classifier")
    args = ap.parse_args()
    variants = [(n, f) for n, f in VARIANTS if args.variants is None or n in args.variants]
    work = tempfile.mkdtemp(prefix="reluopt_ls_")
    binary = os.path.join(work, "reluopt")
    shutil.copy2(resolve_binary(args.reluopt), binary)
    instances = []
    for layers_count, d in NETWORKS:
        seed = args.net_seed + 10000 * layers_count + d
        inst = ac.Instance("%d layer%s, d=%d" % (layers_count, "s" if layers_count > 1 else "", d),
                           netgen.make_network(d, [100] * layers_count, seed), ac.box_domain(d),
                           dict(sense="max", weights=[1.0], constant=0.0))
        inst.meta = {"layers": layers_count, "d": d, "net_seed": seed}
        instances.append(inst)
    if not args.no_digits:
        inst, _ = ac.digits_instance()
        inst.name, inst.meta = "digits classifier (L-inf 0.2)", {"instance": "digits_r0.2_img0"}
        instances.append(inst)
    rows, problems = [], []
    for k, inst in enumerate(instances):
        name_on_disk = inst.name
        inst.name = "inst%d" % k
        inst.write(work)
        inst.name = name_on_disk
        row = dict(inst.meta, network=inst.name, runs={})
        for name, flags in variants:
            out = os.path.join(work, "out.json")
            cmd = [binary, "solve", inst.model_path, "--domain", inst.domain_path, "--objective",
                   inst.objective_path, "--method", "enhanced", "--samples", "1000000000", "--time-limit",
                   str(args.budget), "--threads", str(args.threads), "--seed", str(args.seed), "--json", out,
                   "--quiet"] + flags
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.budget * 3 + 60)
            if proc.returncode != 0:
                problems.append("%s on %s: exit %d %s" % (name, inst.name, proc.returncode, proc.stderr))
                continue
            with open(out) as fh:
                js = json.load(fh)
            problems += ["%s on %s: %s" % (name, inst.name, p) for p in ac.check_result(inst, js)]
            row["runs"][name] = {k: js.get(k) for k in ("objective", "samples", "lps", "local_searches", "mips",
                                                        "seconds")}
            print("%-32s %-22s %.6f  samples %d  searches %d  local MIPs %d" % (
                inst.name, name, js["objective"], js["samples"], js["local_searches"], js["mips"]), flush=True)
        rows.append(row)
    meta = {"date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), "machine": cpu_model(),
            "nproc": os.cpu_count(), "load_at_end": os.getloadavg(), "budget_seconds": args.budget,
            "threads": args.threads, "python": platform.python_version()}
    with open(args.out + ".json", "w") as fh:
        json.dump({"meta": meta, "rows": rows, "problems": problems}, fh, indent=1)
    names = [n for n, _ in variants]
    lines = ["# Local search of the enhanced algorithm: which default?", "",
             "Generated by `bench/bench_local_search.py` on %s (%s, %d cores, load at end %.1f). Each cell: best "
             "objective after %g s with %d threads (Xavier networks, hidden layers of 100, [0,1]^d, maximize the "
             "output; the digits classifier of acceptance_enhanced.py (c), certified optimum 16.813517); "
             "best of each row in bold. Below each value: samples / local searches / local MIPs (neighbourhoods)."
             % (meta["date"], meta["machine"], meta["nproc"], meta["load_at_end"][0], args.budget, args.threads), "",
             "| network | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for row in rows:
        values = [row["runs"].get(n, {}).get("objective") for n in names]
        best = max((v for v in values if v is not None), default=None)
        cells = []
        for n, v in zip(names, values):
            r = row["runs"].get(n)
            if r is None:
                cells.append("ERR")
                continue
            text = "%.4f" % v
            cells.append(("**%s**" % text if best is not None and v >= best - 1e-9 else text) + "<br>%d / %d / %d" % (
                r["samples"], r["local_searches"], r["mips"]))
        lines.append("| %s | %s |" % (row["network"], " | ".join(cells)))
    if problems:
        lines += ["", "## Problems", ""] + ["- " + p for p in problems]
    with open(args.out + ".md", "w") as fh:
        fh.write("\n".join(lines) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
