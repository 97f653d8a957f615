#pragma once

#include <memory>
#include <vector>

namespace reluopt {

// A globally valid inequality lower <= sum value_i v_index_i <= upper over model columns.
struct LinearCut {
  std::vector<int> index;
  std::vector<double> value;
  double lower = 0.0;
  double upper = 0.0;
};

// Finds inequalities violated by a (fractional) point. Solver-neutral: the MIP adapter wraps it in the
// solver's cut-generator interface. Solvers clone generators, so implementations keep no mutable state.
class CutSeparator {
 public:
  virtual ~CutSeparator() = default;
  virtual std::vector<LinearCut> separate(const double* solution) const = 0;
};

}  // namespace reluopt
