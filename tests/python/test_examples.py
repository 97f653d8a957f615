"""The two example scripts run and find what they say they find."""
import importlib.util

import numpy as np
import pytest

from conftest import EXAMPLES, import_torch


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_torch_decision(capsys):
    import_torch()
    example = load("torch_decision")
    model, result = example.main()
    assert result.status == "optimal"
    assert result.x[1] + result.x[2] <= 2.5 + 1e-9
    import torch
    with torch.no_grad():
        predicted = model(torch.tensor(result.x, dtype=torch.float32).reshape(1, -1)).item()
    assert result.objective == pytest.approx(predicted, rel=1e-4, abs=1e-4)


def test_sklearn_adversarial(capsys):
    pytest.importorskip("sklearn")
    example = load("sklearn_adversarial")
    label, best = example.main()
    model, _, _ = example.train()
    logits_order = model.predict_proba(best.x.reshape(1, -1))[0]
    if best.objective > 0:
        assert np.argmax(logits_order) != label
    assert "test accuracy" in capsys.readouterr().out
