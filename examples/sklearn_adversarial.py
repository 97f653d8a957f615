"""An adversarial example for a classifier (docs/PYTHON.md): a scikit-learn MLPClassifier learns the 8x8 digits
that scikit-learn ships, and reluopt finds, within a distance eps of a correctly classified image (each pixel
moved by at most eps, in [0, 16]), the image that most favours another class over the true one. A positive
margin is an adversarial example; a proven negative bound certifies that none exists. Runs in seconds.

    python examples/sklearn_adversarial.py
"""
import numpy as np
from sklearn.datasets import load_digits
from sklearn.neural_network import MLPClassifier

import reluopt


def train(seed: int = 0) -> tuple[MLPClassifier, np.ndarray, np.ndarray]:
    digits = load_digits()
    model = MLPClassifier(hidden_layer_sizes=(24,), max_iter=300, random_state=seed)
    model.fit(digits.data[:1200], digits.target[:1200])
    return model, digits.data[1200:], digits.target[1200:]


def attack(model: MLPClassifier, image: np.ndarray, label: int, target: int, eps: float) -> reluopt.Result:
    """Maximize logit[target] - logit[label] over the eps-box around the image (the logits order the classes
    as the predicted probabilities do). The big-M MIP proves the maximum (in milliseconds on this network)."""
    weights = np.zeros(len(model.classes_))
    weights[target], weights[label] = 1.0, -1.0
    return reluopt.solve(model, lower=np.clip(image - eps, 0, 16), upper=np.clip(image + eps, 0, 16),
                         objective=weights, method="mip", time_limit=10.0, threads=1, seed=0)


def main(eps: float = 1.5) -> tuple[int, reluopt.Result]:
    model, images, labels = train()
    print(f"test accuracy {model.score(images, labels):.3f}")
    index = next(i for i in range(len(images)) if model.predict(images[i:i + 1])[0] == labels[i])
    image, label = images[index], int(labels[index])
    results = {t: attack(model, image, label, t, eps) for t in range(10) if t != label}
    target, best = max(results.items(), key=lambda item: item[1].objective)
    print(f"image {index} (a {label}): best target {target}, margin {best.objective:.3f} ({best.status})")
    if best.objective > 0:
        predicted = model.predict(best.x.reshape(1, -1))[0]
        print(f"adversarial example found: the classifier now says {predicted}, "
              f"largest pixel change {np.max(np.abs(best.x - image)):.3f}")
    elif best.status == "optimal":
        print(f"no adversarial example within eps = {eps}: the largest margin is proven negative")
    return label, best


if __name__ == "__main__":
    main()
