#!/usr/bin/env python3
"""Writes the ONNX fixtures of tests/io/onnx_dtype_test.cc into tests/fixtures/dtype/: networks whose initializers
are FLOAT16 or BFLOAT16, stored as raw little-endian bytes, in int32_data (the low 16 bits of each entry, as
ONNX's TensorProto keeps 16-bit floats) and as external data, with float16 graph inputs and outputs; and the
16-bit tensors the reader refuses (an infinite weight, raw bytes that do not fit the shape).

The weights include what half precision has at its edges: subnormals (2^-24, the smallest), the largest finite
value 65504, a negative zero, values that need all 11 significant bits. The reference forward pass is numpy in
float64 on the weights as numpy decodes them (np.float16, and bfloat16 as the upper half of a float32), checked
against onnx.numpy_helper's decoding of the same tensors: every 16-bit float is exact in double, so the reader
must match to 1e-12. Usage: python3 tests/io/make_dtype_fixtures.py (Debian's python3 with onnx and numpy).
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "dtype")
EDGES = [2.0 ** -24, -(2.0 ** -24) * 3, 6.097555e-05, 65504.0, -0.0, 1.0009765625, -2047.0 / 1024, 0.333251953125]


def weights(rng, shape, edges=True):
    w = rng.uniform(-1, 1, shape)
    if edges:
        w.flat[:len(EDGES)] = EDGES[:w.size]
    return w


def bf16_bits(values):
    """The bfloat16 nearest below in magnitude (truncation of the float32): its bits and its exact value."""
    bits = (np.asarray(values, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return bits, (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def tensor16(name, values, dtype, raw):
    """A FLOAT16 or BFLOAT16 TensorProto with `values` (already representable), raw or in int32_data."""
    if dtype == TensorProto.FLOAT16:
        bits = np.asarray(values, dtype=np.float16).view(np.uint16)
    else:
        bits, _ = bf16_bits(values)
    t = TensorProto(name=name, data_type=dtype, dims=list(np.shape(values)))
    if raw:
        t.raw_data = bits.astype("<u2").tobytes()
    else:
        t.int32_data.extend(int(b) for b in bits.reshape(-1))
    return t


def exact(values, dtype):
    return np.asarray(values, dtype=np.float16).astype(np.float64) if dtype == TensorProto.FLOAT16 \
        else bf16_bits(values)[1].reshape(np.shape(values))


def two_layer(dtype, raw, io_dtype, seed):
    """input [1,4] -> Gemm (16-bit W [3,4], b [3]) -> Relu -> MatMul (16-bit [3,2]) -> Add (16-bit [2]) -> [1,2]."""
    rng = np.random.default_rng(seed)
    w1, b1 = exact(weights(rng, (3, 4)), dtype), exact(weights(rng, 3, False), dtype)
    w2, b2 = exact(weights(rng, (3, 2), False) * 100, dtype), exact(weights(rng, 2, False), dtype)
    inits = [tensor16("W1", w1, dtype, raw), tensor16("B1", b1, dtype, raw), tensor16("W2", w2, dtype, raw),
             tensor16("B2", b2, dtype, raw)]
    for t, want in zip(inits, (w1, b1, w2, b2)):  # onnx's own decoding agrees with the reference's weights
        got = numpy_helper.to_array(t)
        got = got.astype(np.float64) if got.dtype != np.uint16 else bf16_bits(got)[1]
        assert np.array_equal(got.reshape(want.shape), want), t.name
    nodes = [helper.make_node("Gemm", ["x", "W1", "B1"], ["h"], transB=1), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "W2"], ["m"]), helper.make_node("Add", ["m", "B2"], ["y"])]
    if dtype == TensorProto.BFLOAT16:  # onnx's schemas take bfloat16 for Gemm and MatMul from opset 13
        opset = 13
    else:
        opset = 11
    graph = helper.make_graph(nodes, "dtype", [helper.make_tensor_value_info("x", io_dtype, [1, 4])],
                              [helper.make_tensor_value_info("y", io_dtype, [1, 2])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    forward = lambda x: np.maximum(x @ w1.T + b1, 0) @ w2 + b2
    return model, forward


def write(name, model, forward, expected, rng, external=False):
    onnx.checker.check_model(model)
    path = os.path.join(OUT, name)
    if external:
        onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=name + ".data", size_threshold=0)
    else:
        onnx.save(model, path)
    inputs = [rng.uniform(-1, 1, 4) for _ in range(3)]
    expected[name] = {"inputs": [x.tolist() for x in inputs], "outputs": [forward(x).tolist() for x in inputs]}


def refused():
    model, _ = two_layer(TensorProto.FLOAT16, True, TensorProto.FLOAT, 5)
    w = model.graph.initializer[0]
    bits = bytearray(w.raw_data)
    bits[6:8] = np.array([0x7c00], dtype="<u2").tobytes()  # +infinity at element 3
    w.raw_data = bytes(bits)
    onnx.save(model, os.path.join(OUT, "float16_infinite.onnx"))
    model, _ = two_layer(TensorProto.BFLOAT16, True, TensorProto.FLOAT, 6)
    model.graph.initializer[1].raw_data = model.graph.initializer[1].raw_data[:4]  # 2 of the 3 elements
    onnx.save(model, os.path.join(OUT, "bfloat16_short_raw.onnx"))


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(0)
    expected = {}
    f16, bf16 = TensorProto.FLOAT16, TensorProto.BFLOAT16
    write("float16_raw.onnx", *two_layer(f16, True, f16, 1), expected, rng)
    write("float16_int32_data.onnx", *two_layer(f16, False, f16, 2), expected, rng)
    write("bfloat16_raw.onnx", *two_layer(bf16, True, bf16, 3), expected, rng)
    write("bfloat16_int32_data.onnx", *two_layer(bf16, False, bf16, 4), expected, rng)
    write("float16_external.onnx", *two_layer(f16, True, f16, 7), expected, rng, external=True)
    refused()
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
