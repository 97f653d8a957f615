#pragma once

#include <pybind11/pybind11.h>

namespace reluopt::python {

// Adds verify(model, model_name, property, property_kind, property_name, settings, time_limit, progress) to the
// module: property_kind "path" (a VNN-LIB file), "text" (VNN-LIB text) or "spec" ({"lower", "upper", "A", "b",
// "unsafe": [(C, d), ...], "description"}: unsafe where C y <= d for one pair). Returns {"status", "x", "y",
// "cases", "seconds", "unsat_margin", "exception": None or the Ctrl-C / progress exception that stopped it}.
void bind_verify(pybind11::module_& m);

}  // namespace reluopt::python
