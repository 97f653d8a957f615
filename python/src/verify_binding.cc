// reluopt._core.verify: a property of a network decided by the library's verify() (docs/PYTHON.md, "Verifying a
// property"), with Ctrl-C and the progress hook of solve (solve_call.h).
#include "verify_binding.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include "model_binding.h"
#include "option_names.h"
#include "reluopt/error.h"
#include "reluopt/model_io.h"
#include "reluopt/options.h"
#include "reluopt/verify.h"
#include "reluopt/vnnlib.h"
#include "solve_call.h"

namespace py = pybind11;

namespace reluopt::python {

namespace {

// The property of {"lower", "upper", "A", "b", "unsafe": [(C, d), ...]} (checked by python/reluopt/_verify.py):
// one case, the box cut by A x <= b, unsafe where C y <= d holds for one of the pairs.
VnnlibProperty property_of_spec(const py::dict& spec, const Network& network) {
  VnnlibCase one;
  one.box = Domain::box(spec["lower"].cast<Eigen::VectorXd>(), spec["upper"].cast<Eigen::VectorXd>());
  if (!spec["A"].is_none()) {
    one.box.A = spec["A"].cast<Eigen::MatrixXd>();
    one.box.b = spec["b"].cast<Eigen::VectorXd>();
  }
  one.box.description = spec["description"].cast<std::string>();
  one.box.validate(network.input_dim());
  int k = 0;
  for (const py::handle pair : spec["unsafe"]) {
    const py::tuple cd = pair.cast<py::tuple>();
    const Eigen::MatrixXd c = cd[0].cast<Eigen::MatrixXd>();
    const Eigen::VectorXd d = cd[1].cast<Eigen::VectorXd>();
    if (c.cols() != network.output_dim())
      throw Error("unsafe[" + std::to_string(k) + "]: C has " + std::to_string(c.cols()) +
                  " columns but the network has " + std::to_string(network.output_dim()) + " outputs");
    ++k;
    std::vector<OutputConstraint> conjunction;
    for (Eigen::Index r = 0; r < c.rows(); ++r)
      conjunction.push_back(OutputConstraint{c.row(r).transpose(), -d[r], false, 0});
    one.unsafe.push_back(std::move(conjunction));
  }
  VnnlibProperty property;
  property.num_inputs = static_cast<int>(one.box.lower.size());
  property.num_outputs = network.output_dim();
  property.cases.push_back(std::move(one));
  return property;
}

py::object optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? py::object(py::float_(*value)) : py::object(py::none());
}

py::list case_reports(const VerifyResult& result) {
  py::list cases;
  for (const VerifyCaseReport& report : result.cases) {
    py::dict folded;
    folded["disjuncts_read"] = report.disjuncts_read;
    folded["constraints_read"] = report.constraints_read;
    folded["disjuncts"] = report.disjuncts;
    folded["constraints"] = report.constraints;
    folded["runs"] = report.runs;
    folded["constraints_left_out"] = report.constraints_left_out;
    py::dict c;
    c["best_margin"] = optional_number(report.best_margin);
    c["bound"] = optional_number(report.bound);
    c["decided"] = report.decided;
    c["seconds"] = report.seconds;
    c["folded"] = folded;
    cases.append(c);
  }
  return cases;
}

// What the property argument names: a file ("path"), VNN-LIB text ("text"), or a box and output constraints
// ("spec", built here with the GIL held, since it reads Python objects).
struct PropertySource {
  std::string kind, value, name;
  std::optional<VnnlibProperty> built;

  VnnlibProperty read(const Deadline& deadline) const {
    if (built) return *built;
    return kind == "path" ? read_vnnlib(value, deadline) : read_vnnlib_text(value, name, deadline);
  }
};

py::dict verify_py(const py::object& model, const std::string& model_name, const py::object& property,
                   const std::string& property_kind, const std::string& property_name, const py::dict& settings,
                   double time_limit, const py::object& progress) {
  const auto start = std::chrono::steady_clock::now();
  VerifyOptions options;
  options.threads = integer_argument<int>("threads", settings["threads"]);
  if (options.threads < 0 || options.threads > kMaxThreads)
    throw Error("threads must be an integer from 0 (all cores) to " + std::to_string(kMaxThreads) + ", not " +
                std::to_string(options.threads));
  options.seed = integer_argument<std::uint64_t>("seed", settings["seed"]);
  options.property_file = property_name;
  const LoadedModel loaded = load_model(model, model_name);
  PropertySource source{property_kind, "", property_name, std::nullopt};
  if (property_kind == "spec") source.built = property_of_spec(property.cast<py::dict>(), loaded.network);
  else source.value = property.cast<std::string>();
  const double load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  VerifyResult result;
  const auto raised = run_with_python(
      [&](const RunControl& control) {
        const Deadline reading(control.time_limit, control.stop);
        try {
          const VnnlibProperty read = source.read(reading);
          RunControl rest = control;
          rest.time_limit = std::max(0.0, control.time_limit - reading.elapsed());
          result = verify(loaded.network, read, options, rest);
        } catch (const ReadStopped&) {
          // A property too big to read in time is undecided, as on the command line (docs/VERIFY.md).
          result.status = reading.interrupted() ? VerifyStatus::kUnknown : VerifyStatus::kTimeout;
        }
      },
      std::max(0.0, time_limit - load_seconds), progress, settings["progress_interval"].cast<double>());
  py::dict out;
  out["status"] = verify_status_name(result.status);
  out["x"] = py::cast(result.x);
  out["y"] = py::cast(result.y);
  out["cases"] = case_reports(result);
  out["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out["unsat_margin"] = kUnsatMargin;
  out["exception"] = raised ? raised->value() : py::none();
  return out;
}

}  // namespace

void bind_verify(py::module_& m) {
  m.def("verify", &verify_py, py::arg("model"), py::arg("model_name"), py::arg("property"),
        py::arg("property_kind"), py::arg("property_name"), py::arg("settings"), py::arg("time_limit"),
        py::arg("progress"));
}

}  // namespace reluopt::python
