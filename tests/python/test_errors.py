"""Bad input of every kind raises reluopt.Error (a ValueError) with the command line's message."""
import numpy as np
import pytest

import reluopt
from conftest import FIXTURES, cli_error, onnx_model, xavier_layers

BOX = {"lower": [0.0] * 4, "upper": [1.0] * 4}


def raises(match=None, **kwargs):
    return pytest.raises(reluopt.Error, match=match, **kwargs)


@pytest.mark.parametrize("option,flag,value", [
    ("gap", "--gap", -1.0), ("eps", "--eps", float("nan")), ("mip_share", "--mip-share", 1.0),
    ("max_free", "--max-free", -2), ("node_limit", "--node-limit", -1), ("samples", "--samples", 0),
    ("cut_frequency", "--cut-frequency", 0), ("partitions", "--partitions", 0),
])
def test_option_ranges_have_the_cli_message(tmp_path, net_onnx, option, flag, value):
    expected = cli_error(tmp_path, net_onnx, [flag, str(value)])
    with pytest.raises(reluopt.Error) as caught:
        reluopt.solve(net_onnx, **BOX, **{option: value})
    assert str(caught.value) == expected
    assert isinstance(caught.value, ValueError)


def test_time_limit_message(tmp_path, net_onnx):
    expected = cli_error(tmp_path, net_onnx, ["--time-limit", "-1"])
    with raises() as caught:
        reluopt.solve(net_onnx, time_limit=-1)
    assert str(caught.value) == expected


def test_unknown_options_are_named(net):
    with raises("unknown option 'sample', 'gapp'"):
        reluopt.solve(net, sample=10, gapp=0.5)
    assert "samples" in reluopt.option_names()


@pytest.mark.parametrize("kwargs,message", [
    ({"samples": 1.5}, "option 'samples' takes an integer, not 1.5"),
    ({"gap": "big"}, "option 'gap' takes a number, not 'big'"),
    ({"local_search": "walk"}, "walk"),
    ({"stop_rule": 0.1}, "option 'stop_rule' takes a pair"),
    ({"method": "simplex"}, "simplex"),
    ({"threads": 0}, "threads must be an integer >= 1"),
    ({"threads": 5000}, "threads \\(--threads\\) must be between 1 and 1024"),
    ({"seed": -1}, "seed must be an integer"),
    ({"time_limit": float("nan")}, "time_limit \\(--time-limit\\) must be"),
    ({"lower": [[0.0] * 4]}, "lower must have 1 dimension"),
    ({"upper": [0.0, 1.0, float("nan"), 1.0]}, "domain bound 2 is not finite"),
    ({"sense": "up"}, "\"sense\" must be \"max\" or \"min\", not 'up'"),
    ({"objective": 5}, "output 5 does not exist"),
    ({"objective": [1.0, 2.0, 3.0]}, "weights"),
    ({"progress": 3}, "progress must be None, True or a callable"),
    ({"objective": {"disjuncts": []}}, '"disjuncts" must be a non-empty list'),
    ({"objective": {"disjuncts": [[{"weights": [1.0]}]]}}, "weights"),
    ({"objective": {"disjuncts": [[{"weights": [1.0, 0.0]}]], "constant": 1.0}}, "give one form"),
])
def test_bad_arguments(net, kwargs, message):
    with raises(message):
        reluopt.solve(net, **{**BOX, **kwargs})


def test_domain_messages_match_cli(tmp_path, net_onnx):
    domain = {"lower": [0, 0, 0], "upper": [1, 1, 1]}
    expected = cli_error(tmp_path, net_onnx, [], domain=domain)
    with raises() as caught:
        reluopt.solve(net_onnx, **domain)
    assert expected.endswith(str(caught.value)), (expected, str(caught.value))
    # The command line's JSON reader names the file and the JSON key; the library names the entry.
    with raises(r"domain is empty: lower\[0\] > upper\[0\]"):
        reluopt.solve(net_onnx, lower=[1, 0, 0, 0], upper=[0, 1, 1, 1])
    with raises("lower and upper go together"):
        reluopt.solve(net_onnx, lower=[0] * 4)
    with raises("A and b go together"):
        reluopt.solve(net_onnx, **BOX, A=np.ones((1, 4)))


def test_bad_paths_match_cli(tmp_path):
    for path in (tmp_path / "missing.onnx", FIXTURES / "onnx" / "unsupported_op.onnx",
                 FIXTURES / "onnx" / "not_onnx.onnx", FIXTURES / "nnet" / "bad.nnet"):
        expected = cli_error(tmp_path, path, [])
        with raises() as caught:
            reluopt.solve(path)
        assert str(caught.value) == expected


def test_bad_onnx_model_proto():
    onnx = pytest.importorskip("onnx")
    model = onnx_model(xavier_layers([3, 4, 1], seed=1))
    model.graph.node[1].op_type = "Sigmoid"
    with raises("Sigmoid.*<onnx.ModelProto>"):
        reluopt.solve(model)


def test_bad_layer_lists():
    with raises("inconsistent shapes: layer 2 takes 5 inputs but the previous layer has 4"):
        reluopt.solve([(np.ones((4, 2)), np.zeros(4)), (np.ones((1, 5)), np.zeros(1))])
    with raises("layer 1 has a weight or bias that is not finite"):
        reluopt.solve([(np.full((1, 2), np.inf), np.zeros(1))])
    with raises("layer 1 W must have 2 dimensions"):
        reluopt.solve([(np.ones(3), np.zeros(1))])
    with raises("layer 1 must be a pair"):
        reluopt.solve([np.ones((2, 2))])
    with raises("network has no layers"):
        reluopt.solve([])
    with raises("cannot read a model of type builtins.dict"):
        reluopt.solve({})


def test_bad_torch_models():
    torch = pytest.importorskip("torch")
    nn = torch.nn
    with raises(r"torch module 1 \(Sigmoid\) is not supported"):
        reluopt.solve(nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.Linear(3, 1)))
    with raises("ends with a ReLU"):
        reluopt.solve(nn.Sequential(nn.Linear(2, 3), nn.ReLU()))
    with raises("a ReLU must follow a Linear layer"):
        reluopt.solve(nn.Sequential(nn.ReLU(), nn.Linear(2, 1)))


def test_bad_sklearn_models():
    sk = pytest.importorskip("sklearn.neural_network")
    with raises("is not fitted"):
        reluopt.solve(sk.MLPRegressor())
    X = np.random.default_rng(0).uniform(size=(30, 2))
    model = sk.MLPRegressor(hidden_layer_sizes=(3,), activation="tanh", max_iter=5).fit(X, X[:, 0])
    with raises("uses activation 'tanh'; reluopt needs 'relu'"):
        reluopt.solve(model)
