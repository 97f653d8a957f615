#pragma once

#include <string>

#include <pybind11/pybind11.h>

#include "reluopt/model_io.h"

namespace reluopt::python {

// A model as the Python side passes it: a path (str), a serialized ONNX model (bytes), or [(W, b), ...];
// `name` stands for it in error messages.
LoadedModel load_model(const pybind11::object& model, const std::string& name);

// Adds the functions of models around networks (reluopt.Model, docs/PYTHON.md) to the module: the Network class
// (a network loaded once, shared by the uses that name it), validate_model, solve_model,
// read_problem and model_to_json. A model crosses as a dict (the "spec"):
//   {"sense": "max" | "min",
//    "variables": [{"name", "lower": array, "upper": array, "integer": [bool, ...]}],
//    "networks": [{"name", "network": Network, "input": [index into v, ...], "source": path or ""}],
//    "constraints": [{"name", "terms": [(kind, index, coordinate, coefficient), ...], "sense": "<=" | ">=" | "==",
//                     "rhs"}],
//    "objective": {"terms": [...], "constant", optionally "disjuncts": [[{"terms", "constant"}, ...], ...]}}
// where kind is 0 for a variable (index: the block) and 1 for a network output (index: the network).
void bind_model(pybind11::module_& m);

}  // namespace reluopt::python
