#!/usr/bin/python3
"""Train the small ReLU image classifier of bench/acceptance_enhanced.py part (c) and export it to
ONNX: bench/models/digits_mlp.onnx (+ digits_mlp.json with its accuracy and the data split).

Data: sklearn's bundled digits set (sklearn.datasets.load_digits: 1797 images of 8x8 pixels with
values 0..16), pixels scaled to [0,1] by dividing by 16, split 75/25 into train/test with
train_test_split(random_state=0, stratify=y).
Model: sklearn.neural_network.MLPClassifier(hidden_layer_sizes=(32, 32), activation="relu",
solver="adam", alpha=1e-3, max_iter=600, random_state=0): 64 -> 64 -> 64 -> 10, ReLU hidden layers,
the 10 logits (before softmax) are the network's outputs.
The weights are rounded to float32 (what ONNX stores); the accuracy reported is the one of the
float32-rounded network evaluated in float64 by netgen.forward, i.e. of the file.

Needs python3-sklearn (Debian: apt-get install -y python3-sklearn).

    /usr/bin/python3 bench/train_digits.py            # writes bench/models/digits_mlp.{onnx,json}
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netgen  # noqa: E402

SEED = 0


def load_data():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    X, y = load_digits(return_X_y=True)
    X = X.astype(np.float64) / 16.0
    return train_test_split(X, y, test_size=0.25, random_state=SEED, stratify=y)


def train(hidden=(64, 64), seed=SEED):
    from sklearn.neural_network import MLPClassifier
    Xtr, Xte, ytr, yte = load_data()
    clf = MLPClassifier(hidden_layer_sizes=tuple(hidden), activation="relu", solver="adam", alpha=1e-3,
                        max_iter=600, random_state=seed)
    clf.fit(Xtr, ytr)
    # sklearn stores coefs_ as (in, out); netgen's layout is (out, in). Round to float32.
    layers = [(np.asarray(W.T, dtype=np.float32).astype(np.float64), np.asarray(b, dtype=np.float32).astype(np.float64))
              for W, b in zip(clf.coefs_, clf.intercepts_)]
    acc_tr = float(np.mean(np.argmax(netgen.forward(layers, Xtr), axis=1) == ytr))
    acc_te = float(np.mean(np.argmax(netgen.forward(layers, Xte), axis=1) == yte))
    return layers, dict(train_accuracy=acc_tr, test_accuracy=acc_te,
                        sklearn_test_accuracy=float(clf.score(Xte, yte)), n_train=int(len(ytr)),
                        n_test=int(len(yte)), iterations=int(clf.n_iter_), classes=[int(c) for c in clf.classes_])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hidden", type=int, nargs="+", default=[64, 64])
    ap.add_argument("--out", default=os.path.join(HERE, "models", "digits_mlp.onnx"))
    a = ap.parse_args(argv)
    import sklearn
    layers, info = train(a.hidden)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    netgen.write_onnx(layers, a.out, producer="reluopt-bench-train_digits")
    back = netgen.load_onnx(a.out)
    assert all(np.array_equal(W, W2) and np.array_equal(b, b2) for (W, b), (W2, b2) in zip(layers, back))
    info.update(model=os.path.basename(a.out), architecture=netgen.describe(layers), seed=SEED,
                sklearn=sklearn.__version__, numpy=np.__version__,
                data="sklearn.datasets.load_digits, X/16, train_test_split(test_size=0.25, random_state=0, stratify=y)",
                command="/usr/bin/python3 bench/train_digits.py" + ("" if list(a.hidden) == [64, 64] else
                                                                    " --hidden " + " ".join(map(str, a.hidden))))
    with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
        json.dump(info, f, indent=1)
    print("wrote %s: %s, train accuracy %.4f, test accuracy %.4f (%d iterations)"
          % (a.out, info["architecture"], info["train_accuracy"], info["test_accuracy"], info["iterations"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
