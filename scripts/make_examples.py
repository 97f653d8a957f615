#!/usr/bin/python3
"""Writes the small example problem kept in examples/ (run by `make demo`).

  examples/xavier_10_50_50.onnx   a Xavier-initialised 10 -> 50 -> 50 -> 1 ReLU network (seed 2022)
  examples/budget_domain.json     [0,1]^10 with a budget row sum(x) <= 4 and x0 + x1 <= 1
  examples/min_objective.json     minimize the output, to show the objective file
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import netgen  # noqa: E402

out = os.path.join(HERE, "..", "examples")
os.makedirs(out, exist_ok=True)
netgen.write_onnx(netgen.make_network(10, [50, 50], seed=2022), os.path.join(out, "xavier_10_50_50.onnx"))
with open(os.path.join(out, "budget_domain.json"), "w") as f:
    json.dump({"lower": [0.0] * 10, "upper": [1.0] * 10,
               "A": [[1.0] * 10, [1.0, 1.0] + [0.0] * 8], "b": [4.0, 1.0]}, f, indent=1)
    f.write("\n")
with open(os.path.join(out, "min_objective.json"), "w") as f:
    json.dump({"sense": "min", "weights": [1.0], "constant": 0.0}, f)
    f.write("\n")
