#pragma once

// LinearModel -> COIN-OR arrays, shared by the CLP and CBC adapters. Includes COIN headers: solver/ only.
#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>

#include <atomic>
#include <vector>

#include "lp/linear_model.h"
#include "solver/lp_solution.h"

namespace reluopt {

// COIN's infinity for our +-inf.
double coin_bound(double value);

// A LinearModel in the form COIN's loadProblem takes: a row-ordered matrix and finite-or-COIN bounds.
struct CoinModel {
  CoinPackedMatrix matrix;
  std::vector<double> col_lower, col_upper, row_lower, row_upper;
};

CoinModel to_coin(const LinearModel& model);

// Loads `model` into `lp` as a maximization, silent.
void load_maximization(ClpSimplex& lp, const LinearModel& model);

// Makes lp's next simplex solves end after the iteration in which `stop` (may be null) is set or `seconds`
// from now (none when infinite) have passed.
void set_clp_limits(ClpSimplex& lp, const std::atomic<bool>* stop, double seconds);

// CLP's status() as an LpStatus.
LpStatus lp_status(const ClpSimplex& lp);

}  // namespace reluopt
