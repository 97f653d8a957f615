"""Piecewise-linear torch models (issue 28, item 5): max pooling, LeakyReLU, Hardtanh, ReLU6, batch norms and residual
blocks given as any nn.Module, read through python/reluopt/_torch.py's ONNX export. Each optimum of bab and mip is
checked against torch's own forward pass in double precision, against a dense grid (two inputs) or random samples
(which never beat it), and against the proven bound; verify's counterexamples are re-checked by torch."""
import copy

import numpy as np
import pytest

import reluopt
from conftest import import_torch

torch = import_torch()
nn = torch.nn


class Residual(nn.Module):
    """x + f(x): the skip is added in forward, not by a module."""
    def __init__(self, body):
        super().__init__()
        self.body = body

    def forward(self, x):
        return x + self.body(x)


def seeded(seed, build):
    torch.manual_seed(seed)
    return build().eval()


def activations_mlp():
    """2 -> 8 (BatchNorm1d, LeakyReLU: a slope not exact in float32, which ONNX's LeakyRelu would round) -> 8
    (Hardtanh) -> residual 8 (ReLU6) -> 1."""
    model = nn.Sequential(nn.Linear(2, 8), nn.BatchNorm1d(8), nn.LeakyReLU(0.1), nn.Linear(8, 8), nn.Hardtanh(),
                          Residual(nn.Sequential(nn.Linear(8, 8), nn.ReLU6())), nn.Linear(8, 1))
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.3, 0.3)
        model[1].running_var.uniform_(0.5, 2.0)
        model[3].weight.mul_(3.0)  # so Hardtanh clips in parts of the box
    return model


def maxpool_net():
    """1x4x4 -> Conv2d(1, 2, 2) -> BatchNorm2d -> ReLU -> MaxPool2d(2, stride 1) -> Flatten -> Linear(8, 4) -> ReLU ->
    Linear(4, 2)."""
    model = nn.Sequential(nn.Conv2d(1, 2, 2), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2, stride=1), nn.Flatten(),
                          nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 2))
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.2, 0.2)
        model[1].running_var.uniform_(0.5, 2.0)
    return model


def residual_conv_net():
    """1x4x4 -> Conv2d(1, 2, 3, padding 1) -> ReLU -> residual [Conv2d(2, 2, 3, padding 1) -> LeakyReLU(0.3)] ->
    AvgPool2d(2) -> Flatten -> Linear(8, 2)."""
    return nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(),
                         Residual(nn.Sequential(nn.Conv2d(2, 2, 3, padding=1), nn.LeakyReLU(0.3))), nn.AvgPool2d(2),
                         nn.Flatten(), nn.Linear(8, 2))


def torch_forward(model, x, shape):
    """The model's outputs at each row of x (or at x) in double precision, on a copy of the float32 model."""
    double = copy.deepcopy(model).double().eval()
    points = np.atleast_2d(np.asarray(x, dtype=np.float64))
    with torch.no_grad():
        return double(torch.tensor(points).reshape(-1, *shape)).numpy().reshape(len(points), -1)


def check_optimum(model, shape, lower, upper, objective, best_sampled):
    """bab and mip prove the same optimum, attained by torch at the reported point, never beaten by a sample."""
    c = np.asarray(objective, dtype=np.float64)
    extra = {} if len(shape) == 1 else {"input_shape": shape}
    found = []
    for method in ("mip", "bab"):
        res = reluopt.solve(model, lower=lower, upper=upper, objective=list(c), method=method, threads=1, **extra)
        assert res.status == "optimal", method
        assert np.all((np.asarray(lower) <= res.x) & (res.x <= np.asarray(upper)))
        y = torch_forward(model, res.x, shape)[0]
        np.testing.assert_allclose(res.outputs, y, rtol=1e-9, atol=1e-9)
        assert res.objective == pytest.approx(c @ y, rel=1e-9, abs=1e-9)
        assert best_sampled <= res.bound + 1e-9
        assert res.objective <= res.bound + 1e-9
        found.append(res.objective)
    assert found[0] == pytest.approx(found[1], rel=1e-4, abs=1e-6)
    return found[0]


def test_activations_and_residual_mlp_optimum_matches_a_dense_grid():
    model = seeded(0, activations_mlp)
    side = np.linspace(-1.0, 1.0, 401)
    grid = np.stack(np.meshgrid(side, side), axis=-1).reshape(-1, 2)
    for c in ([1.0], [-1.0]):
        best_on_grid = float((torch_forward(model, grid, (2,)) @ np.asarray(c)).max())
        optimum = check_optimum(model, (2,), [-1.0, -1.0], [1.0, 1.0], c, best_on_grid)
        # The grid (spacing 0.005) comes within its Lipschitz gap of the optimum.
        assert optimum - best_on_grid <= 0.05 * max(1.0, abs(optimum))


@pytest.mark.parametrize("build", [maxpool_net, residual_conv_net])
def test_conv_maxpool_and_residual_optima_are_never_beaten_by_samples(build):
    model = seeded(3, build)
    shape = (1, 4, 4)
    rng = np.random.default_rng(3)
    samples = rng.uniform(0.0, 1.0, size=(20000, 16))
    outputs = torch_forward(model, samples, shape)
    for c in ([1.0, -1.0], [0.0, 1.0]):
        best_sampled = float((outputs @ np.asarray(c)).max())
        optimum = check_optimum(model, shape, [0.0] * 16, [1.0] * 16, c, best_sampled)
        assert optimum >= best_sampled - 1e-9


@pytest.mark.parametrize("build", [maxpool_net, residual_conv_net])
def test_verify_on_maxpool_and_residual_nets_rechecked_by_torch(build):
    model = seeded(5, build)
    shape = (1, 4, 4)
    box = {"lower": [0.0] * 16, "upper": [1.0] * 16}
    top = reluopt.solve(model, **box, objective=0, method="mip", threads=1, input_shape=shape)
    assert top.status == "optimal"
    reached = {**box, "unsafe": [([-1.0, 0.0], -(top.objective - 1e-3))]}  # y0 >= max - 1e-3
    res = reluopt.verify(model, reached, threads=1, input_shape=shape)
    assert res.status == "sat"
    assert np.all((0.0 <= res.x) & (res.x <= 1.0))
    y = torch_forward(model, res.x, shape)[0]
    np.testing.assert_allclose(res.y, y, rtol=1e-9, atol=1e-9)
    assert y[0] >= top.objective - 1e-3 - 1e-9
    beyond = {**box, "unsafe": [([-1.0, 0.0], -(top.bound + 0.5))]}
    assert reluopt.verify(model, beyond, threads=1, input_shape=shape).status == "unsat"


class Square(nn.Module):
    """A custom leaf module: not piecewise linear."""
    def forward(self, x):
        return x * x


@pytest.mark.parametrize("module, name", [(nn.Sigmoid(), "Sigmoid"), (nn.GELU(), "GELU"), (Square(), "Square"),
                                          (nn.Tanh(), "Tanh")])
def test_an_unsupported_module_is_named(module, name):
    model = nn.Sequential(nn.Linear(2, 3), Residual(nn.Sequential(nn.Linear(3, 3), module)), nn.Linear(3, 1))
    with pytest.raises(reluopt.Error, match=rf"torch module 1\.body\.1 \({name}\) is not supported"):
        reluopt.solve(model, lower=[0.0, 0.0], upper=[1.0, 1.0])
    with pytest.raises(reluopt.Error, match=rf"\({name}\) is not supported"):
        reluopt.verify(model, {"lower": [0.0, 0.0], "upper": [1.0, 1.0], "unsafe": [([1.0], 0.0)]})
