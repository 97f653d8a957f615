#!/usr/bin/python3
"""The deep network of issue 11 ("Deep networks"): a 5 -> 50 x 6 -> 5 ReLU regression network trained with
numpy alone, and 20 boxes to maximise its outputs over.

    /usr/bin/python3 bench/deep_networks.py            # writes the two files below (about 1 min)
    /usr/bin/python3 bench/deep_networks.py --check    # regenerates into a temporary directory and compares sha256

Outputs (both committed; running the script again reproduces them bit for bit, on the same numpy and BLAS):
  bench/models/deep_5x6x50.onnx   the network, written by netgen.write_onnx (ONNX opset 13, Gemm transB=1 + Relu,
                                  input "x" of shape [1, 5], output "y" of shape [1, 5], float32 weights; producer
                                  name "reluopt-bench-deep-networks")
  bench/models/deep_boxes.json    [{"name": "deep_box_00", "domain": {"lower": [...], "upper": [...]},
                                    "objective": {"sense": "max", "weights": [one-hot], "constant": 0}}, ...],
                                  one box a line

The target function, over x in [-1, 1]^5 (smooth, outputs within about [-2, 2]):
  y0 = sin(pi x0) cos(pi x1 / 2) + 0.2 x4
  y1 = x0 x1 + x2 x3 - 0.5 x4^2
  y2 = cos(pi (x0 + x2) / 2) - 0.5 x1^2 + 0.3 sin(2 x3)
  y3 = tanh(2 x1 - x3 + x4) (1 + 0.5 x0)
  y4 = exp(-(x0^2 + x1^2 + x2^2)) - exp(-((x3 - 0.5)^2 + (x4 + 0.5)^2))

Data: numpy.random.default_rng(SEED = 11), x ~ U[-1, 1]^5, 6000 training and 1000 test points (drawn in that
order), targets as above, no noise.

Network: 5 -> 50 -> 50 -> 50 -> 50 -> 50 -> 50 -> 5, ReLU after each of the six hidden layers, linear output.
Initialisation (same generator, after the data, layer by layer W then b): W ~ N(0, 2 / fan_in) (He), b = 0.01.
Training in float64: mean squared error over the 5 outputs, Adam (beta1 0.9, beta2 0.999, eps 1e-8), minibatches
of 64 from a permutation of the training set drawn each epoch by the same generator, 300 epochs, learning rate
2e-3 for 150 epochs then a cosine decay to 1e-5 at the last epoch. The weights are then rounded to float32 (what
the ONNX file stores) and every error below is of the rounded network (netgen.forward in float64).

Fit of the committed model (printed at the end of a run): training RMSE 0.0142, test RMSE 0.0243 (the targets'
std is 0.59), per output test RMSE 0.0299 0.0232 0.0243 0.0227 0.0205, test R^2 0.9982; about 50 s of training
on one core. sha256: deep_5x6x50.onnx 2d7a64a10a635736..., deep_boxes.json fa2dff67b100a423...

Boxes: numpy.random.default_rng(BOX_SEED = 1111). Box i (i = 0..19): k ~ uniform on {1, 2, 3}, then k distinct
inputs (random choice without replacement) range over all of [-1, 1]; every other input ranges over a width
w ~ U(0.01, 0.10) of the range (2 w in absolute terms) at a uniformly random position inside [-1, 1] (lower ~
U(-1, 1 - 2 w)); the bounds are rounded to 6 decimals. The objective maximises output i mod 5 (one-hot weights,
constant 0). Draw order per box: k, the k wide inputs, then for each input 0..4 not wide, w then lower.
"""
import argparse
import hashlib
import json
import math
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netgen  # noqa: E402

SEED = 11
BOX_SEED = 1111
D, WIDTH, DEPTH, M = 5, 50, 6, 5
N_TRAIN, N_TEST = 6000, 1000
EPOCHS, BATCH = 300, 64
LR, LR_MIN, FLAT_EPOCHS = 2e-3, 1e-5, 150
N_BOXES = 20
MODEL_NAME = "deep_5x6x50.onnx"
BOXES_NAME = "deep_boxes.json"
PRODUCER = "reluopt-bench-deep-networks"


def target(X):
    x0, x1, x2, x3, x4 = (X[:, i] for i in range(5))
    pi = math.pi
    return np.stack([
        np.sin(pi * x0) * np.cos(pi * x1 / 2) + 0.2 * x4,
        x0 * x1 + x2 * x3 - 0.5 * x4 ** 2,
        np.cos(pi * (x0 + x2) / 2) - 0.5 * x1 ** 2 + 0.3 * np.sin(2 * x3),
        np.tanh(2 * x1 - x3 + x4) * (1 + 0.5 * x0),
        np.exp(-(x0 ** 2 + x1 ** 2 + x2 ** 2)) - np.exp(-((x3 - 0.5) ** 2 + (x4 + 0.5) ** 2)),
    ], axis=1)


def lr_at(epoch):
    if epoch < FLAT_EPOCHS:
        return LR
    t = (epoch - FLAT_EPOCHS) / max(1, EPOCHS - 1 - FLAT_EPOCHS)
    return LR_MIN + 0.5 * (LR - LR_MIN) * (1 + math.cos(math.pi * t))


def train(verbose=True):
    """Returns (layers as float32 values in float64 arrays, fit statistics)."""
    rng = np.random.default_rng(SEED)
    Xtr = rng.uniform(-1, 1, size=(N_TRAIN, D))
    Xte = rng.uniform(-1, 1, size=(N_TEST, D))
    Ytr, Yte = target(Xtr), target(Xte)
    dims = [D] + [WIDTH] * DEPTH + [M]
    params = []
    for fi, fo in zip(dims[:-1], dims[1:]):
        W = rng.normal(0.0, math.sqrt(2.0 / fi), size=(fo, fi))
        b = np.full(fo, 0.01)
        params += [W, b]
    mom = [np.zeros_like(p) for p in params]
    vel = [np.zeros_like(p) for p in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    nl = len(dims) - 1
    step = 0
    t0 = time.perf_counter()
    for epoch in range(EPOCHS):
        lr = lr_at(epoch)
        perm = rng.permutation(N_TRAIN)
        for s in range(0, N_TRAIN, BATCH):
            idx = perm[s:s + BATCH]
            X, Y = Xtr[idx], Ytr[idx]
            acts = [X]
            a = X
            for k in range(nl):
                z = a @ params[2 * k].T + params[2 * k + 1]
                a = np.maximum(z, 0.0) if k < nl - 1 else z
                acts.append(a)
            g = 2.0 * (a - Y) / (X.shape[0] * M)
            grads = [None] * len(params)
            for k in range(nl - 1, -1, -1):
                grads[2 * k] = g.T @ acts[k]
                grads[2 * k + 1] = g.sum(axis=0)
                if k > 0:
                    g = (g @ params[2 * k]) * (acts[k] > 0)
            step += 1
            c1, c2 = 1 - b1 ** step, 1 - b2 ** step
            for p, gr, mo, ve in zip(params, grads, mom, vel):
                mo *= b1
                mo += (1 - b1) * gr
                ve *= b2
                ve += (1 - b2) * gr * gr
                p -= lr * (mo / c1) / (np.sqrt(ve / c2) + eps)
        if verbose and (epoch % 25 == 0 or epoch == EPOCHS - 1):
            layers = [(params[2 * k], params[2 * k + 1]) for k in range(nl)]
            rmse = math.sqrt(np.mean((netgen.forward(layers, Xte) - Yte) ** 2))
            print("epoch %3d  lr %.2e  test RMSE %.5f  (%.1f s)" % (epoch, lr, rmse, time.perf_counter() - t0),
                  file=sys.stderr, flush=True)
    layers = [(params[2 * k].astype(np.float32).astype(np.float64),
               params[2 * k + 1].astype(np.float32).astype(np.float64)) for k in range(nl)]
    ptr, pte = netgen.forward(layers, Xtr), netgen.forward(layers, Xte)
    stats = dict(
        train_rmse=float(math.sqrt(np.mean((ptr - Ytr) ** 2))),
        test_rmse=float(math.sqrt(np.mean((pte - Yte) ** 2))),
        test_rmse_per_output=[float(v) for v in np.sqrt(np.mean((pte - Yte) ** 2, axis=0))],
        target_std=float(np.std(Yte)),
        test_r2=float(1 - np.sum((pte - Yte) ** 2) / np.sum((Yte - Yte.mean(axis=0)) ** 2)),
        seconds=time.perf_counter() - t0)
    return layers, stats


def make_boxes():
    rng = np.random.default_rng(BOX_SEED)
    boxes = []
    for i in range(N_BOXES):
        k = int(rng.integers(1, 4))
        wide = set(int(j) for j in rng.choice(D, size=k, replace=False))
        lo, hi = [], []
        for j in range(D):
            if j in wide:
                lo.append(-1.0)
                hi.append(1.0)
            else:
                w = 2.0 * rng.uniform(0.01, 0.10)
                l = rng.uniform(-1.0, 1.0 - w)
                lo.append(round(float(l), 6))
                hi.append(round(min(1.0, float(l + w)), 6))
        weights = [0.0] * M
        weights[i % M] = 1.0
        boxes.append({"name": "deep_box_%02d" % i, "domain": {"lower": lo, "upper": hi},
                      "objective": {"sense": "max", "weights": weights, "constant": 0}})
    return boxes


def write_all(outdir, verbose=True):
    os.makedirs(outdir, exist_ok=True)
    layers, stats = train(verbose)
    mpath = os.path.join(outdir, MODEL_NAME)
    netgen.write_onnx(layers, mpath, producer=PRODUCER)
    back = netgen.load_onnx(mpath)
    assert all(np.array_equal(W, W2) and np.array_equal(b, b2) for (W, b), (W2, b2) in zip(layers, back))
    bpath = os.path.join(outdir, BOXES_NAME)
    with open(bpath, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(b) for b in make_boxes()) + "\n]\n")   # one box a line
    return mpath, bpath, stats


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", default=os.path.join(HERE, "models"), help="where to write the two files")
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary directory and compare sha256 with the files in --out-dir")
    a = ap.parse_args(argv)
    if a.check:
        with tempfile.TemporaryDirectory(prefix="deep_networks_") as tmp:
            paths = write_all(tmp)[:2]
            bad = 0
            for p in paths:
                mine, theirs = sha(p), sha(os.path.join(a.out_dir, os.path.basename(p)))
                print("%s  regenerated %s  committed %s  %s" % (os.path.basename(p), mine[:16], theirs[:16],
                                                                  "same" if mine == theirs else "DIFFERENT"))
                bad += mine != theirs
        return 1 if bad else 0
    mpath, bpath, st = write_all(a.out_dir)
    print("wrote %s (%s) sha256 %s" % (mpath, netgen.describe(netgen.load_onnx(mpath)), sha(mpath)))
    print("wrote %s sha256 %s" % (bpath, sha(bpath)))
    print("training RMSE %.4f, test RMSE %.4f (targets' std %.2f); per output test RMSE %s; test R^2 %.4f; %.1f s"
          % (st["train_rmse"], st["test_rmse"], st["target_std"],
             " ".join("%.4f" % v for v in st["test_rmse_per_output"]), st["test_r2"], st["seconds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
