#include "model_binding.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "option_names.h"
#include "reluopt/error.h"
#include "reluopt/json_io.h"
#include "reluopt/solve.h"
#include "solve_call.h"

namespace py = pybind11;

namespace reluopt::python {

namespace {

// A network as Python holds it: the uses of one file or one in-memory model share it.
struct NetworkHandle {
  std::shared_ptr<const Network> network;
};

NetworkHandle load_network(const py::object& model, const std::string& name) {
  return NetworkHandle{std::make_shared<const Network>(load_model(model, name).network)};
}

py::list network_layers(const NetworkHandle& handle) {
  py::list out;
  // (W, b, linear): linear[j] true for a hidden neuron without a ReLU (a residual branch, b of max(a, b)).
  for (const DenseLayer& layer : handle.network->layers()) {
    py::array_t<bool> linear(layer.bias.size());
    for (Eigen::Index j = 0; j < layer.bias.size(); ++j) linear.mutable_at(j) = layer.is_linear(j);
    out.append(py::make_tuple(layer.weights.to_dense(), layer.bias, linear));
  }
  return out;
}

LinearExpr make_expr(const py::handle& terms, double constant) {
  LinearExpr expr;
  expr.constant = constant;
  for (const py::handle term : terms) {
    const py::tuple t = term.cast<py::tuple>();
    const Reference::Kind kind = t[0].cast<int>() == 0 ? Reference::Kind::kVariable : Reference::Kind::kOutput;
    expr.terms.push_back({Reference{kind, t[1].cast<int>(), t[2].cast<int>()}, t[3].cast<double>()});
  }
  return expr;
}

py::list expr_terms(const LinearExpr& expr) {
  py::list out;
  for (const LinearExpr::Term& term : expr.terms)
    out.append(py::make_tuple(term.ref.kind == Reference::Kind::kVariable ? 0 : 1, term.ref.index,
                              term.ref.coordinate, term.coefficient));
  return out;
}

ConstraintSense constraint_sense(const std::string& sense) {
  if (sense == "<=") return ConstraintSense::kLessEqual;
  if (sense == ">=") return ConstraintSense::kGreaterEqual;
  return ConstraintSense::kEqual;
}

std::string sense_text(ConstraintSense sense) {
  switch (sense) {
    case ConstraintSense::kLessEqual: return "<=";
    case ConstraintSense::kGreaterEqual: return ">=";
    case ConstraintSense::kEqual: break;
  }
  return "==";
}

VariableBlock make_block(const py::handle& spec) {
  VariableBlock block;
  block.name = spec["name"].cast<std::string>();
  block.lower = spec["lower"].cast<Eigen::VectorXd>();
  block.upper = spec["upper"].cast<Eigen::VectorXd>();
  block.integer = spec["integer"].cast<std::vector<bool>>();
  return block;
}

NetworkUse make_use(const py::handle& spec) {
  NetworkUse use;
  use.name = spec["name"].cast<std::string>();
  use.network = spec["network"].cast<const NetworkHandle&>().network;
  use.input = spec["input"].cast<std::vector<int>>();
  use.source = spec["source"].cast<std::string>();
  return use;
}

// The model of a spec (model_binding.h), validated: reluopt::Error names the entry.
Model make_model(const py::dict& spec) {
  Model model;
  model.sense = spec["sense"].cast<std::string>() == "min" ? Sense::kMinimize : Sense::kMaximize;
  for (const py::handle block : spec["variables"]) model.variables.push_back(make_block(block));
  for (const py::handle use : spec["networks"]) model.networks.push_back(make_use(use));
  for (const py::handle c : spec["constraints"]) {
    model.constraints.push_back(LinearConstraint{make_expr(c["terms"], 0.0),
                                                 constraint_sense(c["sense"].cast<std::string>()),
                                                 c["rhs"].cast<double>(), c["name"].cast<std::string>()});
  }
  const py::handle objective = spec["objective"];
  model.objective = make_expr(objective["terms"], objective["constant"].cast<double>());
  if (objective.contains("disjuncts"))
    for (const py::handle disjunct : objective["disjuncts"]) {
      model.objective_disjuncts.emplace_back();
      for (const py::handle term : disjunct)
        model.objective_disjuncts.back().push_back(make_expr(term["terms"], term["constant"].cast<double>()));
    }
  model.validate();
  return model;
}

py::dict model_spec(const Model& model) {
  py::list variables, networks, constraints;
  for (const VariableBlock& block : model.variables) {
    py::dict b;
    b["name"] = block.name;
    b["lower"] = block.lower;
    b["upper"] = block.upper;
    std::vector<bool> integer(static_cast<std::size_t>(block.size()));
    for (int i = 0; i < block.size(); ++i) integer[static_cast<std::size_t>(i)] = block.is_integer(i);
    b["integer"] = integer;
    variables.append(b);
  }
  for (const NetworkUse& use : model.networks)
    networks.append(py::dict(py::arg("name") = use.name, py::arg("network") = NetworkHandle{use.network},
                             py::arg("input") = use.input, py::arg("source") = use.source));
  for (const LinearConstraint& c : model.constraints)
    constraints.append(py::dict(py::arg("name") = c.name, py::arg("terms") = expr_terms(c.expr),
                                py::arg("sense") = sense_text(c.sense), py::arg("rhs") = c.rhs));
  py::dict spec;
  spec["sense"] = model.sense == Sense::kMinimize ? "min" : "max";
  spec["variables"] = variables;
  spec["networks"] = networks;
  spec["constraints"] = constraints;
  py::dict objective(py::arg("terms") = expr_terms(model.objective), py::arg("constant") = model.objective.constant);
  if (model.has_max_min_objective()) {
    py::list disjuncts;
    for (const std::vector<LinearExpr>& disjunct : model.objective_disjuncts) {
      py::list terms;
      for (const LinearExpr& term : disjunct)
        terms.append(py::dict(py::arg("terms") = expr_terms(term), py::arg("constant") = term.constant));
      disjuncts.append(terms);
    }
    objective["disjuncts"] = disjuncts;
  }
  spec["objective"] = objective;
  return spec;
}

// {"name": [values], ...}, the sections of the command line's result of a model, written by Python's json module
// (each number the shortest text that reads back as the same double).
template <typename Entries>
std::string named_values(const Entries& entries, const std::vector<Eigen::VectorXd>& values) {
  py::dict out;
  for (std::size_t k = 0; k < values.size(); ++k)
    out[py::str(entries[k].name)] = std::vector<double>(values[k].data(), values[k].data() + values[k].size());
  return py::module_::import("json").attr("dumps")(out).cast<std::string>();
}

// The command line's result of a model (its JSON with "variables" and "networks") and the point's values.
py::dict model_result_dict(const Model& model, const ModelResult& run, RunInfo info) {
  const std::vector<Eigen::VectorXd> none;
  const std::vector<Eigen::VectorXd>& variables = run.point ? run.point->variables : none;
  const std::vector<Eigen::VectorXd>& outputs = run.point ? run.point->outputs : none;
  info.sections = {{"variables", named_values(model.variables, variables)},
                   {"networks", named_values(model.networks, outputs)}};
  py::dict out;
  out["json"] = result_to_json(run.result, info);
  out["x"] = run.point ? run.point->v : Eigen::VectorXd();
  out["variables"] = variables;
  out["networks"] = outputs;
  out["sample_values"] = sample_values(run.result);
  out["exception"] = py::none();
  return out;
}

// settings: {"method", "threads", "seed", "record_values", "progress_interval", "model_name"}.
py::dict solve_model_py(const py::dict& spec, const py::dict& settings, const py::dict& options, double time_limit,
                        const py::object& progress) {
  const auto start = std::chrono::steady_clock::now();
  const SolveOptions chosen = solve_options(settings, options, time_limit);
  const Model model = make_model(spec);
  const double load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ModelResult run;
  const auto raised = run_with_python(
      [&](const RunControl& control) { run = solve(model, chosen, control); },
      std::max(0.0, time_limit - load_seconds), progress, settings["progress_interval"].cast<double>());
  const RunInfo info{settings["model_name"].cast<std::string>(), "the model's variables and constraints",
                     "the model's objective", {}, load_seconds};
  py::dict out = model_result_dict(model, run, info);
  if (raised) out["exception"] = raised->value();
  return out;
}

py::dict read_problem_py(const std::string& path) {
  Model model;
  {
    py::gil_scoped_release release;
    model = read_problem_json(path);
  }
  return model_spec(model);
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<NetworkHandle>(m, "Network")
      .def_property_readonly("input_dim", [](const NetworkHandle& h) { return h.network->input_dim(); })
      .def_property_readonly("output_dim", [](const NetworkHandle& h) { return h.network->output_dim(); })
      .def("layers", &network_layers)
      .def("forward", [](const NetworkHandle& h, const Eigen::VectorXd& x) { return h.network->forward(x); })
      .def("describe", [](const NetworkHandle& h) { return h.network->describe(); });
  m.def("load_network", &load_network, py::arg("model"), py::arg("name"));
  m.def("validate_model", [](const py::dict& spec) { make_model(spec); }, py::arg("spec"));
  m.def("solve_model", &solve_model_py, py::arg("spec"), py::arg("settings"), py::arg("options"),
        py::arg("time_limit"), py::arg("progress"));
  m.def("read_problem", &read_problem_py, py::arg("path"));
  m.def("model_to_json", [](const py::dict& spec, const std::string& directory) {
    return model_to_json(make_model(spec), directory);
  }, py::arg("spec"), py::arg("directory"));
}

}  // namespace reluopt::python
