#include "solver/lp_solver.h"

#include "solver/clp_lp.h"
#include "solver/clp_warm_lp.h"

namespace reluopt {

std::unique_ptr<LpSolver> make_lp_solver() { return std::make_unique<ClpLp>(); }

std::unique_ptr<WarmLpSolver> make_warm_lp_solver(const LinearModel& model) {
  return std::make_unique<ClpWarmLp>(model);
}

}  // namespace reluopt
