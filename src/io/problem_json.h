#pragma once

// The problem file reader behind reluopt::read_problem_json (reluopt/model.h; format in docs/PROBLEM.md), on an
// open stream for the tests and the fuzz targets.
#include <istream>
#include <string>

#include "reluopt/model_io.h"

namespace reluopt::detail {

// `name` is the file name every message carries; model paths in the file are relative to `directory` ("" for
// the working directory).
Model read_problem_json(std::istream& in, const std::string& name, const std::string& directory);

}  // namespace reluopt::detail
