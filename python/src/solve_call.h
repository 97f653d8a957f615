#pragma once

#include <string>

#include <pybind11/pybind11.h>

#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/options.h"

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

// Runs solve() on a worker thread with the GIL released. The calling thread wakes every 50 ms, takes the GIL to
// run Python's signal handlers (PyErr_CheckSignals: Ctrl-C raises KeyboardInterrupt there) and the progress
// callback. An exception from either sets the run's stop flag, waits for the run to return its incumbent, and is
// returned under "exception" beside the result, which the Python side attaches to it as `e.result`.
// Returns {"json": the CLI's result JSON, "x", "outputs", "sample_values" (n x 2), "exception": None or it}.
pybind11::dict run_solve(SolveCall& call);

}  // namespace reluopt::python
