#!/usr/bin/python3
"""Faults around a run of the reluopt command-line tool: output files that cannot be written (exit 1 and one
line, never silence), output that is complete or absent when the process is killed while writing, SIGTERM
acting like Ctrl-C, --time-limit counted from the command's start, and numbers too large for an LP refused with
the value and where it is. No assertion depends on the machine's speed.

Usage: faults_test.py RELUOPT_BINARY FIXTURES_DIR EXAMPLES_DIR
"""
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_test  # noqa: E402
from cli_test import forward, write_gemm_onnx, xavier_layers  # noqa: E402
from sanitizer import built_with_address_sanitizer  # noqa: E402

BINARY, FIXTURES = sys.argv[1], sys.argv[2]


def handles_signal(pid, signum):
    """True once the process has a handler for `signum` (the SigCgt mask of /proc/PID/status)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except FileNotFoundError:
        pass
    return False


def wait_for_handler(proc, signum, timeout=60.0):
    """Waits until the run is inside the library (where the CLI handles the signal), whatever the machine's speed."""
    end = time.monotonic() + timeout
    while not handles_signal(proc.pid, signum):
        if proc.poll() is not None or time.monotonic() > end:
            raise AssertionError("the run never installed its signal handler")
        time.sleep(0.01)


class Faults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="reluopt_faults_")
        cls.addClassCleanup(shutil.rmtree, cls.dir)
        cls.layers = xavier_layers([6, 16, 16, 1], seed=4)
        cls.model = os.path.join(cls.dir, "net.onnx")
        write_gemm_onnx(cls.layers, cls.model)

    def path(self, name):
        return os.path.join(self.dir, name)

    def json_file(self, name, content):
        with open(self.path(name), "w") as f:
            json.dump(content, f)
        return self.path(name)

    # One line on stderr containing every word, and the exit code.
    run_tool = cli_test.Cli.run_tool
    assert_one_error_line = cli_test.Cli.assert_bad_input

    # ---- output that cannot be written: exit 1, one line naming the file ---------------------------------
    def test_unwritable_outputs_are_errors(self):
        solve = ["solve", self.model, "--samples", "20", "--quiet"]
        for target in ("/dev/full", "/proc/version", self.path("missing/dir/result.json")):
            self.assert_one_error_line([*solve, "--json", target], 1, "cannot write the JSON result", target)
        self.assert_one_error_line(["solve", self.model, "--samples", "200", "--quiet", "--values-out", "/dev/full"],
                                   1, "cannot write the sample values", "/dev/full")
        self.assert_one_error_line(["relax", self.model, "--json", "/dev/full"], 1, "/dev/full", "No space left")
        with open(self.path("values.csv"), "w") as f:
            f.write("sample,value\n" + "".join(f"{i},{np.sin(i)}\n" for i in range(200)))
        self.assert_one_error_line(["evt", self.path("values.csv"), "--json", "/dev/full"], 1, "/dev/full")

    def test_output_replaces_the_file_and_leaves_nothing_else(self):
        directory = self.path("out")
        os.makedirs(directory)
        target = os.path.join(directory, "result.json")
        link = os.path.join(directory, "link.json")
        with open(target, "w") as f:
            f.write("old")
        os.symlink("result.json", link)
        old_umask = os.umask(0o022)
        os.umask(old_umask)
        proc = self.run_tool("solve", self.model, "--samples", "20", "--quiet", "--json", link)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.islink(link))  # the link is kept, the file it names replaced
        with open(target) as f:
            self.assertEqual(json.load(f)["samples"], 20)
        self.assertEqual(sorted(os.listdir(directory)), ["link.json", "result.json"])
        fresh = os.path.join(directory, "fresh.json")
        proc = self.run_tool("solve", self.model, "--samples", "20", "--quiet", "--json", fresh)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(os.stat(fresh).st_mode & 0o777, 0o666 & ~old_umask)

    def test_killed_while_writing_leaves_no_partial_json(self):
        # A result with 2000 coordinates (about 40 kB of JSON) over an older complete file: after a SIGKILL at
        # any moment the file is one of the two complete results. Kill times cover the whole run.
        layers = xavier_layers([2000, 2, 1], seed=5)
        model = self.path("wide.onnx")
        write_gemm_onnx(layers, model)
        target = self.path("killed.json")
        command = [BINARY, "solve", model, "--method", "sampling", "--samples", "2", "--threads", "1", "--quiet",
                   "--json", target]
        start = time.monotonic()
        subprocess.run(command, capture_output=True, check=True, timeout=120)
        duration = time.monotonic() - start
        rng = random.Random(7)
        for _ in range(20):
            proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.5, 1.1) * duration)
            proc.kill()
            proc.wait()
            with open(target) as f:
                result = json.load(f)  # never a truncated file
            self.assertEqual(len(result["x"]), 2000)
        leftovers = [name for name in os.listdir(self.dir) if name.startswith(".killed.json.")]
        for name in leftovers:  # a kill between creating and renaming leaves the temporary file, never the target
            os.remove(self.path(name))

    # ---- SIGTERM acts like Ctrl-C ----------------------------------------------------------------------------
    def test_sigterm_reports_the_incumbent(self):
        out = self.path("terminated.json")
        proc = subprocess.Popen([BINARY, "solve", self.model, "--samples", "1000000000", "--json", out, "--quiet"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for_handler(proc, signal.SIGTERM)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, stderr)
        self.assertIn("interrupted", stdout)
        with open(out) as f:
            result = json.load(f)
        self.assertEqual(result["stopped_by"], "interrupted")
        if result["status"] != "no_solution":
            x = np.array(result["x"])
            self.assertAlmostEqual(result["objective"], float(forward(self.layers, x)[0]), delta=1e-9)

    # ---- GNU timeout: SIGTERM to the process and to its group at once -------------------------------------
    def slow_problem(self):
        """A network that neither bab nor verify finishes in seconds, and a property of it."""
        model, prop = self.path("slow.onnx"), self.path("slow.vnnlib")
        if not os.path.exists(prop):
            write_gemm_onnx(xavier_layers([12, 64, 64, 64, 64, 1], seed=11), model)
            with open(prop, "w") as f:
                f.write("".join(f"(declare-const X_{i} Real)\n" for i in range(12)) + "(declare-const Y_0 Real)\n")
                f.write("".join(f"(assert (>= X_{i} -1.0))\n(assert (<= X_{i} 1.0))\n" for i in range(12)))
                f.write("(assert (>= Y_0 5.0))\n")
        return model, prop

    def terminate_like_timeout(self, command):
        """Runs `command` in a process group of its own, sends it SIGTERM twice 1 ms apart and once to the group
        (as timeout does), and returns its stdout and exit code."""
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        wait_for_handler(proc, signal.SIGTERM)
        time.sleep(0.3)  # into the run
        os.kill(proc.pid, signal.SIGTERM)  # not proc.send_signal, which may reap the process between the signals
        time.sleep(0.001)
        os.kill(proc.pid, signal.SIGTERM)
        os.killpg(proc.pid, signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, stderr)
        return stdout

    def test_signals_at_once_count_as_one(self):
        model, prop = self.slow_problem()
        for attempt in range(3):
            result, doc = self.path(f"timeout{attempt}.txt"), self.path(f"timeout{attempt}.json")
            stdout = self.terminate_like_timeout([BINARY, "verify", model, prop, "--result-file", result, "--json",
                                                  doc, "--quiet"])
            self.assertIn(stdout.splitlines()[0], ("unknown", "timeout", "sat", "unsat"))
            with open(result) as f:
                self.assertEqual(f.read(), stdout)
            with open(doc) as f:
                self.assertEqual(json.load(f)["status"], stdout.splitlines()[0])
            out = self.path(f"bab{attempt}.json")
            stdout = self.terminate_like_timeout([BINARY, "solve", model, "--method", "bab", "--json", out,
                                                  "--quiet"])
            self.assertIn("interrupted", stdout)
            with open(out) as f:
                self.assertEqual(json.load(f)["stopped_by"], "interrupted")

    def test_a_deliberate_second_signal_still_ends_the_run(self):
        model, _ = self.slow_problem()
        proc = subprocess.Popen([BINARY, "solve", model, "--method", "bab", "--quiet"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        wait_for_handler(proc, signal.SIGTERM)
        proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:  # resent until it acts, past the window
            time.sleep(1.5)
            proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
        self.assertIn(proc.returncode, (0, -signal.SIGTERM))

    # ---- stdout that cannot be written, outputs that would replace inputs ----------------------------------
    def test_stdout_that_cannot_be_written_is_an_error(self):
        sat = os.path.join(FIXTURES, "vnnlib", "cls5_sat.vnnlib")
        commands = [["verify", os.path.join(FIXTURES, "vnnlib", "cls5.onnx"), sat, "--quiet"],
                    ["solve", self.model, "--samples", "20", "--quiet"], ["--help"]]
        for args in commands:
            with open("/dev/full", "w") as full:
                proc = subprocess.run([BINARY, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
            self.assertEqual(proc.returncode, 1, args)
            lines = proc.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, proc.stderr)
            self.assertIn("cannot write to standard output", lines[0])

    def test_an_output_may_not_replace_an_input_or_another_output(self):
        model = self.path("kept.onnx")
        shutil.copy(self.model, model)
        with open(model, "rb") as f:
            original = f.read()
        os.link(model, self.path("hard_link.onnx"))
        doc = self.path("twice.json")
        vnnlib = os.path.join(FIXTURES, "vnnlib")
        cases = [
            (["solve", model, "--samples", "20", "--json", model], "--json", "the model"),
            (["solve", model, "--samples", "20", "--json", self.path("hard_link.onnx")], "--json", "the model"),
            (["solve", model, "--samples", "20", "--json", os.path.join(self.dir, ".", "kept.onnx")], "--json", "model"),
            (["solve", model, "--samples", "20", "--json", doc, "--values-out", doc], "--values-out", "same file"),
            (["verify", model, os.path.join(vnnlib, "cls5_sat.vnnlib"), "--json", doc, "--result-file", doc],
             "--result-file", "same file"),
            (["verify", os.path.join(vnnlib, "cls5.onnx"), os.path.join(vnnlib, "cls5_sat.vnnlib"), "--json",
              os.path.join(vnnlib, "cls5_sat.vnnlib")], "--json", "the property"),
        ]
        for args, *words in cases:
            self.assert_one_error_line(args, 2, *words)
        with open(self.path("values.csv"), "w") as f:
            f.write("sample,value\n" + "".join(f"{i},{np.sin(i)}\n" for i in range(200)))
        self.assert_one_error_line(["evt", self.path("values.csv"), "--json", self.path("values.csv")], 2, "--json")
        with open(model, "rb") as f:
            self.assertEqual(f.read(), original)
        self.assertFalse(os.path.exists(doc))
        # Devices may be named twice.
        proc = self.run_tool("solve", model, "--samples", "20", "--quiet", "--json", "/dev/null", "--values-out",
                             "/dev/null")
        self.assertEqual(proc.returncode, 0, proc.stderr)

    # ---- threads the system refuses -------------------------------------------------------------------------
    @unittest.skipIf(built_with_address_sanitizer(BINARY), "AddressSanitizer cannot run under an address-space limit")
    def test_threads_beyond_an_address_space_limit_are_fewer_with_a_warning(self):
        limit = 1 << 30  # 1 GB, as `ulimit -v 1048576` on a cluster node: room for about a hundred thread stacks

        def limited():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        model, prop = self.slow_problem()
        runs = [["solve", self.model, "--method", "bab", "--json", self.path("limited_bab.json")],
                ["solve", self.model, "--method", "sampling", "--samples", "2000", "--json", self.path("limited.json")],
                ["solve", self.model, "--samples", "300", "--time-limit", "20", "--json", self.path("limited.json")],
                ["solve", self.model, "--method", "mip", "--bounds", "lp", "--json", self.path("limited.json")],
                ["verify", model, prop, "--time-limit", "3"]]
        for args in runs:
            proc = subprocess.run([BINARY, *args, "--threads", "1000", "--quiet"], capture_output=True, text=True,
                                  timeout=300, preexec_fn=limited)
            self.assertEqual(proc.returncode, 0, f"{args}: {proc.stderr}")
            warnings = [line for line in proc.stderr.splitlines() if " threads: " in line]
            self.assertEqual(len(warnings), 1, proc.stderr)
            self.assertRegex(warnings[0], r"^reluopt: warning: started \d+ of \d+ threads: .+")
            if args[0] == "solve":
                with open(args[args.index("--json") + 1]) as f:
                    result = json.load(f)
                self.assertLess(result["threads"], 1000)
                self.assertNotEqual(result["status"], "no_solution")
        with open(self.path("limited_bab.json")) as f:
            self.assertEqual(json.load(f)["status"], "optimal")

    # ---- the clock starts with the command ----------------------------------------------------------------
    def test_a_limit_used_up_before_the_run_is_reported(self):
        out = self.path("no_time.json")
        proc = self.run_tool("solve", self.model, "--time-limit", "0", "--json", out, "--quiet")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            result = json.load(f)
        self.assertEqual(result["stopped_by"], "time_limit")
        self.assertGreaterEqual(result["load_seconds"], 0.0)

    # ---- numbers far from 1 ---------------------------------------------------------------------------------
    def test_magnitudes_beyond_an_lp_are_refused_with_their_place(self):
        for exponent in (20, 26):
            layers = [(w.copy(), b.copy()) for w, b in self.layers]
            layers[1][0][3, 5] = 10.0 ** exponent
            model = self.path(f"huge{exponent}.onnx")
            write_gemm_onnx(layers, model)
            for method in ("enhanced", "mip"):
                self.assert_one_error_line(["solve", model, "--method", method], 1, f"huge{exponent}.onnx",
                                           "layer 2", "W[3][5]", f"1e+{exponent}")
        objective = self.json_file("huge_objective.json", {"weights": [1e308]})
        self.assert_one_error_line(["solve", self.model, "--objective", objective, "--method", "mip"], 1,
                                   "huge_objective.json", "weight 0", "1e+308")
        domain = self.json_file("huge_box.json", {"lower": [-1e16] * 6, "upper": [1e16] * 6})
        self.assert_one_error_line(["relax", self.model, "--domain", domain], 1, "huge_box.json", "lower[0]")

    def test_mip_methods_prove_the_optimum_over_a_huge_box(self):
        # Issue 12: over +-1e10 the MIP methods claimed optimal at 6.87e9 (mip) or found nothing, where sampling
        # finds 1.158e10; solve() now runs them on the exact power-of-two rescaling (docs/NUMERICS.md).
        domain = self.json_file("box_1e10.json", {"lower": [-1e10] * 6, "upper": [1e10] * 6})
        values = {}
        for method in ("sampling", "mip", "mip-cuts", "partition", "bab"):
            out = self.path(f"box_{method}.json")
            proc = self.run_tool("solve", self.model, "--domain", domain, "--method", method, "--samples", "300",
                                 "--threads", "1", "--json", out, "--quiet")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(out) as f:
                values[method] = json.load(f)
            result = values[method]
            self.assertAlmostEqual(result["objective"], float(forward(self.layers, np.array(result["x"]))[0]),
                                   delta=1e-9 * abs(result["objective"]))
        for method in ("mip", "mip-cuts", "partition", "bab"):
            self.assertEqual(values[method]["status"], "optimal", method)
            self.assertGreaterEqual(values[method]["bound"], values["sampling"]["objective"], method)
            self.assertGreaterEqual(values[method]["objective"], values["sampling"]["objective"], method)

    # ---- option values: one line naming the flag and the value ---------------------------------------------
    def test_bad_numbers_name_flag_and_value(self):
        cases = [("--samples", "0"), ("--time-limit", "nan"), ("--time-limit", "-2"), ("--threads", "100000"),
                 ("--gap", "inf"), ("--eps", "-1"), ("--mip-share", "nan"), ("--max-free", "-3"),
                 ("--node-limit", "-1"), ("--partitions", "-4"), ("--warm-start-samples", "0"),
                 ("--cut-frequency", "0"), ("--input-split-dims", "-1"), ("--relu-split-below", "-7")]
        for flag, value in cases:
            self.assert_one_error_line(["solve", self.model, flag, value], 2, flag, value)
        self.assert_one_error_line(["solve", self.model, "--stop-rule", "nan,0.05"], 2, "--stop-rule", "nan")
        self.assert_one_error_line(["solve", self.model, "--stop-rule", "0.1,1.5"], 2, "--stop-rule", "1.5")
        for method in ("sampling", "enhanced", "bab"):
            self.assert_one_error_line(["relax", self.model, "--method", method], 2, "relax")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
