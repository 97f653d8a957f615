#pragma once

#include <vector>

namespace reluopt {

// What an LP solver adapter returns.
enum class LpStatus { kOptimal, kInfeasible, kUnbounded, kTimeLimit, kError };

struct LpSolution {
  LpStatus status = LpStatus::kError;
  double objective = 0.0;  // in the model's (maximized) sense, constant included
  std::vector<double> values;
  int iterations = 0;
};

}  // namespace reluopt
