#pragma once

#include <functional>
#include <optional>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt::python {

// What reluopt.solve() hands to the library, its descriptions as the result JSON records them.
struct SolveCall {
  const Network* network = nullptr;
  Domain domain;
  Objective objective;
  SolveOptions options;
  double time_limit = 0.0;       // seconds left of the caller's limit (infinite: none)
  std::string model_name;        // the JSON's "model"
  double load_seconds = 0.0;
  pybind11::object progress;     // None, or called with a dict about every progress_interval seconds
  double progress_interval = 0.5;
};

// Runs `run` on a worker thread with the GIL released, its RunControl holding the time limit, a stop flag and
// the progress hook. The calling thread wakes every 50 ms, takes the GIL to run Python's signal handlers
// (PyErr_CheckSignals: Ctrl-C raises KeyboardInterrupt there) and the progress callback. An exception from either
// sets the stop flag, waits for the run to return its incumbent, and is returned: the caller puts it under
// "exception" beside the result, which the Python side attaches to it as `e.result`. The run's own exception
// (reluopt::Error) propagates.
std::optional<pybind11::error_already_set> run_with_python(const std::function<void(const RunControl&)>& run,
                                                           double time_limit, const pybind11::object& progress,
                                                           double progress_interval);

// The (sample index, X_i) rows a run kept (record_values), n x 2.
pybind11::array_t<double> sample_values(const SolveResult& result);

// solve() of the call through run_with_python.
// Returns {"json": the CLI's result JSON, "x", "outputs", "sample_values" (n x 2), "exception": None or it}.
pybind11::dict run_solve(SolveCall& call);

}  // namespace reluopt::python
