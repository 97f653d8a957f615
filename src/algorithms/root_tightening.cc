// Optimization-based bound tightening of a model's inputs and pre-activations with its output rows and
// integrality (root_tightening.h).
#include "algorithms/root_tightening.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "solver/lp_solver.h"

namespace reluopt {

namespace {

constexpr double kRoundOff = std::numeric_limits<double>::epsilon();

}  // namespace

void add_model_rows(const Problem& problem, MipFormulation& f) {
  if (!problem.rows.has_output_rows()) return;
  const Eigen::MatrixXd& C = problem.rows.output_rows;
  const DenseLayer& out = problem.network.output_layer();
  const std::vector<int>& last = f.post_activation.empty() ? f.input : f.post_activation.back();
  Eigen::VectorXd magnitude(static_cast<Eigen::Index>(last.size()));
  for (std::size_t j = 0; j < last.size(); ++j)
    magnitude[static_cast<Eigen::Index>(j)] =
        std::max(std::abs(f.model.col_lower()[last[j]]), std::abs(f.model.col_upper()[last[j]]));
  // |C| (|W_L| |x_L| + |b_L|) + |e| bounds every term of the row's sums.
  const Eigen::VectorXd reach = C.cwiseAbs() * (out.weights.cwiseAbs() * magnitude + out.bias.cwiseAbs()) +
                                problem.rows.output_rhs.cwiseAbs();
  const double terms = static_cast<double>(C.cols() + out.weights.cols() + 2);
  const int first = f.model.num_rows();
  add_output_rows(f, problem.network, C, problem.rows.output_rhs);
  for (int r = first; r < f.model.num_rows(); ++r)
    f.model.set_row_bounds(r, -kInfinity,
                           f.model.row_upper()[r] + 4.0 * terms * kRoundOff * reach[r - first]);
}

namespace {

// An LP bound's allowance for the LP's own tolerances, relative to its magnitude.
constexpr double kRootSlack = 1e-7;

// max objective^T columns + constant over the loaded LP, loosened for round-off; +infinity when not solved.
double safe_max(LpSolver& lp, const std::vector<double>& objective, double constant, const Deadline& deadline) {
  if (deadline.expired()) return kInfinity;
  const LpBound result = lp.maximize(objective, constant, LpStart::kWarmPrimal, deadline.remaining());
  if (result.status != LpStatus::kOptimal) return kInfinity;
  return result.bound + kRootSlack * (1.0 + std::abs(result.bound));
}

// The root's relaxation loaded into `lp`.
MipFormulation load_root_relaxation(const Problem& problem, const RootBounds& root, LpSolver& lp) {
  Domain box = problem.domain;
  box.lower = root.lo;
  box.upper = root.hi;
  MipFormulation f = big_m_formulation(problem.network, box, problem.objective, root.prop.bounds, false);
  add_model_rows(problem, f);
  lp.load(f.model);
  return f;
}

// [down, up] = [min, max] of objective^T columns + constant over the loaded LP.
std::pair<double, double> safe_range(LpSolver& lp, std::vector<double>& objective, double constant,
                                     const Deadline& deadline) {
  const double up = safe_max(lp, objective, constant, deadline);
  for (double& c : objective) c = -c;
  const double down = -safe_max(lp, objective, -constant, deadline);
  for (double& c : objective) c = -c;
  return {down, up};
}

void tighten_root_inputs(const Problem& problem, RootBounds& root, LpSolver& lp, const Deadline& deadline) {
  const MipFormulation f = load_root_relaxation(problem, root, lp);
  std::vector<double> objective(static_cast<std::size_t>(f.model.num_cols()), 0.0);
  for (Eigen::Index i = 0; i < root.lo.size() && !deadline.expired(); ++i) {
    if (!(root.lo[i] < root.hi[i])) continue;
    const auto column = static_cast<std::size_t>(f.input[static_cast<std::size_t>(i)]);
    objective[column] = 1.0;
    auto [down, up] = safe_range(lp, objective, 0.0, deadline);
    objective[column] = 0.0;
    if (problem.rows.has_integers() && problem.rows.integer[static_cast<std::size_t>(i)]) {
      down = std::ceil(down);
      up = std::floor(up);
    }
    if (!(down <= up)) continue;  // no point meets the rows: left for the search to prove
    root.lo[i] = std::max(root.lo[i], down);
    root.hi[i] = std::min(root.hi[i], up);
  }
}

void tighten_root_layer(const Problem& problem, int k, RootBounds& root, LpSolver& lp, const Deadline& deadline) {
  const MipFormulation f = load_root_relaxation(problem, root, lp);
  const std::vector<int>& inputs = k == 0 ? f.input : f.post_activation[static_cast<std::size_t>(k - 1)];
  const DenseLayer& layer = problem.network.hidden_layer(k);
  NeuronBounds& bounds = root.prop.bounds;
  std::vector<double> objective(static_cast<std::size_t>(f.model.num_cols()), 0.0);
  for (int j = 0; j < problem.network.hidden_width(k) && !deadline.expired(); ++j) {
    if (bounds.is_stable(k, j)) continue;
    layer.weights.for_each_in_row(
        j, [&](Eigen::Index i, double w) { objective[static_cast<std::size_t>(inputs[static_cast<std::size_t>(i)])] = w; });
    const auto [down, up] = safe_range(lp, objective, layer.bias[j], deadline);
    for (int column : inputs) objective[static_cast<std::size_t>(column)] = 0.0;
    if (!(down <= up)) continue;
    bounds.upper[k][j] = std::min(bounds.upper[k][j], up);
    bounds.lower[k][j] = std::max(bounds.lower[k][j], down);
  }
}

// Propagates the objective over the root's box with the bounds found as the prior.
void repropagate(const Problem& problem, RootBounds& root, const Deadline& deadline) {
  const NeuronBounds found = root.prop.bounds;
  Propagation prop = propagate(problem.network, root.lo, root.hi, problem.objective.sign() * problem.objective.weights,
                               problem.objective.sign() * problem.objective.constant, SplitState{}, &found,
                               &deadline, false);
  if (!prop.empty) root.prop = std::move(prop);
}

}  // namespace

RootBounds tighten_root(const Problem& problem, const Deadline& deadline, double share_of_time,
                        const NeuronBounds* prior) {
  RootBounds root{problem.domain.lower, problem.domain.upper, {}};
  root.prop = propagate(problem.network, root.lo, root.hi, problem.objective.sign() * problem.objective.weights,
                        problem.objective.sign() * problem.objective.constant, SplitState{}, prior, &deadline,
                        false);
  const Deadline share = deadline.share(share_of_time);
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  lp->set_stop_request(deadline.stop_request());
  tighten_root_inputs(problem, root, *lp, share);
  repropagate(problem, root, deadline);
  for (int k = 0; k < problem.network.num_hidden_layers() && !share.expired(); ++k) {
    tighten_root_layer(problem, k, root, *lp, share);
    repropagate(problem, root, deadline);
  }
  return root;
}

}  // namespace reluopt
