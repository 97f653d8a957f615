#!/usr/bin/env python3
"""Writes the ONNX fixtures of tests/io/onnx_opset_test.cc into tests/fixtures/opset/: every form that the accepted
operators gained in opsets 18 to 28 (the axes input of ReduceMean, ReduceMax and ReduceMin, Split's num_outputs,
Pad's axes input and wrap mode, Resize's axes, keep_aspect_ratio_policy and half_pixel_symmetric, AveragePool's
dilations), ReduceMax and ReduceMin (opsets 13 to 20), MaxPool's and AveragePool's partial ceil_mode windows
(checked against PyTorch too), Dropout's ratio and training_mode inputs, CastLike, integer
Div and the Constant forms of shape computations, and a model at opset 28.

Each model is built node by node (make_pwl_fixtures.Graph) with its reference forward pass in numpy, written from
the ONNX operator definitions, independent of the C++ reader; each reference is also checked against onnx's own
reference evaluator (onnx.reference, onnx 1.23), so the script needs that onnx: run it with the Python package's
.venv. expected.json holds, per file, a few inputs (uniform in [-1, 1], flattened row-major) and the reference
outputs; weights are DOUBLE, so the reader must match to 1e-9. The refused models are written alongside.
Usage: .venv/bin/python tests/io/make_opset_fixtures.py
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_ops_fixtures  # noqa: E402
from make_ops_fixtures import floats, ints, node  # noqa: E402
from make_pwl_fixtures import Graph, relu, write_fixtures  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "opset")


class OpsetGraph(Graph):
    """A Graph whose model carries the IR version that its opset needs (IR 8 holds opsets up to 17 only)."""

    def model(self, output):
        m = super().model(output)
        m.ir_version = helper.find_min_ir_version_for([helper.make_opsetid("", self.opset)])
        return m


def conv_relu(g, a, maps):
    return g.unary("Relu", g.conv(a, maps), relu)


def bool_const(g, value):
    name = f"c{len(g.inits)}"
    g.inits.append(numpy_helper.from_array(np.array(value, dtype=np.bool_), name))
    return name


def reduce_split_models():
    nets = {}
    g = OpsetGraph([1, 2, 3, 4], 201, opset=18)  # ReduceMean-18: axes as an input (negative), keepdims=0
    h = conv_relu(g, "x", 3)
    m = node(g, "ReduceMean", [h], lambda x: x.mean(axis=(1, 3)), [1, 3], extra=[ints(g, [1, -1])], keepdims=0)
    same = g.op("ReduceMean", [m], lambda x: x, [1, 3], noop_with_empty_axes=1)
    nets["reduce_mean_axes_input_opset18"] = (g, g.gemm(same, 2))
    g = OpsetGraph([1, 4], 202, opset=18)  # Split-18 into num_outputs parts of ceil(7 / 3): 3, 3 and the last 1
    h = g.gemm("x", 7)
    outs = ["s0", "s1", "s2"]
    g.nodes.append(helper.make_node("Split", [h], outs, name="split", axis=1, num_outputs=3))
    for out, (lo, hi) in zip(outs, ((0, 3), (3, 6), (6, 7))):
        g.steps.append((out, [h], lambda x, lo=lo, hi=hi: x[:, lo:hi]))
        g.shapes[out] = [1, hi - lo]
    a = g.unary("Relu", outs[0], relu)  # one part across a ReLU, the others carried past it
    s = g.op("Add", [a, outs[1]], lambda p, q: p + q, [1, 3])
    c = g.op("Concat", [s, outs[2]], lambda p, q: np.concatenate([p, q], axis=1), [1, 4], axis=1)
    nets["split_num_outputs_opset18"] = (g, g.gemm(c, 2))
    return nets


def extremum_models():
    nets = {}
    g = OpsetGraph([1, 2, 3, 4], 205, opset=13)  # ReduceMax/ReduceMin with axes as attributes (negative), keepdims
    h = g.conv("x", 3)
    a = g.unary("ReduceMax", h, lambda x: x.max(axis=(2, 3), keepdims=True), axes=[-2, -1])
    g.shapes[a] = [1, 3, 1, 1]
    b = g.unary("ReduceMin", h, lambda x: x.min(axis=1), axes=[1], keepdims=0)
    g.shapes[b] = [1, 3, 4]
    c = g.op("Concat", [g.flatten(a), g.flatten(b)], lambda p, q: np.concatenate([p, q], axis=1), [1, 15], axis=1)
    nets["reduce_max_min_opset13"] = (g, g.gemm(c, 2))
    g = OpsetGraph([1, 5, 3], 206, opset=18)  # axes as an input, none (every axis), and noop_with_empty_axes
    h = g.unary("Relu", g.op("MatMul", ["x"], lambda x: x @ np.eye(3)[::-1], [1, 5, 3], consts=(np.eye(3)[::-1],)),
                relu)
    a = node(g, "ReduceMax", [h], lambda x: x.max(axis=-1), [1, 5], extra=[ints(g, [-1])], keepdims=0)
    total = g.op("ReduceMin", [a], lambda x: x.min(keepdims=True), [1, 1])
    same = g.op("ReduceMin", [a], lambda x: x, [1, 5], noop_with_empty_axes=1)
    nets["reduce_max_min_axes_input_opset18"] = (g, g.gemm(g.op("Sub", [same, total], lambda p, q: p - q, [1, 5]), 2))
    g = OpsetGraph([1, 2, 2, 3], 207, opset=20)  # the global maximum of each channel as dynamo writes amax
    h = g.conv("x", 2)
    a = node(g, "ReduceMax", [h], lambda x: x.max(axis=(2, 3)), [1, 2], extra=[ints(g, [2, 3])], keepdims=0)
    nets["reduce_max_opset20"] = (g, g.gemm(a, 2))
    return nets


def pad_models():
    nets = {}
    g = OpsetGraph([1, 2, 3, 3], 211, opset=18)  # Pad-18 with an axes input (one negative) and a constant value
    h = conv_relu(g, "x", 2)
    fill = g.const(np.array(0.75))
    p = node(g, "Pad", [h], lambda x: np.pad(x, ((0, 0), (0, 0), (1, 2), (0, 1)), constant_values=0.75),
             [1, 2, 6, 4], extra=[ints(g, [1, 0, 2, 1]), fill, ints(g, [2, -1])])
    nets["pad_axes_input_opset18"] = (g, g.gemm(g.flatten(p), 2))
    g = OpsetGraph([1, 1, 2, 3], 212, opset=19)  # wrap mode, pads past the axis's length (a torus)
    h = conv_relu(g, "x", 2)
    p = node(g, "Pad", [h], lambda x: np.pad(x, ((0, 0), (0, 0), (3, 2), (4, 1)), mode="wrap"),
             [1, 2, 7, 8], extra=[ints(g, [0, 0, 3, 4, 0, 0, 2, 1])], mode="wrap")
    nets["pad_wrap_opset19"] = (g, g.gemm(g.flatten(p), 2))
    return nets


def nearest_source(x, n, m, scale, transform, rounding="round_prefer_floor"):
    """Resize's input index for output index x on an axis (ONNX operator docs): make_ops_fixtures' coordinate
    formulas and rounding, and half_pixel_symmetric (opset 19)."""
    if transform != "half_pixel_symmetric":
        return make_ops_fixtures.nearest_source(x, n, m, scale, transform, rounding)
    c = (n / 2) * (1 - m / (scale * n)) + (x + 0.5) / scale - 0.5
    r = math.floor(c) if c - math.floor(c) <= 0.5 else math.ceil(c)  # round_prefer_floor
    return min(max(int(r), 0), n - 1)


def ref_resize(x, axes, out, scales, transform, rounding="round_prefer_floor"):
    """Nearest resampling of the given axes, one at a time; the other axes keep their elements."""
    for axis, m, s in zip(axes, out, scales):
        n = x.shape[axis]
        x = np.take(x, [nearest_source(i, n, m, s, transform, rounding) for i in range(m)], axis=axis)
    return x


def resize_models():
    nets = {}
    # Resize-18 with axes [3, 2] (in that order) and sizes under keep_aspect_ratio_policy: not_larger scales both
    # axes by min(7/4, 4/3) = 4/3 to lengths round(4/3 * 3) = 4 and round(4/3 * 4) = 5; not_smaller by 7/4.
    for policy, s in (("not_larger", 4 / 3), ("not_smaller", 7 / 4)):
        g = OpsetGraph([1, 2, 3, 4], 220 + len(nets), opset=18)
        h = conv_relu(g, "x", 2)
        out = [int(s * 3 + 0.5), int(s * 4 + 0.5)]
        fn = (lambda x, out=out, s=s: ref_resize(x, [2, 3], out, [s, s], "half_pixel"))
        y = node(g, "Resize", [h], fn, [1, 2] + out, extra=["", "", ints(g, [7, 4])], mode="nearest",
                 axes=[3, 2], keep_aspect_ratio_policy=policy)
        nets[f"resize_axes_{policy}_opset18"] = (g, g.gemm(g.flatten(y), 2))
    # Resize-19's half_pixel_symmetric with scales whose output lengths are fractional (3 x 1.7 = 5.1 -> 5), over the
    # axes [2, 3] given with an axes attribute; the batch and channel axes keep their lengths
    g = OpsetGraph([1, 2, 3, 4], 225, opset=19)
    h = conv_relu(g, "x", 2)
    name, scales = floats(g, [1.7, 0.6])
    out = [int(3 * scales[0]), int(4 * scales[1])]
    fn = (lambda x: ref_resize(x, [2, 3], out, scales, "half_pixel_symmetric"))
    y = node(g, "Resize", [h], fn, [1, 2] + out, extra=["", name], mode="nearest", axes=[2, 3],
             coordinate_transformation_mode="half_pixel_symmetric")
    nets["resize_half_pixel_symmetric_opset19"] = (g, g.gemm(g.flatten(y), 2))
    return nets


def ref_average_pool(x, kernel, dilations, pads, count_include_pad):
    """x [1,C,H,W], stride 1, pads (top, left, bottom, right): the mean of each dilated window's taps."""
    xp = np.pad(x[0], ((0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=np.nan)
    span = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    oh, ow = xp.shape[1] - span[0] + 1, xp.shape[2] - span[1] + 1
    y = np.zeros((x.shape[1], oh, ow))
    for i in range(oh):
        for j in range(ow):
            taps = xp[:, i:i + span[0]:dilations[0], j:j + span[1]:dilations[1]].reshape(x.shape[1], -1)
            count = taps.shape[1] if count_include_pad else (~np.isnan(taps)).sum(axis=1)
            y[:, i, j] = np.nansum(taps, axis=1) / count
    return y[None]


def ref_max_pool_ceil(x, kernel, strides, pads, dilations):
    """x [1,C,H,W] max-pooled with ceil_mode=1: the output lengths rounded up, a window that would start in the right
    padding dropped, each window's taps inside the input (ONNX's MaxPool-22 text, PyTorch's rule)."""
    lengths = []
    for n, k, s, (before, after), d in zip(x.shape[2:], kernel, strides, pads, dilations):
        out = math.ceil((n + before + after - (k - 1) * d - 1) / s) + 1
        lengths.append(out - 1 if (out - 1) * s >= n + before else out)
    y = np.zeros((1, x.shape[1], *lengths))
    for i in range(lengths[0]):
        for j in range(lengths[1]):
            rows = [r for r in (i * strides[0] - pads[0][0] + t * dilations[0] for t in range(kernel[0]))
                    if 0 <= r < x.shape[2]]
            cols = [c for c in (j * strides[1] - pads[1][0] + t * dilations[1] for t in range(kernel[1]))
                    if 0 <= c < x.shape[3]]
            y[0, :, i, j] = x[0][:, rows][:, :, cols].max(axis=(1, 2))
    return y


def ref_average_pool_ceil(x, kernel, strides, pads, count_include_pad):
    """x [1,C,H,W] average-pooled with ceil_mode=1 (windows as ref_max_pool_ceil's): the sum of each window's taps in
    the input over their number, or with count_include_pad over the number of its taps in the padded input."""
    lengths = []
    for n, k, s, (before, after) in zip(x.shape[2:], kernel, strides, pads):
        out = math.ceil((n + before + after - k) / s) + 1
        lengths.append(out - 1 if (out - 1) * s >= n + before else out)
    y = np.zeros((1, x.shape[1], *lengths))
    for i in range(lengths[0]):
        for j in range(lengths[1]):
            spans = [range(o * s - b, o * s - b + k) for o, s, (b, _), k in zip((i, j), strides, pads, kernel)]
            rows, cols = ([r for r in span if 0 <= r < n] for span, n in zip(spans, x.shape[2:]))
            padded = [len([r for r in span if -b <= r < n + a]) for span, n, (b, a) in zip(spans, x.shape[2:], pads)]
            count = padded[0] * padded[1] if count_include_pad else len(rows) * len(cols)
            y[0, :, i, j] = x[0][:, rows][:, :, cols].sum(axis=(1, 2)) / count
    return y


def check_ceil_pools_against_torch(max_cases, average_cases):
    """The references agree with PyTorch's max_pool2d and avg_pool2d with ceil_mode=True, where torch can express
    the pads."""
    import torch
    F = torch.nn.functional
    rng = np.random.default_rng(5)
    for shape, kernel, strides, pads, dilations in max_cases:
        if pads[0][0] != pads[0][1] or pads[1][0] != pads[1][1]:
            continue
        x = rng.uniform(-1, 1, shape)
        theirs = F.max_pool2d(torch.from_numpy(x), kernel, strides, (pads[0][0], pads[1][0]), dilations,
                              ceil_mode=True).numpy()
        assert np.array_equal(ref_max_pool_ceil(x, kernel, strides, pads, dilations), theirs), (kernel, strides, pads)
    for shape, kernel, strides, pads, include in average_cases:
        x = rng.uniform(-1, 1, shape)
        theirs = F.avg_pool2d(torch.from_numpy(x), kernel, strides, (pads[0][0], pads[1][0]), ceil_mode=True,
                              count_include_pad=bool(include)).numpy()
        assert np.allclose(ref_average_pool_ceil(x, kernel, strides, pads, include), theirs, rtol=0, atol=1e-15)


MAX_POOL_CEIL = [  # input, kernel, strides, pads ((top, bottom), (left, right)), dilations
    ([1, 2, 5, 7], (2, 3), (2, 2), ((0, 0), (0, 0)), (1, 1)),  # SqueezeNet's pooling: a partial last window
    ([1, 2, 5, 6], (2, 3), (2, 2), ((1, 1), (1, 1)), (1, 1)),  # rows: the next window would start in the padding
    ([1, 2, 7, 6], (2, 2), (3, 2), ((1, 0), (0, 1)), (2, 1)),
]


AVERAGE_POOL_CEIL = [  # input, kernel, strides, pads ((top, bottom), (left, right)), count_include_pad
    ([1, 2, 5, 7], (2, 3), (2, 2), ((0, 0), (0, 0)), 0),  # partial last windows, no padding
    ([1, 2, 5, 6], (2, 3), (2, 2), ((1, 1), (1, 1)), 1),  # padding counted, the overhang past it not
    ([1, 2, 6, 5], (3, 3), (2, 2), ((1, 1), (1, 1)), 0),
]


def pool_models():
    nets = {}
    check_ceil_pools_against_torch(MAX_POOL_CEIL, AVERAGE_POOL_CEIL)
    for k, (shape, kernel, strides, pads, include) in enumerate(AVERAGE_POOL_CEIL):
        g = OpsetGraph(shape, 238 + k, opset=22)  # AveragePool with ceil_mode=1 and partial windows
        h = conv_relu(g, "x", 2)
        fn = (lambda x, a=(kernel, strides, pads, include): ref_average_pool_ceil(x, *a))
        p = g.op("AveragePool", [h], fn, list(fn(np.zeros(shape)).shape), kernel_shape=list(kernel),
                 strides=list(strides), pads=[pads[0][0], pads[1][0], pads[0][1], pads[1][1]], ceil_mode=1,
                 count_include_pad=include)
        nets[f"average_pool_ceil_mode_{k}_opset22"] = (g, g.gemm(g.flatten(p), 2))
    for k, (shape, kernel, strides, pads, dilations) in enumerate(MAX_POOL_CEIL):
        g = OpsetGraph(shape, 235 + k, opset=22)  # MaxPool with ceil_mode=1 and partial windows
        h = g.conv("x", 2)
        fn = (lambda x, a=(kernel, strides, pads, dilations): ref_max_pool_ceil(x, *a))
        p = g.op("MaxPool", [h], fn, list(fn(np.zeros(shape)).shape), kernel_shape=list(kernel), strides=list(strides),
                 pads=[pads[0][0], pads[1][0], pads[0][1], pads[1][1]], dilations=list(dilations), ceil_mode=1)
        nets[f"max_pool_ceil_mode_{k}_opset22"] = (g, g.gemm(g.flatten(p), 2))
    for include in (0, 1):  # AveragePool-19's dilations, padded, with and without the padding counted
        g = OpsetGraph([1, 1, 5, 5], 230 + include, opset=19)
        h = conv_relu(g, "x", 2)
        fn = (lambda x, include=include: ref_average_pool(x, (2, 3), (2, 2), (1, 1, 1, 0), include))
        p = g.op("AveragePool", [h], fn, [1, 2, 5, 2], kernel_shape=[2, 3], dilations=[2, 2], pads=[1, 1, 1, 0],
                 count_include_pad=include)
        name = f"average_pool_dilations_{'include' if include else 'exclude'}_pad_opset19"
        nets[name] = (g, g.gemm(g.flatten(p), 2))
    return nets


def shape_models():
    nets = {}
    # An old exporter's view(x.size(0), x.size(1) // 5, -1) at opset 21: Shape -> Gather -> Div (int64, which
    # truncates: 12 // 5 = 2) -> Unsqueeze -> Concat of Constant value_ints -> Reshape with allowzero; CastLike of a
    # float constant to an int64 one's type, of a network tensor to a double constant's and of a value_float
    # Constant to a network tensor's; Dropout with ratio and training_mode (false) inputs.
    g = OpsetGraph([1, 4], 241, opset=21)
    h = g.unary("Relu", g.gemm("x", 12), relu)
    g.nodes += [
        helper.make_node("Shape", [h], ["shape"]),
        helper.make_node("Constant", [], ["one"], value_int=1),
        helper.make_node("Gather", ["shape", "one"], ["width"], axis=0),
        helper.make_node("Constant", [], ["five"], value=numpy_helper.from_array(np.array(5, dtype=np.int64))),
        helper.make_node("Div", ["width", "five"], ["rows"]),
        helper.make_node("Constant", [], ["zero_axis"], value_ints=[0]),
        helper.make_node("Unsqueeze", ["rows", "zero_axis"], ["rows1"]),
        helper.make_node("Constant", [], ["batch"], value_ints=[1]),
        helper.make_node("Constant", [], ["rest_float"], value_floats=[-1.0]),
        helper.make_node("CastLike", ["rest_float", "batch"], ["rest"]),
        helper.make_node("Concat", ["batch", "rows1", "rest"], ["target"], axis=0),
        helper.make_node("Reshape", [h, "target"], ["grid"], allowzero=1),
        helper.make_node("Dropout", ["grid", "ratio", "training"], ["dropped"]),
        helper.make_node("Constant", [], ["half_float"], value_float=0.5),
        helper.make_node("CastLike", ["half_float", "dropped"], ["half"]),
        helper.make_node("CastLike", ["dropped", "ratio"], ["same"]),
        helper.make_node("Mul", ["same", "half"], ["scaled"]),
        helper.make_node("ReduceSum", ["scaled", "zero_axis"], ["summed"], keepdims=0),
    ]
    g.inits.append(numpy_helper.from_array(np.array(0.3, dtype=np.float64), "ratio"))
    g.inits.append(numpy_helper.from_array(np.array(False), "training"))
    g.steps.append(("summed", [h], lambda x: 0.5 * x.reshape(1, 2, 6).sum(axis=0)))
    g.shapes["summed"] = [2, 6]
    flat = node(g, "Flatten", ["summed"], lambda x: x.reshape(1, 12), [1, 12], axis=0)
    nets["shape_div_castlike_dropout_opset21"] = (g, g.gemm(flat, 2))
    # The newest opset: Cast (28), Flatten (25), Identity (25), Transpose (25), Reshape (25)
    g = OpsetGraph([1, 3, 2], 242, opset=28)
    t = g.unary("Transpose", "x", lambda x: x.transpose(0, 2, 1), perm=[0, 2, 1])
    g.shapes[t] = [1, 2, 3]
    c = g.unary("Cast", t, lambda x: x, to=TensorProto.DOUBLE, saturate=0)
    f = g.flatten(g.unary("Identity", c, lambda x: x))
    nets["cast_transpose_opset28"] = (g, g.gemm(g.unary("Relu", g.gemm(f, 5), relu), 2))
    return nets


def refused_models():
    """Models the reader refuses, name -> ModelProto."""
    bad = {}
    g = OpsetGraph([1, 4], 251, opset=22)  # a dropout in training mode is random
    h = g.gemm("x", 3)
    g.nodes.append(helper.make_node("Dropout", [h, "", bool_const(g, True)], ["d"], name="drop"))
    g.shapes["d"] = [1, 3]
    bad["dropout_training_opset22"] = g.model(g.gemm("d", 1))
    g = OpsetGraph([1, 4], 252, opset=19)  # float8 casts change values: refused with the node and opset
    h = g.gemm("x", 3)
    g.nodes.append(helper.make_node("Cast", [h], ["c"], name="to_float8", to=TensorProto.FLOAT8E4M3FN, saturate=1))
    g.shapes["c"] = [1, 3]
    bad["cast_float8_opset19"] = g.model(g.gemm("c", 1))
    g = OpsetGraph([1, 1, 2, 2], 253, opset=18)  # half_pixel_symmetric is Resize-19's
    y = node(g, "Resize", ["x"], None, [1, 1, 4, 4], extra=["", floats(g, [1, 1, 2, 2])[0]], mode="nearest",
             coordinate_transformation_mode="half_pixel_symmetric")
    bad["resize_half_pixel_symmetric_opset18"] = g.model(g.gemm(g.flatten(y), 1))
    g = OpsetGraph([1, 1, 5, 6], 255, opset=21)  # a ceil_mode window in the padding: undefined before opset 22
    y = g.unary("AveragePool", "x", None, kernel_shape=[2, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)
    g.shapes[y] = [1, 1, 4, 4]
    bad["average_pool_ceil_window_in_padding_opset21"] = g.model(g.gemm(g.flatten(y), 1))
    g = OpsetGraph([1, 2, 3, 3], 256, opset=18)  # Pad-18's axes name axis 2 twice (-2 is 2 in rank 4)
    y = node(g, "Pad", ["x"], None, [1, 2, 5, 3], extra=[ints(g, [1, 0, 1, 0]), "", ints(g, [2, -2])])
    bad["pad_repeated_axes_opset18"] = g.model(g.gemm(g.flatten(y), 1))
    g = OpsetGraph([1, 1, 2, 2], 257, opset=18)  # Resize-18's axes name axis 3 twice
    y = node(g, "Resize", ["x"], None, [1, 1, 2, 4], extra=["", floats(g, [2, 2])[0]], mode="nearest", axes=[3, -1])
    bad["resize_repeated_axes_opset18"] = g.model(g.gemm(g.flatten(y), 1))
    g = OpsetGraph([1, 2], 254, opset=18)  # external data must lie in the model's folder
    m = g.model(g.gemm("x", 1))
    weight = m.graph.initializer[0]
    weight.ClearField("double_data")
    weight.ClearField("raw_data")
    weight.data_location = TensorProto.EXTERNAL
    weight.external_data.add(key="location", value="../outside.bin")
    bad["external_data_outside_opset18"] = m
    return bad


def check_against_onnx_reference(nets, seed):
    """Each reference forward pass agrees with onnx's reference evaluator on the model as written."""
    rng = np.random.default_rng(seed)
    for name, (g, output) in nets.items():
        model = g.model(output)
        onnx.checker.check_model(model, full_check=True)
        for _ in range(3):
            x = rng.uniform(-1, 1, g.input_shape)
            theirs = ReferenceEvaluator(model).run(None, {"x": x})[0]
            assert np.allclose(g.forward(x), theirs, rtol=0, atol=1e-12), name


def main():
    nets = {**reduce_split_models(), **extremum_models(), **pad_models(), **resize_models(), **pool_models(),
            **shape_models()}
    check_against_onnx_reference(nets, 97)
    write_fixtures(OUT, nets, refused_models(), 1357)


if __name__ == "__main__":
    main()
