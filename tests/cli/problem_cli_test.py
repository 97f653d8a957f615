#!/usr/bin/python3
"""reluopt solve --problem and reluopt formulate on problem files (docs/PROBLEM.md): the MIP methods and bab prove
the same optimum, an infeasible problem reports `infeasible`, the other methods refuse a problem with integers or
constraints on outputs in one line, and the exported free MPS file, read by the parser below and solved by
scipy's HiGHS (scipy.optimize.milp), has the optimum that solve --problem proves.

Usage: problem_cli_test.py RELUOPT_BINARY FIXTURES_DIR
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY, FIXTURES = sys.argv[1], sys.argv[2]
PROBLEMS = os.path.join(FIXTURES, "problem")
PRICING = os.path.join(PROBLEMS, "pricing.json")


def read_free_mps(path):
    """The free MPS that reluopt writes: (sense, c, A rows as dicts, row bounds, column bounds, integer flags)."""
    sense, section, rows, row_order = "min", None, {}, []
    columns, c, entries, integer, lower, upper = {}, {}, [], set(), {}, {}
    in_integers = False
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if not line[0].isspace():
                section = words[0]
                continue
            if section == "OBJSENSE":
                sense = "max" if words[0].upper().startswith("MAX") else "min"
            elif section == "ROWS":
                if words[0] != "N":
                    rows[words[1]] = [words[0], 0.0, None]
                    row_order.append(words[1])
            elif section == "COLUMNS":
                if words[1] == "'MARKER'":
                    in_integers = words[2] == "'INTORG'"
                    continue
                name = words[0]
                columns.setdefault(name, len(columns))
                if in_integers:
                    integer.add(name)
                for row, value in zip(words[1::2], words[2::2]):
                    if row == "obj":
                        c[name] = float(value)
                    else:
                        entries.append((row, name, float(value)))
            elif section == "RHS":
                rows[words[1]][1] = float(words[2])
            elif section == "RANGES":
                rows[words[1]][2] = float(words[2])
            elif section == "BOUNDS":
                kind, name = words[0], words[2]
                value = float(words[3]) if len(words) > 3 else None
                if kind in ("LO", "FX"):
                    lower[name] = value
                if kind in ("UP", "FX"):
                    upper[name] = value
                if kind in ("MI", "FR"):
                    lower[name] = -math.inf
                if kind in ("PL", "FR"):
                    upper[name] = math.inf
    return sense, columns, c, entries, rows, row_order, integer, lower, upper


def solve_mps_with_scipy(path):
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp
    sense, columns, c, entries, rows, row_order, integer, lower, upper = read_free_mps(path)
    n = len(columns)
    index = {name: i for i, name in enumerate(row_order)}
    A = np.zeros((len(row_order), n))
    for row, name, value in entries:
        A[index[row], columns[name]] = value
    lo, hi = np.full(len(row_order), -np.inf), np.full(len(row_order), np.inf)
    for name, (kind, rhs, span) in rows.items():
        i = index[name]
        if kind == "E":
            lo[i] = hi[i] = rhs
        elif kind == "L":
            hi[i] = rhs
        else:
            lo[i] = rhs
            if span is not None:
                hi[i] = rhs + abs(span)
    cost = np.zeros(n)
    for name, value in c.items():
        cost[columns[name]] = value
    sign = -1.0 if sense == "max" else 1.0
    bounds = Bounds([lower.get(name, 0.0) for name in columns], [upper.get(name, math.inf) for name in columns])
    flags = np.array([1 if name in integer else 0 for name in columns])
    result = milp(sign * cost, constraints=LinearConstraint(A, lo, hi), integrality=flags, bounds=bounds,
                  options={"mip_rel_gap": 1e-9})
    return result.status, (sign * result.fun if result.status == 0 else None)


class ProblemFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="reluopt_problem_")
        for name in ("demand.nnet", "risk.nnet"):
            shutil.copy(os.path.join(PROBLEMS, name), cls.dir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def run_tool(self, *args):
        return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=120)

    def solve(self, problem, *flags):
        out = os.path.join(self.dir, "result.json")
        proc = self.run_tool("solve", "--problem", problem, "--quiet", "--time-limit", "60", "--json", out, *flags)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            return json.load(f)

    def write_problem(self, name, change):
        with open(PRICING) as f:
            problem = json.load(f)
        change(problem)
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            json.dump(problem, f)
        return path

    def test_mip_methods_prove_one_optimum_with_named_values(self):
        values = []
        for method in ("mip", "mip-cuts", "partition", "bab"):
            result = self.solve(PRICING, "--method", method)
            self.assertEqual(result["status"], "optimal", method)
            self.assertGreaterEqual(result["bound"], result["objective"])
            x = result["variables"]["x"]
            self.assertEqual(len(x), 3)
            self.assertEqual(len(result["variables"]["z"]), 1)
            self.assertEqual(x[0], round(x[0]))
            self.assertEqual(x[2], round(x[2]))
            self.assertEqual(sorted(result["networks"]), ["demand", "risk", "spread"])
            self.assertLessEqual(result["networks"]["risk"][0], 0.2 + 1e-6)
            self.assertAlmostEqual(x[0] + x[2], result["variables"]["z"][0], delta=1e-9)
            values.append(result["objective"])
        self.assertAlmostEqual(min(values), max(values), delta=1e-6 * max(1.0, abs(values[0])))

    def test_an_unreachable_risk_limit_is_infeasible(self):
        def limit(problem):
            problem["constraints"][0]["<="] = -100
        for method in ("mip", "bab"):
            result = self.solve(self.write_problem("infeasible.json", limit), "--method", method)
            self.assertEqual(result["status"], "infeasible", method)
            self.assertIsNone(result["objective"])
            self.assertEqual(result["variables"], {})

    def test_every_method_takes_integers_and_output_rows(self):
        proven = self.solve(PRICING, "--method", "mip")["objective"]
        for method in ("sampling", "enhanced", "bab", "gradient", "walk"):
            result = self.solve(PRICING, "--method", method, "--samples", "50", "--seed", "1", "--threads", "1")
            self.assertIn(result["status"], ("optimal", "feasible"), method)
            self.assertLessEqual(result["objective"], proven + 1e-6, method)
            x = result["variables"]["x"]
            self.assertEqual(x[0], round(x[0]), method)
            self.assertEqual(x[2], round(x[2]), method)
            self.assertLessEqual(result["networks"]["risk"][0], 0.2 + 1e-6, method)
            if result["status"] == "optimal":
                self.assertAlmostEqual(result["objective"], proven, delta=1e-6 * max(1.0, abs(proven)), msg=method)

    def test_a_problem_without_integers_or_output_rows_runs_every_method(self):
        def plain(problem):
            problem["variables"][0]["integer"] = False
            problem["constraints"] = [problem["constraints"][1]]
        path = self.write_problem("plain.json", plain)
        best = self.solve(path, "--method", "mip")["objective"]
        for method in ("sampling", "bab"):
            result = self.solve(path, "--method", method, "--samples", "50", "--seed", "1")
            self.assertIn(result["status"], ("optimal", "feasible"))
            self.assertLessEqual(result["objective"], best + 1e-6)
            self.assertAlmostEqual(sum(result["variables"]["x"][i] for i in (0, 2)), result["variables"]["z"][0],
                                   delta=1e-9)

    def test_problem_excludes_model_domain_and_objective(self):
        for extra in (["model.onnx"], ["--domain", "d.json"], ["--objective", "o.json"]):
            proc = self.run_tool("solve", "--problem", PRICING, *extra)
            self.assertEqual(proc.returncode, 2)
            self.assertIn("--problem", proc.stderr)

    def test_exported_mps_has_the_proven_optimum(self):
        proven = self.solve(PRICING, "--method", "mip")["objective"]
        mps = os.path.join(self.dir, "pricing.mps")
        proc = self.run_tool("formulate", PRICING, "--out", mps)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        status, optimum = solve_mps_with_scipy(mps)
        self.assertEqual(status, 0)
        self.assertAlmostEqual(optimum, proven, delta=1e-6 * max(1.0, abs(proven)))

    def test_exported_lp_and_bad_extension(self):
        lp = os.path.join(self.dir, "pricing.lp")
        proc = self.run_tool("formulate", PRICING, "--out", lp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(lp) as f:
            text = f.read()
        self.assertTrue(text.startswith("\\ written by reluopt\nMaximize\n"))
        self.assertIn("\nGeneral\n", text)
        self.assertTrue(text.endswith("End\n"))
        proc = self.run_tool("formulate", PRICING, "--out", os.path.join(self.dir, "pricing.txt"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn(".mps", proc.stderr)

    def test_the_time_limit_holds_while_the_problem_files_models_are_read(self):
        # 30000 networks to read take far longer than the 0.01 s limit, whose first check comes after 0.02 s.
        def many(problem):
            demand = os.path.join(PROBLEMS, problem["networks"][0]["model"])
            for network in problem["networks"]:
                network["model"] = os.path.join(PROBLEMS, network["model"])
            problem["networks"] += [{"name": "copy%d" % k, "model": demand, "input": "x"} for k in range(30000)]
        path = self.write_problem("stuck.json", many)
        out = os.path.join(self.dir, "stuck_result.json")
        proc = self.run_tool("solve", "--problem", path, "--time-limit", "0.01", "--quiet", "--json", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("not read: the time limit ran out while reading the problem file", proc.stdout)
        with open(out) as f:
            result = json.load(f)
        self.assertEqual(result["status"], "no_solution")
        self.assertEqual(result["stopped_by"], "time_limit")
        proc = self.run_tool("formulate", path, "--out", os.path.join(self.dir, "stuck.mps"), "--time-limit", "0.01")
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stderr.strip(), "reluopt: error: '%s' not read: the time limit ran out while reading "
                                              "the problem file" % path)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
