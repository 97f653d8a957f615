"""What a Python user expects of a run: Ctrl-C, threads, progress, the GIL released."""
import textwrap
import threading
import time

import numpy as np
import pytest

import reluopt
from conftest import interrupted, run_cli, xavier_layers

LONG_RUN = textwrap.dedent("""
    import json, signal, sys, time
    import numpy as np
    import reluopt
    # A parent that ignores SIGINT (a job started in the background of a shell script, as CI runners may) passes
    # that on, and Python then installs no KeyboardInterrupt handler: restore it, as an interactive session has it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.path.insert(0, {tests!r})
    from conftest import xavier_layers
    layers = xavier_layers([30, 200, 200, 1], seed=3)
    print("started", flush=True)
    start = time.monotonic()
    try:
        reluopt.solve(layers, lower=np.zeros(30), upper=np.ones(30), samples=10**9, threads=2)
        print(json.dumps({{"error": "no KeyboardInterrupt"}}))
    except KeyboardInterrupt as e:
        print(json.dumps({{"stopped": time.monotonic(), "status": e.result.status,
                          "stopped_by": e.result.stopped_by, "objective": e.result.objective,
                          "threads_left": reluopt.abandoned_solver_threads()}}), flush=True)
""")


def test_ctrl_c_raises_keyboard_interrupt_with_the_incumbent():
    import os
    report, sent = interrupted(LONG_RUN.format(tests=os.path.dirname(__file__)))
    ended = time.monotonic()
    assert report["stopped_by"] == "interrupted" and report["status"] == "feasible"
    assert report["objective"] is not None and report["threads_left"] == 0
    # Generous bounds on a loaded machine: the binding looks for signals every 50 ms and the run at its stop flag
    # every few milliseconds (time.monotonic is one clock for both processes).
    assert report["stopped"] - sent < 5.0
    assert ended - sent < 15.0


def test_threads_match_cli(tmp_path, net, net_onnx):
    box = {"lower": [0.0] * 4, "upper": [1.0] * 4}
    _, cli, _ = run_cli(tmp_path, net_onnx, ["--threads", "2", "--samples", "200", "--seed", "9"], box)
    result = reluopt.solve(net, **box, threads=2, samples=200, seed=9)
    assert result.threads == cli["threads"] == 2
    assert result.objective == cli["objective"] and result.x.tolist() == cli["x"]
    assert result.samples == cli["samples"] and result.lps == cli["lps"]


def test_progress_callback_and_bar(net):
    seen = []
    layers = xavier_layers([20, 100, 100, 1], seed=2)
    reluopt.solve(layers, lower=np.zeros(20), upper=np.ones(20), method="sampling", time_limit=1.2, threads=1,
                  samples=10**9, progress=seen.append)
    assert seen and set(seen[0]) == {"seconds", "samples", "lps", "nodes", "incumbent", "bound"}
    assert seen[-1]["samples"] >= seen[0]["samples"]
    result = reluopt.solve(net, lower=[0] * 4, upper=[1] * 4, samples=20, progress=True)
    assert result.samples == 20


def test_progress_callback_exception_stops_the_run():
    layers = xavier_layers([20, 100, 100, 1], seed=2)

    def stop(progress):
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough") as caught:
        reluopt.solve(layers, lower=np.zeros(20), upper=np.ones(20), samples=10**9, threads=1, progress=stop)
    assert caught.value.result.stopped_by == "interrupted"


def test_gil_is_released_during_a_run():
    layers = xavier_layers([20, 100, 100, 1], seed=2)
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    reluopt.solve(layers, lower=np.zeros(20), upper=np.ones(20), method="sampling", time_limit=1.0, threads=1,
                  samples=10**9)
    done.set()
    ticker.join()
    assert len(ticks) > 20  # a thread that needed the GIL ran all along


def test_time_limit_holds():
    layers = xavier_layers([20, 100, 100, 1], seed=2)
    start = time.monotonic()
    result = reluopt.solve(layers, lower=np.zeros(20), upper=np.ones(20), samples=10**9, time_limit=0.5,
                           mip_share=0.0)
    assert result.stopped_by == "time_limit" and time.monotonic() - start < 1.5
