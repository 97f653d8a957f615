"""Every kind of model gives the optimum the command line finds on the same network (and brute force on a small
one)."""
import itertools

import numpy as np
import pytest

import reluopt
from conftest import FIXTURES, forward, import_torch, onnx_model, run_cli, xavier_layers

LOWER, UPPER = [-1.0, 0.0, -0.5, 0.0], [1.0, 1.0, 0.5, 2.0]
DOMAIN = {"lower": LOWER, "upper": UPPER}
WEIGHTS = [1.0, -0.5]


def cli_optimum(tmp_path, model, method="mip"):
    _, out, _ = run_cli(tmp_path, model, ["--method", method, "--threads", "1", "--seed", "3"], DOMAIN,
                        {"weights": WEIGHTS, "sense": "max"})
    return out


def check_against_cli(result, cli, layers):
    assert result.status == cli["status"] == "optimal"
    assert result.objective == pytest.approx(cli["objective"], rel=1e-9, abs=1e-9)
    # Every reported objective is a double-precision forward pass at x.
    assert result.objective == pytest.approx(np.dot(WEIGHTS, forward(layers, result.x)), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(result.outputs, forward(layers, result.x), rtol=1e-12, atol=1e-12)


def solve(model):
    return reluopt.solve(model, lower=LOWER, upper=UPPER, objective=WEIGHTS, method="mip", threads=1, seed=3)


def test_path(tmp_path, net, net_onnx):
    check_against_cli(solve(net_onnx), cli_optimum(tmp_path, net_onnx), net)
    check_against_cli(solve(str(net_onnx)), cli_optimum(tmp_path, net_onnx), net)


def test_onnx_model_proto(tmp_path, net, net_onnx):
    check_against_cli(solve(onnx_model(net)), cli_optimum(tmp_path, net_onnx), net)


def test_list_of_arrays(tmp_path, net, net_onnx):
    check_against_cli(solve(net), cli_optimum(tmp_path, net_onnx), net)
    check_against_cli(solve([(w.tolist(), b.tolist()) for w, b in net]), cli_optimum(tmp_path, net_onnx), net)


def test_torch_sequential(tmp_path, net, net_onnx):
    torch = import_torch()
    modules = []
    for k, (w, b) in enumerate(net):
        linear = torch.nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(w))
            linear.bias.copy_(torch.from_numpy(b))
        modules += [linear] + ([torch.nn.ReLU()] if k + 1 < len(net) else [])
    model = torch.nn.Sequential(torch.nn.Flatten(), *modules)
    result = solve(model)
    check_against_cli(result, cli_optimum(tmp_path, net_onnx), net)
    with torch.no_grad():
        y = model(torch.tensor(result.x, dtype=torch.float32).reshape(1, -1)).numpy().ravel()
    np.testing.assert_allclose(result.outputs, y, rtol=1e-5, atol=1e-5)


def sklearn_mlp(kind, net):
    sk = pytest.importorskip("sklearn.neural_network")
    model = getattr(sk, kind)(hidden_layer_sizes=(12, 12), max_iter=1)
    model.coefs_ = [w.T.copy() for w, _ in net]
    model.intercepts_ = [b.copy() for _, b in net]
    model.n_layers_, model.activation = 4, "relu"
    return model


@pytest.mark.parametrize("kind", ["MLPRegressor", "MLPClassifier"])
def test_sklearn_mlp(tmp_path, net, net_onnx, kind):
    check_against_cli(solve(sklearn_mlp(kind, net)), cli_optimum(tmp_path, net_onnx), net)


def test_sklearn_regressor_fitted_predicts_outputs():
    sk = pytest.importorskip("sklearn.neural_network")
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 3))
    y = np.sin(X).sum(axis=1)
    model = sk.MLPRegressor(hidden_layer_sizes=(8,), max_iter=200, random_state=0).fit(X, y)
    result = reluopt.solve(model, lower=[-1] * 3, upper=[1] * 3, method="mip", threads=1)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(model.predict(result.x.reshape(1, -1))[0], rel=1e-9, abs=1e-9)


def test_nnet_path_uses_its_input_bounds(tmp_path):
    path = FIXTURES / "nnet" / "small.nnet"
    result = reluopt.solve(path, method="mip", threads=1)
    _, cli, _ = run_cli(tmp_path, path, ["--method", "mip", "--threads", "1"])
    assert result.status == cli["status"] == "optimal"
    assert result.objective == pytest.approx(cli["objective"], rel=1e-9)
    assert result.domain == cli["domain"].replace("--domain", "lower/upper")


def test_same_sampling_run_as_cli(tmp_path, net, net_onnx):
    """Algorithm 2 with a fixed seed, sample count and thread count is deterministic: the same point."""
    _, cli, _ = run_cli(tmp_path, net_onnx, ["--samples", "60", "--threads", "1", "--seed", "11"], DOMAIN,
                        {"weights": WEIGHTS})
    result = reluopt.solve(net, lower=LOWER, upper=UPPER, objective=WEIGHTS, samples=60, threads=1, seed=11)
    assert result.objective == cli["objective"]
    assert result.x.tolist() == cli["x"]


def brute_force_max(layers, lower, upper):
    """The maximum of output 0 of a 2-input, one-hidden-layer network: at a vertex of the arrangement of the
    neurons' lines and the box's edges."""
    (w1, b1), _ = layers
    lines = [(row, -c) for row, c in zip(w1, b1)]
    lines += [(np.array([1.0, 0.0]), lo) for lo in (lower[0], upper[0])]
    lines += [(np.array([0.0, 1.0]), lo) for lo in (lower[1], upper[1])]
    best = -np.inf
    for (a1, c1), (a2, c2) in itertools.combinations(lines, 2):
        m = np.vstack([a1, a2])
        if abs(np.linalg.det(m)) < 1e-12:
            continue
        x = np.linalg.solve(m, [c1, c2])
        if np.all(x >= np.array(lower) - 1e-12) and np.all(x <= np.array(upper) + 1e-12):
            best = max(best, forward(layers, np.clip(x, lower, upper))[0])
    return best


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_brute_force_small(seed):
    layers = xavier_layers([2, 6, 1], seed=seed)
    lower, upper = [-1.0, -1.0], [1.0, 1.0]
    expected = brute_force_max(layers, lower, upper)
    for method in ("mip", "bab", "enhanced"):
        result = reluopt.solve(layers, lower=lower, upper=upper, method=method, threads=1, seed=seed, samples=200)
        assert result.objective == pytest.approx(expected, rel=1e-9, abs=1e-9), method


def test_max_min_objective_matches_cli(tmp_path, net, net_onnx):
    """The objective JSON's max-min form, max over disjuncts of the min of their terms, as a dict."""
    objective = {"disjuncts": [[{"weights": [1.0, 0.0]}, {"weights": [0.0, 1.0], "constant": 0.5}],
                               [{"weights": [-1.0, 1.0], "constant": -0.25}]]}
    _, cli, _ = run_cli(tmp_path, net_onnx, ["--method", "mip", "--threads", "1"], DOMAIN, objective)
    result = reluopt.solve(net, lower=LOWER, upper=UPPER, objective=objective, method="mip", threads=1)
    assert result.status == cli["status"] == "optimal"
    assert result.objective == pytest.approx(cli["objective"], rel=1e-9, abs=1e-9)
    y = forward(net, result.x)
    assert result.objective == pytest.approx(max(min(y[0], y[1] + 0.5), -y[0] + y[1] - 0.25), rel=1e-12, abs=1e-12)
    pairs = reluopt.solve(net, lower=LOWER, upper=UPPER, method="mip", threads=1,
                          objective={"disjuncts": [[([1.0, 0.0], 0.0), ([0.0, 1.0], 0.5)], [([-1.0, 1.0], -0.25)]]})
    assert pairs.objective == result.objective
