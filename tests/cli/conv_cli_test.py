#!/usr/bin/python3
"""End-to-end runs of `reluopt solve` on a small convolutional ONNX network (tests/fixtures/conv/conv_stride2:
[1,1,8,8] -> Conv 3 maps 3x3 stride 2 -> Relu -> Flatten -> Gemm 2). Each reported point is re-checked by a
numpy forward pass of the ONNX file (make_conv_fixtures.ref_conv, independent of the reader), the provers
must agree on the optimum, and a refused model gives one line on stderr.

Usage: conv_cli_test.py RELUOPT_BINARY FIXTURES_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

BINARY, FIXTURES = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "io"))
from make_conv_fixtures import ref_conv  # noqa: E402

MODEL = os.path.join(FIXTURES, "conv", "conv_stride2.onnx")


def reference_forward(x):
    weights = {t.name: numpy_helper.to_array(t) for t in onnx.load(MODEL).graph.initializer}
    conv, gemm = [n for n in onnx.load(MODEL).graph.node if n.op_type in ("Conv", "Gemm")]
    h = ref_conv(np.asarray(x).reshape(1, 1, 8, 8), weights[conv.input[1]], weights[conv.input[2]], (2, 2),
                 (0, 0, 0, 0), (1, 1), 1)
    h = np.maximum(h, 0).reshape(-1)
    return weights[gemm.input[1]] @ h + weights[gemm.input[2]]


class ConvSolve(unittest.TestCase):
    def solve(self, method, *extra):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "result.json")
            proc = subprocess.run([BINARY, "solve", MODEL, "--method", method, "--quiet", "--json", out,
                                   "--seed", "3", "--threads", "2", *extra], capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(out) as f:
                return json.load(f)

    def check_point(self, result):
        x = np.asarray(result["x"])
        self.assertEqual(x.size, 64)
        self.assertTrue(np.all(x >= 0) and np.all(x <= 1))
        self.assertAlmostEqual(result["objective"], reference_forward(x)[0], delta=1e-9)

    def test_methods_agree_and_points_recheck(self):
        proven = {}
        for method in ["bab", "mip"]:
            result = self.solve(method, "--time-limit", "30")
            self.check_point(result)
            self.assertEqual(result["status"], "optimal", method)
            self.assertGreaterEqual(result["bound"], result["objective"] - 1e-6)
            proven[method] = result["objective"]
        self.assertAlmostEqual(proven["bab"], proven["mip"], delta=1e-6)
        for method in ["sampling", "enhanced"]:
            result = self.solve(method, "--samples", "50")
            self.check_point(result)
            self.assertLessEqual(result["objective"], proven["mip"] + 1e-6)

    def test_refused_model_is_one_line(self):
        proc = subprocess.run([BINARY, "solve", os.path.join(FIXTURES, "conv", "maxpool.onnx")],
                              capture_output=True, text=True)
        self.assertNotEqual(proc.returncode, 0)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("MaxPool", lines[0])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
