"""reluopt.Model, a model around networks: the expression algebra, optima against enumeration of every integer
point by forward passes, infeasibility, the problem file's round trip, torch and scikit-learn networks, errors."""
import itertools
import json
import os
import subprocess
import textwrap
import time

import numpy as np
import pytest

import reluopt
from conftest import CLI, forward, import_torch, interrupted, write_onnx, xavier_layers

NET = xavier_layers([2, 6, 2], seed=5)  # float32-exact weights: an ONNX file holds the same network
GRID = [range(-3, 4), range(-3, 4), range(0, 5)]  # x0, x1 and z0, all integer


def objective(y, x0, z0):
    return y[1] - 0.3 * x0 + 0.1 * z0 + 2.0


def build(cap, sense="max", network=NET):
    """y = NET(x); y[0] <= cap; x[0] + x[1] - z[0] <= 1; optimize y[1] - 0.3 x[0] + 0.1 z[0] + 2."""
    m = reluopt.Model(sense=sense)
    x = m.add_variables(2, lower=-3, upper=3, integer=True, name="x")
    z = m.add_variables(1, lower=0, upper=4, integer=[True], name="z")
    y = m.add_network(network, x, name="demand")
    m.add_constraint(y[0] <= cap, name="cap")
    m.add_constraint(x[0] + x[1] - z[0] <= 1)
    m.set_objective(y[1] - 0.3 * x[0] + 0.1 * z[0] + 2, sense)
    return m, x, z, y


def enumerate_optimum(cap, sense="max"):
    """The optimum over every integer point, each by a forward pass (None: no point is feasible)."""
    best = None
    for x0, x1, z0 in itertools.product(*GRID):
        y = forward(NET, np.array([x0, x1], dtype=float))
        if y[0] <= cap and x0 + x1 - z0 <= 1:
            value = objective(y, x0, z0)
            if best is None or (value > best if sense == "max" else value < best):
                best = value
    return best


def median_y0():
    return float(np.median([forward(NET, np.array(p, dtype=float))[0] for p in itertools.product(*GRID[:2])]))


def test_expression_algebra():
    m = reluopt.Model()
    x = m.add_variables(3, lower=0, upper=1, name="x")
    e = 2 * x[0] - x[1] / 4 + np.float64(0.5) * x[0] + 3 - x[2] * np.int64(2)
    assert e.terms == {(0, 0, 0): 2.5, (0, 0, 1): -0.25, (0, 0, 2): -2.0} and e.constant == 3.0
    assert repr(e) == "2.5 x[0] - 0.25 x[1] - 2 x[2] + 3"
    assert repr(-x[0] + 1) == "-x[0] + 1"
    assert sum(x).terms == x.sum().terms == {(0, 0, i): 1.0 for i in range(3)}
    assert (x @ [1, 2, 3]).terms == (np.array([1, 2, 3]) @ x).terms == {(0, 0, i): i + 1.0 for i in range(3)}
    assert (x[0:2] @ [1, 1]).terms == {(0, 0, 0): 1.0, (0, 0, 1): 1.0}
    assert repr(x[1:]) == "x[1:3]" and repr(x[[2, 0]]) == "x[2, 0]" and repr(x) == "x" and len(x[::2]) == 2
    c = 1 - x[0] >= x[1] + 2
    assert (c.sense, c.rhs, c.expr.terms) == (">=", 1.0, {(0, 0, 0): -1.0, (0, 0, 1): -1.0})
    c = 3 >= x[2]  # Python turns this into x[2] <= 3
    assert (c.sense, c.rhs) == ("<=", 3.0)
    c = x[0] == x[1]
    assert (c.sense, c.rhs, c.expr.terms) == ("==", 0.0, {(0, 0, 0): 1.0, (0, 0, 1): -1.0})
    assert (np.float64(2) * x[0]).terms == {(0, 0, 0): 2.0}
    assert ((x[0] + 1) * 0 + x[1] * (x[0] - x[0] + 2)).terms == {(0, 0, 0): 0.0, (0, 0, 1): 2.0}
    assert (x[-1]).terms == {(0, 0, 2): 1.0}


@pytest.mark.parametrize("misuse, message", [
    (lambda m, x, y: x[0] * x[1], "product of two expressions is not linear"),
    (lambda m, x, y: 1 / x[0], "dividing by an expression is not linear"),
    (lambda m, x, y: x[0] / 0, "division of an expression by zero"),
    (lambda m, x, y: x[0] < 1, "strict inequalities"),
    (lambda m, x, y: 0 <= x[0] <= 1, "a constraint has no truth value"),
    (lambda m, x, y: x + 1, "x has 2 entries: take one (x[0])"),
    (lambda m, x, y: x[0] + "a", "not str"),
    (lambda m, x, y: x[2], "index 2 is outside x (2 entries)"),
    (lambda m, x, y: x[0] - x[0] <= 1, "the constraint has no variable or network output"),
    (lambda m, x, y: x[0] + reluopt.Model().add_variables(1, upper=1)[0], "mixes variables or network outputs of two"),
    (lambda m, x, y: m.add_constraint(reluopt.Model().add_variables(1, upper=1)[0] <= 1), "of another model"),
    (lambda m, x, y: m.add_constraint(True), "add_constraint takes a constraint such as"),
    (lambda m, x, y: m.add_variables(2, lower=[3, 0], upper=1, name="w"), "variables 'w': lower 3 > upper 1 at"),
    (lambda m, x, y: m.add_variables(1, lower=0.2, upper=0.8, integer=True, name="w"), "has no integer in"),
    (lambda m, x, y: m.add_variables(2, lower=0, name="w"), "variables 'w': upper is required"),
    (lambda m, x, y: m.add_variables(2, lower=[0, 0, 0], upper=1, name="w"), "lower has shape (3,), the block 2"),
    (lambda m, x, y: m.add_variables(1, upper=np.inf, name="w"), "bounds must be finite"),
    (lambda m, x, y: m.add_variables(1, upper=1, name="x"), "variables 'x': the name is already used by variables"),
    (lambda m, x, y: m.add_variables(1, upper=1, name="2x"), "the name must start with a letter"),
    (lambda m, x, y: m.add_network(NET, x[0:1], name="f"), "network 'f': the input has 1 variables, the network"),
    (lambda m, x, y: m.add_network(NET, y, name="f"), "its input must be variables of this model"),
    (lambda m, x, y: m.add_network("no-such.onnx", x), "no-such.onnx"),
    (lambda m, x, y: m.add_network(NET, x, name="y"), "network 'y': the name is already used by network 'y'"),
    (lambda m, x, y: m.add_network(NET, x, name="a b"), "network 'a b': the name must start with a letter"),
    (lambda m, x, y: x[0] * np.inf, "a factor of an expression must be a finite number, not inf"),
    (lambda m, x, y: x[0] + float("nan"), "a number in an expression must be a finite number, not nan"),
    (lambda m, x, y: m.solve(method="mip", no_such_option=1), "unknown option 'no_such_option'"),
    (lambda m, x, y: m.solve(method="nope"), "nope"),
    (lambda m, x, y: reluopt.Model(sense="up"), 'sense must be "max" or "min"'),
    (lambda m, x, y: x[0] * 10**400, "a factor of an expression must be a finite number, not 1000000000"),
    (lambda m, x, y: x[0] <= -10**400, "a number in an expression must be a finite number"),
    (lambda m, x, y: x[[True, False]], "takes an int, a slice or a list of ints as index, not [True, False]"),
    (lambda m, x, y: x[np.array([0.0, 1.0])], "takes an int, a slice or a list of ints as index"),
    (lambda m, x, y: m.add_variables(10**12, upper=1), "size must be an integer from 1 to 1e8, not 1000000000000"),
])
def test_errors(misuse, message):
    m = reluopt.Model()
    x = m.add_variables(2, lower=-1, upper=1, name="x")
    y = m.add_network(NET, x, name="y")
    m.maximize(y[0])
    with pytest.raises(reluopt.Error) as e:
        misuse(m, x, y)
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("method", reluopt.method_names())
def test_every_method_takes_the_model(method):
    cap = median_y0()
    truth = enumerate_optimum(cap)
    m, x, z, y = build(cap=cap)
    res = m.solve(method=method, threads=1, time_limit=30, samples=100)
    assert res.method == method and res.status in ("optimal", "feasible")
    assert res.objective <= truth + 1e-9
    assert (res[x] == np.round(res[x])).all() and res[y][0] <= cap + 1e-6
    if res.status == "optimal":
        assert res.objective == pytest.approx(truth, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("sense", ["max", "min"])
def test_mip_matches_enumeration(sense):
    cap = median_y0()
    truth = enumerate_optimum(cap, sense)
    m, x, z, y = build(cap, sense)
    res = m.solve(method="mip", threads=1, time_limit=60)
    assert res.status == "optimal" and isinstance(res, reluopt.ModelResult)
    assert res.objective == pytest.approx(truth, rel=1e-9, abs=1e-9)
    assert (res.bound >= truth - 1e-9) if sense == "max" else (res.bound <= truth + 1e-9)
    xs, zs = res[x], res[z]
    assert np.array_equal(xs, np.round(xs)) and np.array_equal(zs, np.round(zs))
    np.testing.assert_allclose(res[y], forward(NET, xs), rtol=1e-14, atol=1e-14)  # the network's forward pass
    assert res[y[0]] <= cap and xs[0] + xs[1] - zs[0] <= 1
    assert res[y[1] - 0.3 * x[0] + 0.1 * z[0] + 2] == pytest.approx(res.objective, abs=1e-12)
    np.testing.assert_array_equal(res[x[1:]], xs[1:])
    np.testing.assert_array_equal(res.x, np.concatenate([xs, zs]))
    assert res.to_dict()["variables"] == {"x": list(xs), "z": list(zs)}
    assert res.to_dict()["networks"] == {"demand": list(res[y])} and list(res["demand"]) == list(res[y])


def test_default_method_is_enhanced_and_proves_the_optimum():
    cap = median_y0()
    m, *_ = build(cap=cap)
    res = m.solve(threads=1, time_limit=30)
    assert res.method == "enhanced" and res.status == "optimal"
    assert res.objective == pytest.approx(enumerate_optimum(cap), rel=1e-9, abs=1e-9)


def test_infeasible():
    cap = min(forward(NET, np.array(p, dtype=float))[0] for p in itertools.product(*GRID[:2])) - 0.5
    assert enumerate_optimum(cap) is None
    m, x, z, y = build(cap)
    res = m.solve(method="mip", threads=1, time_limit=60)
    assert res.status == "infeasible" and res.objective is None
    assert res[x].shape == (0,) and res[y].shape == (0,) and res.x.shape == (0,) and res.outputs.shape == (0,)
    assert res[x[0] + 1] is None
    assert res.to_dict()["variables"] == {} and res.to_dict()["networks"] == {}


@pytest.mark.parametrize("sense", ["max", "min"])
def test_max_min_objective_matches_enumeration(sense, tmp_path):
    """maximum(minimum(...), ...) over the model's rows, against every integer point; written and read back."""
    cap = median_y0()
    m, x, z, y = build(cap, sense)
    m.set_objective(reluopt.maximum(reluopt.minimum(y[1] - 0.3 * x[0], y[0] + 1), 0.1 * z[0] - 2))

    def value(y_, x0, z0):
        return max(min(y_[1] - 0.3 * x0, y_[0] + 1), 0.1 * z0 - 2)

    truth = None
    for x0, x1, z0 in itertools.product(*GRID):
        y_ = forward(NET, np.array([x0, x1], dtype=float))
        if y_[0] <= cap and x0 + x1 - z0 <= 1:
            v = value(y_, x0, z0)
            truth = v if truth is None or (v > truth if sense == "max" else v < truth) else truth
    for method in ("mip", "bab"):
        res = m.solve(method=method, threads=1, time_limit=60)
        assert res.status == "optimal", method
        assert res.objective == pytest.approx(truth, rel=1e-9, abs=1e-9), method
        assert res.objective == pytest.approx(value(res[y], res[x][0], res[z][0]), abs=1e-12)
    m.write(tmp_path / "P.json")
    assert "disjuncts" in json.loads((tmp_path / "P.json").read_text())["objective"]
    m2 = reluopt.read_problem(tmp_path / "P.json")
    assert isinstance(m2.objective, reluopt.MaxMinExpr) and len(m2.objective.disjuncts) == 2
    assert m2.solve(method="mip", threads=1).objective == pytest.approx(truth, rel=1e-9, abs=1e-9)
    with pytest.raises(reluopt.Error, match="not a maximum"):
        reluopt.minimum(reluopt.maximum(y[0], y[1]), x[0])


def test_write_read_round_trip(tmp_path):
    cap = median_y0()
    m, *_ = build(cap)
    onnx_file = write_onnx(NET, str(tmp_path / "net.onnx"))
    x2 = m.add_variables(2, lower=-3, upper=3, integer=True, name="w")
    m.add_network(onnx_file, x2, name="spread")  # a network from a file keeps its file
    m.write(tmp_path / "P.json")
    problem = json.loads((tmp_path / "P.json").read_text())
    assert [n["model"] for n in problem["networks"]] == ["P.demand.onnx", "net.onnx"]
    assert problem["constraints"][0]["name"] == "cap"
    m2 = reluopt.read_problem(tmp_path / "P.json")
    assert set(m2.variables) == {"x", "z", "w"} and set(m2.networks) == {"demand", "spread"}
    first, second = m.solve(method="mip", threads=1), m2.solve(method="mip", threads=1)
    assert first.status == second.status == "optimal"
    assert second.objective == first.objective == pytest.approx(enumerate_optimum(cap), abs=1e-9)
    np.testing.assert_array_equal(second[m2.variables["x"]], first["x"])
    assert second.model == str(tmp_path / "P.json")
    cli = subprocess.run([CLI, "solve", "--problem", str(tmp_path / "P.json"), "--method", "mip", "--threads", "1",
                          "--quiet", "--json", str(tmp_path / "cli.json")], capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    out = json.loads((tmp_path / "cli.json").read_text())
    assert out["objective"] == first.objective and out["variables"] == first.to_dict()["variables"]
    m2.write(tmp_path / "again.json")  # every network now has a file
    assert json.loads((tmp_path / "again.json").read_text())["networks"] == problem["networks"]


def test_network_on_a_slice_and_a_list():
    m = reluopt.Model()
    x = m.add_variables(3, lower=-1, upper=1, name="x")
    y = m.add_network(NET, x[1:], name="a")
    u = m.add_network(NET, [x[2], x[0]], name="b")
    m.maximize(y[0] + u[1])
    res = m.solve(method="mip", threads=1)
    xs = res[x]
    assert res.objective == pytest.approx(forward(NET, xs[1:])[0] + forward(NET, xs[[2, 0]])[1], abs=1e-12)


def test_torch_network():
    torch = import_torch()
    torch.manual_seed(3)
    net = torch.nn.Sequential(torch.nn.Linear(2, 6), torch.nn.ReLU(), torch.nn.Linear(6, 2)).double()
    layers = [(net[0].weight.detach().numpy(), net[0].bias.detach().numpy()),
              (net[2].weight.detach().numpy(), net[2].bias.detach().numpy())]
    m, x, z, y = build(cap=10.0, network=net)
    res = m.solve(method="mip", threads=1)
    assert res.status == "optimal"
    np.testing.assert_allclose(res[y], forward(layers, res[x]), rtol=1e-14, atol=1e-14)


def test_sklearn_network(tmp_path):
    neural = pytest.importorskip("sklearn.neural_network")
    rng = np.random.default_rng(4)
    inputs = rng.uniform(-3, 3, size=(60, 2))
    mlp = neural.MLPRegressor(hidden_layer_sizes=(5,), max_iter=50, random_state=0)
    with pytest.warns(Warning):  # ConvergenceWarning: 50 iterations are enough for a fixed network
        mlp.fit(inputs, inputs @ [1.0, -2.0])
    m = reluopt.Model("max")
    x = m.add_variables(2, lower=-3, upper=3, integer=True, name="x")
    y = m.add_network(mlp, x, name="mlp")
    m.maximize(y[0])
    res = m.solve(method="mip", threads=1)
    grid = [mlp.predict(np.array([p], dtype=float))[0] for p in itertools.product(range(-3, 4), repeat=2)]
    assert res.objective == pytest.approx(max(grid), rel=1e-9, abs=1e-9)
    m.write(tmp_path / "P.json")  # an in-memory network written as ONNX, read back exactly
    again = reluopt.read_problem(tmp_path / "P.json").solve(method="mip", threads=1)
    assert again.objective == res.objective


def test_progress_callback_exception_stops_the_run():
    m = reluopt.Model()
    x = m.add_variables(20, lower=0, upper=1, name="x")
    m.maximize(m.add_network(xavier_layers([20, 100, 100, 1], seed=2), x)[0])

    def stop(progress):
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough") as caught:
        m.solve(method="sampling", samples=10**9, threads=1, progress=stop)
    assert caught.value.result.stopped_by == "interrupted"
    assert caught.value.result[x].shape == (20,)


def test_time_limit_holds():
    m = reluopt.Model()
    x = m.add_variables(20, lower=-2, upper=2, integer=True, name="x")
    y = m.add_network(xavier_layers([20, 100, 100, 2], seed=2), x)
    m.add_constraint(y[1] <= 0)
    m.maximize(y[0])
    start = time.monotonic()
    res = m.solve(method="mip", time_limit=0.5, threads=1)
    assert time.monotonic() - start < 5.5 and res.status in ("optimal", "feasible", "no_solution", "infeasible")


def test_feasibility_objective_and_default_names():
    m = reluopt.Model()
    a, b = m.add_variables(2, upper=[1, 2], integer=True), m.add_variables(lower=[0.5], upper=[0.5])
    y = m.add_network([(np.eye(2), np.zeros(2)), (np.ones((1, 2)), np.zeros(1))], a)
    assert (a.name, b.name, y.name, len(b)) == ("x0", "x1", "network2", 1)
    m.add_constraint([y[0] >= 2.5, a[0] + b[0] <= 1.5])
    m.set_objective(0)
    res = m.solve(method="mip", threads=1)
    assert res.status == "optimal" and list(res[a]) == [1.0, 2.0] and res.objective == 0.0


LONG_MIP = textwrap.dedent("""
    import json, signal, sys, time
    import reluopt
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as an interactive session has it
    sys.path.insert(0, {tests!r})
    from conftest import xavier_layers
    m = reluopt.Model()
    x = m.add_variables(30, lower=-5, upper=5, integer=True, name="x")
    y = m.add_network(xavier_layers([30, 200, 200, 2], seed=3), x)
    m.add_constraint(y[1] <= 0)
    m.maximize(y[0])
    print("started", flush=True)
    try:
        m.solve(method="mip", threads=1)
        print(json.dumps({{"error": "no KeyboardInterrupt"}}))
    except KeyboardInterrupt as e:
        print(json.dumps({{"stopped": time.monotonic(), "stopped_by": e.result.stopped_by,
                          "result": type(e.result).__name__}}), flush=True)
""")


def test_ctrl_c_stops_a_model_run():
    report, sent = interrupted(LONG_MIP.format(tests=os.path.dirname(__file__)))
    assert report["stopped_by"] == "interrupted" and report["result"] == "ModelResult"
    assert report["stopped"] - sent < 5.0  # generous on a loaded machine (one clock for both processes)


def test_linear_neurons_survive_the_problem_file(tmp_path):
    """A residual network (linear neurons carry the branch) built in memory is written as ONNX with its linear
    neurons masked past the ReLU, and read back to the same optimum."""
    onnx = pytest.importorskip("onnx")
    from conftest import FIXTURES
    proto = onnx.load(str(FIXTURES / "pwl" / "concat_sub_skip.onnx"))
    m = reluopt.Model("max")
    x = m.add_variables(4, lower=-1, upper=1, integer=True, name="x")
    y = m.add_network(proto, x, name="skip")
    m.maximize(y[0] - y[1])
    kinds = m._uses[0]["network"].layers()
    assert any(linear.any() for _, _, linear in kinds[:-1]) and not kinds[-1][2].any()
    res = m.solve(method="mip", threads=1)
    m.write(tmp_path / "P.json")
    again = reluopt.read_problem(tmp_path / "P.json").solve(method="mip", threads=1)
    assert res.status == again.status == "optimal"
    assert again.objective == pytest.approx(res.objective, abs=1e-9)
