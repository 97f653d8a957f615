"""reluopt.evt is the command line's `reluopt evt` report."""
import json
import subprocess

import numpy as np
import pytest

import reluopt
from conftest import CLI


def test_evt_matches_cli(tmp_path):
    values = np.random.default_rng(4).beta(2.0, 3.0, size=400)
    path = tmp_path / "values.csv"
    path.write_text("value\n" + "\n".join(repr(float(v)) for v in values) + "\n")
    subprocess.run([CLI, "evt", str(path), "--json", str(tmp_path / "evt.json"), "--quiet"], check=True,
                   capture_output=True)
    cli = json.loads((tmp_path / "evt.json").read_text())
    report = reluopt.evt(values)
    ours = report.to_dict()
    for key in ("n", "min", "max", "fits", "endpoint", "gamma", "sample_complexity", "histogram"):
        assert ours[key] == cli[key], key
    assert report.n == 400 and "EvtReport(n=400" in repr(report)


def test_evt_of_a_run_and_plot(tmp_path, net):
    result = reluopt.solve(net, lower=[0] * 4, upper=[1] * 4, method="sampling", samples=200, threads=1,
                           record_values=True)
    report = reluopt.evt(result.sample_values)
    assert report.n == 200 and report.max == pytest.approx(result.objective)
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    ax = report.plot()
    ax.figure.savefig(tmp_path / "evt.png")
    assert (tmp_path / "evt.png").stat().st_size > 1000


def test_evt_bad_values():
    with pytest.raises(reluopt.Error, match="30"):
        reluopt.evt([1.0, 2.0, 3.0])
    with pytest.raises(reluopt.Error):
        reluopt.evt([1.0] * 50)


def test_evt_names_the_value_that_is_not_finite():
    values = np.linspace(0.0, 1.0, 200)
    values[100] = np.inf
    with pytest.raises(reluopt.Error, match=r"^value 100 \(counting from 0\) is inf, not a finite number$"):
        reluopt.evt(values)
