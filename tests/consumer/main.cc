// Maximizes y = relu(x) - relu(x - 0.5) over [0, 1] (optimum 0.5) through the installed library.
#include <cstdio>
#include <cstring>

#include "reluopt/solve.h"
#include "reluopt/version.h"

int main() {
  using namespace reluopt;
  DenseLayer hidden{Eigen::MatrixXd::Ones(2, 1), Eigen::Vector2d(0.0, -0.5)};
  DenseLayer output{Eigen::RowVector2d(1.0, -1.0), Eigen::VectorXd::Zero(1)};
  const Network network({hidden, output});
  SolveOptions options;
  options.threads = 1;
  options.sampling.samples = 20;
  const SolveResult result = solve(network, Domain::unit_box(1), Objective::output(1, 0), options);
  std::printf("reluopt %s: objective %.6f\n", RELUOPT_VERSION, result.objective);
  const bool ok = result.objective > 0.5 - 1e-9 && result.objective < 0.5 + 1e-9 &&
                  std::strcmp(RELUOPT_VERSION, result.run.version.c_str()) == 0;
  return ok ? 0 : 1;
}
