#pragma once

// What the sampling methods add for a reduced model's rows C f(x) <= e and integer inputs (docs/PROBLEM.md,
// "How each method finds a first feasible point"): the region problem with the rows, the descent on the rows'
// violation that leads a sample towards them, and the model MIP that finds a point, or proves there is none,
// when the regions do not.
#include <memory>
#include <optional>

#include <Eigen/Dense>

#include "algorithms/incumbent.h"
#include "algorithms/problem.h"
#include "formulation/pattern_lp.h"
#include "lp/linear_model.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"
#include "solver/dense_first_lp.h"
#include "solver/mip_solver.h"

namespace reluopt {

// The region problem of an activation pattern: the pattern LP (formulation/pattern_lp.h) with the rows
// C (A_r x + c_r) <= e, where y = A_r x + c_r is the network on the region, and the integer coordinates of x
// marked integer. nullopt when `deadline` expires while the region is composed.
std::optional<LinearModel> region_problem(const Problem& problem, const ActivationPattern& pattern,
                                          const FreeMask* concave, const Deadline& deadline);

// Adds the rows C y <= e to `model`, whose first columns are v = [x; y_free]: x, then the post-activation of
// each neuron in `free` in layer order (compose_region's numbering). On the region of `pattern` (with `free`
// left free) the last hidden layer's post-activation is G v + g for an active fixed neuron, 0 for an inactive
// one and its own column for a free one, and y = W_K (that) + b_K. False when the deadline expired while the
// region was composed.
bool add_output_rows_on_region(const Problem& problem, const ActivationPattern& pattern, const FreeMask* free,
                               const Deadline& deadline, LinearModel& model);

enum class RegionStatus { kSolved, kInfeasible, kFailed, kStopped };

struct RegionOutcome {
  RegionStatus status = RegionStatus::kFailed;
  EvaluatedPoint optimum;  // kSolved: the forward-evaluated optimum (its `feasible` says whether it met the rows)
};

// Solves region problems: an LP by the sampling path's dense simplex, or, with integer coordinates, a small MIP on
// the MIP solver. One object per thread.
//
// kStopped: the deadline expired, or the region's LP could not be set up in the time left (ClpLp::setup_seconds).
// Such an LP tells how long a region of this network takes to build and set up; while less time than that is
// left, later regions are declined before they are composed, and the caller's samples go on alone.
class RegionSolver {
 public:
  RegionSolver(const Problem& problem, const FreeMask* concave, const Deadline& deadline);
  RegionOutcome solve(const ActivationPattern& pattern, const Deadline& deadline);

 private:
  const Problem& problem_;
  const FreeMask* concave_;
  DenseFirstLp lp_;
  std::unique_ptr<MipSolver> mip_;
  double declined_seconds_ = 0.0;  // what the last declined region took to build, plus its LP's setup estimate
};

// The rows' violation at x, sum_i max(0, (C y - e)_i) / max(1, |e_i|) with y = f(x), and its gradient in x on x's
// linear region.
struct RowViolation {
  double excess = 0.0;  // output_row_excess: <= 0 when every row holds within its tolerance
  double penalty = 0.0;
  Eigen::VectorXd gradient;
};
RowViolation row_violation(const Problem& problem, const Eigen::VectorXd& x);

// Projected gradient descent on the rows' penalty from x (a point of P), at most `steps` steps: a point of P
// that meets the rows when the descent reaches one, else the least violating point it saw. x unchanged without
// output rows.
Eigen::VectorXd descend_row_violation(const Problem& problem, const Eigen::VectorXd& x, int steps,
                                      const Deadline& deadline);

// The model MIP on the problem: the big-M formulation of options.method's bounds with the output rows and the
// integer inputs (as algorithms/model_mip.h builds it for a Model), on the MIP solver within `deadline`. Every
// point the solver finds goes through evaluate_point; status infeasible only when the solver proves that the
// formulation has no point, optimal when the gap closes.
SolveResult run_rows_mip(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                         const RunContext& control, const std::optional<EvaluatedPoint>& start = std::nullopt);

}  // namespace reluopt
