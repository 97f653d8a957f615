#!/usr/bin/python3
"""Train MNIST-shaped ReLU classifiers, 784 -> 256 x L -> 10, on synthetic 28x28 images, for bench/crown_bench.py.

Data (numpy.random.default_rng(seed)): ten class prototypes, each a random 7x7 pattern upscaled to 28x28 (blocks of
4x4 pixels) and smoothed by a 3x3 box filter, values in [0, 1]; a sample is its class's prototype shifted by up to
one pixel each way, plus Gaussian noise of deviation 0.15, clipped to [0, 1]. 6000 training and 1000 test samples.
Model: He-uniform weights, zero biases, Adam (step 1e-3) on the softmax cross-entropy, batches of 128, 4 epochs.
The weights are rounded to float32 (what ONNX stores); the accuracy reported is the float32 file's.

    /usr/bin/python3 bench/train_mnist_shape.py --layers 2 --out /tmp/mnist_l2.onnx
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netgen  # noqa: E402


def make_data(n, rng, prototypes):
    y = rng.integers(0, 10, n)
    X = np.empty((n, 28, 28))
    for i in range(n):
        shift = rng.integers(-1, 2, 2)
        X[i] = np.roll(prototypes[y[i]], tuple(shift), axis=(0, 1))
    X += rng.normal(0.0, 0.15, X.shape)
    return np.clip(X, 0.0, 1.0).reshape(n, 784), y


def prototypes(rng):
    out = []
    for _ in range(10):
        img = np.kron((rng.random((7, 7)) < 0.4).astype(float), np.ones((4, 4)))
        padded = np.pad(img, 1)
        out.append(sum(padded[i:i + 28, j:j + 28] for i in range(3) for j in range(3)) / 9.0)
    return out


def train(layers, seed, epochs=4, batch=128, step=1e-3):
    rng = np.random.default_rng(seed)
    protos = prototypes(rng)
    Xtr, ytr = make_data(6000, rng, protos)
    Xte, yte = make_data(1000, rng, protos)
    sizes = [784] + [256] * layers + [10]
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        params += [rng.uniform(-1, 1, (b, a)) * np.sqrt(6.0 / a), np.zeros(b)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = 0
    for _ in range(epochs):
        order = rng.permutation(len(ytr))
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            grads = gradients(params, Xtr[idx], ytr[idx])
            t += 1
            for i, g in enumerate(grads):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                params[i] -= step * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
    net = [(params[i].astype(np.float32).astype(np.float64), params[i + 1].astype(np.float32).astype(np.float64))
           for i in range(0, len(params), 2)]
    accuracy = float(np.mean(np.argmax(netgen.forward(net, Xte), axis=1) == yte))
    return net, accuracy, Xte, yte


def gradients(params, X, y):
    acts = [X]
    for i in range(0, len(params) - 2, 2):
        acts.append(np.maximum(acts[-1] @ params[i].T + params[i + 1], 0.0))
    logits = acts[-1] @ params[-2].T + params[-1]
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(y)), y] -= 1.0
    delta = p / len(y)
    grads = [None] * len(params)
    for i in range(len(params) - 2, -1, -2):
        grads[i] = delta.T @ acts[i // 2]
        grads[i + 1] = delta.sum(axis=0)
        if i > 0:
            delta = (delta @ params[i]) * (acts[i // 2] > 0)
    return grads


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    net, accuracy, _, _ = train(a.layers, a.seed)
    netgen.write_onnx(net, a.out, producer="reluopt-bench-train_mnist_shape")
    with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
        json.dump(dict(layers=a.layers, seed=a.seed, test_accuracy=accuracy), f)
    print("wrote %s: test accuracy %.4f" % (a.out, accuracy))


if __name__ == "__main__":
    main()
