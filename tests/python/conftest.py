"""Shared helpers of the Python package's tests: small networks with float32-exact weights (so the ONNX file and
the float64 arrays are the same network), and runs of the command-line tool on the same problem."""
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("RELUOPT_CLI", str(ROOT / "build" / "reluopt"))
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixtures"


sys.path.insert(0, str(ROOT / "bench"))
from netgen import forward, make_network, write_onnx  # noqa: E402  (the benchmarks' network generator)


def import_torch():
    """torch, or a skip where it is not installed; under RELUOPT_REQUIRE_TORCH=1 (set by .ci/run) a missing torch
    fails instead, so CI never hides the torch tests behind a skip."""
    if os.environ.get("RELUOPT_REQUIRE_TORCH"):
        import torch
        return torch
    return pytest.importorskip("torch")


def xavier_layers(sizes, seed):
    """Xavier-uniform layers rounded to float32, as (W, b) float64 arrays."""
    return make_network(sizes[0], sizes[1:-1], seed, outputs=sizes[-1])


def onnx_model(layers):
    """The PyTorch export's form: Gemm(transB=1) and Relu, input [1, d]."""
    import onnx

    with tempfile.TemporaryDirectory() as tmp:
        return onnx.load(write_onnx(layers, os.path.join(tmp, "net.onnx")))


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


def interrupted(script):
    """Runs `script` (which prints "started" before its run) in a child Python, sends it SIGINT 1.5 s into the
    run, and returns (the JSON line it printed, the time SIGINT was sent on time.monotonic's clock)."""
    # A runner started in the background by a shell (`make test &`) ignores SIGINT, and the child would inherit
    # that: it gets Python's default handler back, as in a terminal.
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert child.stdout.readline().strip() == "started"
    time.sleep(1.5)  # well into the run
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 0, err
    return json.loads(out), sent


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
    return pathlib.Path(write_onnx(net, str(tmp_path / "net.onnx")))
