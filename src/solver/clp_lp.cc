#include "solver/clp_lp.h"

#include <coin/ClpSimplex.hpp>
#include <coin/CoinError.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "reluopt/run_control.h"
#include "solver/coin_convert.h"

namespace reluopt {

ClpLp::ClpLp() : simplex_(std::make_unique<ClpSimplex>()) {}
ClpLp::~ClpLp() = default;

namespace {

// The weak-duality bound of LpBound::bound for max objective^T v + constant over `model`, from row duals y.
// A dual with the wrong sign for a one-sided row is dropped (y_r = 0), which keeps the bound valid.
// The allowance covers the rounding of the two sums: each term is off by at most n * eps * |term| with n the
// number of terms (Higham, Accuracy and Stability, §3.1), and a reduced cost r_c off by delta moves the
// true value by at most |delta| * max(|col_lower|, |col_upper|).
double dual_bound(const LinearModel& model, const std::vector<double>& objective, double constant,
                  const double* y) {
  const int rows = model.num_rows(), cols = model.num_cols();
  std::vector<double> reduced(objective);
  std::vector<double> reduced_size(cols);
  for (int c = 0; c < cols; ++c) reduced_size[c] = std::abs(objective[c]);
  double bound = constant, magnitude = std::abs(constant);
  for (int r = 0; r < rows; ++r) {
    if (y[r] == 0.0) continue;
    const double side = y[r] > 0.0 ? model.row_upper()[r] : model.row_lower()[r];
    if (!std::isfinite(side)) continue;
    bound += y[r] * side;
    magnitude += std::abs(y[r] * side);
    for (int e = model.row_start()[r]; e < model.row_start()[r + 1]; ++e) {
      const double term = model.row_value()[e] * y[r];
      reduced[model.row_index()[e]] -= term;
      reduced_size[model.row_index()[e]] += std::abs(term);
    }
  }
  for (int c = 0; c < cols; ++c) {
    const double lower = model.col_lower()[c], upper = model.col_upper()[c];
    const double reach = std::max(std::abs(lower), std::abs(upper));
    if (!std::isfinite(reach)) {
      if (reduced_size[c] != 0.0) return kInfinity;
      continue;
    }
    const double side = reduced[c] > 0.0 ? upper : lower;
    bound += reduced[c] * side;
    magnitude += std::abs(reduced[c] * side) + reduced_size[c] * reach;
  }
  const double eps = std::numeric_limits<double>::epsilon();
  return bound + 2.0 * (rows + cols + 2) * eps * magnitude;
}

// CLP's status codes (ClpSimplex::Status) of our basis statuses, and back.
unsigned char clp_status(BasisStatus status, double lower, double upper) {
  const bool has_lower = lower > -1e30, has_upper = upper < 1e30;
  switch (status) {
    case BasisStatus::kBasic: return ClpSimplex::basic;
    // A side that the model no longer has (the start came from another model) moves to the other side, or free.
    case BasisStatus::kAtLower:
      return has_lower ? ClpSimplex::atLowerBound : has_upper ? ClpSimplex::atUpperBound : ClpSimplex::isFree;
    case BasisStatus::kAtUpper:
      return has_upper ? ClpSimplex::atUpperBound : has_lower ? ClpSimplex::atLowerBound : ClpSimplex::isFree;
    case BasisStatus::kFree: break;
  }
  return has_lower ? ClpSimplex::atLowerBound : has_upper ? ClpSimplex::atUpperBound : ClpSimplex::isFree;
}

BasisStatus basis_status(int clp) {
  switch (clp) {
    case ClpSimplex::basic: return BasisStatus::kBasic;
    case ClpSimplex::atLowerBound: return BasisStatus::kAtLower;
    case ClpSimplex::isFixed: return BasisStatus::kAtLower;
    case ClpSimplex::atUpperBound: return BasisStatus::kAtUpper;
    default: return BasisStatus::kFree;
  }
}

// Gives the loaded `lp` the statuses of `start` (columns, then rows), to start the next simplex from.
void copy_in_basis(ClpSimplex& lp, const LpBasis& start) {
  const int cols = lp.numberColumns(), rows = lp.numberRows();
  std::vector<unsigned char> status(static_cast<std::size_t>(cols + rows));
  for (int c = 0; c < cols; ++c) status[c] = clp_status(start.cols[c], lp.columnLower()[c], lp.columnUpper()[c]);
  for (int r = 0; r < rows; ++r)
    status[cols + r] = clp_status(start.rows[r], lp.rowLower()[r], lp.rowUpper()[r]);
  lp.copyinStatus(status.data());
}

LpBasis basis_of(const ClpSimplex& lp) {
  const int cols = lp.numberColumns(), rows = lp.numberRows();
  const unsigned char* status = lp.statusArray();
  LpBasis basis;
  basis.cols.resize(cols);
  basis.rows.resize(rows);
  for (int c = 0; c < cols; ++c) basis.cols[c] = basis_status(status[c] & 7);
  for (int r = 0; r < rows; ++r) basis.rows[r] = basis_status(status[cols + r] & 7);
  return basis;
}

// CLP's scaling modes: its default (automatic), and none. The warm paths (solve_from, maximize_from) solve
// unscaled: their LPs are branch-and-bound nodes of a network's relaxation, whose coefficients are weights and
// big-M slopes, and a warm solve is a few dozen iterations, so computing and applying the scales at every load is
// a large share of it. On the 20 -> 100 -> 1 grid network (bab, 3000 nodes, 1 thread; bench/results/bab_node_lp.md)
// the same search (same bounds) takes 12.3 CPU s unscaled against 13.3 scaled. A warm solve that fails gets the
// fresh, scaled one.
constexpr int kDefaultScaling = 3, kNoScaling = 0;

}  // namespace

// Loading a model (to_coin, loadProblem) and CLP's setup inside dual() (ClpPackedMatrix::scale, createRim, the
// first factorization) look at no limit and take time in proportion to the nonzeros: a region LP of a CIFAR-size
// ResNet (76486 rows, 11346 columns, 25.0 M nonzeros) took 2.4 s to load and 4.4 s to its first pivot at load 8 on
// 2 cores, 2.7e-7 s per nonzero (bench/results/time_limits_conv.md). The estimate rounds that up.
constexpr double kSetupSecondsPerEntry = 3e-7;

double ClpLp::setup_seconds(const LinearModel& model) {
  const double entries = static_cast<double>(model.row_index().size()) + model.num_rows() + model.num_cols();
  return kSetupSecondsPerEntry * entries;
}

LpSolution ClpLp::solve(const LinearModel& model, double time_limit_seconds) {
  LpSolution solution;
  if (setup_seconds(model) > clock_seconds(time_limit_seconds)) {
    solution.status = LpStatus::kTimeLimit;  // not started: its setup alone would end past the limit
    return solution;
  }
  const auto started = std::chrono::steady_clock::now();
  try {
    // The whole model at once. (Generating rows lazily, adding only those the current optimum violates, was
    // measured 1.1-1.7x slower: fewer rows, but more dual iterations.)
    load_maximization(*simplex_, model);
    simplex_->scaling(kDefaultScaling);
  } catch (const CoinError&) {
    return solution;
  }
  return dual_simplex(model, time_left(time_limit_seconds, started));
}

LpSolution ClpLp::solve_from(const LinearModel& model, const LpBasis& start, double time_limit_seconds) {
  if (static_cast<int>(start.cols.size()) != model.num_cols() ||
      static_cast<int>(start.rows.size()) != model.num_rows())
    return solve(model, time_limit_seconds);
  const auto started = std::chrono::steady_clock::now();
  try {
    load_maximization(*simplex_, model);
    simplex_->scaling(kNoScaling);
    copy_in_basis(*simplex_, start);
  } catch (const CoinError&) {
    return solve(model, time_left(time_limit_seconds, started));
  }
  LpSolution solution = dual_simplex(model, time_left(time_limit_seconds, started));
  // A stop or a time limit ends the warm solve as it would a fresh one; anything else but an answer (CLP gave
  // up from that basis) gets the fresh solve, within the time the warm attempt left.
  if (solution.status == LpStatus::kError || solution.status == LpStatus::kUnbounded) {
    const int iterations = solution.iterations;
    solution = solve(model, time_left(time_limit_seconds, started));
    solution.iterations += iterations;
  }
  return solution;
}

LpSolution ClpLp::dual_simplex(const LinearModel& model, double time_limit_seconds) {
  LpSolution solution;
  try {
    const int cols = model.num_cols();
    ClpSimplex& lp = *simplex_;
    set_clp_limits(lp, stop_, time_limit_seconds);
    lp.dual();
    solution.iterations = lp.numberIterations();
    solution.status = lp_status(lp);
    if (solution.status == LpStatus::kOptimal) {
      const double* x = lp.primalColumnSolution();
      solution.values.assign(x, x + cols);
      solution.objective = model.evaluate(solution.values);
      // The bound comes from the duals alone, so it is as safe after a warm start as after a fresh one.
      solution.bound = dual_bound(model, model.objective(), model.objective_constant(), lp.dualRowSolution());
      solution.basis = basis_of(lp);
    }
  } catch (const CoinError&) {
    solution.status = LpStatus::kError;
  }
  return solution;
}

void ClpLp::set_stop_request(const std::atomic<bool>* stop) {
  stop_ = stop;
}

void ClpLp::load(const LinearModel& model) {
  try {
    kept_ = std::make_unique<ClpSimplex>();  // a fresh object: no basis left from another model
    load_maximization(*kept_, model);
    kept_model_ = model;
  } catch (const CoinError&) {
    kept_.reset();
  }
}

LpBound ClpLp::maximize_from(const std::vector<double>& objective, double constant, const LpBasis* start,
                             double time_limit_seconds, LpBasis* end, std::vector<double>* point) {
  LpBound result;
  if (!kept_ || static_cast<int>(objective.size()) != kept_model_.num_cols()) return result;
  kept_->scaling(kNoScaling);
  const bool warm = start != nullptr && static_cast<int>(start->cols.size()) == kept_model_.num_cols() &&
                    static_cast<int>(start->rows.size()) == kept_model_.num_rows();
  const auto started = std::chrono::steady_clock::now();
  if (warm) {
    try {
      copy_in_basis(*kept_, *start);
    } catch (const CoinError&) {
      return maximize_from(objective, constant, nullptr, time_limit_seconds, end, point);
    }
  }
  result = maximize(objective, constant, warm ? LpStart::kWarmDual : LpStart::kSlackDual, time_limit_seconds);
  if (warm && (result.status == LpStatus::kError || result.status == LpStatus::kUnbounded))
    return maximize_from(objective, constant, nullptr, time_left(time_limit_seconds, started), end, point);
  if (end != nullptr && result.status == LpStatus::kOptimal) *end = basis_of(*kept_);
  if (point != nullptr && result.status == LpStatus::kOptimal)
    point->assign(kept_->primalColumnSolution(), kept_->primalColumnSolution() + kept_->numberColumns());
  return result;
}

LpBound ClpLp::maximize(const std::vector<double>& objective, double constant, LpStart start,
                        double time_limit_seconds) {
  LpBound result;
  if (!kept_ || static_cast<int>(objective.size()) != kept_model_.num_cols()) return result;
  try {
    ClpSimplex& lp = *kept_;
    lp.chgObjCoefficients(objective.data());
    set_clp_limits(lp, stop_, time_limit_seconds);
    if (start == LpStart::kWarmPrimal) {
      // Keeps CLP's work areas and factorization for the next objective (startFinishOptions 1): the bound
      // tightenings solve hundreds of these in a row, and the root tightening of a model's rows took a third
      // less time with them kept (0.21 -> 0.14 s on examples/models/process/process_s3.json).
      lp.primal(0, 1);
    } else if (start == LpStart::kWarmDual) {
      lp.dual();
    } else {
      lp.allSlackBasis(true);
      lp.dual();
    }
    result.iterations = lp.numberIterations();
    result.status = lp_status(lp);
    if (result.status == LpStatus::kOptimal) {
      const double* x = lp.primalColumnSolution();
      result.objective = constant;
      for (std::size_t c = 0; c < objective.size(); ++c) result.objective += objective[c] * x[c];
      result.bound = dual_bound(kept_model_, objective, constant, lp.dualRowSolution());
    }
  } catch (const CoinError&) {
    result.status = LpStatus::kError;
  }
  return result;
}

}  // namespace reluopt
