#include "solve_call.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <optional>

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>

#include "reluopt/json_io.h"
#include "reluopt/solve.h"

namespace py = pybind11;

namespace reluopt::python {

namespace {

py::object optional_number(const std::optional<double>& value) {
  return value ? py::object(py::float_(*value)) : py::object(py::none());
}

py::dict progress_dict(const Progress& p) {
  py::dict d;
  d["seconds"] = p.seconds;
  d["samples"] = p.samples;
  d["lps"] = p.lps;
  d["nodes"] = p.nodes;
  d["incumbent"] = optional_number(p.incumbent);
  d["bound"] = optional_number(p.bound);
  return d;
}

// The latest progress snapshot, written by the run's thread and read by the calling thread.
class ProgressSlot {
 public:
  void put(const Progress& p) {
    std::lock_guard lock(mutex_);
    latest_ = p;
  }
  std::optional<Progress> take() {
    std::lock_guard lock(mutex_);
    std::optional<Progress> out = latest_;
    latest_.reset();
    return out;
  }

 private:
  std::mutex mutex_;
  std::optional<Progress> latest_;
};

py::dict result_dict(const SolveResult& result, const SolveCall& call) {
  const RunInfo info{call.model_name, call.domain.description, call.objective.description, {}, call.load_seconds};
  py::dict out;
  out["json"] = result_to_json(result, info);
  out["x"] = py::cast(result.x);
  out["outputs"] = py::cast(result.outputs);
  out["sample_values"] = sample_values(result);
  out["exception"] = py::none();
  return out;
}

// Python's pending exception from a signal handler or the progress callback, if any (GIL held).
std::optional<py::error_already_set> poll_python(const py::object& progress, ProgressSlot& slot) {
  if (PyErr_CheckSignals() != 0) return py::error_already_set();
  if (progress.is_none()) return std::nullopt;
  if (const std::optional<Progress> p = slot.take()) {
    try {
      progress(progress_dict(*p));
    } catch (py::error_already_set& e) {
      return std::move(e);
    }
  }
  return std::nullopt;
}

}  // namespace

py::array_t<double> sample_values(const SolveResult& result) {
  py::array_t<double> values({static_cast<py::ssize_t>(result.sampling.values.size()), py::ssize_t{2}});
  auto v = values.mutable_unchecked<2>();
  for (std::size_t i = 0; i < result.sampling.values.size(); ++i) {
    v(i, 0) = static_cast<double>(result.sampling.values[i].first);
    v(i, 1) = result.sampling.values[i].second;
  }
  return values;
}

std::optional<py::error_already_set> run_with_python(const std::function<void(const RunControl&)>& run,
                                                     double time_limit, const py::object& progress,
                                                     double progress_interval) {
  std::atomic<bool> stop{false};
  ProgressSlot slot;
  RunControl control;
  control.time_limit = time_limit;
  control.stop = &stop;
  control.progress_interval = progress_interval;
  if (!progress.is_none()) control.on_progress = [&slot](const Progress& p) { slot.put(p); };
  std::future<void> running = std::async(std::launch::async, [&] { run(control); });
  std::optional<py::error_already_set> raised;
  for (;;) {
    bool done = false;
    {
      py::gil_scoped_release release;
      done = running.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready;
    }
    if (done) break;
    raised = poll_python(progress, slot);
    if (raised) {
      stop.store(true);
      py::gil_scoped_release release;
      running.wait();
      break;
    }
  }
  running.get();  // a reluopt::Error becomes reluopt.Error
  return raised;
}

py::dict run_solve(SolveCall& call) {
  SolveResult result;
  const auto raised = run_with_python(
      [&](const RunControl& control) {
        result = solve(*call.network, call.domain, call.objective, call.options, control);
      },
      call.time_limit, call.progress, call.progress_interval);
  py::dict out = result_dict(result, call);
  if (raised) out["exception"] = raised->value();
  return out;
}

}  // namespace reluopt::python
