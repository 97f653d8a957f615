"""Bad input of every kind raises reluopt.Error (a ValueError) with the command line's message."""
import numpy as np
import pytest

import reluopt
from conftest import FIXTURES, cli_error, import_torch, onnx_model, xavier_layers

BOX = {"lower": [0.0] * 4, "upper": [1.0] * 4}


def raises(match=None, **kwargs):
    return pytest.raises(reluopt.Error, match=match, **kwargs)


@pytest.mark.parametrize("option,flag,value", [
    ("gap", "--gap", -1.0), ("eps", "--eps", float("nan")), ("mip_share", "--mip-share", 1.0),
    ("max_free", "--max-free", -2), ("node_limit", "--node-limit", -1), ("samples", "--samples", 0),
    ("cut_frequency", "--cut-frequency", 0), ("partitions", "--partitions", 0),
    ("cut_frequency", "--cut-frequency", -99), ("ascent_steps", "--ascent-steps", -1),
    ("perturbations", "--perturbations", -1), ("perturbation_radius", "--perturbation-radius", 0.0),
    ("walk_iterations", "--walk-iterations", -1), ("bab_memory", "--bab-memory", -1.0),
    ("hit_and_run_thinning", "--hit-and-run-thinning", -1), ("threads", "--threads", 5000),
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
    ({"threads": -1}, "threads must be an integer >= 0"),
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
    with raises("lower is given without upper: the domain is the box lower <= x <= upper"):
        reluopt.solve(net_onnx, lower=[0] * 4)
    with raises("upper is given without lower"):
        reluopt.solve(net_onnx, upper=[1] * 4)
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
    torch = import_torch()
    nn = torch.nn
    with raises(r"torch module 1 \(Sigmoid\) is not supported"):
        reluopt.solve(nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.Linear(3, 1)))
    # A ReLU at either end is part of the exported function, read as it is (tests/python/test_torch.py).
    torch.manual_seed(0)
    for model in (nn.Sequential(nn.Linear(2, 3), nn.ReLU()), nn.Sequential(nn.ReLU(), nn.Linear(2, 1))):
        res = reluopt.solve(model, lower=[-1.0, -1.0], upper=[1.0, 1.0], method="mip", threads=1)
        assert res.status == "optimal"
        with torch.no_grad():
            y = model.double()(torch.tensor(res.x).reshape(1, -1)).numpy().ravel()
        np.testing.assert_allclose(res.outputs, y, rtol=1e-12, atol=1e-12)


def test_bad_sklearn_models():
    sk = pytest.importorskip("sklearn.neural_network")
    with raises("is not fitted"):
        reluopt.solve(sk.MLPRegressor())
    X = np.random.default_rng(0).uniform(size=(30, 2))
    model = sk.MLPRegressor(hidden_layer_sizes=(3,), activation="tanh", max_iter=5).fit(X, X[:, 0])
    with raises("uses activation 'tanh'; reluopt needs 'relu'"):
        reluopt.solve(model)


@pytest.mark.parametrize("kwargs", [{"A": np.ones((1, 4)), "b": [1.0]}, {"A": np.ones((1, 4))}, {"b": [1.0]}])
def test_rows_without_a_box_say_the_box_is_missing(net, kwargs):
    with raises(r"A and b need lower and upper too: the domain is the box lower <= x <= upper \(finite bounds\)"):
        reluopt.solve(net, **kwargs)


@pytest.mark.parametrize("kwargs,message", [
    ({"threads": 2**40}, "threads takes an integer from -2147483648 to 2147483647, not 1099511627776"),
    ({"max_free": 2**40}, "option 'max_free' takes an integer from -2147483648 to 2147483647, not 1099511627776"),
    ({"cut_frequency": -2**31 - 1}, "option 'cut_frequency' takes an integer from -2147483648 to 2147483647"),
    ({"samples": 2**70}, "option 'samples' takes an integer from -9223372036854775808 to 9223372036854775807"),
    ({"objective": 2**70}, "objective: output 1180591620717411303424 does not exist"),
])
def test_integers_out_of_range_are_named(net, kwargs, message):
    with raises(message):
        reluopt.solve(net, **{**BOX, **kwargs})


def test_zero_threads_means_all_cores(net):
    result = reluopt.solve(net, **BOX, samples=50, threads=0, method="sampling")
    assert result.samples == 50 and result.threads >= 1


def test_numpy_integers_are_integers(net):
    assert reluopt.solve(net, **BOX, samples=np.int64(50), threads=1, method="sampling").samples == 50


@pytest.mark.parametrize("kwargs,message", [
    ({"threads": 2**40}, "threads takes an integer from -2147483648 to 2147483647, not 1099511627776"),
    ({"threads": 1.5}, "threads takes an integer, not 1.5"),
    ({"seed": -1}, "seed takes an integer from 0 to 18446744073709551615, not -1"),
])
def test_evt_integers_out_of_range_are_named(kwargs, message):
    with raises(message):
        reluopt.evt(np.linspace(0.0, 1.0, 50), **kwargs)


FORMS = "objective must be an output index \\(an int\\), one weight per output \\(a 1-dimensional array\\), or a dict"


@pytest.mark.parametrize("objective,message", [
    ({"foo": 1}, "the objective has unknown key 'foo' \\(known: 'weights', 'constant', 'disjuncts', 'sense'\\)"),
    ({"weights": [1.0, 0.0], "foo": 1, "bar": 2}, "unknown keys 'foo', 'bar'"),
    ({"sense": "min"}, 'the objective needs "weights" \\(one weight per output\\) or "disjuncts"'),
    ({"weights": 1.0}, '"weights" of the objective must be one weight per output \\(a 1-dimensional array\\), not 1.0'),
    ({"weights": [1.0, 0.0], "constant": "c"}, "constant must be a finite number, not 'c'"),
    (1.0, FORMS + ".*, not 1.0$"),
    (True, FORMS + ".*, not True$"),
    (None, FORMS + ".*, not None$"),
    ("out", FORMS + ".*, not 'out'$"),
    (np.ones((2, 2)), FORMS + ".*, not an array of shape \\(2, 2\\)$"),
])
def test_objective_messages_say_what_an_objective_may_be(net, objective, message):
    with raises(message):
        reluopt.solve(net, **BOX, objective=objective)


def test_torch_model_on_the_meta_device():
    torch = import_torch()
    with torch.device("meta"):
        model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    with raises("the torch model's parameters are on the meta device \\(shapes without values\\): materialize"):
        reluopt.solve(model, **BOX)
