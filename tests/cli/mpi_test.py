#!/usr/bin/python3
"""One run over several processes: `mpirun -n K reluopt solve` with K = 1, 2, 3 on this machine.

A run that ends on its sample count finds what the threaded run with K T threads finds (the same x, value,
counts and sample values, and the stop rule's decisions); a bound is never below a value found; a time limit holds; a stop on any rank ends
every rank; a rank killed with SIGKILL ends the run (mpirun stops the others, rank 0 reports what it has) well
within the time limit; bab over ranks (open nodes handed between them) proves the threaded run's optimum, a grid's
within the Lipschitz slack, and a killed rank ends it within the time limit; verify over 2 ranks answers as one
process does. Signals are sent once
every rank is inside the run, never after a fixed sleep.

Usage: mpi_test.py RELUOPT_BINARY FIXTURES_DIR EXAMPLES_DIR
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_test import write_gemm_onnx, xavier_layers  # noqa: E402

BINARY = sys.argv[1]
FIXTURES = sys.argv[2]
EXAMPLES = sys.argv[3]
MODEL = [os.path.join(EXAMPLES, "xavier_10_50_50.onnx"), "--domain", os.path.join(EXAMPLES, "budget_domain.json")]
# What mpirun's start and the processes' exit may add to a run's wall time (under AddressSanitizer the leak check
# with the slow unwinder takes seconds): a bound that only a hang would cross. The time limit itself is checked
# on the run's own clock (seconds + load_seconds).
LAUNCH_SLACK = 10.0
# What a loaded machine may add to a run's own clock past its time limit (the guarantee of a second is measured
# in bench/, on an idle machine).
LIMIT_SLACK = 5.0


# Under AddressSanitizer (make test-asan), Open MPI's allocations are suppressed by library name
# (cmake/lsan.supp), which its frame-pointer-less stacks show only to the slow unwinder.
if "ASAN_OPTIONS" in os.environ:
    os.environ["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0"


def grid_maximum(layers, points):
    """The largest forward value over a grid of `points` per side of [0, 1]^d, and the most the network can
    exceed it by anywhere in the box (its Lipschitz bound, the product of the layers' spectral norms, times the
    grid's half diagonal)."""
    import numpy as np
    d = layers[0][0].shape[1]
    axes = np.meshgrid(*[np.linspace(0.0, 1.0, points)] * d, indexing="ij")
    x = np.stack([a.ravel() for a in axes], axis=1)
    for k, (weights, bias) in enumerate(layers):
        x = x @ weights.T + bias
        if k + 1 < len(layers):
            x = np.maximum(x, 0.0)
    lipschitz = np.prod([np.linalg.norm(weights, 2) for weights, _ in layers])
    return float(x.max()), float(lipschitz * 0.5 * np.sqrt(d) / (points - 1))


def write_two_box_property(path, threshold, first, second):
    """A VNN-LIB property of cls5 (5 inputs, 3 outputs): Y_1 >= threshold on two boxes that split x_0."""
    def box(low, high):
        rows = [f"(>= X_0 {low}) (<= X_0 {high})"] + [f"(>= X_{i} 0.0) (<= X_{i} 1.0)" for i in range(1, 5)]
        return "(and " + " ".join(rows) + ")"
    lines = [f"(declare-const X_{i} Real)" for i in range(5)] + [f"(declare-const Y_{i} Real)" for i in range(3)]
    lines += [f"(assert (or {box(*first)} {box(*second)}))", f"(assert (>= Y_1 {threshold}))"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def mpirun(ranks):
    command = ["mpirun", "--oversubscribe", "-n", str(ranks)]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    return command


def children(pid):
    """The pids whose parent is `pid` (from /proc, so that no procps is needed)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                # The command name, in parentheses, may hold spaces: the parent pid follows its closing one.
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
        except (ValueError, IndexError, OSError):
            continue
    return found


def rank_pids(proc, ranks, timeout=60.0):
    """{rank: pid} of mpirun's children once every one of them handles SIGTERM (the run's stop handler)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        found = {}
        for pid in children(proc.pid):
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
                with open(f"/proc/{pid}/status") as f:
                    caught = next(int(l.split()[1], 16) for l in f if l.startswith("SigCgt:"))
            except (FileNotFoundError, ProcessLookupError, StopIteration):
                continue
            if b"OMPI_COMM_WORLD_RANK" in env and caught >> (signal.SIGTERM - 1) & 1:
                found[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(pid)
        if len(found) == ranks:
            return found
        time.sleep(0.02)
    raise AssertionError("the ranks never all entered the run")


class Mpi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="reluopt_mpi_")
        cls.addClassCleanup(shutil.rmtree, cls.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def solve(self, prefix, name, *flags, model=MODEL):
        """Runs solve with --json and --values-out named after `name`; returns (result, values text)."""
        json_file, values_file = self.path(name + ".json"), self.path(name + ".csv")
        proc = subprocess.run(prefix + [BINARY, "solve", *model, *flags, "--json", json_file,
                                        "--values-out", values_file], capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(json_file) as f, open(values_file) as g:
            return json.load(f), g.read()

    def assert_same_run(self, method, ranks, threads, samples, *extra):
        flags = ["--method", method, "--samples", str(samples), "--seed", "5", *extra]
        threaded, threaded_values = self.solve([], f"t{method}{ranks}{threads}", *flags, "--threads",
                                               str(ranks * threads))
        spread, spread_values = self.solve(mpirun(ranks), f"r{method}{ranks}{threads}", *flags, "--threads",
                                           str(threads))
        for key in ["status", "objective", "x", "samples", "stopped_by", "local_searches", "mips", "stop_rule",
                    "gradient_steps", "perturbations"]:
            self.assertEqual(threaded.get(key), spread.get(key), key)
        self.assertEqual(threaded_values, spread_values)
        self.assertEqual(spread.get("ranks", 1), ranks)
        self.assertEqual(spread.get("ranks_finished", 1), ranks)

    def test_sampling_over_ranks_finds_what_threads_find(self):
        for ranks in (1, 2, 3):
            with self.subTest(ranks=ranks):
                self.assert_same_run("sampling", ranks, 1, 240)
        self.assert_same_run("sampling", 2, 2, 240)

    def test_enhanced_over_ranks_finds_what_threads_find(self):
        for ranks in (2, 3):
            with self.subTest(ranks=ranks):
                self.assert_same_run("enhanced", ranks, 1, 60)

    def test_walk_over_ranks_walks_as_threads_walk(self):
        # Round i goes to global thread i mod K T as over threads, so the walks are the threaded run's; which
        # regions a walk meets first depends on timing (the set of solved regions is per rank), so the point can
        # differ.
        threaded, _ = self.solve([], "walk_threads", "--method", "walk", "--seed", "5", "--threads", "2")
        spread, _ = self.solve(mpirun(2), "walk_ranks", "--method", "walk", "--seed", "5", "--threads", "1")
        self.assertEqual(spread["walks"], threaded["walks"])
        self.assertEqual(spread["ranks_finished"], 2)
        self.assertEqual(spread["status"], threaded["status"])

    def test_gradient_over_ranks_finds_what_threads_find(self):
        # The ascents' steps and perturbations are summed over the ranks.
        self.assert_same_run("gradient", 2, 1, 60)

    def test_the_stop_rule_over_ranks_decides_as_over_threads(self):
        # Every checkpoint's decision sees the values of samples 0..n-1 from every rank: the same checks,
        # fits and verdict as the threaded run (30 checkpoints up to the cap here; enhanced stops at 100).
        self.assert_same_run("sampling", 3, 1, 3000, "--stop-rule", "0.01,0.05")
        self.assert_same_run("enhanced", 2, 1, 3000, "--stop-rule", "0.01,0.05")

    def test_time_limit_holds_and_the_bound_is_valid(self):
        limit = 3.0
        start = time.monotonic()
        result, _ = self.solve(mpirun(3), "timed", "--method", "enhanced", "--samples", "100000000", "--threads",
                               "1", "--time-limit", str(limit), "--seed", "2")
        wall = time.monotonic() - start
        self.assertEqual(result["stopped_by"], "time_limit")
        self.assertLessEqual(result["seconds"] + result["load_seconds"], limit + LIMIT_SLACK)
        self.assertLess(wall, limit + LAUNCH_SLACK)
        self.assertIsNotNone(result["bound"])
        # Every value found is below the bound: the run's own, and a separate threaded run's.
        other, _ = self.solve([], "reference", "--method", "enhanced", "--samples", "200", "--seed", "9")
        self.assertGreaterEqual(result["bound"], result["objective"])
        self.assertGreaterEqual(result["bound"], other["objective"])

    def test_a_stop_on_any_rank_ends_every_rank(self):
        json_file = self.path("stopped.json")
        proc = subprocess.Popen(mpirun(3) + [BINARY, "solve", *MODEL, "--method", "sampling", "--samples",
                                             "100000000", "--threads", "1", "--json", json_file],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        pids = rank_pids(proc, 3)
        os.kill(pids[2], signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        self.assertIn("interrupted", out)
        with open(json_file) as f:
            result = json.load(f)
        self.assertEqual(result["stopped_by"], "interrupted")
        self.assertEqual(result["ranks_finished"], 3)

    def kill_rank_1(self, limit, json_file, *flags):
        """Runs solve over 3 ranks, kills rank 1 once every rank is inside the run, checks the run ends within
        the time limit with mpirun reporting the killed rank; returns rank 0's output."""
        start = time.monotonic()
        proc = subprocess.Popen(mpirun(3) + [BINARY, "solve", *MODEL, *flags, "--threads", "1", "--time-limit",
                                             str(limit), "--json", json_file],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        pids = rank_pids(proc, 3)
        os.kill(pids[1], signal.SIGKILL)
        out, err = proc.communicate(timeout=2 * limit)
        self.assertLess(time.monotonic() - start, limit)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("rank 1", err)
        return out

    def test_a_killed_rank_ends_the_run_within_the_time_limit(self):
        json_file = self.path("killed.json")
        # mpirun reports the killed rank and exits non-zero; the others got SIGTERM, so rank 0 reports its
        # point as interrupted, with the lost rank counted.
        out = self.kill_rank_1(60.0, json_file, "--method", "sampling", "--samples", "100000000")
        if os.path.exists(json_file):
            with open(json_file) as f:
                result = json.load(f)
            self.assertEqual(result["stopped_by"], "interrupted")
            if result["status"] == "no_solution":  # the SIGTERM came while rank 0 read the model
                self.assertIn("not read", out)
            else:
                self.assertEqual(result["status"], "feasible")
                self.assertLess(result["ranks_finished"], 3)

    def test_a_rank_that_fails_stops_the_others(self):
        # Rank 1 cannot read its model; without a time limit rank 0 would wait for its tally for ever.
        good = " ".join([BINARY, "solve", *MODEL, "--method", "sampling", "--samples", "100000000", "--threads", "1",
                         "--json", self.path("failed.json")])
        bad = f"{BINARY} solve {self.path('missing.onnx')} --method sampling --threads 1"
        script = f'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then exec {bad}; else exec {good}; fi'
        proc = subprocess.run(mpirun(2) + ["sh", "-c", script], capture_output=True, text=True, timeout=120)
        self.assertNotEqual(proc.returncode, 0)
        with open(self.path("failed.json")) as f:
            result = json.load(f)
        self.assertEqual(result["stopped_by"], "interrupted")
        self.assertEqual(result["ranks_finished"], 1)

    def assert_bab_over_ranks(self, layers, name, ranks_list, brute_force=False):
        """bab over K ranks proves the threaded run's optimum; with `brute_force`, the optimum of a grid of the
        3-input box, within the network's Lipschitz constant times the grid's half diagonal, too."""
        model = self.path(name + ".onnx")
        write_gemm_onnx(layers, model)
        flags = ["--method", "bab", "--time-limit", "20"]
        threaded, _ = self.solve([], name + "_threads", *flags, "--threads", "2", model=[model])
        self.assertEqual(threaded["status"], "optimal")
        tolerance = 1e-6 * max(1.0, abs(threaded["objective"]))
        if brute_force:
            top, slack = grid_maximum(layers, 101)
            self.assertGreaterEqual(threaded["objective"], top - tolerance)
            self.assertLessEqual(threaded["objective"], top + slack)
        for ranks in ranks_list:
            with self.subTest(ranks=ranks):
                spread, _ = self.solve(mpirun(ranks), f"{name}_{ranks}", *flags, "--threads", "1", model=[model])
                self.assertEqual(spread.get("ranks", 1), ranks)
                self.assertEqual(spread.get("ranks_finished", 1), ranks)
                self.assertEqual(spread["status"], "optimal")
                self.assertEqual(spread["stopped_by"], "completed")
                self.assertAlmostEqual(spread["objective"], threaded["objective"], delta=tolerance)
                self.assertGreaterEqual(spread["bound"], threaded["objective"] - tolerance)
                self.assertGreaterEqual(spread["bound"], spread["objective"])

    def test_bab_over_ranks_proves_the_brute_force_optimum(self):
        # Open nodes move between ranks (a coordinator on rank 0); the optimum is the threaded run's and the
        # grid's, and the bound covers it.
        self.assert_bab_over_ranks(xavier_layers([3, 48, 48, 1], seed=5), "bab_grid", (1, 2, 3), brute_force=True)

    def test_bab_over_ranks_shares_thousands_of_nodes(self):
        # 3740 nodes on one process: every rank gets work many times over, and the end is seen only when no node
        # is open, running or in transit anywhere.
        self.assert_bab_over_ranks(xavier_layers([8, 30, 30, 1], seed=3), "bab_mid", (2, 3))

    def test_the_default_proves_over_ranks(self):
        # A timed default run's prover (bab) runs over every rank: the threaded run's optimum, proven.
        model = self.path("default_ranks.onnx")
        write_gemm_onnx(xavier_layers([3, 48, 48, 1], seed=5), model)
        flags = ["--time-limit", "20", "--seed", "3"]
        threaded, _ = self.solve([], "default_threads", *flags, "--threads", "2", model=[model])
        self.assertEqual(threaded["status"], "optimal")
        tolerance = 1e-6 * max(1.0, abs(threaded["objective"]))
        spread, _ = self.solve(mpirun(2), "default_ranks", *flags, "--threads", "1", model=[model])
        self.assertEqual(spread.get("ranks_finished", 1), 2)
        self.assertEqual(spread["status"], "optimal")
        self.assertGreater(spread["nodes"], 0)
        self.assertAlmostEqual(spread["objective"], threaded["objective"], delta=tolerance)
        self.assertGreaterEqual(spread["bound"], spread["objective"])

    def test_a_killed_rank_ends_bab_within_the_time_limit(self):
        # Rank 0 still reports a bound: the lost rank's last posted one covers every node it held.
        json_file = self.path("bab_killed.json")
        self.kill_rank_1(60.0, json_file, "--method", "bab")
        if os.path.exists(json_file):
            with open(json_file) as f:
                result = json.load(f)
            if result["status"] != "no_solution":
                self.assertLess(result["ranks_finished"], 3)
                self.assertGreaterEqual(result["bound"], result["objective"])

    def test_verify_over_ranks_answers_as_one_process(self):
        # Each case's search and prover run over both ranks; the lead's answer is one process's on the fixtures
        # and on two-box properties of cls5 whose first box needs branching (unsat: output 1 peaks at 30.739 on
        # the first half of x_0, 29.214 on the second) or is unsat before a sat second box.
        vnnlib = os.path.join(FIXTURES, "vnnlib")
        properties = {name: os.path.join(vnnlib, f"cls5_{name}.vnnlib") for name in ("sat", "unsat")}
        properties["two_unsat"] = write_two_box_property(self.path("two_unsat.vnnlib"), 30.8, (0.0, 0.5), (0.5, 1.0))
        properties["two_sat"] = write_two_box_property(self.path("two_sat.vnnlib"), 30.0, (0.5, 1.0), (0.0, 0.5))
        for name, prop in properties.items():
            with self.subTest(property=name):
                answers = []
                for prefix, threads in (([], "2"), (mpirun(2), "1")):
                    proc = subprocess.run(prefix + [BINARY, "verify", os.path.join(vnnlib, "cls5.onnx"), prop,
                                                    "--time-limit", "20", "--threads", threads, "--quiet"],
                                          capture_output=True, text=True, timeout=120)
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    answers.append(proc.stdout.splitlines()[0])
                self.assertEqual(answers[0], answers[1])
                self.assertEqual(answers[0], "unsat" if "unsat" in name else "sat")

    def test_mip_methods_run_on_rank_0(self):
        result, _ = self.solve(mpirun(2), "mip", "--method", "mip", "--time-limit", "5")
        self.assertNotIn("ranks", result)
        self.assertGreaterEqual(result["bound"], result["objective"])

if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
