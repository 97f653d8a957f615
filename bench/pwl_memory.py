#!/usr/bin/python3
"""Memory and load time of the ONNX reader on residual and convolutional networks, before and after (two builds).

Models (random weights, seeds fixed):
  cifar_resnet3_cC  a 3-block CIFAR-size ResNet (DOUBLE weights, tests/io/make_pwl_fixtures.py's Graph):
                    [1,3,32,32] -> Conv C 3x3 pad 1 -> Relu -> three blocks relu(x + conv(relu(conv(x))))
                    (Conv C 3x3 pad 1) -> Flatten -> Gemm 10, for C = 1, 2, 4 and 16 (16, the usual CIFAR stem,
                    holds 2 x 16 x 1024 = 32768 neurons a layer: a dense 32768 x 32768 layer is 8.6 GB).
  conv32, avgpool28, nn4sys, maxpool28, resnet   bench/deadline_conv.py's models (FLOAT weights; nn4sys the
                    NN4Sys-size 1 -> 6000 -> 6000 -> 1 with a block-diagonal second layer).
Each binary runs `reluopt solve MODEL --method sampling --samples 1 --time-limit T --json F` (reading the model,
then one sample; T = 30 unless --time-limit) under 10 GB of address space (--address-space); the table gives the
`load_seconds` it reports (- when it did not end well, or when reading took all of T), its wall time and its peak
resident memory (wait4's ru_maxrss), and the first line of its error. --verify-models also runs
`reluopt verify MODEL PROP --time-limit T` on those of bench/deadline_conv.py's models (its property), as rows
"MODEL verify". Runs are kept in --runs (a JSON file), so each label can be measured at its own time (`--labels before`
with main's binary first, then `--labels after`); the table is written from every run the file holds.

    /usr/bin/python3 bench/pwl_memory.py --before OLD/reluopt --after build/reluopt [--labels before after]
        [--models cifar_resnet3_c1 cifar_resnet3_c2 maxpool28 ...] [--runs RUNS.json] [--out OUT_FILE]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "io"))
sys.path.insert(0, HERE)
from make_pwl_fixtures import Graph, relu  # noqa: E402

ADDRESS_SPACE = [10 * 1000 ** 3]  # --address-space GB
DEFAULT_MODELS = ["cifar_resnet3_c1", "cifar_resnet3_c2", "cifar_resnet3_c4", "maxpool28", "avgpool28", "conv32",
                  "nn4sys"]


def cifar_resnet3(channels):
    g = Graph([1, 3, 32, 32], 50 + channels)
    stem = g.unary("Relu", g.conv("x", channels), relu)
    for _ in range(3):
        inner = g.unary("Relu", g.conv(stem, channels), relu)
        stem = g.unary("Relu", g.op("Add", [stem, g.conv(inner, channels)], None, g.shapes[stem]), relu)
    return g, g.gemm(g.flatten(stem), 10)


def write_model(name, path):
    if name.startswith("cifar_resnet3_c"):
        g, output = cifar_resnet3(int(name[len("cifar_resnet3_c"):]))
        with open(path, "wb") as f:
            f.write(g.model(output).SerializeToString())
        return
    from deadline_conv import models  # noqa: E402 (numpy and onnx only when needed)
    from conv_models import write_float_model  # noqa: E402
    write_float_model(models()[name]()[0], path)


def verify_property(name, workdir):
    from deadline_conv import models, write_problem  # noqa: E402
    net, eps = models()[name]()
    return write_problem(workdir, name, net, eps)[0]


def cap_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE[0], ADDRESS_SPACE[0]))


def run(binary, model, workdir, time_limit, prop=None):
    """The run's exit, `load_seconds` (solve's JSON), wall seconds, peak resident MB and first error line; with
    `prop`, `verify MODEL PROP` instead (no load time)."""
    out = os.path.join(workdir, "out.json")
    if os.path.exists(out):
        os.remove(out)
    command = [binary, "verify", model, prop] if prop else [binary, "solve", model, "--method", "sampling",
                                                               "--samples", "1"]
    start = time.time()
    proc = subprocess.Popen(command + ["--time-limit", str(time_limit), "--quiet", "--json", out],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=cap_memory)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.time() - start
    error = proc.stderr.read().strip().splitlines()
    code = os.waitstatus_to_exitcode(status)
    load = json.load(open(out)).get("load_seconds") if code == 0 and not prop and os.path.exists(out) else None
    return {"exit": code, "load": load, "wall": wall, "mb": usage.ru_maxrss / 1024.0,
            "error": error[0] if code != 0 and error else "", "loadavg": os.getloadavg()[0]}


def write_table(path, runs, labels, models, args):
    lines = ["| model | file MB | " + " | ".join(f"load s {l} | wall s {l} | peak MB {l}" for l in labels) +
             " | peak ratio | error |", "|---|---|" + "---|" * (3 * len(labels) + 2)]
    for name in models:
        cells, errors, peaks = [], [], []
        for label in labels:
            r = runs.get(f"{name}/{label}")
            if r is None:
                cells.append("- | - | -")
                continue
            cells.append(f"{r['load']:.2f}" if r["load"] is not None else "-")
            cells[-1] += f" | {r['wall']:.1f} | {r['mb']:.0f}"
            peaks.append(r["mb"])
            if r["error"]:
                errors.append(f"{label}: exit {r['exit']}, {r['error'].replace('|', '/')}")
        ratio = f"{peaks[-1] / peaks[0]:.2f}" if len(peaks) == len(labels) == 2 else ""
        size = runs.get(f"{name}/size", 0)
        lines.append(f"| {name} | {size:.2f} | " + " | ".join(cells) + f" | {ratio} | {'; '.join(errors)} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before")
    parser.add_argument("--after", default=os.path.join(HERE, "..", "build", "reluopt"))
    parser.add_argument("--labels", nargs="+", default=["before", "after"], help="which binaries to run now")
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS)
    parser.add_argument("--runs", default="/tmp/reluopt_pwl_memory.json", help="runs kept between invocations")
    parser.add_argument("--out", default="/tmp/reluopt_pwl_memory.md", help="the table (paste it into results)")
    parser.add_argument("--time-limit", type=float, default=30)
    parser.add_argument("--address-space", type=float, default=10, help="GB each run may map")
    parser.add_argument("--verify-models", nargs="*", default=[], help="deadline_conv models also run by verify")
    args = parser.parse_args()
    ADDRESS_SPACE[0] = int(args.address_space * 1000 ** 3)
    binaries = {"before": args.before, "after": args.after}
    runs = json.load(open(args.runs)) if os.path.exists(args.runs) else {}
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.models:
            model = os.path.join(workdir, name + ".onnx")
            write_model(name, model)
            runs[f"{name}/size"] = os.path.getsize(model) / 1e6
            prop = verify_property(name, workdir) if name in args.verify_models else None
            for label in args.labels:
                for key, p in [(name, None)] + ([(name + " verify", prop)] if prop else []):
                    runs[f"{key}/{label}"] = run(binaries[label], model, workdir, args.time_limit, p)
                    runs[f"{key}/size"] = runs[f"{name}/size"]
                    print(key, label, runs[f"{key}/{label}"], flush=True)
                    with open(args.runs, "w") as f:
                        json.dump(runs, f, indent=1)
    rows = [key for name in args.models for key in [name] + ([name + " verify"] if name in args.verify_models else [])]
    write_table(args.out, runs, ["before", "after"], rows, args)


if __name__ == "__main__":
    main()
