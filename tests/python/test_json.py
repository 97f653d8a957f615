"""Result.to_json is the command line's JSON, field by field (timings and the run's descriptions aside)."""
import json

import numpy as np
import pytest

import reluopt
from conftest import run_cli

TIMED = {"seconds", "load_seconds"}
DESCRIBED = {"model", "domain", "objective_function"}


def compare(result, cli):
    ours = json.loads(result.to_json())
    assert ours == result.to_dict()
    assert set(ours) == set(cli)
    for key in set(cli) - TIMED - DESCRIBED:
        if key == "trajectory":
            assert [v for _, v in ours[key]] == [v for _, v in cli[key]], key
        elif key == "bound_trajectory":  # bab records its bound at times, not at events
            assert ours[key][-1:][0][1:] == cli[key][-1:][0][1:] if cli[key] else not ours[key], key
        else:
            assert ours[key] == cli[key], key


@pytest.mark.parametrize("method,flags", [
    ("enhanced", {"samples": 80}),
    ("sampling", {"samples": 80}),
    ("mip", {}),
    ("partition", {"partitions": 3}),
    ("bab", {}),
    ("bab", {"bab_memory": 0.001, "input_split_dims": 0}),
    ("mip-cuts", {"cut_frequency": -1}),
    ("gradient", {"samples": 40, "ascent_steps": 5, "perturbations": 1, "perturbation_radius": 0.2}),
    ("enhanced", {"samples": 40, "ascent_steps": 0}),
    ("walk", {"samples": 30, "walk_iterations": 2}),
])
def test_fields_match_cli(tmp_path, net, net_onnx, method, flags):
    cli_flags = ["--method", method, "--threads", "1", "--seed", "5"]
    for name, value in flags.items():
        cli_flags += ["--" + name.replace("_", "-"), str(value)]
    _, cli, _ = run_cli(tmp_path, net_onnx, cli_flags, {"lower": [0, 0, 0, 0], "upper": [1, 1, 1, 1]},
                        {"weights": [0.5, 1.0], "constant": 2.0, "sense": "min"})
    result = reluopt.solve(net_onnx, lower=np.zeros(4), upper=np.ones(4), objective=[0.5, 1.0], constant=2.0,
                           sense="min", method=method, threads=1, seed=5, **flags)
    compare(result, cli)


def test_attributes_and_arrays(net):
    result = reluopt.solve(net, lower=[0] * 4, upper=[1] * 4, samples=50, threads=1)
    assert isinstance(result.x, np.ndarray) and result.x.shape == (4,)
    assert result.outputs.shape == (2,)
    assert result.trajectory.ndim == 2 and result.trajectory.shape[1] == 2
    assert result.trajectory[-1, 1] == result.objective
    assert result.status in ("feasible", "optimal") and result.samples == 50
    assert result.version == reluopt.__version__
    text = repr(result)
    assert text.startswith("Result(status=") and "objective=" in text and "x=[" in text
    with pytest.raises(AttributeError):
        result.no_such_field


def test_stop_rule_and_sample_values(net):
    result = reluopt.solve(net, lower=[0] * 4, upper=[1] * 4, method="sampling", threads=1, samples=300,
                           stop_rule=(0.01, 0.05), record_values=True)
    assert result.stop_rule["eps"] == 0.01
    assert result.sample_values.shape == (result.samples, 2)
