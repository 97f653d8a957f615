#include "solver/clp_warm_lp.h"

#include <coin/CoinError.hpp>

#include <algorithm>
#include <cmath>

#include "solver/coin_convert.h"

namespace reluopt {

ClpWarmLp::ClpWarmLp(const LinearModel& model)
    : simplex_(std::make_unique<ClpSimplex>()), constant_(model.objective_constant()) {
  load_maximization(*simplex_, model);
}

ClpWarmLp::~ClpWarmLp() = default;

void ClpWarmLp::set_col_bounds(int col, double lower, double upper) {
  simplex_->setColumnBounds(col, coin_bound(lower), coin_bound(upper));
}

void ClpWarmLp::save_basis() {
  const unsigned char* status = simplex_->statusArray();
  saved_status_.assign(status, status + simplex_->numberColumns() + simplex_->numberRows());
}

void ClpWarmLp::restore_basis() {
  if (!saved_status_.empty()) simplex_->copyinStatus(saved_status_.data());
}

LpSolution ClpWarmLp::solve(double time_limit_seconds) {
  LpSolution solution;
  try {
    ClpSimplex& lp = *simplex_;
    set_clp_limits(lp, nullptr, time_limit_seconds);
    lp.dual();  // warm: CLP starts from the basis the previous solve left
    solution.iterations = lp.numberIterations();
    solution.status = lp_status(lp);
    if (solution.status == LpStatus::kOptimal) {
      const double* x = lp.primalColumnSolution();
      solution.values.assign(x, x + lp.numberColumns());
      const double* c = lp.objective();
      double value = constant_;
      for (int j = 0; j < lp.numberColumns(); ++j) value += c[j] * x[j];
      solution.objective = value;
    }
  } catch (const CoinError&) {
    solution.status = LpStatus::kError;
  }
  return solution;
}

}  // namespace reluopt
