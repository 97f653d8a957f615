"""Shared helpers of the Python package's tests: small networks with float32-exact weights (so the ONNX file and
the float64 arrays are the same network), and runs of the command-line tool on the same problem."""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("RELUOPT_CLI", str(ROOT / "build" / "reluopt"))
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixtures"


def xavier_layers(sizes, seed):
    """Xavier-uniform layers rounded to float32, as (W, b) float64 arrays."""
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        a = np.sqrt(6.0 / (fan_in + fan_out))
        w = rng.uniform(-a, a, size=(fan_out, fan_in)).astype(np.float32).astype(np.float64)
        b = (rng.uniform(-1, 1, size=fan_out) / np.sqrt(fan_in)).astype(np.float32).astype(np.float64)
        layers.append((w, b))
    return layers


def onnx_model(layers):
    """The PyTorch export's form: Gemm(transB=1) and Relu, input [1, d]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits, current = [], [], "x"
    for k, (w, b) in enumerate(layers):
        inits += [numpy_helper.from_array(w.astype(np.float32), f"W{k}"),
                  numpy_helper.from_array(b.astype(np.float32), f"b{k}")]
        nodes.append(helper.make_node("Gemm", [current, f"W{k}", f"b{k}"], [f"h{k}"], transB=1))
        current = f"h{k}"
        if k + 1 < len(layers):
            nodes.append(helper.make_node("Relu", [current], [f"a{k}"]))
            current = f"a{k}"
    d, m = layers[0][0].shape[1], layers[-1][0].shape[0]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, d])],
                              [helper.make_tensor_value_info(current, TensorProto.FLOAT, [1, m])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def forward(layers, x):
    v = np.asarray(x, dtype=np.float64)
    for k, (w, b) in enumerate(layers):
        v = w @ v + b
        if k + 1 < len(layers):
            v = np.maximum(v, 0.0)
    return v


def run_cli(tmp_path, model, flags, domain=None, objective=None, check=True):
    """Runs `reluopt solve` and returns (exit code, JSON dict or None, stderr)."""
    args = [CLI, "solve", str(model), "--quiet", "--json", str(tmp_path / "cli.json")] + list(flags)
    if domain is not None:
        (tmp_path / "domain.json").write_text(json.dumps(domain))
        args += ["--domain", str(tmp_path / "domain.json")]
    if objective is not None:
        (tmp_path / "objective.json").write_text(json.dumps(objective))
        args += ["--objective", str(tmp_path / "objective.json")]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if check:
        assert done.returncode == 0, done.stderr
    out = json.loads((tmp_path / "cli.json").read_text()) if done.returncode == 0 else None
    return done.returncode, out, done.stderr.strip()


def cli_error(tmp_path, model, flags, **kwargs):
    """The CLI's one-line error message without its 'reluopt: [error: ]' prefix."""
    code, _, stderr = run_cli(tmp_path, model, flags, check=False, **kwargs)
    assert code != 0 and "\n" not in stderr, stderr
    return stderr.removeprefix("reluopt: ").removeprefix("error: ")


@pytest.fixture(scope="session")
def net():
    """A 4 -> 12 -> 12 -> 2 network, its ONNX file and model."""
    return xavier_layers([4, 12, 12, 2], seed=7)


@pytest.fixture
def net_onnx(tmp_path, net):
    import onnx

    path = tmp_path / "net.onnx"
    onnx.save(onnx_model(net), str(path))
    return path


def python_child(code):
    """A child interpreter running `code` with this package importable."""
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
