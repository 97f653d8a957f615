#!/usr/bin/python3
"""reluopt verify on VGG16-size instances (bench/vgg_models.py): wall time, answer, peak resident memory.

Each run is `reluopt verify NET PROP --time-limit T --json J` under /usr/bin/time -v with RLIMIT_AS capped
(--address-space GB, 6 by default: the machine's memory is shared); the table gives the wall time from the process's
start to its end, the answer and the time verify reports, and the peak RSS.

    bench/vgg_verify.py --reluopt build/reluopt --dir /tmp/vgg16 [--limit 60] [--props vgg16_p1 vgg16_p3 vgg16_p10]
        [--address-space 6]
"""
import argparse
import json
import os
import re
import resource
import subprocess
import time


def run(reluopt, net, prop, limit, gigabytes, workdir):
    out = os.path.join(workdir, os.path.basename(prop) + ".json")
    if os.path.exists(out):
        os.remove(out)
    cap = int(gigabytes * 1e9)

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    start = time.monotonic()
    done = subprocess.run(["/usr/bin/time", "-v", reluopt, "verify", net, prop, "--time-limit", str(limit), "--json", out],
                          capture_output=True, text=True, preexec_fn=limit_memory)
    wall = time.monotonic() - start
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    answer = done.stdout.strip().splitlines()[0] if done.stdout.strip() else "(none)"
    errors = [line for line in done.stderr.splitlines() if line.startswith("reluopt:")]
    reported = json.load(open(out))["seconds"] if os.path.exists(out) else None
    return {"property": os.path.basename(prop), "limit": limit, "wall": wall, "answer": answer,
            "reported": reported, "peak_mb": int(peak.group(1)) / 1024 if peak else None, "exit": done.returncode,
            "messages": errors}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reluopt", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--net", default="vgg16.onnx")
    parser.add_argument("--props", nargs="+", default=["vgg16_p1", "vgg16_p3", "vgg16_p10"])
    parser.add_argument("--limit", type=float, default=60)
    parser.add_argument("--address-space", type=float, default=6)
    args = parser.parse_args()
    print("| property | limit s | wall s | answer | verify's seconds | peak MB | exit | messages |")
    print("|---|---|---|---|---|---|---|---|")
    for p in args.props:
        r = run(args.reluopt, os.path.join(args.dir, args.net), os.path.join(args.dir, p + ".vnnlib"), args.limit,
                args.address_space, args.dir)
        reported = f"{r['reported']:.2f}" if r["reported"] is not None else "-"
        peak = f"{r['peak_mb']:.0f}" if r["peak_mb"] is not None else "-"
        print(f"| {r['property']} | {r['limit']:g} | {r['wall']:.2f} | {r['answer']} | {reported} | {peak} | "
              f"{r['exit']} | {'; '.join(r['messages'])} |", flush=True)


if __name__ == "__main__":
    main()
