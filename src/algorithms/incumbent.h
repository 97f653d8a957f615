#pragma once

#include <mutex>
#include <optional>

#include "reluopt/problem.h"
#include "reluopt/result.h"

namespace reluopt {

// The best point found so far, shared by threads. Ties in value are broken by the lexicographic order of x,
// so the answer does not depend on which thread found a point first.
class Incumbent {
 public:
  void offer(EvaluatedPoint point);
  std::optional<double> best_value() const;  // maximized sense
  std::optional<EvaluatedPoint> best() const;
  // Writes status, objective (user sense), x, outputs and the domain violation into the result.
  void fill(const Problem& problem, SolveResult& result) const;

 private:
  mutable std::mutex mutex_;
  std::optional<EvaluatedPoint> best_;
};

}  // namespace reluopt
