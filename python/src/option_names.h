#pragma once

#include <pybind11/pybind11.h>

#include "reluopt/options.h"

namespace reluopt::python {

// Sets the fields of `options` that the keyword arguments of reluopt.solve(**options) name (docs/PYTHON.md has
// the table; the names are the command line's flags with '_' for '-'). Throws reluopt::Error naming every
// unknown name, or naming the option and the value that has the wrong type. Ranges are checked afterwards by
// validate_options, with the command line's messages.
void apply_options(const pybind11::dict& names, SolveOptions& options);

// The names apply_options accepts, sorted.
std::vector<std::string> option_names();

}  // namespace reluopt::python
