#!/usr/bin/python3
"""Train the small "trained" networks of the acceptance benchmarks on synthetic data and export them
to ONNX under bench/models/ (committed, so the certified optima in bench/results/certified_small.json
stay valid whatever sklearn version a later run has).

    name      task            d  hidden      data (numpy default_rng(seed), inputs uniform on [0,1]^d)
    reg2      regression      2  50 50       y = sin(6 x1) cos(4 x2) + 0.5 x1 x2 + N(0, 0.05^2), 2000 points
    reg4      regression      4  32 32 32    y = sin(2 pi x1) x2 + (x3 - 0.5)^2 - cos(3 x4) + N(0, 0.05^2), 3000
    cls5      classification  5  64 32       3 classes: argmax of 3 random quadratic scores, 3000 points;
                                             the outputs are the 3 logits (before softmax)
    reg8      regression      8  100         Friedman #1 on the first 5 inputs (10 sin(pi x1 x2) +
                                             20 (x3 - 0.5)^2 + 10 x4 + 5 x5), 3 inputs are noise, 3000

sklearn.neural_network.MLPRegressor / MLPClassifier(activation="relu", solver="adam", alpha=1e-4,
max_iter=800, random_state=seed); weights rounded to float32 (netgen.write_onnx writes them exactly).

    /usr/bin/python3 bench/train_small_models.py            # (re)writes bench/models/{reg2,reg4,cls5,reg8}.onnx
"""
import argparse
import json
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netgen  # noqa: E402

MODELS_DIR = os.path.join(HERE, "models")


def _data(name, seed):
    rng = np.random.default_rng(seed)
    if name == "reg2":
        X = rng.random((2000, 2))
        y = np.sin(6 * X[:, 0]) * np.cos(4 * X[:, 1]) + 0.5 * X[:, 0] * X[:, 1]
    elif name == "reg4":
        X = rng.random((3000, 4))
        y = np.sin(2 * np.pi * X[:, 0]) * X[:, 1] + (X[:, 2] - 0.5) ** 2 - np.cos(3 * X[:, 3])
    elif name == "cls5":
        X = rng.random((3000, 5))
        Q = rng.normal(size=(3, 5, 5))
        q = rng.normal(size=(3, 5))
        Xc = X - 0.5
        scores = np.stack([np.einsum("ni,ij,nj->n", Xc, Q[k], Xc) + Xc @ q[k] for k in range(3)], axis=1)
        return X, np.argmax(scores, axis=1)
    elif name == "reg8":
        X = rng.random((3000, 8))
        y = (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2 + 10 * X[:, 3] + 5 * X[:, 4]) / 10.0
    else:
        raise ValueError(name)
    return X, y + rng.normal(0.0, 0.05, size=y.shape)


SPECS = {"reg2": (2, (50, 50), 11), "reg4": (4, (32, 32, 32), 12), "cls5": (5, (64, 32), 13), "reg8": (8, (100,), 14)}


def train(name):
    from sklearn.neural_network import MLPClassifier, MLPRegressor
    d, hidden, seed = SPECS[name]
    X, y = _data(name, seed)
    n_tr = int(0.8 * len(X))
    kw = dict(hidden_layer_sizes=hidden, activation="relu", solver="adam", alpha=1e-4, max_iter=800, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name.startswith("cls"):
            est = MLPClassifier(**kw).fit(X[:n_tr], y[:n_tr])
        else:
            est = MLPRegressor(**kw).fit(X[:n_tr], y[:n_tr])
    layers = [(np.asarray(W.T, dtype=np.float32).astype(np.float64), np.asarray(b, dtype=np.float32).astype(np.float64))
              for W, b in zip(est.coefs_, est.intercepts_)]
    out = netgen.forward(layers, X[n_tr:])
    if name.startswith("cls"):
        score = dict(test_accuracy=float(np.mean(np.argmax(out, axis=1) == y[n_tr:])))
    else:
        r = y[n_tr:] - out[:, 0]
        score = dict(test_r2=float(1.0 - np.mean(r ** 2) / np.var(y[n_tr:])))
    return layers, dict(name=name, d=d, hidden=list(hidden), seed=seed, iterations=int(est.n_iter_), **score)


def path_of(name):
    return os.path.join(MODELS_DIR, name + ".onnx")


def ensure(name, retrain=False):
    """The layers of a trained model: read from bench/models/NAME.onnx, trained and written there
    first if missing (or retrain)."""
    p = path_of(name)
    if retrain or not os.path.exists(p):
        layers, info = train(name)
        os.makedirs(MODELS_DIR, exist_ok=True)
        netgen.write_onnx(layers, p, producer="reluopt-bench-train_small_models")
        info_path = os.path.join(MODELS_DIR, "small_models.json")
        allinfo = {}
        if os.path.exists(info_path):
            with open(info_path) as f:
                allinfo = json.load(f)
        try:
            import sklearn
            info["sklearn"] = sklearn.__version__
        except ImportError:
            pass
        allinfo[name] = info
        with open(info_path, "w") as f:
            json.dump(allinfo, f, indent=1)
        print("trained %s: %s" % (p, info), file=sys.stderr)
    return netgen.load_onnx(p)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", default=sorted(SPECS))
    a = ap.parse_args(argv)
    for n in a.names:
        layers = ensure(n, retrain=True)
        print("%s: %s" % (path_of(n), netgen.describe(layers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
