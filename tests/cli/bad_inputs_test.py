#!/usr/bin/python3
"""Bad model, domain and objective files given to the reluopt command-line tool: each gets exit code 1 and
one printable line on stderr naming the file and the culprit, never a crash, a hang or silence.

Usage: bad_inputs_test.py RELUOPT_BINARY FIXTURES_DIR EXAMPLES_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY, FIXTURES, EXAMPLES = sys.argv[1], sys.argv[2], sys.argv[3]
BAD = os.path.join(FIXTURES, "bad_inputs")
MODEL = os.path.join(EXAMPLES, "xavier_10_50_50.onnx")


class BadInputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="reluopt_bad_inputs_")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(content if isinstance(content, bytes) else content.encode())
        return path

    def run_tool(self, *args):
        return subprocess.run([BINARY, *args], capture_output=True, timeout=60)

    def assert_refused(self, args, *words):
        proc = self.run_tool("solve", *args, "--samples", "10", "--quiet")
        stderr = proc.stderr.decode("utf-8")  # raises on bytes that are not UTF-8
        self.assertEqual(proc.returncode, 1, stderr)
        lines = stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, stderr)
        self.assertTrue(lines[0].isprintable(), repr(lines[0]))
        for word in words:
            self.assertIn(word, lines[0])

    def test_models_that_are_not_models(self):
        self.assert_refused([os.path.join(self.dir, "none.onnx")], "none.onnx", "no such file")
        self.assert_refused([self.dir], self.dir, "it is a directory")
        self.assert_refused([self.write("empty.onnx", b"")], "empty.onnx", "not an ONNX model")
        self.assert_refused([self.write("empty.nnet", b"")], "empty.nnet", "file ends early")
        self.assert_refused([self.write("text.onnx", "hello\n")], "text.onnx", "not an ONNX model")

    def test_truncated_models(self):
        with open(MODEL, "rb") as f:
            data = f.read()
        for cut in (1, 10, 100, len(data) // 2, len(data) - 1):
            self.assert_refused([self.write(f"cut{cut}.onnx", data[:cut])], f"cut{cut}.onnx")
        with open(os.path.join(FIXTURES, "nnet", "small.nnet"), "rb") as f:
            text = f.read()
        for cut in (50, len(text) // 2, len(text) - 20):
            self.assert_refused([self.write(f"cut{cut}.nnet", text[:cut])], f"cut{cut}.nnet", "line")

    def test_nul_bytes_do_not_cut_the_message(self):
        with open(os.path.join(FIXTURES, "nnet", "small.nnet"), "rb") as f:
            lines = f.read().split(b"\n")
        lines[7] = lines[7].replace(b",", b",\0", 1)
        path = self.write("nul.nnet", b"\n".join(lines))
        self.assert_refused([path], "nul.nnet' line 8", "\\x00")

    def test_models_the_reader_refuses(self):
        self.assert_refused([os.path.join(BAD, "opset29.onnx")], "uses opset 29", "opsets 7 to 28")
        self.assert_refused([os.path.join(BAD, "batch_input_3x6.onnx")], "[3,6]", "batch")
        self.assert_refused([os.path.join(BAD, "nan_weight.onnx")], "tensor 'W0'", "not finite")
        self.assert_refused([os.path.join(BAD, "non_utf8_operator.onnx")], "'Relu\\xff'", "node 'act0'")
        self.assert_refused([os.path.join(BAD, "huge_dims.onnx")], "tensor 'W0'", "invalid dimensions")

    def test_domains(self):
        bad = {
            "null.json": ('{"lower": [0, null], "upper": [1, 1]}', 'entry 1 of "lower" is not finite: null'),
            "big.json": ('{"lower": [0], "upper": [1e400]}', "number overflow"),
            "crossed.json": ('{"lower": [2], "upper": [1]}', "is empty"),
            "empty.json": ("", "malformed JSON"),
            "truncated.json": ('{"lower": [0, 0', "malformed JSON"),
            "bytes.json": (b'{"lower": ["\xff"]}', "malformed JSON"),
            "rows.json": ('{"lower": [0], "upper": [1], "A": [[1]], "b": [1, 2]}', "1 rows"),
            "key.json": ('{"lower": [0], "upper": [1], "lowr": [0.5]}',
                         "unknown key 'lowr' (the keys are 'lower', 'upper', 'A', 'b')"),
        }
        for name, (content, word) in bad.items():
            path = self.write(name, content)
            self.assert_refused([MODEL, "--domain", path], f"domain file '{path}'", word)
        self.assert_refused([MODEL, "--domain", self.dir], "cannot open domain file", "it is a directory")
        self.assert_refused([MODEL, "--domain", os.path.join(self.dir, "none.json")], "no such file")

    def test_objectives(self):
        bad = {
            "sense.json": ('{"weights": [1], "sense": 3}', '"sense" must be'),
            "weight.json": ('{"weights": [null]}', 'entry 0 of "weights" is not finite: null'),
            "constant.json": ('{"weights": [1], "constant": "x"}', '"constant" is not a number: "x"'),
            # a misspelt key would leave the default in place: maximize instead of minimize, constant 0
            "sens.json": ('{"sens": "min", "weights": [1]}', "unknown key 'sens'"),
            "term.json": ('{"disjuncts": [[{"weights": [1], "constnt": 2}]]}',
                          "term 0 of disjunct 0: unknown key 'constnt' (the keys are 'weights', 'constant')"),
        }
        for name, (content, word) in bad.items():
            path = self.write(name, content)
            self.assert_refused([MODEL, "--objective", path], f"objective file '{path}'", word)

    def test_spelled_out_sense_is_accepted(self):
        path = self.write("maximize.json", '{"sense": "maximize", "weights": [1]}')
        proc = self.run_tool("solve", MODEL, "--objective", path, "--samples", "10", "--quiet")
        self.assertEqual(proc.returncode, 0, proc.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=1)
