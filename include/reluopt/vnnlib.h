#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "reluopt/domain.h"
#include "reluopt/error.h"

namespace reluopt {

// weights^T y + constant <= 0 over the network outputs y (< 0 when strict), from line `line` of the file.
struct OutputConstraint {
  Eigen::VectorXd weights;
  double constant = 0.0;
  bool strict = false;
  int line = 0;

  double value(const Eigen::VectorXd& outputs) const { return weights.dot(outputs) + constant; }
  bool holds(const Eigen::VectorXd& outputs) const {
    const double g = value(outputs);
    return strict ? g < 0.0 : g <= 0.0;
  }
};

// One input domain and the outputs that are unsafe on it: a disjunction of conjunctions ({{}}: every output).
// The domain is the box of the bounds on single inputs, cut by a row of A x <= b for each constraint that
// couples several inputs and does not hold on the whole box (its description names their lines).
struct VnnlibCase {
  Domain box;
  std::vector<std::vector<OutputConstraint>> unsafe;
};

// A VNN-LIB property: the unsafe set is every x in the domain of one case whose outputs satisfy every constraint
// of one of that case's conjunctions. The property is violated (sat) when that set is not empty; no case (every
// domain certainly empty: a box with a lower bound above its upper one, or a row failing on the whole box)
// means it holds.
struct VnnlibProperty {
  int num_inputs = 0;
  int num_outputs = 0;
  std::vector<VnnlibCase> cases;  // one per distinct input domain
};

// Thrown by read_vnnlib (reluopt/model_io.h) when its deadline expires or its stop request is set while it reads: the message names
// the file, the line reached and which of the two stopped it.
class ReadStopped : public Error {
 public:
  using Error::Error;
};

}  // namespace reluopt
