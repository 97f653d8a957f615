"""torch models read through one ONNX export at the call (python/reluopt/_torch.py): convolutions, batch norms and
pooling in reluopt.solve, Model.add_network and reluopt.verify, each point checked by torch's own forward pass in
double precision; the first unsupported module named."""
import copy

import numpy as np
import pytest

import reluopt
from conftest import import_torch

torch = import_torch()
nn = torch.nn


def conv_net(seed=0):
    """1x5x5 -> Conv2d(1, 2, 3) -> BatchNorm2d -> ReLU -> AvgPool2d(2, stride 1) -> Flatten -> Linear(8, 6) ->
    ReLU -> Linear(6, 2), with batch-norm statistics that are not the identity."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.AvgPool2d(2, stride=1), nn.Flatten(),
                          nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, 2))
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.2, 0.2)
        model[1].running_var.uniform_(0.5, 2.0)
        model[1].weight.uniform_(0.5, 1.5)
        model[1].bias.uniform_(-0.1, 0.1)
    return model.eval()


def torch_forward(model, x, shape):
    """The model's outputs at x in double precision (a copy, so the float32 model is left as it is)."""
    double = copy.deepcopy(model).double().eval()
    with torch.no_grad():
        return double(torch.tensor(x, dtype=torch.float64).reshape(1, *shape)).numpy().ravel()


SHAPE = (1, 5, 5)
BOX = {"lower": [0.0] * 25, "upper": [1.0] * 25}


def test_conv_batchnorm_avgpool_solve_matches_torch():
    model = conv_net()
    res = reluopt.solve(model, **BOX, objective=[1.0, -1.0], method="mip", threads=1, input_shape=SHAPE)
    assert res.status == "optimal"
    y = torch_forward(model, res.x, SHAPE)
    np.testing.assert_allclose(res.outputs, y, rtol=1e-9, atol=1e-9)
    assert res.objective == pytest.approx(y[0] - y[1], rel=1e-9, abs=1e-9)
    # The sampling method never beats the proven optimum.
    sampled = reluopt.solve(model, **BOX, objective=[1.0, -1.0], method="sampling", samples=20, threads=1,
                            input_shape=SHAPE)
    assert sampled.objective <= res.bound + 1e-9


def test_conv_model_verify_sat_and_unsat():
    model = conv_net()
    top = reluopt.solve(model, **BOX, objective=0, method="mip", threads=1, input_shape=SHAPE)
    assert top.status == "optimal"
    reached = {**BOX, "unsafe": [([-1.0, 0.0], -(top.objective - 1e-3))]}  # y0 >= max - 1e-3
    res = reluopt.verify(model, reached, threads=1, input_shape=SHAPE)
    assert res.status == "sat"
    assert np.all((0.0 <= res.x) & (res.x <= 1.0))
    np.testing.assert_allclose(res.y, torch_forward(model, res.x, SHAPE), rtol=1e-9, atol=1e-9)
    assert res.y[0] >= top.objective - 1e-3
    beyond = {**BOX, "unsafe": [([-1.0, 0.0], -(top.bound + 0.5))]}
    assert reluopt.verify(model, beyond, threads=1, input_shape=SHAPE).status == "unsat"


def test_batchnorm1d_in_training_mode_is_read_in_eval_mode():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Dropout(0.5), nn.Linear(5, 1))
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 2.0)
    model.train()
    res = reluopt.solve(model, lower=[-1.0] * 3, upper=[1.0] * 3, method="mip", threads=1)
    assert model.training  # the export leaves the mode as it was
    assert res.status == "optimal"
    np.testing.assert_allclose(res.outputs, torch_forward(model, res.x, (3,)), rtol=1e-9, atol=1e-9)


def test_model_add_network_takes_a_conv_model():
    model = conv_net(seed=2)
    m = reluopt.Model()
    x = m.add_variables(25, lower=0.0, upper=1.0, name="x")
    y = m.add_network(model, x, name="net", input_shape=SHAPE)
    m.maximize(y[0])
    res = m.solve(method="bab", threads=1)
    assert res.status == "optimal"
    assert res[y][0] == pytest.approx(torch_forward(model, res[x], SHAPE)[0], rel=1e-9, abs=1e-9)


class Block(nn.Module):
    def __init__(self, act):
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.act = act

    def forward(self, x):
        return self.act(self.linear(x))


def test_the_first_unsupported_module_is_named():
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), Block(nn.Sigmoid()), nn.Linear(4, 1))
    with pytest.raises(reluopt.Error, match=r"torch module 2\.act \(Sigmoid\) is not supported: reluopt reads "
                                            r"Linear, Conv2d, AvgPool2d, MaxPool2d"):
        reluopt.solve(model)
    with pytest.raises(reluopt.Error, match=r"torch module 0 \(LSTM\) is not supported"):
        reluopt.verify(nn.Sequential(nn.LSTM(2, 2)), {"lower": [0.0, 0.0], "upper": [1.0, 1.0],
                                                      "unsafe": [([1.0, 0.0], 0.0)]})


class Functional(nn.Module):
    """Supported modules, but a sigmoid in its forward: the reader names the operator."""
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 2)

    def forward(self, x):
        return torch.sigmoid(self.linear(x))


def test_an_operation_in_forward_is_named_by_the_reader():
    with pytest.raises(reluopt.Error, match="Sigmoid"):
        reluopt.solve(Functional())


def test_input_shape_is_needed_where_the_first_layer_does_not_fix_it():
    with pytest.raises(reluopt.Error, match=r"the torch model starts with Conv2d, which does not fix the input's "
                                            r"shape: give input_shape"):
        reluopt.solve(conv_net())
    with pytest.raises(reluopt.Error, match="input_shape must be a tuple of positive integers"):
        reluopt.solve(conv_net(), input_shape=(1, 0, 6))
    with pytest.raises(reluopt.Error, match="input_shape applies to a torch model only"):
        reluopt.solve([(np.ones((1, 2)), np.zeros(1))], input_shape=(2,))
    with pytest.raises(reluopt.Error, match=r"could not be exported to ONNX with an input of shape \[1, 1, 6, 6\]"):
        reluopt.solve(conv_net(), input_shape=(1, 6, 6))
