#!/usr/bin/python3
"""End-to-end runs of the reluopt command-line tool: results parsed from its JSON and checked against an
independent numpy forward pass; every class of bad input gives one line on stderr and exit code 1 or 2.

Usage: cli_test.py RELUOPT_BINARY FIXTURES_DIR EXAMPLES_DIR
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from under_way import read_until_closed, start_under_way  # noqa: E402

BINARY, FIXTURES, EXAMPLES = sys.argv[1], sys.argv[2], sys.argv[3]


def xavier_layers(sizes, seed):
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        a = np.sqrt(6.0 / (fan_in + fan_out))
        weights = rng.uniform(-a, a, size=(fan_out, fan_in)).astype(np.float32).astype(np.float64)
        bias = rng.uniform(-1, 1, size=fan_out).astype(np.float32).astype(np.float64) / np.sqrt(fan_in)
        layers.append((weights, bias.astype(np.float32).astype(np.float64)))
    return layers


def write_gemm_onnx(layers, path, last_op=None):
    """PyTorch-style export: Gemm(transB=1) + Relu, input [1, d]."""
    nodes, inits = [], []
    current = "x"
    for k, (weights, bias) in enumerate(layers):
        inits.append(numpy_helper.from_array(weights.astype(np.float32), f"W{k}"))
        inits.append(numpy_helper.from_array(bias.astype(np.float32), f"b{k}"))
        nodes.append(helper.make_node("Gemm", [current, f"W{k}", f"b{k}"], [f"h{k}"], name=f"gemm{k}", transB=1))
        current = f"h{k}"
        if k + 1 < len(layers):
            nodes.append(helper.make_node("Relu", [current], [f"a{k}"], name=f"relu{k}"))
            current = f"a{k}"
    if last_op:
        nodes.append(helper.make_node(last_op, [current], ["y"], name="final_" + last_op.lower()))
        current = "y"
    d, m = layers[0][0].shape[1], layers[-1][0].shape[0]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, d])],
                              [helper.make_tensor_value_info(current, TensorProto.FLOAT, [1, m])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def forward(layers, x):
    value = np.asarray(x, dtype=np.float64)
    for k, (weights, bias) in enumerate(layers):
        value = weights @ value + bias
        if k + 1 < len(layers):
            value = np.maximum(value, 0.0)
    return value


class Cli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        cls.layers = xavier_layers([6, 16, 16, 3], seed=4)
        cls.model = cls.path("net.onnx")
        write_gemm_onnx(cls.layers, cls.model)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def path(cls, name):
        return os.path.join(cls.dir, name)

    def write_json(self, name, content):
        path = self.path(name)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def run_tool(self, *args, timeout=120):
        return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=timeout)

    def solve(self, *args):
        out = self.path("result.json")
        if os.path.exists(out):
            os.remove(out)
        proc = self.run_tool("solve", *args, "--json", out, "--quiet")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            return json.load(f), proc

    def assert_honest(self, result, layers, weights, constant, lower, upper, A=None, b=None):
        x = np.array(result["x"])
        value = float(np.dot(weights, forward(layers, x)) + constant)
        self.assertAlmostEqual(result["objective"], value, delta=1e-6 * max(1.0, abs(value)))
        self.assertTrue(np.all(x >= np.array(lower) - 1e-7) and np.all(x <= np.array(upper) + 1e-7))
        if A is not None:
            self.assertTrue(np.all(np.array(A) @ x <= np.array(b) + 1e-7))

    def assert_bad_input(self, args, code, *words):
        proc = self.run_tool(*args)
        self.assertEqual(proc.returncode, code, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        for word in words:
            self.assertIn(word, lines[0])
        return lines[0]

    # ---- good runs ----------------------------------------------------------------------------------
    def test_help_and_version(self):
        proc = self.run_tool("--help")
        self.assertEqual(proc.returncode, 0)
        self.assertIn("reluopt solve MODEL", proc.stdout)
        proc = self.run_tool("--version")
        self.assertEqual(proc.returncode, 0)
        self.assertRegex(proc.stdout, r"^reluopt \d+\.\d+\.\d+")

    def test_default_domain_and_objective(self):
        result, proc = self.solve(self.model, "--samples", "300", "--seed", "3", "--threads", "2")
        for key in ["method", "status", "objective", "x", "bound", "samples", "lps", "duplicate_patterns",
                    "seconds", "seed", "threads", "version", "model", "domain"]:
            self.assertIn(key, result)
        self.assertEqual(result["method"], "enhanced")  # the default method
        self.assertEqual(result["status"], "feasible")
        self.assertIsNone(result["bound"])
        self.assertEqual(result["samples"], 300)
        self.assertGreater(result["local_searches"], 0)
        self.assertGreaterEqual(result["lps"] + result["duplicate_patterns"], 300)
        self.assertEqual(result["seed"], 3)
        self.assertEqual(result["threads"], 2)
        self.assertIn("[0,1]^6", result["domain"])
        self.assertIn("default", result["domain"])
        self.assertIn("default", proc.stdout)  # the summary says the defaults were used
        self.assertIn("maximize output 0", proc.stdout)
        self.assert_honest(result, self.layers, np.eye(3)[0], 0.0, [0] * 6, [1] * 6)

    def test_sampling_counts_every_sample(self):
        result, _ = self.solve(self.model, "--method", "sampling", "--samples", "300", "--threads", "2")
        self.assertEqual(result["method"], "sampling")
        self.assertEqual(result["lps"] + result["duplicate_patterns"], 300)
        self.assertEqual(result["local_searches"], 0)
        self.assert_honest(result, self.layers, np.eye(3)[0], 0.0, [0] * 6, [1] * 6)

    def test_gradient_and_walk(self):
        gradient, proc = self.solve(self.model, "--method", "gradient", "--samples", "30", "--ascent-steps", "50",
                                    "--perturbations", "2", "--perturbation-radius", "0.1", "--threads", "2")
        self.assertEqual(gradient["method"], "gradient")
        self.assertGreater(gradient["gradient_steps"], 0)
        self.assertIn("perturbations", gradient)
        self.assertIn(f"{gradient['gradient_steps']} steps", proc.stdout)
        self.assert_honest(gradient, self.layers, np.eye(3)[0], 0.0, [0] * 6, [1] * 6)
        walk, _ = self.solve(self.model, "--method", "walk", "--walk-iterations", "3", "--threads", "2")
        self.assertEqual(walk["method"], "walk")
        self.assertGreaterEqual(walk["walks"], 1)
        self.assert_honest(walk, self.layers, np.eye(3)[0], 0.0, [0] * 6, [1] * 6)
        for flag, value in (("--ascent-steps", "-1"), ("--perturbation-radius", "0"), ("--walk-iterations", "-2")):
            proc = self.run_tool("solve", self.model, "--method", "gradient", flag, value)
            self.assertEqual(proc.returncode, 2)
            self.assertIn(flag, proc.stderr)
            self.assertEqual(len(proc.stderr.strip().splitlines()), 1)

    def test_enhanced_local_search_variants(self):
        for kind in ("flip", "flip-mip", "bnb", "paper"):
            result, _ = self.solve(self.model, "--method", "enhanced", "--local-search", kind, "--samples", "40")
            self.assertEqual(result["method"], "enhanced")
            self.assert_honest(result, self.layers, np.eye(3)[0], 0.0, [0] * 6, [1] * 6)

    def test_same_seed_same_answer(self):
        a, _ = self.solve(self.model, "--samples", "200", "--seed", "5", "--threads", "2")
        b, _ = self.solve(self.model, "--samples", "200", "--seed", "5", "--threads", "2")
        self.assertEqual(a["x"], b["x"])
        self.assertEqual(a["objective"], b["objective"])

    def test_polytope_and_multi_output_minimization(self):
        rng = np.random.default_rng(1)
        A = rng.normal(size=(4, 6))
        b = A @ np.full(6, 0.5) + 0.3
        lower, upper = [-1.0] * 6, [2.0] * 6
        domain = self.write_json("poly.json", {"lower": lower, "upper": upper, "A": A.tolist(), "b": b.tolist()})
        objective = self.write_json("obj.json", {"sense": "min", "weights": [1.0, -0.5, 2.0], "constant": 0.75})
        result, _ = self.solve(self.model, "--domain", domain, "--objective", objective, "--samples", "300")
        self.assertEqual(result["status"], "feasible")
        self.assert_honest(result, self.layers, np.array([1.0, -0.5, 2.0]), 0.75, lower, upper, A, b)
        # Minimization: the reported value is no larger than the objective at the domain's samples' centre.
        centre_value = float(np.dot([1.0, -0.5, 2.0], forward(self.layers, np.full(6, 0.5))) + 0.75)
        self.assertLessEqual(result["objective"], centre_value + 1e-9)

    def test_time_limit_stops_the_run(self):
        # Algorithm 2 alone (--mip-share 0): nothing proves the optimum, the clock ends the run.
        result, _ = self.solve(self.model, "--samples", "1000000000", "--time-limit", "1", "--mip-share", "0")
        self.assertEqual(result["stopped_by"], "time_limit")
        self.assertEqual(result["status"], "feasible")
        self.assertIsNone(result["bound"])
        self.assertLess(result["samples"], 1000000000)

    def test_time_limited_enhanced_ends_with_a_proven_bound(self):
        # A timed enhanced run ends with the prover from Algorithm 2's point, for all the time left: a bound from
        # the same run, here (a small network) a proof of optimality. Algorithm 2 ends on its sample count and the
        # run on the proof, so the outcome does not depend on the machine's speed.
        result, _ = self.solve(self.model, "--samples", "200", "--time-limit", "300", "--seed", "3")
        self.assertEqual(result["method"], "enhanced")
        self.assertEqual(result["prover"], "bab")
        self.assertIsNotNone(result["bound"])
        self.assertGreaterEqual(result["bound"], result["objective"] - 1e-6 * max(1.0, abs(result["objective"])))
        self.assertEqual(result["status"], "optimal")
        self.assertEqual(result["stopped_by"], "completed")
        self.assertLess(result["seconds"], 300)
        self.assertGreater(len(result["bound_trajectory"]), 0)

    def test_concave_neurons_need_no_binary_and_keep_the_optimum(self):
        free, _ = self.solve(self.model, "--method", "mip", "--time-limit", "30")
        fixed, _ = self.solve(self.model, "--method", "mip", "--time-limit", "30", "--concave-neurons", "fixed")
        self.assertEqual(free["status"], "optimal")
        self.assertEqual(fixed["status"], "optimal")
        self.assertAlmostEqual(free["objective"], fixed["objective"], delta=1e-6 * max(1.0, abs(fixed["objective"])))
        self.assertGreater(free["concave_neurons"], 0)
        self.assertEqual(fixed["concave_neurons"], 0)
        self.assertEqual(free["formulation"]["binaries"] + free["concave_neurons"], fixed["formulation"]["binaries"])
        sampled, _ = self.solve(self.model, "--method", "sampling", "--samples", "50")
        # Sampling uses interval bounds, the MIP its tighter LP bounds: at least as many neurons stay unstable.
        self.assertGreaterEqual(sampled["concave_neurons"], free["concave_neurons"])

    def test_ctrl_c_still_reports_the_incumbent(self):
        out = self.path("interrupted.json")
        proc, terminal = start_under_way([BINARY, "solve", self.model, "--samples", "1000000000", "--json", out],
                                         samples=1, stdout=subprocess.PIPE)
        proc.send_signal(signal.SIGINT)
        stderr = read_until_closed(terminal)
        stdout, _ = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, stderr)
        self.assertIn("interrupted", stdout)
        with open(out) as f:
            result = json.load(f)
        self.assertEqual(result["stopped_by"], "interrupted")
        self.assertEqual(result["status"], "feasible")
        self.assert_honest(result, self.layers, np.eye(3)[0], 0.0, [0] * 6, [1] * 6)

    def test_example_runs(self):
        model = os.path.join(EXAMPLES, "xavier_10_50_50.onnx")
        domain = os.path.join(EXAMPLES, "budget_domain.json")
        result, _ = self.solve(model, "--domain", domain, "--samples", "100")
        self.assertEqual(result["status"], "feasible")

    def test_nnet_model(self):
        model = os.path.join(FIXTURES, "nnet", "small.nnet")
        result, proc = self.solve(model, "--samples", "100")
        self.assertEqual(result["status"], "feasible")
        self.assertIn("NNet", result["domain"])

    def test_mip_proves_the_optimum_of_a_small_network(self):
        layers = xavier_layers([3, 6, 6, 1], seed=9)
        model = self.path("small.onnx")
        write_gemm_onnx(layers, model)
        for extra in (["--method", "mip"], ["--method", "mip-cuts", "--bounds", "lp"],
                      ["--method", "partition", "--partitions", "2", "--bounds", "interval"],
                      ["--method", "mip", "--warm-start", "sampling", "--warm-start-samples", "50"]):
            result, proc = self.solve(model, "--time-limit", "60", *extra)
            self.assertEqual(result["status"], "optimal", extra)
            self.assertAlmostEqual(result["bound"], result["objective"], delta=1e-6 * max(1, abs(result["objective"])))
            self.assertLessEqual(result["gap"], 1e-6)
            self.assertIn("nodes", result)
            self.assertIn("formulation", result)
            self.assert_honest(result, layers, np.eye(1)[0], 0.0, [0] * 3, [1] * 3)
            self.assertIn("bound", proc.stdout)
        self.assertTrue(result["formulation"]["warm_start"])
        self.assertEqual(result["samples"], 50)

    def test_relax_reports_a_valid_root_bound(self):
        layers = xavier_layers([3, 6, 6, 1], seed=9)
        model = self.path("small_relax.onnx")
        write_gemm_onnx(layers, model)
        out = self.path("relax.json")
        proc = self.run_tool("relax", model, "--bounds", "lp", "--json", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            relaxation = json.load(f)
        optimum, _ = self.solve(model, "--method", "mip", "--time-limit", "60")
        self.assertGreaterEqual(relaxation["bound"], optimum["objective"] - 1e-7)
        self.assertEqual(relaxation["formulation"], "big-M")

    # ---- extreme values and the stopping rule ---------------------------------------------------------
    def stop_rule_model(self):
        """A 3 -> 16 -> 16 -> 1 network with a few dozen regions: the rule stops after a few hundred samples."""
        model = self.path("stop_rule.onnx")
        if not os.path.exists(model):
            write_gemm_onnx(xavier_layers([3, 16, 16, 1], seed=1), model)
        return model

    def test_stop_rule_ends_the_run_the_same_way_twice(self):
        layers = xavier_layers([3, 16, 16, 1], seed=1)
        model = self.stop_rule_model()
        for method in ("sampling", "enhanced"):
            args = (model, "--method", method, "--stop-rule", "0.001,0.05", "--samples", "20000", "--threads", "2",
                    "--seed", "3")
            a, proc = self.solve(*args)
            b, _ = self.solve(*args)
            self.assertEqual(a["stopped_by"], "stop_rule", method)
            self.assertIn("stop rule", proc.stdout)
            rule = a["stop_rule"]
            self.assertEqual(sorted(rule), sorted(["eps", "delta", "verdict", "samples_at_decision", "family",
                                                   "estimate", "interval", "probability", "probability_upper",
                                                   "n_required", "checks"]))
            self.assertEqual(rule["verdict"], "stopped")
            self.assertEqual((rule["eps"], rule["delta"]), (0.001, 0.05))
            self.assertEqual(rule["samples_at_decision"], a["samples"])
            self.assertLess(a["samples"], 20000)
            self.assertGreater(rule["checks"], 1)
            self.assertIn(rule["family"], ("beta", "reversed_weibull", "genextreme"))
            self.assertLessEqual(rule["probability_upper"], 0.025)
            self.assertLessEqual(rule["probability"], rule["probability_upper"])
            lo, hi = rule["interval"]
            self.assertEqual(lo, a["objective"])
            self.assertTrue(lo <= rule["estimate"] <= hi)
            self.assertGreater(rule["n_required"], 0)
            self.assertEqual((a["samples"], a["x"], a["objective"], a["stop_rule"]),
                             (b["samples"], b["x"], b["objective"], b["stop_rule"]))
            self.assert_honest(a, layers, np.eye(1)[0], 0.0, [0] * 3, [1] * 3)

    def test_stop_rule_cap_and_minimization(self):
        result, _ = self.solve(self.model, "--method", "sampling", "--samples", "300", "--stop-rule", "1e-9,0.05")
        self.assertEqual(result["stopped_by"], "completed")
        self.assertEqual(result["samples"], 300)
        self.assertEqual(result["stop_rule"]["verdict"], "not_reached")
        self.assertEqual(result["stop_rule"]["samples_at_decision"], 250)  # checks at 100, 120, ..., 250
        objective = self.write_json("min_stop.json", {"sense": "min", "weights": [1.0]})
        result, _ = self.solve(self.stop_rule_model(), "--objective", objective, "--method", "sampling",
                               "--stop-rule", "0.003,0.05", "--samples", "20000")
        rule = result["stop_rule"]
        self.assertEqual(rule["verdict"], "stopped")
        lo, hi = rule["interval"]  # the user's sense: from the fitted minimum up to the best value
        self.assertEqual(hi, result["objective"])
        self.assertTrue(lo <= rule["estimate"] <= hi)

    def test_evt_section_is_the_evt_report(self):
        values = self.path("evt_values.csv")
        result, proc = self.solve(self.model, "--method", "sampling", "--samples", "300", "--evt",
                                  "--values-out", values)
        evt = result["evt"]
        self.assertIn("evt ", proc.stdout)
        self.assertEqual((evt["n"], evt["sense"], evt["analysed"]), (300, "max", "g"))
        self.assertGreaterEqual(len(evt["fits"]), 3)
        for fit in evt["fits"]:
            self.assertTrue({"family", "params", "rss"} <= set(fit))
        self.assertTrue({"best_fit", "moment", "moment_ci"} <= set(evt["gamma"]))
        self.assertTrue({"eps", "delta", "n_tail", "n_closed_form"} <= set(evt["sample_complexity"]))
        if evt["endpoint"] is None:
            self.assertIsNone(evt["optimum"])
        else:
            self.assertEqual(evt["optimum"]["estimate"], evt["endpoint"]["estimate"])
            self.assertGreaterEqual(evt["optimum"]["estimate"], result["objective"])
        # The same report as `reluopt evt` on the run's values.
        report = self.path("evt_report.json")
        proc = self.run_tool("evt", values, "--json", report, "--threads", "1")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(report) as f:
            standalone = json.load(f)
        self.assertEqual({k: v for k, v in evt.items() if k not in ("sense", "analysed", "optimum")}, standalone)

    def test_evt_of_a_minimization_and_its_plot(self):
        objective = self.write_json("min_evt.json", {"sense": "min", "weights": [1.0]})
        plot = self.path("evt.png")
        result, _ = self.solve(self.stop_rule_model(), "--objective", objective, "--method", "sampling",
                               "--samples", "400", "--stop-rule", "0.01,0.1", "--evt-plot", plot)
        evt = result["evt"]
        self.assertEqual((evt["sense"], evt["analysed"]), ("min", "-g"))
        self.assertEqual((evt["sample_complexity"]["eps"], evt["sample_complexity"]["delta"]), (0.01, 0.1))
        self.assertAlmostEqual(evt["max"], -result["objective"], delta=1e-12)
        self.assertIsNotNone(evt["endpoint"])
        self.assertEqual(evt["optimum"]["estimate"], -evt["endpoint"]["estimate"])
        self.assertEqual(evt["optimum"]["ci"], [-evt["endpoint"]["ci"][1], -evt["endpoint"]["ci"][0]])
        self.assertLessEqual(evt["optimum"]["estimate"], result["objective"])
        if shutil.which("gnuplot"):
            with open(plot, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_evt_with_too_few_values_still_succeeds(self):
        result, proc = self.solve(self.model, "--samples", "10", "--evt")
        self.assertIn("at least 30 values", result["evt"]["error"])
        self.assertEqual(result["evt"]["n"], 10)
        self.assertIn("evt         none", proc.stdout)

    def test_stop_rule_and_evt_flag_errors(self):
        for bad in ("0,0.05", "-1,0.05", "inf,0.05", "0.01,0", "0.01,1", "0.01", "0.01,0.05,1", "x,0.05", ","):
            self.assert_bad_input(["solve", self.model, "--stop-rule", bad], 2, "--stop-rule")
        self.assert_bad_input(["solve", self.model, "--method", "mip", "--stop-rule", "0.01,0.05"], 2, "--stop-rule")
        self.assert_bad_input(["relax", self.model, "--evt"], 2, "--evt")
        self.assert_bad_input(["solve", self.model, "--evt=yes"], 2, "--evt")

    # ---- bad input: one line, exit 1 (input) or 2 (command line) ---------------------------------------
    def test_missing_model(self):
        self.assert_bad_input(["solve", self.path("nope.onnx")], 1, "nope.onnx")

    def test_not_onnx(self):
        path = self.write_json("text.onnx", "this is not a model\n")
        self.assert_bad_input(["solve", path], 1, "text.onnx", "not an ONNX model")

    def test_unsupported_operator(self):
        path = self.path("sigmoid.onnx")
        write_gemm_onnx(self.layers, path, last_op="Sigmoid")
        self.assert_bad_input(["solve", path], 1, "Sigmoid", "final_sigmoid")

    def test_inconsistent_shapes(self):
        layers = [(np.ones((4, 6)), np.zeros(4)), (np.ones((1, 5)), np.zeros(1))]
        path = self.path("shapes.onnx")
        write_gemm_onnx(layers, path)
        self.assert_bad_input(["solve", path], 1, "inconsistent shapes")

    def test_domain_of_wrong_dimension(self):
        domain = self.write_json("dim.json", {"lower": [0, 0], "upper": [1, 1]})
        self.assert_bad_input(["solve", self.model, "--domain", domain], 1, "dimension")

    def test_empty_domain(self):
        domain = self.write_json("empty.json", {"lower": [0] * 6, "upper": [1] * 6,
                                                "A": [[-1] * 6], "b": [-7]})
        self.assert_bad_input(["solve", self.model, "--domain", domain], 1, "empty")
        crossed = self.write_json("crossed.json", {"lower": [0] * 5 + [2], "upper": [1] * 6})
        self.assert_bad_input(["solve", self.model, "--domain", crossed], 1, "empty")

    def test_infinite_and_nan_bounds(self):
        infinite = self.write_json("inf.json", '{"lower": [0,0,0,0,0,0], "upper": [1,1,1,1,1,"inf"]}')
        self.assert_bad_input(["solve", self.model, "--domain", infinite], 1, "not finite")
        nan = self.write_json("nan.json", '{"lower": [0,0,0,0,0,NaN], "upper": [1,1,1,1,1,1]}')
        self.assert_bad_input(["solve", self.model, "--domain", nan], 1, "nan.json")
        null = self.write_json("null.json", '{"lower": [0,0,0,0,0,null], "upper": [1,1,1,1,1,1]}')
        self.assert_bad_input(["solve", self.model, "--domain", null], 1, "not finite")

    def test_malformed_json(self):
        domain = self.write_json("broken.json", '{"lower": [0, 0,')
        self.assert_bad_input(["solve", self.model, "--domain", domain], 1, "broken.json")
        objective = self.write_json("broken_obj.json", "[1, 2")
        self.assert_bad_input(["solve", self.model, "--objective", objective], 1, "broken_obj.json")

    def test_objective_of_wrong_dimension(self):
        objective = self.write_json("obj2.json", {"weights": [1, 2]})
        self.assert_bad_input(["solve", self.model, "--objective", objective], 1, "dimension")

    def test_unknown_method(self):
        self.assert_bad_input(["solve", self.model, "--method", "magic"], 2, "method")

    def test_zero_threads_means_all_cores(self):
        result, _ = self.solve(self.model, "--method", "sampling", "--samples", "50", "--threads", "0")
        self.assertEqual(result["threads"], min(os.cpu_count(), 50))
        result, _ = self.solve(self.model, "--method", "bab", "--threads", "0")
        self.assertEqual(result["threads"], os.cpu_count())
        vnnlib = os.path.join(FIXTURES, "vnnlib")
        proc = self.run_tool("verify", os.path.join(vnnlib, "cls5.onnx"), os.path.join(vnnlib, "cls5_sat.vnnlib"),
                             "--threads", "0", "--quiet")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.splitlines()[0], "sat")
        values = self.write_json("zero_threads.csv", "".join(f"{np.sin(i)}\n" for i in range(200)))
        proc = self.run_tool("evt", values, "--threads", "0", "--quiet")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for command in (["solve", self.model], ["evt", values]):
            self.assert_bad_input([*command, "--threads", "1025"], 2, "--threads")

    def test_command_line_errors(self):
        self.assert_bad_input(["solve", self.model, "--samples", "many"], 2, "--samples")
        self.assert_bad_input(["solve", self.model, "--frobnicate"], 2, "--frobnicate")
        self.assert_bad_input(["solve"], 2, "MODEL")
        self.assert_bad_input(["optimize", self.model], 2, "optimize")
        self.assert_bad_input(["solve", self.model, "--threads", "-1"], 2, "--threads")
        self.assert_bad_input(["solve", self.model, "--time-limit", "-3"], 2, "--time-limit")
        self.assert_bad_input(["solve", self.model, "--method", "mip", "--bounds", "tight"], 2, "bound method")
        self.assert_bad_input(["solve", self.model, "--method", "mip", "--warm-start", "oracle"], 2, "--warm-start")
        self.assert_bad_input(["solve", self.model, "--method", "partition", "--partitions", "0"], 2, "--partitions")
        self.assert_bad_input(["relax", self.model, "--method", "sampling"], 2, "relax")
        self.assert_bad_input(["solve", self.model, "--local-search", "tabu"], 2, "local search")
        self.assert_bad_input(["solve", self.model, "--gap", "-1"], 2, "--gap")
        for bad in ("1", "-0.1", "half"):
            self.assert_bad_input(["solve", self.model, "--mip-share", bad], 2, "--mip-share")
        self.assert_bad_input(["solve", self.model, "--concave-neurons", "relaxed"], 2, "--concave-neurons")
        self.assert_bad_input(["solve", self.model, "--prover", "oracle"], 2, "prover")
        self.assert_bad_input(["solve", self.model, "--method", "bab", "--node-limit", "-1"], 2, "--node-limit")
        self.assert_bad_input(["solve", self.model, "--input-split-dims", "-2"], 2, "--input-split-dims")
        self.assert_bad_input(["solve", self.model, "--relu-split-below", "x"], 2, "--relu-split-below")
        for method in ("enhanced", "bab"):
            self.assert_bad_input(["relax", self.model, "--method", method], 2, "relax")

    def test_options_command_prints_the_help_of_the_options(self):
        # The option section of --help and `reluopt options` come from the library's option table.
        listing = self.run_tool("options")
        self.assertEqual(listing.returncode, 0, listing.stderr)
        self.assertIn(listing.stdout, self.run_tool("solve", "--help").stdout)
        for flag in ("--ascent-steps", "--walk-iterations", "--hit-and-run-thinning", "--bab-memory"):
            self.assertIn("\n  " + flag + " ", listing.stdout)
        markdown = self.run_tool("options", "--markdown").stdout
        for name in ("options", "methods", "run flags"):
            self.assertIn("<!-- reluopt options --markdown: %s -->" % name, markdown)
        self.assert_bad_input(["options", "--html"], 2, "--html")

    def test_table_options_parse_by_their_type(self):
        # -1 is root only for --cut-frequency (CBC's own -99 is no public value); a flag without a value refuses
        # one; the options once missing from Python and --hit-and-run-thinning are flags like the rest.
        result, _ = self.solve(self.model, "--method", "mip-cuts", "--cut-frequency", "-1", "--threads", "1")
        self.assertEqual(result["status"], "optimal")
        self.assert_bad_input(["solve", self.model, "--method", "mip-cuts", "--cut-frequency", "-99"], 2,
                              "mip.cut_frequency (--cut-frequency) must be >= 1 (-1: root only), not -99")
        self.assert_bad_input(["solve", self.model, "--check-proof=yes"], 2, "--check-proof takes no value")
        self.assert_bad_input(["solve", self.model, "--hit-and-run-thinning", "-1"], 2, "--hit-and-run-thinning")
        result, _ = self.solve(self.model, "--method", "gradient", "--samples", "20", "--ascent-steps", "3",
                               "--perturbations", "0", "--perturbation-radius", "0.5", "--hit-and-run-thinning",
                               "5", "--seed", "1")
        self.assertEqual(result["samples"], 20)

    def test_mip_methods_end_with_a_point_on_a_tiny_time_limit(self):
        # Issue 11, item 5: without a warm start, forward passes at a few points of P are CBC's MIP start, so
        # even a run whose clock is up before CBC starts ends with a point.
        # On a loaded machine the limit may also run out while the model is read (not read within the reader's
        # first 20 ms): then the run says so, and runs again until the model is read with the clock already up.
        model = os.path.join(EXAMPLES, "xavier_10_50_50.onnx")
        for method in ("mip", "mip-cuts", "partition"):
            for _ in range(20):
                result, _ = self.solve(model, "--method", method, "--time-limit", "0.001", "--seed", "2")
                if result["domain"] != "not read":
                    break
                self.assertEqual(result["status"], "no_solution", method)
                self.assertEqual(result["stopped_by"], "time_limit", method)
            self.assertNotEqual(result["domain"], "not read", method)
            self.assertNotEqual(result["status"], "no_solution", method)
            self.assertFalse(result["formulation"]["warm_start"], method)
            self.assertEqual(len(result["x"]), 10, method)
            self.assertTrue(all(0.0 <= v <= 1.0 for v in result["x"]), method)
            self.assertAlmostEqual(result["trajectory"][-1][1], result["objective"], delta=1e-12, msg=method)

    def test_bab_proves_what_mip_proves(self):
        # Issue 11: the branch-and-bound prover reaches the optimum the big-M MIP proves, with a bound on the right
        # side at every moment of its bound trajectory; max and min.
        weights, lower, upper = [1.0, -0.5, 0.25], [0.0] * 6, [1.0] * 6
        for sense in ("max", "min"):
            objective = self.path(f"bab_{sense}.json")
            with open(objective, "w") as f:
                json.dump({"sense": sense, "weights": weights, "constant": 0.5}, f)
            mip, _ = self.solve(self.model, "--objective", objective, "--method", "mip", "--seed", "1")
            bab, _ = self.solve(self.model, "--objective", objective, "--method", "bab", "--seed", "1")
            self.assertEqual(mip["status"], "optimal", sense)
            self.assertEqual(bab["status"], "optimal", sense)
            self.assertEqual(bab["method"], "bab")
            self.assertEqual(bab["prover"], "bab")
            self.assertIsNone(mip["prover"])
            self.assert_honest(bab, self.layers, weights, 0.5, lower, upper)
            self.assertAlmostEqual(bab["objective"], mip["objective"], delta=1e-6 * max(1.0, abs(mip["objective"])))
            self.assertGreater(len(bab["bound_trajectory"]), 0)
            for _, bound in bab["bound_trajectory"]:
                if sense == "max":
                    self.assertGreaterEqual(bound, mip["objective"] - 1e-9)
                else:
                    self.assertLessEqual(bound, mip["objective"] + 1e-9)

    def test_bab_node_limit_keeps_a_valid_bound(self):
        mip, _ = self.solve(self.model, "--method", "mip", "--seed", "1")
        bab, _ = self.solve(self.model, "--method", "bab", "--node-limit", "3", "--threads", "1")
        self.assertLessEqual(bab["nodes"], 3)
        self.assertNotEqual(bab["status"], "no_solution")
        self.assertGreaterEqual(bab["bound"], mip["objective"] - 1e-9)
        self.assertLessEqual(bab["objective"], mip["objective"] + 1e-9)

    def test_check_proof_and_both_provers(self):
        # Issue 12, item 6: --check-proof searches beyond a proven bound and says what it searched; a valid proof
        # passes. --prover both ends a timed default run with the optimum the MIP proves.
        mip, _ = self.solve(self.model, "--method", "mip", "--seed", "1", "--check-proof")
        self.assertEqual(mip["status"], "optimal")
        self.assertIsNone(mip["solver_failure"])
        self.assertTrue(mip["proof_check"].startswith("passed"), mip["proof_check"])
        both, _ = self.solve(self.model, "--prover", "both", "--time-limit", "600", "--seed", "1")
        self.assertEqual(both["status"], "optimal")
        self.assertEqual(both["prover"], "both")
        self.assertIsNone(both["proof_check"])
        self.assertAlmostEqual(both["objective"], mip["objective"], delta=1e-6 * max(1.0, abs(mip["objective"])))

    def test_symbolic_bounds_for_relax_and_mip(self):
        bounds = {}
        for kind in ("interval", "symbolic", "progressive"):
            out = self.path(f"relax_{kind}.json")
            proc = self.run_tool("relax", self.model, "--bounds", kind, "--json", out)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(out) as f:
                bounds[kind] = json.load(f)["bound"]
        mip, _ = self.solve(self.model, "--method", "mip", "--bounds", "symbolic")
        self.assertEqual(mip["status"], "optimal")
        self.assertEqual(mip["formulation"]["bounds"], "symbolic")
        for kind, bound in bounds.items():
            self.assertGreaterEqual(bound, mip["objective"] - 1e-9, kind)
        # Symbolic bounds are never looser than interval ones, and progressive starts from them.
        self.assertLessEqual(bounds["symbolic"], bounds["interval"] + 1e-9)
        self.assertLessEqual(bounds["progressive"], bounds["symbolic"] + 1e-9)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
