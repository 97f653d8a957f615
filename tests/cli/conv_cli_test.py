#!/usr/bin/python3
"""End-to-end runs of `reluopt solve` on a small convolutional ONNX network (tests/fixtures/conv/conv_stride2:
[1,1,8,8] -> Conv 3 maps 3x3 stride 2 -> Relu -> Flatten -> Gemm 2). Each reported point is re-checked by a
numpy forward pass of the ONNX file (make_conv_fixtures.ref_conv, independent of the reader), the provers
must agree on the optimum, and a refused model gives one line on stderr. A wider convolution (9216 neurons) runs
every method and verify to its time limit in 1.2 GB of address space.

Usage: conv_cli_test.py RELUOPT_BINARY FIXTURES_DIR
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

BINARY, FIXTURES = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sanitizer import built_with_address_sanitizer  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "io"))
from make_conv_fixtures import Net, ref_conv  # noqa: E402

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
        proc = subprocess.run([BINARY, "solve", os.path.join(FIXTURES, "conv", "sigmoid.onnx")],
                              capture_output=True, text=True)
        self.assertNotEqual(proc.returncode, 0)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("Sigmoid", lines[0])


@unittest.skipIf(built_with_address_sanitizer(BINARY), "AddressSanitizer cannot run under an address-space limit")
class WideConvWithinLimits(unittest.TestCase):
    """[1,1,24,24] -> Conv 16 maps 3x3 pad 1 -> Relu -> Flatten -> Gemm 3: a dense layer of 9216 x 576 (42 MB), whose
    ReLU output the reader must not hold as a 9216 x 9217 identity (680 MB, copied again by Flatten and Gemm). Every
    run gets 1.2 GB of address space and must report its result within its time limit plus a slack that covers a
    loaded machine (the one-second guarantee is measured in bench/). Reading the model takes most of a second,
    on a loaded machine all of it: a run that ends without a point must say the clock stopped it, and runs again
    with twice the time, until one ends with a point, so that every method runs on the network under the cap."""

    LIMIT = 1.0
    LIMIT_CAP = 16.0
    SLACK = 10.0
    ADDRESS_SPACE = 1200 * 1000 * 1000

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = os.path.join(cls.tmp.name, "wide_conv.onnx")
        onnx.save(Net([1, 1, 24, 24], 5).conv(16, (3, 3), pads=(1, 1, 1, 1)).relu().flatten().gemm(3).model(), cls.model)
        cls.domain = os.path.join(cls.tmp.name, "box.json")
        with open(cls.domain, "w") as f:
            json.dump({"lower": [0.4] * 576, "upper": [0.6] * 576}, f)
        cls.property = os.path.join(cls.tmp.name, "robust.vnnlib")
        lines = [f"(declare-const X_{i} Real)" for i in range(576)] + [f"(declare-const Y_{j} Real)" for j in range(3)]
        for i in range(576):
            lines += [f"(assert (>= X_{i} 0.4))", f"(assert (<= X_{i} 0.6))"]
        lines.append("(assert (or (and (<= Y_0 Y_1)) (and (<= Y_0 Y_2))))")
        with open(cls.property, "w") as f:
            f.write("\n".join(lines) + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_capped(self, args):
        def cap():
            resource.setrlimit(resource.RLIMIT_AS, (self.ADDRESS_SPACE, self.ADDRESS_SPACE))
        env = dict(os.environ, MALLOC_ARENA_MAX="2")  # each malloc arena reserves 64 MB of address space
        start = time.monotonic()
        proc = subprocess.run([BINARY] + args, capture_output=True, text=True, preexec_fn=cap, env=env, timeout=120)
        return proc, time.monotonic() - start

    def solve_capped(self, method, limit):
        out = os.path.join(self.tmp.name, method + ".json")
        if os.path.exists(out):
            os.remove(out)
        proc, wall = self.run_capped(["solve", self.model, "--domain", self.domain, "--method", method,
                                      "--time-limit", str(limit), "--threads", "2", "--quiet", "--json", out])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertLess(wall, limit + self.SLACK, method)
        with open(out) as f:
            return json.load(f)

    def test_every_method_reports_within_its_limit(self):
        for method in ["enhanced", "sampling", "mip", "bab", "walk", "gradient"]:
            with self.subTest(method=method):
                limit = self.LIMIT
                result = self.solve_capped(method, limit)
                while result["status"] == "no_solution" and limit < self.LIMIT_CAP:
                    # Only the clock may leave a run without a point (reading the model used the time up).
                    self.assertEqual(result["stopped_by"], "time_limit", method)
                    self.assertEqual(result["x"], [], method)
                    self.assertIsNone(result["objective"], method)
                    limit *= 2
                    result = self.solve_capped(method, limit)
                self.assertIn(result["status"], ("feasible", "optimal"), method)
                x = np.asarray(result["x"])
                self.assertEqual(x.size, 576)
                self.assertTrue(np.all(x >= 0.4) and np.all(x <= 0.6), method)

    def test_verify_reports_within_its_limit(self):
        proc, wall = self.run_capped(["verify", self.model, self.property, "--time-limit", str(self.LIMIT),
                                      "--threads", "2", "--quiet"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertLess(wall, self.LIMIT + self.SLACK)
        self.assertIn(proc.stdout.splitlines()[0], ("sat", "unsat", "timeout", "unknown"))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
