#!/usr/bin/python3
"""End-to-end runs of the extreme-value analysis: `reluopt evt`, `solve --evt` and `solve --stop-rule` on values
of any magnitude, under a time limit and Ctrl-C, and the errors for bad values files and plot paths (one line
on stderr, exit code 1). A run that hangs fails by its subprocess timeout, which is no timing assertion: each
of these runs takes about a second.

Usage: evt_cli_test.py RELUOPT_BINARY EXAMPLES_DIR
"""
import json
import os
import pty
import signal
import subprocess
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from under_way import HANG, read_until_closed, start_under_way  # noqa: E402

BINARY, EXAMPLES = sys.argv[1], sys.argv[2]


class EvtCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        cls.model = os.path.join(EXAMPLES, "xavier_10_50_50.onnx")
        cls.values = np.random.default_rng(12).beta(2.0, 3.0, 2000)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def path(cls, name):
        return os.path.join(cls.dir, name)

    def write(self, name, text, mode="w"):
        path = self.path(name)
        with open(path, mode) as f:
            f.write(text)
        return path

    def values_csv(self, name, values):
        return self.write(name, "sample,value\n" + "".join(f"{i},{v!r}\n" for i, v in enumerate(values)))

    def run_tool(self, *args):
        return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=HANG)

    def evt_json(self, values_file, *args):
        out = self.path("evt.json")
        proc = self.run_tool("evt", values_file, "--json", out, "--threads", "1", *args)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            return json.load(f)

    def assert_one_error_line(self, proc, *words):
        self.assertEqual(proc.returncode, 1, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith("reluopt: error: "), lines[0])
        for word in words:
            self.assertIn(word, lines[0])

    def big_objective(self, weight):
        return self.write(f"objective_{weight}.json", json.dumps({"weights": [weight]}))

    def start_under_way(self, args, samples):
        return start_under_way([BINARY, *args], samples)

    # ---- values of any magnitude --------------------------------------------------------------------
    def test_evt_of_values_near_1e200_is_the_ordinary_report_scaled(self):
        # 2000 such values ran for more than 300 s (BOBYQA in the endpoint's profile likelihood).
        plain = self.evt_json(self.values_csv("plain.csv", self.values))
        big = self.evt_json(self.values_csv("big.csv", self.values * 1e200))
        self.assertEqual(big["fits"][0]["family"], plain["fits"][0]["family"])
        for key in ("estimate",):
            self.assertAlmostEqual(big["endpoint"][key] / 1e200, plain["endpoint"][key], delta=1e-3)
        for a, b in zip(big["endpoint"]["ci"], plain["endpoint"]["ci"]):
            self.assertAlmostEqual(a / 1e200, b, delta=1e-3)
        self.assertGreaterEqual(big["endpoint"]["ci"][0], big["max"])
        self.assertAlmostEqual(big["gamma"]["best_fit"], plain["gamma"]["best_fit"], delta=1e-3)
        self.assertAlmostEqual(big["sample_complexity"]["n_tail"] / plain["sample_complexity"]["n_tail"], 1.0,
                               delta=1e-3)

    def test_a_plain_column_of_numbers_is_read_as_the_values(self):
        column = self.write("column.txt", "".join(f"{v!r}\n" for v in self.values))
        self.assertEqual(self.evt_json(column), self.evt_json(self.values_csv("same.csv", self.values)))

    def test_outputs_near_1e199_are_refused_at_once(self):
        # Outputs near 1e199 hung `solve --stop-rule` and `--evt` (--time-limit 5 ignored). Objective weights
        # beyond 1e15 are now refused before the run (docs/NUMERICS.md); the largest accepted is tested below.
        proc = self.run_tool("solve", self.model, "--objective", self.big_objective(1e199), "--method", "sampling",
                             "--stop-rule", "1e196,0.05", "--evt", "--time-limit", "5", "--quiet")
        self.assert_one_error_line(proc, "objective weight 0", "1e+199")

    def test_stop_rule_and_evt_on_the_largest_outputs_end(self):
        # The rule or the sample cap ends the run; the limit, generous for a loaded machine, leaves the analysis
        # its time.
        out = self.path("big_run.json")
        proc = self.run_tool("solve", self.model, "--objective", self.big_objective(1e15), "--method", "sampling",
                             "--samples", "1500", "--stop-rule", "1e12,0.05", "--evt", "--time-limit", "40",
                             "--threads", "2", "--quiet", "--json", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            result = json.load(f)
        self.assertIn(result["stop_rule"]["verdict"], ("stopped", "not_reached"), result["stop_rule"])
        self.assertGreaterEqual(result["stop_rule"]["estimate"], result["objective"])
        self.assertGreater(result["stop_rule"]["estimate"], 1e13)
        self.assertNotIn("error", result["evt"])
        self.assertGreaterEqual(result["evt"]["optimum"]["estimate"], result["objective"])

    # ---- time limit and Ctrl-C ----------------------------------------------------------------------
    def test_time_limit_ends_a_stop_rule_run_on_the_largest_outputs(self):
        out = self.path("limited_run.json")
        proc = self.run_tool("solve", self.model, "--objective", self.big_objective(1e15), "--method", "sampling",
                             "--samples", "100000000", "--stop-rule", "1e-3,0.05", "--time-limit", "1",
                             "--threads", "2", "--quiet", "--json", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            result = json.load(f)
        self.assertEqual(result["stopped_by"], "time_limit")
        self.assertGreater(result["stop_rule"]["checks"], 0)

    def test_evt_time_limit(self):
        proc = self.run_tool("evt", self.values_csv("limited.csv", self.values), "--time-limit", "0")
        self.assert_one_error_line(proc, "limited.csv", "time limit")

    def test_ctrl_c_stops_evt_while_it_reads(self):
        # The values come through a FIFO: the signal arrives while the reader waits, and the next check (after
        # 65,536 values) sees it.
        fifo = self.path("values.fifo")
        os.mkfifo(fifo)
        proc = subprocess.Popen([BINARY, "evt", fifo], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            with open(fifo, "w") as writer:  # opens once the reader has, after its handler is in place
                writer.write("".join(f"{v!r}\n" for v in self.values))
                writer.flush()
                proc.send_signal(signal.SIGINT)
                writer.write("".join(f"{v!r}\n" for v in np.resize(self.values, 70000)))
            _, stderr = proc.communicate(timeout=HANG)
        finally:
            proc.kill()
        self.assertEqual(proc.returncode, 1, stderr)
        self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)
        self.assertIn("interrupted", stderr)

    def test_ctrl_c_stops_a_stop_rule_run_on_the_largest_outputs(self):
        # Ctrl-C once the rule's checks have begun (the first at 100 samples) ends the run with its incumbent.
        out = self.path("interrupted.json")
        proc, terminal = self.start_under_way(["solve", self.model, "--objective", self.big_objective(1e15),
                                               "--method", "sampling", "--samples", "100000000", "--stop-rule",
                                               "1e-3,0.05", "--threads", "2", "--json", out], samples=100)
        try:
            proc.send_signal(signal.SIGINT)
            stderr = read_until_closed(terminal)
            proc.wait(timeout=HANG)
        finally:
            proc.kill()
        self.assertEqual(proc.returncode, 0, stderr)
        with open(out) as f:
            result = json.load(f)
        self.assertEqual(result["stopped_by"], "interrupted")
        self.assertIsNotNone(result["objective"])

    def test_progress_line_on_a_terminal_unless_quiet(self):
        values = self.values_csv("progress.csv", self.values)
        for quiet in (False, True):
            master, slave = pty.openpty()
            proc = subprocess.run([BINARY, "evt", values, "--threads", "1"] + (["--quiet"] if quiet else []),
                                  stdout=subprocess.DEVNULL, stderr=slave, timeout=HANG)
            os.close(slave)
            seen = read_until_closed(master)
            self.assertEqual(proc.returncode, 0)
            self.assertEqual("evt: sorting" in seen, not quiet, seen)

    # ---- bad values files and plot paths ------------------------------------------------------------
    def test_bad_values_files_are_one_error_line(self):
        cases = [
            (self.write("empty.csv", ""), "is empty"),
            (self.dir, "is a directory"),
            (self.path("missing.csv"), "No such file"),
            (self.write("headerless.csv", "0,1.5\n1,2.5\n"), "header"),
            (self.write("binary.csv", b"\x00\xff\xfe garbage\n", "wb"), "\\x00\\xff\\xfe"),
            (self.write("infinite.csv", "1.5\ninf\n"), "not finite"),
            (self.write("ragged.csv", "1.5\n2.5\n3,4\n"), "line 3"),
        ]
        for path, words in cases:
            with self.subTest(path=path):
                self.assert_one_error_line(self.run_tool("evt", path), path, words)

    def test_a_plot_into_a_missing_directory_is_one_error_line(self):
        png = self.path("no_such_directory/evt.png")
        values = self.values_csv("plot.csv", self.values)
        self.assert_one_error_line(self.run_tool("evt", values, "--plot", png), png, "does not exist")
        proc = self.run_tool("solve", self.model, "--method", "sampling", "--samples", "200", "--quiet",
                             "--evt-plot", png)
        self.assert_one_error_line(proc, png, "does not exist")

    def test_a_plot_that_cannot_be_written_is_one_error_line(self):
        values = self.values_csv("plot_full.csv", self.values)
        self.assert_one_error_line(self.run_tool("evt", values, "--plot", "/dev/full"), "/dev/full",
                                   "not a regular file")


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
