#!/usr/bin/python3
"""Writes the convolutional ONNX fixtures of tests/io/onnx_conv_test.cc into tests/fixtures/conv/.

Each model is built node by node together with its reference forward pass: numpy code written from the ONNX
operator definitions (explicit zero padding and loops over output positions and kernel taps), independent of
the C++ reader. expected.json holds, per file, a few inputs (uniform in [0, 1], flattened row-major) and the
reference outputs. Weights are DOUBLE, small and random from a fixed seed, so the reader must match to 1e-9.
Transposed convolutions are checked against a scatter-then-crop reference. The refused models (softmax, sigmoid,
bad attributes) are written alongside; max pooling, residual blocks and
the other piecewise-linear operators have their fixtures in tests/io/make_pwl_fixtures.py.
Usage: /usr/bin/python3 tests/io/make_conv_fixtures.py
"""
import json
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "conv")


def same_pads(size, kernel, stride, dilation, upper):
    """ONNX auto_pad SAME_UPPER/SAME_LOWER: output ceil(size / stride), the odd pixel after (upper) or before."""
    out = -(-size // stride)
    total = max(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - size)
    small = total // 2
    return (small, total - small) if upper else (total - small, small)


def ref_conv(x, w, b, strides, pads, dilations, group):
    """x [1,C,H,W], w [M,C/group,kh,kw], pads (top, left, bottom, right)."""
    xp = np.pad(x[0], ((0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    maps, per_group, kh, kw = w.shape
    oh = (xp.shape[1] - ((kh - 1) * dilations[0] + 1)) // strides[0] + 1
    ow = (xp.shape[2] - ((kw - 1) * dilations[1] + 1)) // strides[1] + 1
    y = np.zeros((maps, oh, ow))
    for m in range(maps):
        g = m // (maps // group)
        for i in range(oh):
            for j in range(ow):
                rows = i * strides[0] + dilations[0] * np.arange(kh)
                cols = j * strides[1] + dilations[1] * np.arange(kw)
                patch = xp[g * per_group:(g + 1) * per_group][:, rows][:, :, cols]
                y[m, i, j] = np.sum(patch * w[m]) + (b[m] if b is not None else 0.0)
    return y[None]


def ref_conv_transpose(x, w, b, strides, pads, dilations, output_padding, group):
    """x [1,C,H,W], w [C,M/group,kh,kw], pads (top, left, bottom, right): every input pixel scatters its kernel,
    scaled, into a full output of stride (in - 1) + (k - 1) dilation + 1 + output_padding, then pads are cropped."""
    channels, per_group, kh, kw = w.shape
    _, _, h, wd = x.shape
    full = np.zeros((per_group * group, strides[0] * (h - 1) + (kh - 1) * dilations[0] + 1 + output_padding[0],
                     strides[1] * (wd - 1) + (kw - 1) * dilations[1] + 1 + output_padding[1]))
    for c in range(channels):
        g = c // (channels // group)
        for i in range(h):
            for j in range(wd):
                rows = i * strides[0] + dilations[0] * np.arange(kh)
                cols = j * strides[1] + dilations[1] * np.arange(kw)
                full[g * per_group:(g + 1) * per_group, rows[:, None], cols[None, :]] += x[0, c, i, j] * w[c]
    y = full[:, pads[0]:full.shape[1] - pads[2], pads[1]:full.shape[2] - pads[3]]
    if b is not None:
        y = y + b[:, None, None]
    return y[None]


def ref_avgpool(x, kernel, strides, pads, include_pad):
    ones = np.pad(np.ones(x.shape[2:]), ((pads[0], pads[2]), (pads[1], pads[3])))
    xp = np.pad(x[0], ((0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[1] - kernel[0]) // strides[0] + 1
    ow = (xp.shape[2] - kernel[1]) // strides[1] + 1
    y = np.zeros((x.shape[1], oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = (slice(i * strides[0], i * strides[0] + kernel[0]), slice(j * strides[1], j * strides[1] + kernel[1]))
            count = kernel[0] * kernel[1] if include_pad else ones[win].sum()
            y[:, i, j] = xp[(slice(None),) + win].sum(axis=(1, 2)) / count
    return y[None]


class Net:
    """A graph under construction and its reference forward pass, one node (and one numpy step) at a time."""

    def __init__(self, input_shape, seed=0, opset=13):
        self.rng = np.random.default_rng(seed)
        self.input_shape = list(input_shape)
        self.opset = opset
        self.nodes, self.inits, self.steps = [], [], []
        self.current = "x"
        self.shape = list(input_shape)
        self.hidden = 0

    def name(self, prefix):
        return f"{prefix}{len(self.nodes)}"

    def const(self, array, prefix="c"):
        name = self.name(prefix) + f"_{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, step, shape, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, [self.current] + inputs, [out], name=out, **attrs))
        self.steps.append(step)
        self.current, self.shape = out, list(shape)
        return self

    def weights(self, *shape):
        return self.rng.uniform(-1, 1, shape) / np.sqrt(np.prod(shape[1:]))

    def conv(self, maps, kernel, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1), group=1, auto_pad=None):
        c, h, w = self.shape[1:]
        wt = self.weights(maps, c // group, kernel[0], kernel[1])
        b = self.rng.uniform(-0.2, 0.2, maps)
        if auto_pad is not None:
            top, bottom = same_pads(h, kernel[0], strides[0], dilations[0], auto_pad == "SAME_UPPER")
            left, right = same_pads(w, kernel[1], strides[1], dilations[1], auto_pad == "SAME_UPPER")
            pads_used = (top, left, bottom, right)
            attrs = {"auto_pad": auto_pad}
        else:
            pads_used = pads
            attrs = {"pads": list(pads)} if any(pads) else {}
        if strides != (1, 1):
            attrs["strides"] = list(strides)
        if dilations != (1, 1):
            attrs["dilations"] = list(dilations)
        if group != 1:
            attrs["group"] = group
        probe = ref_conv(np.zeros([1] + self.shape[1:]), wt, b, strides, pads_used, dilations, group)
        return self.node("Conv", [self.const(wt, "W"), self.const(b, "B")],
                         lambda x: ref_conv(x, wt, b, strides, pads_used, dilations, group), probe.shape,
                         kernel_shape=list(kernel), **attrs)

    def conv_transpose(self, maps, kernel, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1), output_padding=(0, 0),
                       group=1):
        c = self.shape[1]
        wt = self.weights(c, maps // group, kernel[0], kernel[1])
        b = self.rng.uniform(-0.2, 0.2, maps)
        attrs = {"kernel_shape": list(kernel)}
        for key, value, default in (("pads", pads, (0, 0, 0, 0)), ("strides", strides, (1, 1)),
                                    ("dilations", dilations, (1, 1)), ("output_padding", output_padding, (0, 0))):
            if tuple(value) != default:
                attrs[key] = list(value)
        if group != 1:
            attrs["group"] = group
        step = lambda x: ref_conv_transpose(x, wt, b, strides, pads, dilations, output_padding, group)  # noqa: E731
        probe = step(np.zeros([1] + self.shape[1:]))
        return self.node("ConvTranspose", [self.const(wt, "W"), self.const(b, "B")], step, probe.shape, **attrs)

    def relu(self):
        self.hidden += 1
        return self.node("Relu", [], lambda x: np.maximum(x, 0), self.shape)

    def batch_norm(self):
        c = self.shape[1]
        scale, bias = self.rng.uniform(0.5, 1.5, c), self.rng.uniform(-0.3, 0.3, c)
        mean, var = self.rng.uniform(-0.2, 0.2, c), self.rng.uniform(0.5, 2.0, c)
        eps = 1e-3
        view = (1, c) + (1,) * (len(self.shape) - 2)

        def step(x):
            return (x - mean.reshape(view)) / np.sqrt(var.reshape(view) + eps) * scale.reshape(view) + bias.reshape(view)

        return self.node("BatchNormalization", [self.const(scale), self.const(bias), self.const(mean),
                                                self.const(var)], step, self.shape, epsilon=eps)

    def avgpool(self, kernel, strides, pads=(0, 0, 0, 0), include_pad=0):
        probe = ref_avgpool(np.zeros(self.shape), kernel, strides, pads, include_pad)
        attrs = {"pads": list(pads)} if any(pads) else {}
        return self.node("AveragePool", [], lambda x: ref_avgpool(x, kernel, strides, pads, include_pad),
                         probe.shape, kernel_shape=list(kernel), strides=list(strides),
                         count_include_pad=include_pad, **attrs)

    def global_avgpool(self):
        shape = self.shape[:2] + [1] * (len(self.shape) - 2)
        return self.node("GlobalAveragePool", [], lambda x: x.mean(axis=(2, 3), keepdims=True), shape)

    def flatten(self):
        return self.node("Flatten", [], lambda x: x.reshape(1, -1), [1, int(np.prod(self.shape))], axis=1)

    def reshape_via_shape(self):
        """Shape -> Gather(0) -> Unsqueeze -> Concat with [-1] -> Reshape, as PyTorch exports x.view(x.size(0), -1)."""
        source = self.current
        n = len(self.nodes)
        self.nodes += [
            helper.make_node("Shape", [source], [f"shape{n}"]),
            helper.make_node("Gather", [f"shape{n}", self.const(np.array(0, np.int64), "i")], [f"batch{n}"], axis=0),
            helper.make_node("Unsqueeze", [f"batch{n}", self.const(np.array([0], np.int64), "axes")],
                             [f"batch1d{n}"]),
            helper.make_node("Concat", [f"batch1d{n}", self.const(np.array([-1], np.int64), "m")], [f"target{n}"],
                             axis=0),
            helper.make_node("Reshape", [source, f"target{n}"], [f"flat{n}"])]
        self.steps.append(lambda x: x.reshape(1, -1))
        self.current, self.shape = f"flat{n}", [1, int(np.prod(self.shape))]
        return self

    def reshape_to(self, shape):
        return self.node("Reshape", [self.const(np.array(shape, np.int64), "shape")],
                         lambda x: x.reshape(shape), shape)

    def gemm(self, n):
        w, b = self.weights(n, self.shape[1]), self.rng.uniform(-0.2, 0.2, n)
        return self.node("Gemm", [self.const(w, "W"), self.const(b, "B")], lambda x: x @ w.T + b, [1, n], transB=1)

    def model(self):
        graph = helper.make_graph(
            self.nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, self.input_shape)],
            [helper.make_tensor_value_info(self.current, TensorProto.DOUBLE, self.shape)], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 8
        return m

    def forward(self, x):
        for step in self.steps:
            x = step(x)
        return x


def good_models():
    """The accepted variants, name -> Net; ConvSmall-like sizes are in bench/conv_models.py."""
    nets = {}
    nets["conv_stride2"] = Net([1, 1, 8, 8], 1).conv(3, (3, 3), strides=(2, 2)).relu().flatten().gemm(2)
    nets["conv_pads"] = Net([1, 2, 6, 6], 2).conv(4, (3, 3), pads=(1, 0, 2, 1)).relu().flatten().gemm(3)
    nets["conv_same_upper"] = Net([1, 1, 7, 7], 3).conv(2, (3, 3), strides=(2, 2), auto_pad="SAME_UPPER") \
        .relu().flatten().gemm(2)
    nets["conv_same_lower"] = Net([1, 1, 6, 6], 4).conv(2, (4, 4), strides=(2, 2), auto_pad="SAME_LOWER") \
        .relu().flatten().gemm(2)
    nets["conv_dilation2"] = Net([1, 2, 9, 9], 5).conv(3, (3, 3), dilations=(2, 2), pads=(1, 1, 1, 1)) \
        .relu().flatten().gemm(2)
    nets["conv_groups2"] = Net([1, 4, 6, 6], 6).conv(6, (3, 3), group=2).relu().conv(4, (2, 2), group=2) \
        .relu().flatten().gemm(2)
    nets["conv_batchnorm"] = Net([1, 2, 7, 7], 7).conv(4, (3, 3), strides=(2, 2)).batch_norm().relu() \
        .flatten().batch_norm().gemm(3)
    nets["avgpool"] = Net([1, 1, 8, 8], 8).conv(3, (3, 3), pads=(1, 1, 1, 1)).relu() \
        .avgpool((2, 2), (2, 2)).flatten().gemm(2)
    nets["avgpool_pads"] = Net([1, 2, 7, 7], 9).conv(2, (2, 2)).relu() \
        .avgpool((3, 3), (2, 2), pads=(1, 1, 1, 1), include_pad=0).flatten().gemm(2)
    nets["avgpool_count_pad"] = Net([1, 2, 7, 7], 10).conv(2, (2, 2)).relu() \
        .avgpool((3, 3), (2, 2), pads=(1, 0, 1, 1), include_pad=1).flatten().gemm(2)
    # A convolution of a pooled layer: its input rows are sparse (a few taps each), the reader's sparse product.
    nets["avgpool_conv"] = Net([1, 1, 8, 8], 12).conv(3, (3, 3), pads=(1, 1, 1, 1)).relu() \
        .avgpool((2, 2), (2, 2)).conv(4, (3, 3), pads=(1, 1, 1, 1)).relu().flatten().gemm(2)
    nets["global_avgpool"] = Net([1, 1, 6, 6], 11).conv(4, (3, 3)).relu().global_avgpool().flatten().gemm(2)
    nets["reshape_shape_gather_concat"] = Net([1, 1, 6, 6], 12).conv(2, (3, 3), strides=(2, 2)).relu() \
        .reshape_via_shape().gemm(4).relu().gemm(2)
    nets["input_1x1x1x5"] = Net([1, 1, 1, 5], 13).conv(3, (1, 3)).relu().flatten().gemm(2)
    nets["opset11_conv"] = Net([1, 1, 5, 5], 14, opset=11).conv(2, (2, 2)).relu().flatten().gemm(1)
    nets["normalized_conv"] = normalized(Net([1, 3, 5, 5], 16)).conv(2, (3, 3), pads=(1, 1, 1, 1)).relu() \
        .flatten().gemm(2)
    return nets


def normalized(net):
    """(x - mean) / std per channel, as image models take their input."""
    view = [1, net.shape[1]] + [1] * (len(net.shape) - 2)
    mean, std = net.rng.uniform(0.2, 0.6, view), net.rng.uniform(0.2, 0.4, view)
    net.node("Sub", [net.const(mean)], lambda x: x - mean, net.shape)
    return net.node("Div", [net.const(std)], lambda x: x / std, net.shape)


def pad_slice_cast_dropout():
    """x [1,1,4,4] -> Pad (1 all round, value 0) -> Slice rows 1.. step 2 -> Cast to DOUBLE -> Dropout -> Conv."""
    net = Net([1, 1, 4, 4], 15)
    net.node("Pad", [net.const(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads")],
             lambda x: np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), [1, 1, 6, 6], mode="constant")
    net.node("Slice", [net.const(np.array([1], np.int64), "s"), net.const(np.array([2 ** 63 - 1], np.int64), "e"),
                       net.const(np.array([2], np.int64), "a"), net.const(np.array([2], np.int64), "st")],
             lambda x: x[:, :, 1::2], [1, 1, 3, 6])
    net.node("Cast", [], lambda x: x, net.shape, to=TensorProto.DOUBLE)
    net.node("Dropout", [], lambda x: x, net.shape)
    return net.conv(2, (2, 2)).relu().flatten().gemm(2)


def slice_huge_steps():
    """x [1,1,6,6] -> Slice with steps of 2^63 - 1 and -2^63 (one element each) -> Conv: the count of elements a
    step past the axis takes stays within int64."""
    net = Net([1, 1, 6, 6], 16)
    net.node("Slice", [net.const(np.array([0, 5, 0], np.int64), "s"),
                       net.const(np.array([2 ** 63 - 1, -2 ** 63, 2 ** 63 - 1], np.int64), "e"),
                       net.const(np.array([2, 3, 1], np.int64), "a"),
                       net.const(np.array([2 ** 63 - 1, -2 ** 63, 2 ** 62], np.int64), "st")],
             lambda x: x[:, 0::2 ** 62, 0::2 ** 63 - 1, 5::-2 ** 63], [1, 1, 1, 1])
    return net.conv(2, (1, 1)).relu().flatten().gemm(2)


def refused_models():
    """Models the reader refuses, name -> (ModelProto, words its one-line error must hold)."""
    bad = {}
    net = Net([1, 1, 4, 4], 22).conv(2, (3, 3)).relu().flatten().gemm(3)
    net.node("Softmax", [], None, net.shape, axis=1)
    bad["softmax"] = (net.model(), ["Softmax", "smooth activation"])
    net = Net([1, 1, 4, 4], 23).conv(2, (3, 3))
    net.node("Sigmoid", [], None, net.shape)
    bad["sigmoid"] = (net.flatten().gemm(1).model(), ["Sigmoid", "smooth activation"])
    net = Net([1, 2, 4, 4], 24).conv(2, (3, 3))
    net.nodes[-1].attribute.append(helper.make_attribute("group", 3))
    bad["conv_bad_group"] = (net.relu().flatten().gemm(1).model(), ["inconsistent shapes", "Conv", "3 groups"])
    net = Net([1, 1, 3, 3], 27).conv_transpose(2, (3, 3), strides=(2, 2))
    net.nodes[-1].attribute.append(helper.make_attribute("output_shape", [7, 7]))
    bad["convtranspose_output_shape"] = (net.relu().flatten().gemm(1).model(), ["output_shape", "ConvTranspose"])
    return bad


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(1234)
    expected = {}
    nets = good_models()
    nets["pad_slice_cast_dropout"] = pad_slice_cast_dropout()
    nets["slice_huge_steps"] = slice_huge_steps()
    # Transposed convolutions (a cGAN generator's upsampling): stride and cropped pads, output padding and
    # dilation, groups, after a fully connected layer (dense rows) as a generator starts.
    nets["convtranspose_stride2"] = Net([1, 2, 3, 3], 30).conv_transpose(3, (3, 3), strides=(2, 2), pads=(1, 1, 1, 1)) \
        .relu().flatten().gemm(2)
    nets["convtranspose_outpad_dilation"] = Net([1, 1, 3, 4], 31) \
        .conv_transpose(2, (2, 3), strides=(2, 3), pads=(0, 1, 1, 0), dilations=(2, 1), output_padding=(1, 2)) \
        .relu().flatten().gemm(2)
    nets["convtranspose_groups_after_gemm"] = Net([1, 4], 32).gemm(18).relu().reshape_to([1, 2, 3, 3]) \
        .conv_transpose(4, (2, 2), strides=(2, 2), group=2).relu().conv(2, (3, 3)).relu().flatten().gemm(2)
    for name, net in nets.items():
        file = name + ".onnx"
        with open(os.path.join(OUT, file), "wb") as f:
            f.write(net.model().SerializeToString())
        inputs = [rng.uniform(0, 1, net.input_shape) for _ in range(3)]
        expected[file] = {"num_hidden_layers": net.hidden,
                          "inputs": [x.ravel().tolist() for x in inputs],
                          "outputs": [net.forward(x).ravel().tolist() for x in inputs]}
    for name, (model, words) in refused_models().items():
        with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
            f.write(model.SerializeToString())
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
