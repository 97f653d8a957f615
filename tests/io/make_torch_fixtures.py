#!/usr/bin/env python3
"""Writes the PyTorch exports of tests/io/onnx_opset_test.cc into tests/fixtures/torch/: a small residual network
(Conv, BatchNormalization, MaxPool, a residual Add, Linear) exported as today's PyTorch exports it, by the dynamo
exporter (the default of torch.onnx.export in torch 2.13) at opsets 18 and 20 and with a dynamic batch, and as
2019-2021 PyTorch exported it, by the TorchScript exporter at opsets 9 and 11 with a dynamic batch dimension, which
writes x.view(x.size(0), -1) as Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Linear on a 3-D tensor as MatMul
+ Add and x @ w.t() + b without constant folding as Transpose -> MatMul -> Add; size arithmetic (x.size(1) // 2 as
an int64 Div and Casts); max reductions as the dynamo exporter writes them (ReduceMax, ReduceMin). The dynamo
exporter writes the weights to a file beside the model by default (external data); one export keeps that form.

expected.json holds, per file, a few inputs (uniform in [-1, 1], flattened row-major) and torch's outputs in double
precision on the same (float32) weights, which the reader, reading the weights as doubles, must reproduce to 1e-6
(both exporters may fold BatchNormalization into the convolution as float32 weights, a change of up to 3e-8 here);
the float32 outputs torch gives are within 1e-5 of them. The tests read the files alone and need no torch.
Usage (torch and onnxscript, e.g. in a scratch venv): python tests/io/make_torch_fixtures.py
"""
import json
import os
import warnings

import numpy as np
import onnx
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "torch")


class ResidualNet(torch.nn.Module):
    """conv -> BN -> relu -> maxpool, a residual block relu(h + BN(conv(h))), then Linear (flatten by view)."""

    def __init__(self, old_style):
        super().__init__()
        self.old_style = old_style
        self.conv1 = torch.nn.Conv2d(2, 4, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(4)
        self.pool = torch.nn.MaxPool2d(2)
        self.conv2 = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(4)
        self.row = torch.nn.Linear(4, 5)  # on each of the 16 pixels: MatMul + Add
        self.w = torch.nn.Parameter(torch.randn(3, 80) / 9)
        self.b = torch.nn.Parameter(torch.randn(3) / 10)
        for bn in (self.bn1, self.bn2):  # statistics of a trained network, not the initial ones
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.uniform_(-0.3, 0.3)

    def forward(self, x):
        h = self.pool(torch.relu(self.bn1(self.conv1(x))))
        h = torch.relu(h + self.bn2(self.conv2(h)))
        if self.old_style:
            h = torch.relu(self.row(h.permute(0, 2, 3, 1).reshape(x.size(0), 16, 4)))
            return torch.matmul(h.view(h.size(0), -1), self.w.t()) + self.b
        return torch.nn.functional.linear(torch.relu(self.row(h.permute(0, 2, 3, 1))).flatten(1), self.w, self.b)


class SizeArithmetic(torch.nn.Module):
    """The size arithmetic of 2019-2021 models: x.view(x.size(0), x.size(1) // 2, -1) (Shape, Gather, an int64 Div,
    Cast), a sum, view(int(h.size(0)), -1), repeat (ConstantOfShape, Expand, Tile) and a Dropout in eval mode."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(12, 3)
        self.drop = torch.nn.Dropout(0.3)

    def forward(self, x):
        h = torch.relu(x)
        h = h.view(h.size(0), h.size(1) // 2, -1).sum(1)
        h = h.view(int(h.size(0)), -1)
        return self.fc(self.drop(h.repeat(1, 2)))


class MaxReductions(torch.nn.Module):
    """amax, adaptive_max_pool2d(x, 1), torch.max(x, dim).values and amin, which the dynamo exporter writes as
    ReduceMax and ReduceMin."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1)
        self.fc = torch.nn.Linear(12, 2)

    def forward(self, x):
        h = torch.relu(self.conv(x))
        parts = [h.amax(dim=(2, 3)), torch.nn.functional.adaptive_max_pool2d(h, 1).flatten(1),
                 torch.max(h.flatten(2), dim=2).values, self.conv(x).amin(dim=(2, 3))]
        return self.fc(torch.cat(parts, dim=1))


def export(model, x, path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"], **options)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(2021)
    batch = {"x": {0: "batch"}, "y": {0: "batch"}}
    residual = (lambda: ResidualNet(False), (1, 2, 8, 8))
    old_residual = (lambda: ResidualNet(True), (1, 2, 8, 8))
    exports = {  # name: ((model, input shape), export options)
        "dynamo_opset18_unoptimized": (residual, dict(dynamo=True, opset_version=18, optimize=False,
                                                      external_data=False)),
        "dynamo_default": (residual, dict(dynamo=True, external_data=False)),
        "dynamo_dynamic_batch": (residual, dict(dynamo=True, external_data=False,
                                                dynamic_shapes={"x": {0: torch.export.Dim("batch")}})),
        "torchscript_opset9_view": (old_residual, dict(dynamo=False, opset_version=9, dynamic_axes=batch)),
        "torchscript_opset11_unfolded": (old_residual, dict(dynamo=False, opset_version=11, dynamic_axes=batch,
                                                            do_constant_folding=False)),
        "dynamo_external_data": (residual, dict(dynamo=True)),  # the weights in dynamo_external_data.onnx.data
        "torchscript_opset9_size_arithmetic": ((SizeArithmetic, (1, 4, 3)),
                                               dict(dynamo=False, opset_version=9, dynamic_axes=batch)),
        "dynamo_max_reductions": ((MaxReductions, (1, 2, 5, 5)), dict(dynamo=True, external_data=False)),
    }
    rng = np.random.default_rng(2021)
    expected = {}
    for name, ((make, shape), options) in exports.items():
        model = make().eval()
        x = torch.rand(*shape) * 2 - 1
        path = os.path.join(OUT, name + ".onnx")
        export(model, x, path, **options)
        onnx.checker.check_model(onnx.load(path))
        inputs = [rng.uniform(-1, 1, shape) for _ in range(3)]
        double = model.double()
        with torch.no_grad():
            outputs = [double(torch.from_numpy(a)).numpy() for a in inputs]
            single = [model.float()(torch.from_numpy(a).float()).numpy() for a in inputs]
        assert max(np.abs(o - s).max() for o, s in zip(outputs, single)) < 1e-5, name
        expected[name + ".onnx"] = {"inputs": [a.ravel().tolist() for a in inputs],
                                    "outputs": [o.ravel().tolist() for o in outputs]}
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
