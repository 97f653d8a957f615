#!/usr/bin/python3
"""reluopt verify and the VNN-COMP scripts end to end: the answer on stdout, in --result-file and in --json,
a sat re-checked by bench/verify_check.py, and bad input refused in one line.

Usage: verify_cli_test.py RELUOPT_BINARY FIXTURES_DIR REPOSITORY_DIR
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY, FIXTURES, REPO = sys.argv[1], sys.argv[2], sys.argv[3]
DIR = os.path.join(FIXTURES, "vnnlib")
MODEL = os.path.join(DIR, "cls5.onnx")
SAT = os.path.join(DIR, "cls5_sat.vnnlib")
UNSAT = os.path.join(DIR, "cls5_unsat.vnnlib")
sys.path.insert(0, os.path.join(REPO, "bench"))
import verify_check  # noqa: E402


def write_slow_model(path, additions):
    """[1, 5] -> MatMul to 20000 -> `additions` x Add of a constant -> MatMul to 3: quick to write, slow to read."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.uniform(-1, 1, (5, 20000)), "w0"),
             numpy_helper.from_array(np.full(20000, 0.001), "c"),
             numpy_helper.from_array(rng.uniform(-1, 1, (20000, 3)), "w1")]
    nodes = [helper.make_node("MatMul", ["x", "w0"], ["h0"])]
    nodes += [helper.make_node("Add", ["h%d" % k, "c"], ["h%d" % (k + 1)]) for k in range(additions)]
    nodes.append(helper.make_node("MatMul", ["h%d" % additions, "w1"], ["y"]))
    graph = helper.make_graph(nodes, "slow", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [1, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [1, 3])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


class VerifyCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="reluopt_verify_")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def verify(self, *args, code=0):
        proc = subprocess.run([BINARY, "verify", *args], capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, code, proc.stderr)
        return proc

    def assert_refused(self, args, code, *words):
        proc = self.verify(*args, code=code)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        for word in words:
            self.assertIn(word, lines[0])

    def test_sat_with_checked_counterexample(self):
        result, doc = self.path("sat.txt"), self.path("sat.json")
        proc = self.verify(MODEL, SAT, "--time-limit", "30", "--result-file", result, "--json", doc, "--seed", "1")
        self.assertEqual(proc.stdout.splitlines()[0], "sat")
        self.assertEqual(open(result).read(), proc.stdout)
        lines = proc.stdout.splitlines()
        self.assertEqual(len(lines), 1 + 5 + 3)
        self.assertTrue(lines[1].startswith("((X_0 ") and lines[-1].startswith("(Y_2 ") and lines[-1].endswith("))"))
        ok, text = verify_check.check(MODEL, SAT, result)
        self.assertTrue(ok, text)
        report = json.load(open(doc))
        self.assertEqual(report["status"], "sat")
        self.assertEqual(len(report["counterexample"]["x"]), 5)
        self.assertGreaterEqual(report["cases"][0]["best_margin"], 0.0)
        self.assertIn("box 0: best margin", proc.stderr)

    def test_unsat_and_quiet(self):
        doc = self.path("unsat.json")
        proc = self.verify(MODEL, UNSAT, "--time-limit", "30", "--json", doc, "--quiet")
        self.assertEqual(proc.stdout, "unsat\n")
        self.assertEqual(proc.stderr, "")
        report = json.load(open(doc))
        self.assertLess(report["cases"][0]["bound"], -1e-4)
        self.assertNotIn("counterexample", report)

    def test_zero_time_is_timeout(self):
        self.assertEqual(self.verify(MODEL, SAT, "--time-limit", "0", "-q").stdout, "timeout\n")

    def test_a_property_not_read_in_time_is_a_timeout_with_its_result(self):
        # The reader watches the limit: 200,000 distinct asserts at --time-limit 0 stop within the file's first
        # few thousand tokens, and the answer is still written.
        result, doc = self.path("unread.txt"), self.path("unread.json")
        asserts = "".join(f"(assert (<= Y_0 {1000 + i}))\n" for i in range(200000))
        prop = self.big_property("unread.vnnlib", asserts)
        proc = self.verify(MODEL, prop, "--time-limit", "0", "--result-file", result, "--json", doc)
        self.assertEqual(proc.stdout, "timeout\n")
        self.assertIn("reading stopped: the time limit ran out", proc.stderr)
        self.assertEqual(open(result).read(), "timeout\n")
        self.assertEqual(json.load(open(doc))["status"], "timeout")

    def test_a_model_not_read_in_time_is_a_timeout_with_its_result(self):
        # 20000 additions of a constant to a tensor of 20000 elements affine in the input: each copies its
        # 20000 x 6 coefficients, seconds in all, while the file is small.
        model = self.path("slow.onnx")
        write_slow_model(model, 20000)
        prop = self.big_property("slow.vnnlib", "(assert (<= Y_0 0))\n")
        result, doc = self.path("unread_model.txt"), self.path("unread_model.json")
        proc = self.verify(model, prop, "--time-limit", "0.3", "--result-file", result, "--json", doc)
        self.assertEqual(proc.stdout, "timeout\n")
        self.assertEqual(proc.stderr.splitlines()[0],
                         "reluopt: the model '%s' was not read: the time limit ran out" % model)
        self.assertEqual(open(result).read(), "timeout\n")
        self.assertEqual(json.load(open(doc))["status"], "timeout")

    def test_bad_input(self):
        bad = self.path("bad.vnnlib")
        with open(bad, "w") as f:
            f.write("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (not (<= Y_0 1)))\n")
        self.assert_refused([MODEL, bad], 1, "bad.vnnlib", "line 3", "unsupported formula 'not'")
        self.assert_refused([MODEL, self.path("none.vnnlib")], 1, "none.vnnlib", "no such file")
        small = self.path("small.vnnlib")
        with open(small, "w") as f:
            f.write("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= 0 X_0 1))\n")
        self.assert_refused([MODEL, small], 1, "dimension mismatch")
        self.assert_refused([MODEL], 2, "verify needs MODEL and PROPERTY.vnnlib")
        self.assert_refused([MODEL, SAT, "--time-limit", "-1"], 2, "--time-limit")
        self.assert_refused([MODEL, SAT, "--method", "bab"], 2, "unknown option '--method'")

    def big_property(self, name, outputs):
        """cls5_unsat.vnnlib's input box with the given output asserts."""
        path = self.path(name)
        with open(UNSAT) as f:
            box = "".join(line for line in f if "Y_" not in line or "declare" in line)
        with open(path, "w") as f:
            f.write(box + outputs)
        return path

    def test_repeated_output_constraint_is_folded(self):
        # 2,000 asserts of one direction compile to the tightest one (a max-min tree of them grows as their
        # square). Their constants differ, so the reader keeps all 2,000 and folding makes them one.
        doc, result = self.path("repeated.json"), self.path("repeated.txt")
        asserts = "".join(f"(assert (>= Y_1 {30 - i / 1000:.3f}))\n" for i in range(2000))
        prop = self.big_property("repeated.vnnlib", asserts)
        proc = self.verify(MODEL, prop, "--time-limit", "20", "--json", doc, "--result-file", result, "-q")
        self.assertEqual(proc.stdout.splitlines()[0], "sat")
        self.assertTrue(verify_check.check(MODEL, prop, result)[0])
        folded = json.load(open(doc))["cases"][0]["folded"]
        self.assertEqual((folded["constraints_read"], folded["constraints"], folded["runs"]), (2000, 1, 1))

    def test_repeated_assert_is_read_once(self):
        doc = self.path("copies.json")
        prop = self.big_property("copies.vnnlib", "(assert (>= Y_1 30))\n" * 2000)
        proc = self.verify(MODEL, prop, "--time-limit", "20", "--json", doc, "-q")
        self.assertEqual(proc.stdout.splitlines()[0], "sat")
        folded = json.load(open(doc))["cases"][0]["folded"]
        self.assertEqual((folded["constraints_read"], folded["constraints"], folded["runs"]), (1, 1, 1))

    def test_huge_constants(self):
        # A constraint that always holds is dropped, whatever its constant; one that never holds takes its
        # conjunction with it.
        prop = self.big_property("huge.vnnlib", "(assert (<= Y_0 1e20))\n(assert (or (>= Y_1 1e20) (>= Y_1 1000)))\n")
        self.assertEqual(self.verify(MODEL, prop, "--time-limit", "20", "-q").stdout, "unsat\n")

    def test_solve_with_a_max_min_objective(self):
        doc = self.path("max_min.json")
        objective = os.path.join(DIR, "cls5_max_min_objective.json")
        proc = subprocess.run([BINARY, "solve", MODEL, "--objective", objective, "--method", "bab", "--json", doc,
                               "--quiet"], capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("the max-min objective of", proc.stdout)
        result = json.load(open(doc))
        y = result["outputs"]
        value = max(min(y[1] - y[2], y[1] - 20), y[0] - 30)
        self.assertAlmostEqual(result["objective"], value, places=9)
        self.assertGreaterEqual(result["bound"], result["objective"] - 1e-9)

    def test_vnncomp_scripts(self):
        scripts = os.path.join(REPO, "vnncomp")
        # The scripts run the binary under test, not the default build directory's.
        env = dict(os.environ, RELUOPT_BINARY=BINARY)
        onnx_gz, prop_gz = self.path("m.onnx.gz"), self.path("p.vnnlib.gz")
        for source, target in ((MODEL, onnx_gz), (SAT, prop_gz)):
            with open(source, "rb") as f, gzip.open(target, "wb") as g:
                g.write(f.read())
        prepared = subprocess.run([os.path.join(scripts, "prepare_instance.sh"), "v1", "test", onnx_gz, prop_gz],
                                  capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(prepared.returncode, 0, prepared.stderr)
        result = self.path("vnncomp.txt")
        run = subprocess.run([os.path.join(scripts, "run_instance.sh"), "v1", "test", self.path("m.onnx"),
                              self.path("p.vnnlib"), result, "20"], capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(open(result).read().splitlines()[0], "sat")
        self.assertTrue(verify_check.check(MODEL, SAT, result)[0])
        wrong = subprocess.run([os.path.join(scripts, "run_instance.sh"), "v2", "test", MODEL, SAT, result, "5"],
                               capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(wrong.returncode, 1)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
