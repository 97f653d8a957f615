#!/usr/bin/python3
"""Writes the ONNX fixtures of tests/io/onnx_ops_test.cc into tests/fixtures/ops/: the linear operators that public
verification benchmarks use around their ReLUs (Split, Neg, Sum, ReduceSum, ReduceMean, Expand, Tile,
ConstantOfShape, Pad in edge and reflect mode, Resize and Upsample in nearest mode, MatMul of a batch of matrices).

Each model is built node by node (make_pwl_fixtures.Graph) with its reference forward pass in numpy, written from
the ONNX operator definitions (Resize by its coordinate formulas and rounding rules, one axis at a time, checked
against onnx's own backend-test interpolation where onnx ships it), independent of the C++ reader. expected.json
holds, per file, a few inputs (uniform in [-1, 1], flattened row-major) and the reference outputs; weights are
DOUBLE, so the reader must match to 1e-9. The refused models are written alongside.
Usage: /usr/bin/python3 tests/io/make_ops_fixtures.py
"""
import math
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_pwl_fixtures import Graph, relu, write_fixtures  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "ops")


def ints(g, values):
    """An INT64 initializer (axes, shapes, repeats, sizes); returns its name."""
    name = f"c{len(g.inits)}"
    g.inits.append(numpy_helper.from_array(np.asarray(values, dtype=np.int64), name))
    return name


def floats(g, values):
    """A FLOAT initializer (Resize's scales) and the doubles the reference uses."""
    name = f"c{len(g.inits)}"
    array = np.asarray(values, dtype=np.float32)
    g.inits.append(numpy_helper.from_array(array, name))
    return name, array.astype(np.float64)


def node(g, op, inputs, fn, shape, extra=(), **attrs):
    """A node whose inputs are tensors (fed to fn) followed by the initializer names `extra`."""
    out = g.op(op, inputs, fn, shape, **attrs)
    g.nodes[-1].input.extend(extra)
    return out


def split(g, a, axis, lengths, attribute):
    """Split of tensor a into parts of `lengths` along axis: the split as an attribute, an input, or none (equal)."""
    outs = [f"t{len(g.nodes)}_{k}" for k in range(len(lengths))]
    inputs, attrs = [a], {"axis": axis}
    if attribute == "attribute":
        attrs["split"] = list(lengths)
    elif attribute == "input":
        inputs.append(ints(g, lengths))
    g.nodes.append(helper.make_node("Split", inputs, outs, name=f"split{len(g.nodes)}", **attrs))
    bounds = np.cumsum([0] + list(lengths))
    for k, out in enumerate(outs):
        g.steps.append((out, [a], lambda x, k=k: np.take(x, range(bounds[k], bounds[k + 1]), axis=axis)))
        g.shapes[out] = list(g.shapes[a])
        g.shapes[out][axis] = int(lengths[k])
    return outs


def matmul_right(g, a, n):
    """a @ W for a constant W of shape [last dimension of a, n] (numpy broadcasts W over a's batch)."""
    k = g.shapes[a][-1]
    w = g.rng.uniform(-1, 1, (k, n)) / np.sqrt(k)
    return g.op("MatMul", [a], lambda x: x @ w, g.shapes[a][:-1] + [n], consts=(w,))


def reshape(g, a, shape):
    return node(g, "Reshape", [a], lambda x: x.reshape(shape), shape, extra=[ints(g, shape)])


def nearest_source(x, n, m, scale, transform, rounding):
    """The input index that Resize's nearest mode takes for output index x on an axis (ONNX operator docs)."""
    if transform == "half_pixel" or (transform == "pytorch_half_pixel" and m > 1):
        c = (x + 0.5) / scale - 0.5
    elif transform == "pytorch_half_pixel":
        c = 0.0
    elif transform == "align_corners":
        c = 0.0 if m == 1 else x * (n - 1) / (m - 1)
    elif transform == "tf_half_pixel_for_nn":
        c = (x + 0.5) / scale
    else:  # asymmetric
        c = x / scale
    half = c - math.floor(c) == 0.5
    if rounding == "floor" or (half and rounding == "round_prefer_floor"):
        r = math.floor(c)
    elif rounding == "ceil" or (half and rounding == "round_prefer_ceil"):
        r = math.ceil(c)
    else:
        r = math.floor(c + 0.5) if c >= 0 else -math.floor(-c + 0.5)  # half away from zero, never a half here
    return min(max(int(r), 0), n - 1)


def ref_resize(x, out_shape, scales, transform, rounding):
    """Nearest resampling, one axis at a time (the sources of an axis depend on that axis alone)."""
    for axis, (n, m, s) in enumerate(zip(x.shape, out_shape, scales)):
        x = np.take(x, [nearest_source(i, n, m, s, transform, rounding) for i in range(m)], axis=axis)
    return x


def conv_relu(g, a, maps):
    return g.unary("Relu", g.conv(a, maps), relu)


def split_models():
    nets = {}
    g = Graph([1, 6], 51)  # the split as an input (opset 13), one part across a ReLU, the other carried past it
    a, b = split(g, g.gemm("x", 8), 1, [3, 5], "input")
    c = g.gemm(g.unary("Relu", a, relu), 5)
    nets["split_input_across_relu"] = (g, g.gemm(g.op("Add", [c, b], lambda p, q: p + q, [1, 5]), 2))
    # nn4sys's dual models: one input of two samples split in two, the same network on each, the difference out
    g = Graph([1, 12, 8], 52, opset=11)
    halves = split(g, "x", 1, [6, 6], "attribute")
    w = g.rng.uniform(-1, 1, (8, 4)) / np.sqrt(8)
    w2 = g.rng.uniform(-1, 1, (24, 2)) / np.sqrt(24)
    outs = []
    for h in halves:
        h = g.unary("Relu", g.op("MatMul", [h], lambda x: x @ w, [1, 6, 4], consts=(w,)), relu)
        outs.append(g.op("MatMul", [g.flatten(h)], lambda x: x @ w2, [1, 2], consts=(w2,)))
    nets["split_dual_model"] = (g, g.op("Sub", outs, lambda p, q: p - q, [1, 2]))
    g = Graph([1, 2, 4, 4], 53, opset=11)  # equal parts (no split given) along the channels of a convolution
    p, q, r = split(g, g.conv("x", 3), 1, [1, 1, 1], "none")
    s = g.op("Sum", [p, q, r], lambda u, v, w: u + v + w, [1, 1, 4, 4])
    nets["split_equal_sum"] = (g, g.gemm(g.flatten(g.unary("Relu", s, relu)), 3))
    return nets


def reduce_models():
    nets = {}
    g = Graph([1, 4], 61)  # ReduceSum-13 with axes as an input, keepdims=0, then Neg
    h = reshape(g, g.gemm("x", 12), [1, 3, 4])
    s = node(g, "ReduceSum", [h], lambda x: x.sum(axis=2), [1, 3], extra=[ints(g, [2])], keepdims=0)
    n = g.unary("Neg", g.unary("Relu", s, relu), np.negative)
    nets["reduce_sum_axes_input_neg"] = (g, g.gemm(n, 2))
    g = Graph([1, 2, 3, 3], 62, opset=11)  # ReduceMean over the spatial axes (attribute, negative), kept
    h = conv_relu(g, "x", 4)
    m = g.unary("ReduceMean", h, lambda x: x.mean(axis=(2, 3), keepdims=True), axes=[-2, -1])
    g.shapes[m] = [1, 4, 1, 1]
    nets["reduce_mean_spatial"] = (g, g.gemm(g.flatten(m), 3))
    g = Graph([1, 5], 63)  # ReduceSum of every axis (no axes), and one with noop_with_empty_axes
    h = g.unary("Relu", g.gemm("x", 6), relu)
    total = g.op("ReduceSum", [h], lambda x: x.sum(keepdims=True), [1, 1])
    same = g.op("ReduceSum", [h], lambda x: x, [1, 6], noop_with_empty_axes=1)
    nets["reduce_sum_all_and_noop"] = (g, g.op("Add", [same, total], lambda p, q: p + q, [1, 6]))
    return nets


def broadcast_models():
    nets = {}
    g = Graph([1, 4], 71)  # Expand of a network tensor, Tile and ConstantOfShape of constants
    h = g.gemm("x", 4)
    e = node(g, "Expand", [h], lambda x: np.broadcast_to(x, (3, 4)), [3, 4], extra=[ints(g, [3, 1])])
    bias = g.rng.uniform(-0.5, 0.5, (1, 2))
    t = g.op("Tile", [], lambda: np.tile(bias, (3, 2)), [3, 4], consts=(bias,))
    g.nodes[-1].input.append(ints(g, [3, 2]))
    fill = g.op("ConstantOfShape", [], lambda: np.full((3, 4), 0.25), [3, 4])
    g.nodes[-1].input.append(ints(g, [3, 4]))
    g.nodes[-1].attribute.append(helper.make_attribute("value", numpy_helper.from_array(np.array([0.25]), "v")))
    s = g.op("Sum", [e, t, fill], lambda p, q, r: p + q + r, [3, 4])
    r = g.unary("Relu", s, relu)
    nets["expand_tile_constant_of_shape"] = (g, g.gemm(reshape(g, r, [1, 12]), 2))
    g = Graph([1, 6], 72)  # MatMul of a batch of matrices: an affine batch times W, a constant batch times x
    h = reshape(g, g.gemm("x", 24), [2, 3, 4])
    a = g.unary("Relu", matmul_right(g, h, 5), relu)
    c = g.rng.uniform(-1, 1, (2, 2, 3))
    v = reshape(g, g.gemm("x", 12), [3, 4])
    b = g.op("MatMul", [v], lambda y: c @ y, [2, 2, 4], consts=(c,))
    g.nodes[-1].input.reverse()
    joined = g.op("Concat", [reshape(g, a, [1, 30]), reshape(g, b, [1, 16])],
                  lambda p, q: np.concatenate([p, q], axis=1), [1, 46], axis=1)
    nets["matmul_batched"] = (g, g.gemm(joined, 3))
    return nets


def pad_models():
    nets = {}
    g = Graph([1, 1, 3, 4], 111)  # edge, then reflect past the axis's length (numpy's repeated mirror), opset 13
    h = conv_relu(g, "x", 2)
    e = node(g, "Pad", [h], lambda x: np.pad(x, ((0, 0), (0, 0), (1, 2), (2, 1)), mode="edge"), [1, 2, 6, 7],
             extra=[ints(g, [0, 0, 1, 2, 0, 0, 2, 1])], mode="edge")
    r = node(g, "Pad", [e], lambda x: np.pad(x, ((0, 0), (0, 0), (7, 1), (0, 3)), mode="reflect"), [1, 2, 14, 10],
             extra=[ints(g, [0, 0, 7, 0, 0, 0, 1, 3])], mode="reflect")
    nets["pad_edge_reflect"] = (g, g.gemm(g.flatten(r), 2))
    g = Graph([1, 2, 3, 3], 112, opset=10)  # pads as an attribute, negative ones cropping
    h = conv_relu(g, "x", 2)
    p = g.unary("Pad", h, lambda x: np.pad(x, ((0, 0), (0, 0), (2, 0), (1, 0)), mode="reflect")[:, :, :, :-1],
                mode="reflect", pads=[0, 0, 2, 1, 0, 0, 0, -1])
    g.shapes[p] = [1, 2, 5, 3]
    nets["pad_reflect_opset10_crop"] = (g, g.gemm(g.flatten(p), 2))
    return nets


RESIZES = [  # name, input [C, H, W], sizes or scales of (H, W), coordinate transformation, nearest mode
    ("resize_sizes_half_pixel", [2, 3, 3], ("sizes", [5, 4]), "half_pixel", "round_prefer_floor"),
    ("resize_scales_asymmetric_ceil", [1, 3, 4], ("scales", [2.0, 1.5]), "asymmetric", "ceil"),
    ("resize_align_corners_prefer_ceil", [1, 3, 3], ("sizes", [4, 7]), "align_corners", "round_prefer_ceil"),
    ("resize_pytorch_half_pixel_floor", [1, 4, 3], ("sizes", [1, 5]), "pytorch_half_pixel", "floor"),
    ("resize_down_tf_half_pixel", [2, 4, 5], ("sizes", [2, 3]), "tf_half_pixel_for_nn", "round_prefer_floor"),
]


def resize_models():
    nets = {}
    for name, (c, hh, ww), (kind, hw), transform, rounding in RESIZES:
        g = Graph([1, c, hh, ww], 80 + len(nets))
        h = conv_relu(g, "x", c)
        if kind == "sizes":
            out = [1, c] + list(hw)
            scales = [1.0, 1.0, hw[0] / hh, hw[1] / ww]
            extra = ["", "", ints(g, out)]
        else:
            name_s, scales = floats(g, [1.0, 1.0] + list(hw))
            out = [1, c, int(math.floor(hh * scales[2])), int(math.floor(ww * scales[3]))]
            extra = ["", name_s]
        fn = (lambda x, out=out, s=scales, t=transform, r=rounding: ref_resize(x, out, s, t, r))
        y = node(g, "Resize", [h], fn, out, extra=extra, mode="nearest", coordinate_transformation_mode=transform,
                 nearest_mode=rounding)
        nets[name] = (g, g.gemm(g.flatten(y), 2))
    g = Graph([1, 2, 8, 8], 95)  # a convolution of an upsampled layer: its rows hold 2 x 2 sources a channel
    h = conv_relu(g, "x", 2)
    y = node(g, "Resize", [h], lambda x: np.repeat(np.repeat(x, 2, axis=2), 2, axis=3), [1, 2, 16, 16],
             extra=["", "", ints(g, [1, 2, 16, 16])], mode="nearest", coordinate_transformation_mode="asymmetric",
             nearest_mode="floor")
    nets["resize_then_conv"] = (g, g.gemm(g.flatten(conv_relu(g, y, 2)), 2))
    for opset, op in ((7, "Upsample"), (9, "Upsample"), (10, "Resize")):
        g = Graph([1, 2, 3, 2], 90 + opset, opset=opset)
        h = conv_relu(g, "x", 2)
        fn = (lambda x: np.repeat(np.repeat(x, 2, axis=2), 3, axis=3))
        if opset == 7:
            y = g.unary("Upsample", h, fn, mode="nearest", scales=[1.0, 1.0, 2.0, 3.0])
        else:
            y = node(g, op, [h], fn, [1, 2, 6, 6], extra=[floats(g, [1.0, 1.0, 2.0, 3.0])[0]], mode="nearest")
        g.shapes[y] = [1, 2, 6, 6]
        nets[f"{op.lower()}_opset{opset}"] = (g, g.gemm(g.flatten(y), 2))
    return nets


def refused_models():
    """Models the reader refuses, name -> ModelProto."""
    bad = {}
    g = Graph([1, 4], 101)  # a binarized layer, as the traffic-sign networks have
    h = g.unary("Sign", g.gemm("x", 3), np.sign)
    bad["sign"] = g.model(g.gemm(h, 1))
    g = Graph([1, 1, 2, 2], 102)
    y = node(g, "Resize", ["x"], None, [1, 1, 4, 4], extra=["", floats(g, [1, 1, 2, 2])[0]], mode="linear")
    bad["resize_linear"] = g.model(g.gemm(g.flatten(y), 1))
    g = Graph([1, 6], 103)
    a, b = split(g, g.gemm("x", 6), 1, [2, 3], "input")  # lengths that do not add up to 6
    bad["split_bad_lengths"] = g.model(g.gemm(a, 1))
    g = Graph([1, 1, 2, 2], 105)
    y = node(g, "Pad", ["x"], None, [1, 1, 4, 4], extra=[ints(g, [0, 0, 1, 1, 0, 0, 1, 1])], mode="wrap")
    bad["pad_wrap"] = g.model(g.gemm(g.flatten(y), 1))
    g = Graph([1, 1, 2, 2], 104)  # no elements, one axis of 2^40: refused before its sources are listed
    y = node(g, "Resize", ["x"], None, [1, 0, 2 ** 40, 2], extra=["", "", ints(g, [1, 0, 2 ** 40, 2])])
    bad["resize_huge_axis"] = g.model(g.gemm(reshape(g, y, [1, 0]), 1))
    return bad


def check_resize_against_onnx():
    """Where onnx ships its backend tests' interpolation (onnx 1.12 does, without tf_half_pixel_for_nn), the
    reference resampling must agree with it."""
    try:
        from onnx.backend.test.case.node.resize import interpolate_nd, nearest_coeffs
    except ImportError:
        return
    rng = np.random.default_rng(0)
    for name, (c, hh, ww), (kind, hw), transform, rounding in RESIZES:
        if transform == "tf_half_pixel_for_nn":
            continue
        x = rng.uniform(-1, 1, (1, c, hh, ww))
        coeffs = (lambda d, _=None, r=rounding: nearest_coeffs(d, mode=r))
        if kind == "sizes":
            out, scales = [1, c] + hw, [1, 1, hw[0] / hh, hw[1] / ww]
            theirs = interpolate_nd(x, coeffs, output_size=out, coordinate_transformation_mode=transform)
        else:
            out, scales = [1, c, int(hh * hw[0]), int(ww * hw[1])], [1, 1] + hw
            theirs = interpolate_nd(x, coeffs, scale_factors=np.array(scales),
                                    coordinate_transformation_mode=transform)
        assert np.array_equal(ref_resize(x, out, scales, transform, rounding), theirs), name


def main():
    check_resize_against_onnx()
    nets = {**split_models(), **reduce_models(), **broadcast_models(), **pad_models(), **resize_models()}
    write_fixtures(OUT, nets, refused_models(), 2468)


if __name__ == "__main__":
    main()
