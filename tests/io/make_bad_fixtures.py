#!/usr/bin/python3
"""Writes the bad-input model fixtures of tests/io/bad_inputs_test.cc into tests/fixtures/bad_inputs/.

Each is a small valid model, 2 -> 3 -> 1 with Gemm and Relu, changed in one respect. Inputs libFuzzer found
(fuzz/) are kept there too, as they were found; this script does not write those.
Usage: /usr/bin/python3 tests/io/make_bad_fixtures.py
"""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "bad_inputs")


def model(opset=13, input_shape=(1, 2), w0=None, relu_op="Relu", first_in=2):
    w0 = np.arange(3 * first_in, dtype=np.float32).reshape(3, first_in) / 4 if w0 is None else w0
    inits = [numpy_helper.from_array(w0, "W0"), numpy_helper.from_array(np.ones(3, np.float32), "b0"),
             numpy_helper.from_array(np.ones((1, 3), np.float32), "W1"),
             numpy_helper.from_array(np.zeros(1, np.float32), "b1")]
    nodes = []
    x = "x"
    if len(input_shape) != 2:
        nodes.append(helper.make_node("Flatten", ["x"], ["flat"], name="flatten", axis=1))
        x = "flat"
    nodes += [helper.make_node("Gemm", [x, "W0", "b0"], ["h0"], name="fc0", transB=1),
              helper.make_node(relu_op, ["h0"], ["a0"], name="act0"),
              helper.make_node("Gemm", ["a0", "W1", "b1"], ["y"], name="fc1", transB=1)]
    graph = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    return m


def broadcast_blowup(n):
    """x [1,1] + a [n,1] + b [1,n]: constants of n numbers each broadcast to n^2 affine rows."""
    inits = [numpy_helper.from_array(np.ones((n, 1), np.float32), "a"),
             numpy_helper.from_array(np.ones((1, n), np.float32), "b")]
    nodes = [helper.make_node("Add", ["x", "a"], ["xa"], name="add_column"),
             helper.make_node("Add", ["xa", "b"], ["y"], name="add_row")]
    graph = helper.make_graph(nodes, "blowup", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    return m


def write(name, m):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(m if isinstance(m, bytes) else m.SerializeToString())


def main():
    os.makedirs(OUT, exist_ok=True)
    write("opset6.onnx", model(opset=6))
    write("opset7.onnx", model(opset=7))
    write("opset29.onnx", model(opset=29))
    write("batch_input_3x6.onnx", model(input_shape=(3, 6), first_in=6))
    write("image_input_1x1x2x3.onnx", model(input_shape=(1, 1, 2, 3), first_in=6))
    w_nan = np.ones((3, 2), np.float32)
    w_nan[1, 0] = np.nan
    write("nan_weight.onnx", model(w0=w_nan))
    w_inf = np.ones((3, 2), np.float32)
    w_inf[2, 1] = -np.inf
    write("inf_weight.onnx", model(w0=w_inf))
    # protobuf's Python API refuses invalid UTF-8 in a string field, so the byte goes into the serialized model.
    raw = model(relu_op="ReluX").SerializeToString()
    write("non_utf8_operator.onnx", raw.replace(b"ReluX", b"Relu\xff", 1))
    huge = model()
    del huge.graph.initializer[0].dims[:]
    huge.graph.initializer[0].dims.extend([2**40, 2**40])  # 2^80 elements, with the data of 6
    write("huge_dims.onnx", huge)
    write("broadcast_blowup.onnx", broadcast_blowup(1000))
    duplicate = model()
    duplicate.graph.initializer.append(numpy_helper.from_array(np.zeros((3, 2), np.float32), "W0"))
    write("duplicate_initializer.onnx", duplicate)
    good = model().SerializeToString()
    write("truncated.onnx", good[: len(good) // 2])
    write("empty.onnx", b"")


if __name__ == "__main__":
    main()
