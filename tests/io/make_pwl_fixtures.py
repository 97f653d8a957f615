#!/usr/bin/python3
"""Writes the piecewise-linear and residual ONNX fixtures of tests/io/onnx_pwl_test.cc into tests/fixtures/pwl/.

Each model is a graph built node by node with its reference forward pass in numpy, written from the ONNX
operator definitions (MaxPool by loops over windows, Clip as numpy's clip, residual branches as named tensors),
independent of the C++ reader. expected.json holds, per file, a few inputs (uniform in [-1, 1], flattened
row-major) and the reference outputs. Weights are DOUBLE, small and random from a fixed seed, so the reader must
match to 1e-9. The refused models (smooth activations) are written alongside.
Usage: /usr/bin/python3 tests/io/make_pwl_fixtures.py
"""
import json
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "pwl")


def ref_maxpool(x, kernel, strides, pads):
    """x [1,C,H,W], pads (top, left, bottom, right); padding never wins a window."""
    xp = np.pad(x[0], ((0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=-np.inf)
    oh = (xp.shape[1] - kernel[0]) // strides[0] + 1
    ow = (xp.shape[2] - kernel[1]) // strides[1] + 1
    y = np.zeros((x.shape[1], oh, ow))
    for i in range(oh):
        for j in range(ow):
            y[:, i, j] = xp[:, i * strides[0]:i * strides[0] + kernel[0],
                            j * strides[1]:j * strides[1] + kernel[1]].max(axis=(1, 2))
    return y[None]


def ref_conv(x, w, b, pads):
    xp = np.pad(x[0], ((0, 0), (pads, pads), (pads, pads)))
    maps, _, kh, kw = w.shape
    oh, ow = xp.shape[1] - kh + 1, xp.shape[2] - kw + 1
    y = np.zeros((maps, oh, ow))
    for m in range(maps):
        for i in range(oh):
            for j in range(ow):
                y[m, i, j] = np.sum(xp[:, i:i + kh, j:j + kw] * w[m]) + b[m]
    return y[None]


class Graph:
    """Nodes over named tensors and the numpy function of each, evaluated in order on a dict of tensors."""

    def __init__(self, input_shape, seed, opset=13):
        self.rng = np.random.default_rng(seed)
        self.input_shape = list(input_shape)
        self.opset = opset
        self.nodes, self.inits, self.steps, self.shapes = [], [], [], {"x": list(input_shape)}

    def const(self, array):
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(array, dtype=np.float64), name))
        return name

    def op(self, op, inputs, fn, shape, consts=(), **attrs):
        """Adds a node of `inputs` (tensor names) then `consts` (arrays); fn maps the input tensors to the output."""
        out = f"t{len(self.nodes)}"
        names = list(inputs) + [self.const(c) if c is not None else "" for c in consts]
        self.nodes.append(helper.make_node(op, names, [out], name=out, **attrs))
        self.steps.append((out, list(inputs), fn))
        self.shapes[out] = list(shape)
        return out

    def gemm(self, a, n):
        k = self.shapes[a][1]
        w, b = self.rng.uniform(-1, 1, (n, k)) / np.sqrt(k), self.rng.uniform(-0.3, 0.3, n)
        return self.op("Gemm", [a], lambda x: x @ w.T + b, [1, n], consts=(w, b), transB=1)

    def conv(self, a, maps, kernel=3, pads=1):
        c, h, wd = self.shapes[a][1:]
        w = self.rng.uniform(-1, 1, (maps, c, kernel, kernel)) / np.sqrt(c * kernel * kernel)
        b = self.rng.uniform(-0.2, 0.2, maps)
        shape = [1, maps, h + 2 * pads - kernel + 1, wd + 2 * pads - kernel + 1]
        return self.op("Conv", [a], lambda x: ref_conv(x, w, b, pads), shape, consts=(w, b),
                       kernel_shape=[kernel, kernel], pads=[pads] * 4)

    def unary(self, op, a, fn, consts=(), **attrs):
        return self.op(op, [a], fn, self.shapes[a], consts=consts, **attrs)

    def flatten(self, a):
        return self.op("Flatten", [a], lambda x: x.reshape(1, -1), [1, int(np.prod(self.shapes[a]))], axis=1)

    def model(self, output):
        graph = helper.make_graph(
            self.nodes, "pwl", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, self.input_shape)],
            [helper.make_tensor_value_info(output, TensorProto.DOUBLE, self.shapes[output])], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 8
        self.output = output
        return m

    def forward(self, x):
        env = {"x": x}
        for out, inputs, fn in self.steps:
            env[out] = fn(*[env[i] for i in inputs])
        return env[self.output]


def relu(x):
    return np.maximum(x, 0)


def dense_models():
    """Piecewise-linear activations between dense layers: name -> (Graph, output name)."""
    nets = {}
    g = Graph([1, 4], 1)
    h = g.unary("LeakyRelu", g.gemm("x", 6), lambda x: np.where(x > 0, x, 0.1 * x), alpha=0.1)
    nets["leaky_relu"] = (g, g.gemm(h, 2))
    g = Graph([1, 4], 2)
    slope = g.rng.uniform(-0.5, 0.5, 6)
    h = g.op("PRelu", [g.gemm("x", 6)], lambda x: np.where(x > 0, x, slope * x), [1, 6], consts=(slope,))
    nets["prelu"] = (g, g.gemm(h, 2))
    g = Graph([1, 4], 3)
    h = g.gemm("x", 6)
    h = g.op("Mul", [h], lambda x: 4 * x, [1, 6], consts=(np.array(4.0),))
    h = g.op("Clip", [h], lambda x: np.clip(x, 0, 6), [1, 6], consts=(np.array(0.0), np.array(6.0)))
    nets["clip_relu6"] = (g, g.gemm(h, 2))
    g = Graph([1, 4], 4, opset=9)
    h = g.unary("Clip", g.gemm("x", 6), lambda x: np.clip(x, -0.25, 0.25), min=-0.25, max=0.25)
    nets["clip_hardtanh_opset9"] = (g, g.gemm(h, 2))
    g = Graph([1, 4], 5)
    h = g.op("Clip", [g.gemm("x", 6)], lambda x: np.minimum(x, 0.1), [1, 6], consts=(None, np.array(0.1)))
    nets["clip_max_only"] = (g, g.gemm(h, 2))
    g = Graph([1, 4], 6)
    h = g.unary("HardSigmoid", g.gemm("x", 6), lambda x: np.clip(2 * x + 0.5, 0, 1), alpha=2.0, beta=0.5)
    nets["hard_sigmoid"] = (g, g.gemm(h, 2))
    g = Graph([1, 4], 7)
    h = g.unary("Abs", g.gemm("x", 6), np.abs)
    nets["abs"] = (g, g.gemm(h, 2))
    g = Graph([1, 4], 8)
    a, b = g.gemm("x", 5), g.gemm("x", 5)
    c = g.const(np.linspace(-0.2, 0.2, 5))
    m = g.op("Max", [a, b], np.maximum, [1, 5])
    n = g.op("Min", [a, b, m], lambda p, q, r: np.minimum(np.minimum(p, q), r), [1, 5])
    n = g.op("Max", [n], lambda p: np.maximum(p, np.linspace(-0.2, 0.2, 5)), [1, 5])
    g.nodes[-1].input.append(c)
    s = g.op("Sub", [m, n], lambda p, q: p - q, [1, 5])
    nets["max_min_of_branches"] = (g, g.gemm(s, 2))
    g = Graph([1, 6], 43)  # bench/pwl_verify.py's leaky model; its MIP proof is a regression test of CBC's cutoff
    h = g.unary("LeakyRelu", g.gemm("x", 16), lambda x: np.where(x > 0, x, 0.1 * x), alpha=0.1)
    h = g.op("Clip", [g.gemm(h, 16)], lambda x: np.clip(x, 0, 1), [1, 16], consts=(np.array(0.0), np.array(1.0)))
    h = g.unary("Abs", g.gemm(h, 8), np.abs)
    nets["leaky_clip_abs"] = (g, g.gemm(h, 3))
    return nets


def image_models():
    """Max pooling and residual blocks on small images: name -> (Graph, output name)."""
    nets = {}
    g = Graph([1, 1, 6, 6], 11)
    h = g.unary("Relu", g.conv("x", 2), relu)
    p = g.op("MaxPool", [h], lambda x: ref_maxpool(x, (2, 2), (2, 2), (0, 0, 0, 0)), [1, 2, 3, 3],
             kernel_shape=[2, 2], strides=[2, 2])
    nets["maxpool"] = (g, g.gemm(g.flatten(p), 3))
    g = Graph([1, 1, 5, 5], 12)
    h = g.conv("x", 2)
    p = g.op("MaxPool", [h], lambda x: ref_maxpool(x, (3, 3), (2, 2), (1, 1, 1, 1)), [1, 2, 3, 3],
             kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    nets["maxpool_pads_stride2"] = (g, g.gemm(g.flatten(p), 2))
    g = Graph([1, 2, 4, 4], 13)
    h = g.unary("Relu", g.conv("x", 3), relu)
    p = g.op("GlobalMaxPool", [h], lambda x: x.max(axis=(2, 3), keepdims=True), [1, 3, 1, 1])
    nets["global_maxpool"] = (g, g.gemm(g.flatten(p), 2))
    g = Graph([1, 1, 4, 4], 14)
    stem = g.unary("Relu", g.conv("x", 2), relu)
    for _ in range(2):  # two residual blocks: relu(x + conv(relu(conv(x))))
        inner = g.unary("Relu", g.conv(stem, 2), relu)
        stem = g.unary("Relu", g.op("Add", [stem, g.conv(inner, 2)], lambda p, q: p + q, g.shapes[stem]), relu)
    nets["resnet_two_blocks"] = (g, g.gemm(g.flatten(stem), 3))
    g = Graph([1, 4], 15)
    a = g.unary("Relu", g.gemm("x", 4), relu)
    b = g.unary("Relu", g.gemm(a, 4), relu)
    joined = g.op("Concat", [a, b, "x"], lambda p, q, r: np.concatenate([p, q, r], axis=1), [1, 12], axis=1)
    d = g.op("Sub", [g.gemm(joined, 4), a], lambda p, q: p - q, [1, 4])
    nets["concat_sub_skip"] = (g, g.gemm(d, 2))
    return nets


def refused_models():
    """Models the reader refuses, name -> ModelProto."""
    bad = {}
    for op in ("Sigmoid", "Tanh"):
        g = Graph([1, 4], 30)
        h = g.unary(op, g.gemm("x", 3), None)
        bad[op.lower()] = g.model(g.gemm(h, 1))
    return bad


def write_fixtures(out, nets, refused, seed):
    """Writes each (Graph, output) of `nets` with 4 inputs from `seed` and its reference outputs into
    out/expected.json, and each refused ModelProto beside them."""
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(seed)
    expected = {}
    for name, (g, output) in nets.items():
        file = name + ".onnx"
        with open(os.path.join(out, file), "wb") as f:
            f.write(g.model(output).SerializeToString())
        inputs = [rng.uniform(-1, 1, g.input_shape) for _ in range(4)]
        expected[file] = {"inputs": [x.ravel().tolist() for x in inputs],
                          "outputs": [g.forward(x).ravel().tolist() for x in inputs]}
    for name, model in refused.items():
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(model.SerializeToString())
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


def main():
    write_fixtures(OUT, {**dense_models(), **image_models()}, refused_models(), 4321)


if __name__ == "__main__":
    main()
