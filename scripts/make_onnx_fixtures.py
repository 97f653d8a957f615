#!/usr/bin/python3
"""Writes the model-reader fixtures into tests/fixtures/{onnx,nnet}/ with their expected outputs.

Each good ONNX fixture imitates one exporter style (PyTorch, tf2onnx, MATLAB...) on a tiny random network.
Expected outputs come from an independent numpy interpreter of the ONNX node semantics below (tensor by
tensor, with the batch and shape rules of the ONNX spec), never from reluopt itself, so the C++ readers are
checked against a second implementation. Seeds are fixed: rerunning the script rewrites identical files.

Usage: /usr/bin/python3 scripts/make_onnx_fixtures.py
"""
import json
import math
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parent.parent
ONNX_DIR = ROOT / "tests" / "fixtures" / "onnx"
NNET_DIR = ROOT / "tests" / "fixtures" / "nnet"
NUM_TEST_INPUTS = 4
IR_VERSION = {8: 3, 11: 6, 13: 7, 17: 8}  # the IR version each opset was released with


# ---- Reference interpreter ----

def attributes(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def axes_of(args, attrs):
    """Squeeze/Unsqueeze axes: an attribute up to opset 12, an input from opset 13."""
    if "axes" in attrs:
        return [int(a) for a in attrs["axes"]]
    return [int(a) for a in args[1]] if len(args) > 1 and args[1] is not None else []


def reshape(x, shape, allowzero):
    shape = [x.shape[k] if (s == 0 and not allowzero) else int(s) for k, s in enumerate(shape)]
    return x.reshape(shape)


def squeeze(x, axes):
    return np.squeeze(x, axis=tuple(axes) if axes else None)


def unsqueeze(x, axes):
    rank = x.ndim + len(axes)
    for axis in sorted(a % rank for a in axes):
        x = np.expand_dims(x, axis)
    return x


def constant(attrs):
    if "value" in attrs:
        return numpy_helper.to_array(attrs["value"])
    for key in ("value_float", "value_floats", "value_int", "value_ints"):
        if key in attrs:
            return np.array(attrs[key])
    raise ValueError("unsupported Constant")


def gemm(args, attrs):
    a = args[0].T if attrs.get("transA", 0) else args[0]
    b = args[1].T if attrs.get("transB", 0) else args[1]
    y = attrs.get("alpha", 1.0) * (a @ b)
    return y + attrs.get("beta", 1.0) * args[2] if len(args) > 2 and args[2] is not None else y


OPERATORS = {
    "Gemm": gemm,
    "MatMul": lambda args, attrs: np.matmul(args[0], args[1]),
    "Add": lambda args, attrs: args[0] + args[1],
    "Sub": lambda args, attrs: args[0] - args[1],
    "Mul": lambda args, attrs: args[0] * args[1],
    "Div": lambda args, attrs: args[0] / args[1],
    "Relu": lambda args, attrs: np.maximum(args[0], 0.0),
    "Identity": lambda args, attrs: args[0],
    "Transpose": lambda args, attrs: np.transpose(args[0], attrs.get("perm")),
    "Flatten": lambda args, attrs: args[0].reshape(
        int(np.prod(args[0].shape[: attrs.get("axis", 1)])), -1),
    "Reshape": lambda args, attrs: reshape(args[0], args[1], attrs.get("allowzero", 0)),
    "Squeeze": lambda args, attrs: squeeze(args[0], axes_of(args, attrs)),
    "Unsqueeze": lambda args, attrs: unsqueeze(args[0], axes_of(args, attrs)),
    "Constant": lambda args, attrs: constant(attrs),
}


def as_float64(array):
    return array.astype(np.float64) if array.dtype.kind == "f" else array


def evaluate(model, x, relu_signs):
    """Runs the graph on the input tensor x in float64; counts ReLU inputs > 0 and <= 0 in relu_signs."""
    env = {t.name: as_float64(numpy_helper.to_array(t)) for t in model.graph.initializer}
    weights = set(env)
    (input_info,) = [i for i in model.graph.input if i.name not in weights]
    env[input_info.name] = x
    for node in model.graph.node:
        args = [env[name] if name else None for name in node.input]
        result = as_float64(np.asarray(OPERATORS[node.op_type](args, attributes(node))))
        if node.op_type == "Relu":
            relu_signs[0] += int(np.sum(args[0] > 0))
            relu_signs[1] += int(np.sum(args[0] <= 0))
        env[node.output[0]] = result
    return env[model.graph.output[0].name]


def input_shape(model):
    weights = {t.name for t in model.graph.initializer}
    (info,) = [i for i in model.graph.input if i.name not in weights]
    return [d.dim_value if d.HasField("dim_value") else None for d in info.type.tensor_type.shape.dim]


def expected_outputs(model, inputs):
    """One output vector per input; a symbolic batch dimension is exercised with the whole batch at once."""
    shape = input_shape(model)
    relu_signs = [0, 0]
    if shape[0] is None:
        batch = evaluate(model, inputs.reshape([len(inputs)] + shape[1:]), relu_signs)
        outputs = batch.reshape(len(inputs), -1)
    else:
        outputs = np.stack([evaluate(model, x.reshape(shape), relu_signs).reshape(-1) for x in inputs])
    relus = sum(node.op_type == "Relu" for node in model.graph.node)
    # The test inputs must cross the ReLU kinks, or the fixture would not test the hidden layers.
    assert relus == 0 or min(relu_signs) > 0, f"{model.graph.name}: ReLU signs {relu_signs}"
    return outputs, relus


# ---- Model building ----

class Builder:
    """Collects nodes and initializers of one fixture; random weights are drawn from its own seed."""

    def __init__(self, seed, dtype=np.float32, raw=True):
        self.rng = np.random.default_rng(seed)
        self.dtype = dtype
        self.raw = raw  # raw_data, or the typed float_data/double_data/int64_data fields
        self.nodes = []
        self.initializers = []

    def tensor(self, name, array, raw=None):
        array = np.asarray(array)
        if self.raw if raw is None else raw:
            return numpy_helper.from_array(array, name)
        data_type = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[array.dtype]
        return helper.make_tensor(name, data_type, array.shape, array.flatten().tolist())

    def constant(self, name, array, raw=None):
        self.initializers.append(self.tensor(name, array, raw))
        return name

    def weights(self, name, shape, fan_in):
        scale = 1.5 / math.sqrt(fan_in)
        return self.constant(name, (self.rng.standard_normal(shape) * scale).astype(self.dtype))

    def bias(self, name, shape):
        return self.constant(name, (self.rng.standard_normal(shape) * 0.3).astype(self.dtype))

    def ints(self, name, values, raw=None):
        return self.constant(name, np.array(values, dtype=np.int64), raw)

    def node(self, op, inputs, name, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [name + "_out"], name=name, **attrs))
        return name + "_out"

    def model(self, name, in_shape, out_shape, opset, output, weights_as_inputs=False,
              elem=TensorProto.FLOAT):
        inputs = [helper.make_tensor_value_info("x", elem, in_shape)]
        if weights_as_inputs:  # as MATLAB's opset-8 exporter does
            inputs += [helper.make_tensor_value_info(t.name, t.data_type, t.dims) for t in self.initializers]
        assert self.nodes[-1].output[0] == output, "the graph output must come from the last node"
        self.nodes[-1].output[0] = "y"
        outputs = [helper.make_tensor_value_info("y", elem, out_shape)]
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.initializers)
        model = helper.make_model(graph, producer_name="reluopt make_onnx_fixtures.py",
                                  opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = IR_VERSION[opset]
        return model


def dense_gemm(b, name, x, n_in, n_out, relu=True):
    """One PyTorch-style layer: Gemm with weight [out, in] and transB=1."""
    weights = b.weights(name + ".weight", (n_out, n_in), n_in)
    h = b.node("Gemm", [x, weights, b.bias(name + ".bias", (n_out,))], name + "_gemm", transB=1)
    return b.node("Relu", [h], name + "_relu") if relu else h


def dense_matmul(b, name, x, n_in, n_out, relu=True, bias_shape=None):
    """One tf2onnx/MATLAB-style layer: MatMul with weight [in, out], then Add of the bias."""
    h = b.node("MatMul", [x, b.weights(name + "_W", (n_in, n_out), n_in)], name + "_matmul")
    h = b.node("Add", [h, b.bias(name + "_B", bias_shape or (n_out,))], name + "_add")
    return b.node("Relu", [h], name + "_relu") if relu else h


# ---- Good fixtures: each returns (model, input dimension) ----

def gemm_transb_pytorch():
    b = Builder(seed=1)
    h = b.node("Flatten", ["x"], "Flatten_0", axis=1)  # [1, 4, 1] -> [1, 4]
    h = dense_gemm(b, "fc1", h, 4, 6)
    h = dense_gemm(b, "fc2", h, 6, 5)
    y = dense_gemm(b, "fc3", h, 5, 2, relu=False)
    return b.model("gemm_transb_pytorch", [1, 4, 1], [1, 2], 11, y), 4


def gemm_alpha_beta_transA():
    b = Builder(seed=2, raw=False)
    # x is a column [3, 1]; transA turns it into a row.
    h = b.node("Gemm", ["x", b.weights("W1", (3, 5), 3), b.bias("b1", (5,))], "gemm_1",
               transA=1, alpha=0.5, beta=2.0)
    h = b.node("Relu", [h], "relu_1")  # [1, 5]
    # Weight on the left, the activation transposed by transB, a column bias: [4, 5] x [5, 1].
    h = b.node("Gemm", [b.weights("W2", (4, 5), 5), h, b.bias("b2", (4, 1))], "gemm_2",
               transB=1, alpha=1.5, beta=0.25)
    h = b.node("Relu", [h], "relu_2")  # [4, 1]
    y = b.node("Gemm", [h, b.weights("W3", (4, 2), 4)], "gemm_3", transA=1, alpha=-1.0)  # no C
    return b.model("gemm_alpha_beta_transA", [3, 1], [1, 2], 13, y), 3


def matmul_add_weight_right_symbolic_batch():
    b = Builder(seed=3)
    h = dense_matmul(b, "dense", "x", 5, 8)
    h = dense_matmul(b, "dense_1", h, 8, 6, relu=False)  # two affine maps with no ReLU between them
    h = dense_matmul(b, "dense_2", h, 6, 4)
    y = dense_matmul(b, "dense_3", h, 4, 3, relu=False)
    return b.model("matmul_add_weight_right_symbolic_batch", ["unk__0", 5], ["unk__1", 3], 13, y), 5


def matmul_weight_left():
    b = Builder(seed=4)
    h = b.node("Transpose", ["x"], "to_column", perm=[1, 0])  # [1, 4] -> [4, 1]
    h = b.node("MatMul", [b.weights("W1", (6, 4), 4), h], "matmul_1")  # W @ x, W [out, in]
    h = b.node("Add", [b.bias("b1", (6, 1)), h], "add_1")  # bias on the left
    h = b.node("Relu", [h], "relu_1")
    h = b.node("MatMul", [b.weights("W2", (3, 6), 6), h], "matmul_2")
    h = b.node("Add", [h, b.bias("b2", (3, 1))], "add_2")
    y = b.node("Transpose", [h], "to_row")
    return b.model("matmul_weight_left", [1, 4], [1, 3], 13, y), 4


def matlab_opset8_weights_as_inputs():
    b = Builder(seed=5)
    h = b.node("Sub", ["x", b.bias("input_Mean", (1, 5))], "input_zerocenter")
    h = dense_matmul(b, "fc_1", h, 5, 7, bias_shape=(1, 7))
    y = dense_matmul(b, "fc_2", h, 7, 3, relu=False, bias_shape=(1, 3))
    return b.model("matlab_opset8_weights_as_inputs", [1, 5], [1, 3], 8, y, weights_as_inputs=True), 5


def normalization_sub_div_mul():
    b = Builder(seed=6)
    h = b.node("Sub", ["x", b.constant("mean", np.array([0.1, -0.2, 0.3, 0.0], np.float32))], "sub_mean")
    h = b.node("Div", [h, b.constant("std", np.array([0.5, 2.0, 1.5, 0.8], np.float32))], "div_std")
    h = b.node("Mul", [b.constant("two", np.array(2.0, np.float32)), h], "mul_scalar_left")
    h = dense_gemm(b, "fc1", h, 4, 6)
    h = dense_gemm(b, "fc2", h, 6, 3, relu=False)
    h = b.node("Mul", [h, b.constant("out_scale", np.array([3.0, -1.0, 0.5], np.float32))], "mul_vector")
    h = b.node("Add", [b.constant("offset", np.array([1.25], np.float32)), h], "add_broadcast_left")
    h = b.node("Sub", [b.constant("c", np.array([1.0, 2.0, -3.0], np.float32)), h], "sub_from_constant")
    y = b.node("Div", [h, b.constant("four", np.array([[4.0]], np.float32))], "div_broadcast")
    return b.model("normalization_sub_div_mul", [1, 4], [1, 3], 13, y), 4


def reshape_squeeze_unsqueeze_opset11():
    b = Builder(seed=7)
    h = b.node("Unsqueeze", ["x"], "unsqueeze_1", axes=[2])  # [1, 5, 1]
    h = b.node("Squeeze", [h], "squeeze_1", axes=[0])  # [5, 1]
    h = b.node("Reshape", [h, b.ints("shape_row", [1, -1], raw=False)], "reshape_1")  # [1, 5]
    h = dense_matmul(b, "dense_1", h, 5, 6)
    h = b.node("Unsqueeze", [h], "unsqueeze_2", axes=[0])  # [1, 1, 6]
    h = b.node("Squeeze", [h], "squeeze_all")  # [6]
    h = dense_matmul(b, "dense_2", h, 6, 2, relu=False)  # [6] @ [6, 2] -> [2]
    y = b.node("Reshape", [h, b.ints("shape_out", [1, 2], raw=False)], "reshape_out")
    return b.model("reshape_squeeze_unsqueeze_opset11", [1, 5], [1, 2], 11, y), 5


def reshape_squeeze_unsqueeze_opset13():
    b = Builder(seed=8)
    h = b.node("Unsqueeze", ["x", b.ints("axes_last", [-1])], "unsqueeze_1")  # [1, 5, 1]
    h = b.node("Squeeze", [h, b.ints("axes_first", [0])], "squeeze_1")  # [5, 1]
    h = b.node("Reshape", [h, b.ints("shape_row", [1, -1])], "reshape_1")  # [1, 5]
    h = dense_matmul(b, "dense_1", h, 5, 6)
    h = b.node("Reshape", [h, b.ints("shape_rows", [3, -1])], "reshape_rows")  # [3, 2]
    h = b.node("Reshape", [h, b.ints("shape_keep", [0, -1])], "reshape_copy_dim")  # 0 copies the 3
    h = b.node("MatMul", [h, b.weights("mix", (2, 2), 2)], "mix_rows")  # the same [2, 2] map on each row
    h = b.node("Flatten", [h], "flatten_all", axis=0)  # [1, 6]
    y = dense_matmul(b, "dense_2", h, 6, 3, relu=False)
    return b.model("reshape_squeeze_unsqueeze_opset13", [1, 5], [1, 3], 13, y), 5


def constant_node():
    b = Builder(seed=9)
    rng = b.rng

    def const(name, array):
        return b.node("Constant", [], name, value=b.tensor(name + "_value", array.astype(np.float32)))

    h = b.node("MatMul", ["x", const("W1", rng.standard_normal((4, 5)) * 0.75)], "matmul_1")
    h = b.node("Add", [h, const("b1", rng.standard_normal(5) * 0.3)], "add_1")
    h = b.node("Relu", [h], "relu_1")
    h = b.node("Mul", [h, b.node("Constant", [], "half", value_float=0.5)], "mul_half")
    h = b.node("Reshape", [h, b.node("Constant", [], "row_shape", value_ints=[1, -1])], "reshape")
    y = b.node("MatMul", [h, const("W2", rng.standard_normal((5, 2)))], "matmul_2")
    return b.model("constant_node", [1, 4], [1, 2], 13, y), 4


def identity():
    b = Builder(seed=10)
    h = b.node("Identity", ["x"], "identity_in")  # x is 1-D [4]
    h = b.node("MatMul", [b.weights("W1", (5, 4), 4), h], "matmul_1")  # [5, 4] @ [4] -> [5]
    h = b.node("Add", [h, b.bias("b1", (5,))], "add_1")
    h = b.node("Relu", [h], "relu_1")
    h = b.node("Identity", [h], "identity_mid")
    h = b.node("MatMul", [h, b.weights("W2", (5, 2), 5)], "matmul_2")  # [5] @ [5, 2] -> [2]
    y = b.node("Identity", [h], "identity_out")
    return b.model("identity", [4], [2], 13, y), 4


def opset17_gemm():
    b = Builder(seed=11)
    h = b.node("Reshape", ["x", b.ints("shape", [1, 6])], "reshape_in", allowzero=0)
    h = dense_gemm(b, "l1", h, 6, 8)
    h = dense_gemm(b, "l2", h, 8, 4)
    y = dense_gemm(b, "l3", h, 4, 1, relu=False)
    return b.model("opset17_gemm", [1, 6], [1, 1], 17, y), 6


def double_weights():
    b = Builder(seed=12, dtype=np.float64, raw=False)  # double_data
    h = dense_gemm(b, "fc1", "x", 3, 5)
    b.raw = True  # and raw_data for the remaining layers
    h = dense_gemm(b, "fc2", h, 5, 4)
    y = dense_gemm(b, "fc3", h, 4, 2, relu=False)
    return b.model("double_weights", [1, 3], [1, 2], 13, y, elem=TensorProto.DOUBLE), 3


def linear_only():
    b = Builder(seed=13)
    h = dense_gemm(b, "fc", "x", 3, 2, relu=False)
    y = b.node("Add", [h, b.bias("shift", (2,))], "shift")
    return b.model("linear_only", [1, 3], [1, 2], 13, y), 3


def multi_output():
    b = Builder(seed=14)
    h = dense_gemm(b, "fc1", "x", 4, 7)
    h = dense_gemm(b, "fc2", h, 7, 5)
    y = dense_gemm(b, "fc3", h, 5, 3, relu=False)
    return b.model("multi_output", [1, 4], [1, 3], 13, y), 4


GOOD = [gemm_transb_pytorch, gemm_alpha_beta_transA, matmul_add_weight_right_symbolic_batch,
        matmul_weight_left, matlab_opset8_weights_as_inputs, normalization_sub_div_mul,
        reshape_squeeze_unsqueeze_opset11, reshape_squeeze_unsqueeze_opset13, constant_node, identity,
        opset17_gemm, double_weights, linear_only, multi_output]


# ---- Bad fixtures: the reader must reject each with a clear message ----

def unsupported_op():
    b = Builder(seed=20)
    h = dense_gemm(b, "fc1", "x", 3, 4, relu=False)
    h = b.node("Sigmoid", [h], "sig_1")
    y = dense_gemm(b, "fc2", h, 4, 2, relu=False)
    return b.model("unsupported_op", [1, 3], [1, 2], 13, y)


def inconsistent_shapes():
    b = Builder(seed=21)
    y = b.node("MatMul", ["x", b.weights("W", (5, 3), 5)], "bad_matmul")  # x is [1, 4]
    return b.model("inconsistent_shapes", [1, 4], [1, 3], 13, y)


def skip_connection():
    b = Builder(seed=22)
    h = dense_gemm(b, "fc1", "x", 3, 3)
    y = b.node("Add", ["x", h], "residual_add")
    return b.model("skip_connection", [1, 3], [1, 3], 13, y)


def external_data():
    b = Builder(seed=23)
    y = dense_gemm(b, "fc1", "x", 3, 2, relu=False)
    weight = b.initializers[0]
    weight.ClearField("raw_data")
    weight.data_location = TensorProto.EXTERNAL
    weight.external_data.add(key="location", value="weights.bin")
    return b.model("external_data", [1, 3], [1, 2], 13, y)


BAD = [unsupported_op, inconsistent_shapes, skip_connection, external_data]


def write_json(path, expected):
    """One vector per line, so that a diff of regenerated fixtures stays readable."""
    def value(v):
        if isinstance(v, list) and v and isinstance(v[0], list):
            return "[\n" + ",\n".join("      " + json.dumps(row) for row in v) + "]"
        return json.dumps(v)
    entries = []
    for file, fields in expected.items():
        body = ",\n".join(f"    {json.dumps(key)}: {value(v)}" for key, v in fields.items())
        entries.append(f"  {json.dumps(file)}: {{\n{body}}}")
    path.write_text("{\n" + ",\n".join(entries) + "\n}\n")


# ---- NNet ----

def write_nnet():
    rng = np.random.default_rng(30)
    sizes = [3, 5, 4, 2]
    mins, maxes = [-1.0, 0.0, 2.0], [1.0, 10.0, 6.0]
    means, ranges = [0.25, 5.0, 4.0, 7.5], [2.0, 10.0, 4.0, 3.0]  # the last pair de-normalizes outputs
    # Six decimals, so that the text file holds exactly the values the expected outputs are computed from.
    layers = [(np.round(rng.standard_normal((n_out, n_in)) * 1.2, 6),
               np.round(rng.standard_normal(n_out) * 0.3, 6)) for n_in, n_out in zip(sizes[:-1], sizes[1:])]

    def row(values):
        return ",".join(repr(float(v)) for v in values) + ",\n"

    text = ["// Small ACAS Xu style network for the reluopt reader tests\n",
            "// Written by scripts/make_onnx_fixtures.py\n",
            ",".join(map(str, [len(layers), sizes[0], sizes[-1], max(sizes)])) + ",\n",
            ",".join(map(str, sizes)) + ",\n", "0,\n", row(mins), row(maxes), row(means), row(ranges)]
    for weights, bias in layers:
        text += [row(r) for r in weights] + [f"{float(v)!r},\n" for v in bias]
    NNET_DIR.mkdir(parents=True, exist_ok=True)
    (NNET_DIR / "small.nnet").write_text("".join(text))
    # Cut in the middle of the second layer's weights.
    (NNET_DIR / "bad.nnet").write_text("".join(text[:9 + 5 + 5 + 2]))

    inputs = rng.uniform(mins, maxes, size=(NUM_TEST_INPUTS, 3))
    outputs, relu_signs = [], [0, 0]
    for x in inputs:
        h = (x - np.array(means[:3])) / np.array(ranges[:3])  # NNet semantics: normalize,
        for k, (weights, bias) in enumerate(layers):  # run the normalized network,
            h = weights @ h + bias
            if k + 1 < len(layers):
                relu_signs[0] += int(np.sum(h > 0))
                relu_signs[1] += int(np.sum(h <= 0))
                h = np.maximum(h, 0.0)
        outputs.append(h * ranges[3] + means[3])  # and de-normalize every output the same way
    assert min(relu_signs) > 0, f"small.nnet: ReLU signs {relu_signs}"
    expected = {"small.nnet": {"inputs": inputs.tolist(), "outputs": np.array(outputs).tolist(),
                               "input_lower": mins, "input_upper": maxes, "num_hidden_layers": 2}}
    write_json(NNET_DIR / "expected.json", expected)


def main():
    ONNX_DIR.mkdir(parents=True, exist_ok=True)
    expected = {}
    for make in GOOD:
        model, dim = make()
        onnx.checker.check_model(model)
        file = model.graph.name + ".onnx"
        (ONNX_DIR / file).write_bytes(model.SerializeToString())
        inputs = np.random.default_rng(100 + len(expected)).uniform(-1.0, 1.0, size=(NUM_TEST_INPUTS, dim))
        outputs, relus = expected_outputs(model, inputs)
        is_double = model.graph.input[0].type.tensor_type.elem_type == TensorProto.DOUBLE
        expected[file] = {"inputs": inputs.tolist(), "outputs": outputs.tolist(), "num_hidden_layers": relus,
                          "weights": "double" if is_double else "float"}
    for make in BAD:
        model = make()
        (ONNX_DIR / (model.graph.name + ".onnx")).write_bytes(model.SerializeToString())
    (ONNX_DIR / "not_onnx.onnx").write_text("This is a plain text file, not an ONNX model.\n")
    write_json(ONNX_DIR / "expected.json", expected)
    write_nnet()


if __name__ == "__main__":
    main()
