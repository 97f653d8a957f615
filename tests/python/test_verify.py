"""reluopt.verify: the command line's answers on its VNN-LIB fixtures (path and text), properties given as dicts,
counterexamples re-checked by a forward pass (numpy, torch), torch models of every supported kind, errors,
Ctrl-C and the progress hook."""
import json
import subprocess

import numpy as np
import pytest

import reluopt
from conftest import CLI, FIXTURES, ROOT, forward, interrupted

VNNLIB = FIXTURES / "vnnlib"
BOX4 = {"lower": [-1.0, 0.0, -0.5, 0.0], "upper": [1.0, 1.0, 0.5, 2.0]}


def cli_verify(model, prop):
    done = subprocess.run([CLI, "verify", str(model), str(prop), "--threads", "1", "--quiet"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[0]


def raises(pattern):
    return pytest.raises(reluopt.Error, match=pattern)


def check_counterexample(result, layers, spec):
    """x in the box (and rows), y the forward pass at x, and y unsafe for one conjunction C y <= d."""
    assert result.status == "sat"
    assert np.all(result.x >= np.asarray(spec["lower"])) and np.all(result.x <= np.asarray(spec["upper"]))
    np.testing.assert_allclose(result.y, forward(layers, result.x), rtol=1e-12, atol=1e-12)
    assert any(np.all(np.atleast_2d(c) @ result.y <= np.atleast_1d(d)) for c, d in spec["unsafe"])


@pytest.mark.parametrize("name", ["cls5_sat", "cls5_unsat"])
def test_vnnlib_path_and_text_answer_as_the_command_line(name):
    model, prop = VNNLIB / "cls5.onnx", VNNLIB / f"{name}.vnnlib"
    expected = cli_verify(model, prop)
    assert expected == name.split("_")[1]
    for given in (prop, str(prop), prop.read_text(), prop.read_bytes()):
        result = reluopt.verify(str(model), given, threads=1, seed=0)
        assert result.status == expected
    if expected == "sat":
        import onnx.reference

        session = onnx.reference.ReferenceEvaluator(str(model))
        y = session.run(None, {session.input_names[0]: result.x.astype(np.float32).reshape(1, -1)})[0].ravel()
        np.testing.assert_allclose(result.y, y, rtol=1e-5, atol=1e-5)
        assert (result.y[1] >= result.y[0] and result.y[1] >= result.y[2]) or result.y[0] <= -100
        assert result.to_dict()["counterexample"]["x"] == result.x.tolist()
    else:
        assert result.x.size == 0 and result.cases[0]["decided"] and result.cases[0]["bound"] < -1e-4


def output_range(net):
    """The least and largest output 0 over BOX4 by the command line's MIP (proven)."""
    ends = []
    for sense in ("min", "max"):
        res = reluopt.solve(net, **BOX4, objective=0, sense=sense, method="mip", threads=1)
        assert res.status == "optimal"
        ends.append(res.objective)
    return ends


def test_dict_property_sat_and_unsat(net):
    low, high = output_range(net)
    reached = {**BOX4, "unsafe": [(np.array([-1.0, 0.0]), -(low + 0.9 * (high - low)))]}  # y0 >= ...
    result = reluopt.verify(net, reached, threads=1)
    check_counterexample(result, net, reached)
    beyond = {**BOX4, "unsafe": [([[-1.0, 0.0]], [-(high + 1.0)]), ([[1.0, 0.0]], [low - 1.0])]}
    result = reluopt.verify(net, beyond, threads=1)
    assert result.status == "unsat" and result.x.size == 0
    assert [c["decided"] for c in result.cases] == [True]


def test_dict_property_with_rows(net):
    # x0 + x1 <= 0.25 cuts the box; y0 >= its least value is reached (sat) at a point that keeps the row.
    low, _ = output_range(net)
    spec = {**BOX4, "A": [[1.0, 1.0, 0.0, 0.0]], "b": [0.25], "unsafe": [([-1.0, 0.0], -low)]}
    result = reluopt.verify(net, spec, threads=1)
    check_counterexample(result, net, spec)
    assert result.x[0] + result.x[1] <= 0.25 + 1e-9


def test_time_limit_zero_is_a_timeout(net):
    low, high = output_range(net)
    spec = {**BOX4, "unsafe": [([-1.0, 0.0], -(0.5 * (low + high)))]}
    assert reluopt.verify(net, spec, time_limit=0, threads=1).status == "timeout"


def test_property_errors(net):
    with raises(r"lower\[1\] is -inf: every input needs a finite lower and upper bound"):
        reluopt.verify(net, {"lower": [0, -np.inf, 0, 0], "upper": [1] * 4, "unsafe": [([1.0, 0.0], 0.0)]})
    with raises('the property needs "upper"'):
        reluopt.verify(net, {"lower": [0] * 4, "unsafe": [([1.0, 0.0], 0.0)]})
    with raises("A and b go together"):
        reluopt.verify(net, {**BOX4, "A": np.ones((1, 4)), "unsafe": [([1.0, 0.0], 0.0)]})
    with raises('the property needs "unsafe"'):
        reluopt.verify(net, dict(BOX4))
    with raises(r"unsafe\[0\]: C has 2 rows but d has 1 entries"):
        reluopt.verify(net, {**BOX4, "unsafe": [(np.ones((2, 2)), [0.0])]})
    with raises(r"unsafe\[1\]: C has 3 columns but the network has 2 outputs"):
        reluopt.verify(net, {**BOX4, "unsafe": [([1.0, 0.0], 0.0), ([1.0, 0.0, 0.0], 0.0)]})
    with raises("the property has unknown key 'upper_bound'"):
        reluopt.verify(net, {**BOX4, "upper_bound": 1, "unsafe": [([1.0, 0.0], 0.0)]})
    with raises("domain dimension mismatch: bounds have 3 and 3 entries but the network has 4 inputs"):
        reluopt.verify(net, {"lower": [0] * 3, "upper": [1] * 3, "unsafe": [([1.0, 0.0], 0.0)]})
    with raises("the property must be a VNN-LIB path, VNN-LIB text or a dict"):
        reluopt.verify(net, 3)
    with raises("time_limit must be a number of seconds >= 0"):
        reluopt.verify(net, {**BOX4, "unsafe": [([1.0, 0.0], 0.0)]}, time_limit=-1)


def test_property_entries_are_capped(net, monkeypatch):
    from reluopt import _verify

    monkeypatch.setattr(_verify, "MAX_PROPERTY_ENTRIES", 5)
    with raises(r"the property's A and C hold 6 numbers, more than 5 \(2\*\*24\)"):
        reluopt.verify(net, {**BOX4, "A": np.ones((1, 4)), "b": [1.0], "unsafe": [([1.0, 0.0], 0.0)]})


def test_vnnlib_text_errors_name_the_line():
    text = (VNNLIB / "cls5_sat.vnnlib").read_text()
    coupled = text.replace("(assert (<= X_4 1.0))", "(assert (<= X_4 1.0))\n(assert (< (+ X_0 X_1) 1.0))")
    with raises(r"VNN-LIB file '<VNN-LIB text>' line 20: a strict constraint on inputs: use <= or >="):
        reluopt.verify(str(VNNLIB / "cls5.onnx"), coupled)
    unbounded = text.replace("(assert (<= X_4 1.0))", "")
    with raises("X_4 has no upper bound"):
        reluopt.verify(str(VNNLIB / "cls5.onnx"), unbounded)
    with raises("cannot open VNN-LIB file 'no_such.vnnlib'"):
        reluopt.verify(str(VNNLIB / "cls5.onnx"), "no_such.vnnlib")


def endless_property(net, cases=2000):
    """VNN-LIB text that neither side decides quickly: output 0 at least 5e-5 above its proven maximum over BOX4, on
    `cases` boxes that all hold the maximizer, so that no point is unsafe and no bound reaches -1e-4
    (docs/VERIFY.md): each case ends undecided, and the cases in turn take far longer than a test waits."""
    top = reluopt.solve(net, **BOX4, objective=0, method="mip", threads=1)
    assert top.status == "optimal" and top.bound - top.objective < 1e-6
    lines = [f"(declare-const X_{i} Real)" for i in range(4)] + ["(declare-const Y_0 Real)", "(declare-const Y_1 Real)"]
    lower, upper = np.asarray(BOX4["lower"]), np.asarray(BOX4["upper"])
    boxes = []
    for k in range(cases):
        t = 0.5 * k / cases  # each box shrinks towards the maximizer
        lo, hi = lower + t * (top.x - lower), upper - t * (upper - top.x)
        boxes.append("(and " + " ".join(f"(>= X_{i} {float(lo[i])!r}) (<= X_{i} {float(hi[i])!r})" for i in range(4)) + ")")
    lines.append(f"(assert (or {' '.join(boxes)}))")
    lines.append(f"(assert (>= Y_0 {float(top.objective) + 5e-5!r}))")
    return "\n".join(lines) + "\n"


ENDLESS = f"""
import json, sys
sys.path.insert(0, {str(ROOT / "tests" / "python")!r})
import reluopt
from conftest import xavier_layers
from test_verify import endless_property
prop = endless_property(net := xavier_layers([4, 12, 12, 2], seed=7))
"""


def test_ctrl_c_raises_keyboard_interrupt_with_the_answer_so_far():
    out, _ = interrupted(ENDLESS + """
print("started", flush=True)
try:
    reluopt.verify(net, prop, threads=2)
    print(json.dumps({"raised": None}))
except KeyboardInterrupt as e:
    print(json.dumps({"raised": "KeyboardInterrupt", "status": e.result.status, "cases": len(e.result.cases)}))
""")
    # Every case is reported, those after the stop undecided.
    assert out == {"raised": "KeyboardInterrupt", "status": "unknown", "cases": 2000}


def test_progress_callback_sees_margins_and_its_exception_stops_the_run(net):
    seen = []

    class Enough(Exception):
        pass

    def progress(p):
        seen.append(p)
        if p["bound"] is not None and p["margin"] is not None:
            raise Enough()

    with pytest.raises(Enough) as raised:
        reluopt.verify(net, endless_property(net), threads=2, progress=progress)
    assert set(seen[-1]) == {"seconds", "margin", "bound"}
    assert seen[-1]["margin"] < 0 <= seen[-1]["bound"] + 1e-4
    assert raised.value.result.status == "unknown"
