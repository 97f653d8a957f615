#pragma once

#include <limits>
#include <vector>

namespace reluopt {

// What an LP solver adapter returns.
enum class LpStatus { kOptimal, kInfeasible, kUnbounded, kTimeLimit, kError };

struct LpSolution {
  LpStatus status = LpStatus::kError;
  double objective = 0.0;  // in the model's (maximized) sense, constant included
  // An upper bound on the maximum that holds whatever the solver's tolerances did (weak duality from its row
  // duals, solver/clp_lp.cc); +infinity where the adapter computes none.
  double bound = std::numeric_limits<double>::infinity();
  std::vector<double> values;
  int iterations = 0;
};

}  // namespace reluopt
