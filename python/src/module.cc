// reluopt._core: the library's solve(), verify(), model readers and extreme-value analysis for the Python package
// (python/reluopt wraps them; docs/PYTHON.md).
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "model_binding.h"
#include "option_names.h"
#include "reluopt/error.h"
#include "reluopt/evt.h"
#include "reluopt/evt_json.h"
#include "reluopt/model_io.h"
#include "reluopt/solve.h"
#include "reluopt/version.h"
#include "solve_call.h"
#include "verify_binding.h"

namespace py = pybind11;

namespace reluopt::python {

LoadedModel load_model(const py::object& model, const std::string& name) {
  if (py::isinstance<py::str>(model)) {
    const std::string path = model.cast<std::string>();
    py::gil_scoped_release release;
    return read_model(path);
  }
  if (py::isinstance<py::bytes>(model)) {
    const std::string bytes = model.cast<std::string>();
    py::gil_scoped_release release;
    return LoadedModel{read_onnx_bytes(bytes, name), "onnx", std::nullopt};
  }
  std::vector<DenseLayer> layers;
  for (const py::handle layer : model.cast<py::list>()) {
    const py::tuple wb = layer.cast<py::tuple>();
    layers.push_back(DenseLayer{wb[0].cast<Eigen::MatrixXd>(), wb[1].cast<Eigen::VectorXd>()});
  }
  return LoadedModel{Network(std::move(layers)), "layers", std::nullopt};
}

namespace {

// Why a domain given without both lower and upper cannot be made: the library's domain is a box with finite
// bounds, cut by the rows A x <= b, so neither rows alone nor one side of the box bound it.
std::string missing_bounds(bool has_lower, bool has_upper) {
  const std::string box = "the domain is the box lower <= x <= upper (finite bounds), cut by A x <= b when given";
  if (has_lower) return "lower is given without upper: " + box;
  if (has_upper) return "upper is given without lower: " + box;
  return "A and b need lower and upper too: " + box;
}

// The domain from {"lower", "upper", "A", "b"} (each None or an array), or the command line's default.
Domain make_domain(const py::dict& spec, const LoadedModel& model) {
  const bool has_lower = !spec["lower"].is_none(), has_upper = !spec["upper"].is_none();
  if (!has_lower && !has_upper && spec["A"].is_none() && spec["b"].is_none()) {
    if (model.input_bounds) {
      Domain domain = *model.input_bounds;
      domain.description = "the NNet file's input bounds (default: no lower/upper given)";
      return domain;
    }
    Domain domain = Domain::unit_box(model.network.input_dim());
    domain.description += " (default: no lower/upper given)";
    return domain;
  }
  if (!has_lower || !has_upper) throw Error(missing_bounds(has_lower, has_upper));
  Domain domain = Domain::box(spec["lower"].cast<Eigen::VectorXd>(), spec["upper"].cast<Eigen::VectorXd>());
  if (!spec["A"].is_none() || !spec["b"].is_none()) {
    if (spec["A"].is_none() || spec["b"].is_none()) throw Error("A and b go together: give both");
    domain.A = spec["A"].cast<Eigen::MatrixXd>();
    domain.b = spec["b"].cast<Eigen::VectorXd>();
  }
  domain.description = spec["description"].cast<std::string>();
  return domain;
}

// [[(weights, constant), ...], ...] of a max-min objective.
std::vector<std::vector<ObjectiveTerm>> make_disjuncts(const py::handle& disjuncts) {
  std::vector<std::vector<ObjectiveTerm>> out;
  for (const py::handle disjunct : disjuncts) {
    out.emplace_back();
    for (const py::handle term : disjunct) {
      const py::tuple pair = term.cast<py::tuple>();
      out.back().push_back(ObjectiveTerm{pair[0].cast<Eigen::VectorXd>(), pair[1].cast<double>()});
    }
  }
  return out;
}

// {"index": int or None, "weights": array or None, "disjuncts": list or None, "constant", "sense": "max" | "min",
// "description"}.
Objective make_objective(const py::dict& spec, const Network& network) {
  const Sense sense = spec["sense"].cast<std::string>() == "min" ? Sense::kMinimize : Sense::kMaximize;
  if (!spec["disjuncts"].is_none()) {
    Objective objective = Objective::max_min(make_disjuncts(spec["disjuncts"]), sense);
    objective.description = spec["description"].cast<std::string>();
    return objective;
  }
  Objective objective;
  if (!spec["weights"].is_none()) {
    objective.weights = spec["weights"].cast<Eigen::VectorXd>();
  } else {
    // Compared as Python integers: an index beyond any C type is named as it was given.
    const py::int_ index = spec["index"];
    if (index < py::int_(0) || !(index < py::int_(network.output_dim())))
      throw Error("objective: output " + py::str(index).cast<std::string>() + " does not exist (the network has " +
                  std::to_string(network.output_dim()) + " outputs)");
    objective = Objective::output(network.output_dim(), index.cast<int>());
  }
  objective.constant = spec["constant"].cast<double>();
  objective.sense = sense;
  objective.description = spec["description"].cast<std::string>();
  return objective;
}

py::dict solve_py(const py::object& model, const std::string& model_name, const py::dict& domain,
                  const py::dict& objective, const py::dict& settings, const py::dict& options,
                  double time_limit, const py::object& progress) {
  const auto start = std::chrono::steady_clock::now();
  SolveCall call;
  call.options = solve_options(settings, options, time_limit);
  const LoadedModel loaded = load_model(model, model_name);
  call.network = &loaded.network;
  call.domain = make_domain(domain, loaded);
  call.objective = make_objective(objective, loaded.network);
  call.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  call.time_limit = std::max(0.0, time_limit - call.load_seconds);
  call.model_name = model_name;
  call.progress = progress;
  call.progress_interval = settings["progress_interval"].cast<double>();
  return run_solve(call);
}

Family family_by_name(const std::string& name) {
  for (const Family f : all_families())
    if (family_name(f) == name) return f;
  throw Error("unknown distribution family '" + name + "'");
}

// The extreme-value report as JSON (evt_report_to_json), computed with the GIL released.
std::string evt_py(const std::vector<double>& values, std::optional<double> eps, double delta, double confidence,
                   const py::object& seed, const py::object& threads) {
  EvtOptions options;
  options.eps = eps;
  options.delta = delta;
  options.confidence = confidence;
  options.seed = integer_argument<std::uint64_t>("seed", seed);
  options.threads = integer_argument<int>("threads", threads);
  py::gil_scoped_release release;
  return evt_report_to_json(analyse_extremes(values, options));
}

std::vector<double> evt_pdf(const std::string& family, const std::vector<double>& shapes, double loc, double scale,
                            const std::vector<double>& xs) {
  const Distribution d{family_by_name(family), shapes, loc, scale};
  std::vector<double> out;
  for (const double x : xs) out.push_back(pdf(d, x));
  return out;
}

}  // namespace

}  // namespace reluopt::python

PYBIND11_MODULE(_core, m) {
  using namespace reluopt::python;
  m.doc() = "reluopt's C++ library (use the reluopt package, not this module)";
  m.attr("__version__") = RELUOPT_VERSION;
  py::register_exception<reluopt::Error>(m, "Error", PyExc_ValueError);
  m.def("solve", &solve_py, py::arg("model"), py::arg("model_name"), py::arg("domain"), py::arg("objective"),
        py::arg("settings"), py::arg("options"), py::arg("time_limit"), py::arg("progress"));
  m.def("option_names", &option_names);
  m.def("option_table", &option_table_py);
  m.def("method_names", &reluopt::method_names);
  m.def("evt", &evt_py, py::arg("values"), py::arg("eps"), py::arg("delta"), py::arg("confidence"), py::arg("seed"),
        py::arg("threads"));
  m.def("evt_pdf", &evt_pdf);
  m.def("abandoned_solver_threads", &reluopt::abandoned_solver_threads);
  bind_model(m);
  bind_verify(m);
}
