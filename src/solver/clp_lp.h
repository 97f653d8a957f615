#pragma once

#include <memory>
#include <vector>

#include "lp/linear_model.h"
#include "solver/lp_solver.h"

class ClpSimplex;

namespace reluopt {

// The COIN-OR CLP adapter of LpSolver.
//
// solve(): it reloads one ClpSimplex for every model and starts a fresh dual simplex, which SOLVER-NOTES.md
// measured faster than warm starts between unrelated activation regions (the sampling hot path's fallback,
// DenseFirstLp).
//
// load() + maximize(): the model stays loaded in a second ClpSimplex, with the basis of the last maximize().
//
// solve() and solve_from() count the model's loading against their time limit, and do not start a model whose
// setup (setup_seconds) would not end within it: CLP scales and sets up a model without looking at any limit.
class ClpLp final : public LpSolver {
 public:
  // A conservative estimate of the seconds CLP takes to load and set up `model` before its first pivot.
  static double setup_seconds(const LinearModel& model);

  ClpLp();
  ~ClpLp() override;
  ClpLp(const ClpLp&) = delete;
  ClpLp& operator=(const ClpLp&) = delete;

  LpSolution solve(const LinearModel& model, double time_limit_seconds = kInfinity) override;
  LpSolution solve_from(const LinearModel& model, const LpBasis& start,
                        double time_limit_seconds = kInfinity) override;
  void set_stop_request(const std::atomic<bool>* stop) override;

  void load(const LinearModel& model) override;
  LpBound maximize(const std::vector<double>& objective, double constant, LpStart start,
                   double time_limit_seconds = kInfinity) override;
  LpBound maximize_from(const std::vector<double>& objective, double constant, const LpBasis* start,
                        double time_limit_seconds, LpBasis* end, std::vector<double>* point = nullptr) override;

 private:
  std::unique_ptr<ClpSimplex> simplex_;
  std::unique_ptr<ClpSimplex> kept_;  // the model of load(), with the basis of the last maximize()
  LinearModel kept_model_;            // its rows and bounds, for the dual bound
  LpSolution dual_simplex(const LinearModel& model, double time_limit_seconds);  // on the loaded simplex_
  const std::atomic<bool>* stop_ = nullptr;
};

}  // namespace reluopt
