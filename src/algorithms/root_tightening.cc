// Optimization-based bound tightening of a model's inputs and pre-activations with its output rows and
// integrality (root_tightening.h).
#include "algorithms/root_tightening.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "formulation/anderson_cuts.h"
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

// ---- Refinement of the hidden layers over a box ----

// The LPs of a layer hold the weights of every layer below it: past this many (a 784 -> 256 -> 256 network has
// 0.27 M) the refinement stops, as each LP would take seconds and its model hundreds of megabytes.
constexpr double kMaxRefinedWeights = 4e6;

// Hidden layers 0..k-1 of `network` with hidden layer k as the output layer.
Network layers_up_to(const Network& network, int k) {
  std::vector<DenseLayer> layers(network.layers().begin(), network.layers().begin() + k + 1);
  layers.back().linear.clear();
  return Network(std::move(layers));
}

// The LP relaxation of the layers below one hidden layer, kept with the basis of its last solve.
struct LayerLp {
  Network below;
  MipFormulation f;
  std::unique_ptr<LpSolver> lp = make_lp_solver();
  LpBasis basis;
  std::atomic<long> cut_id{0};
};

// max sign * h_kj over the relaxation with up to `rounds` rounds of Anderson cuts, loosened for the LP's
// tolerances (each LP's bound is safe from its duals); +infinity when no LP ended optimal.
double neuron_max(LayerLp& n, const DenseLayer& layer, int j, double sign, int rounds, const Deadline& deadline) {
  const std::vector<int>& inputs = n.f.post_activation.back();
  for (int column : inputs) n.f.model.set_objective(column, 0.0);
  layer.weights.for_each_in_row(j, [&](Eigen::Index i, double w) {
    n.f.model.set_objective(inputs[static_cast<std::size_t>(i)], sign * w);
  });
  n.f.model.set_objective_constant(sign * layer.bias[j]);
  double best = kInfinity;
  for (int round = 0; !deadline.expired(); ++round) {
    LpSolution s = n.basis.empty() ? n.lp->solve(n.f.model, deadline.remaining())
                                   : n.lp->solve_from(n.f.model, n.basis, deadline.remaining());
    if (s.status != LpStatus::kOptimal) break;
    best = std::min(best, s.bound);
    n.basis = std::move(s.basis);
    if (round == rounds || !add_anderson_cuts(n.f, n.below, s.values.data(), n.cut_id)) break;
    n.basis.rows.resize(static_cast<std::size_t>(n.f.model.num_rows()), BasisStatus::kBasic);
  }
  return best == kInfinity ? best : best + kRootSlack * (1.0 + std::abs(best));
}

// Layer k's unstable neurons refined in turn, most uncertain first (the least of u and -l); false when the
// deadline passed while its LP was built.
bool refine_layer(const Network& network, const Domain& box, int k, int rounds, NeuronBounds& bounds,
                  const Deadline& deadline) {
  LayerLp n{layers_up_to(network, k), {}, make_lp_solver(), {}};
  n.lp->set_stop_request(deadline.stop_request());
  NeuronBounds below{std::vector<Eigen::VectorXd>(bounds.lower.begin(), bounds.lower.begin() + k),
                     std::vector<Eigen::VectorXd>(bounds.upper.begin(), bounds.upper.begin() + k)};
  n.f = big_m_formulation(n.below, box, Objective::output(network.hidden_width(k)), below, false, &deadline);
  if (!n.f.complete) return false;
  std::vector<int> order;
  for (int j = 0; j < network.hidden_width(k); ++j)
    if (!bounds.is_stable(k, j)) order.push_back(j);
  Eigen::VectorXd& l = bounds.lower[k];
  Eigen::VectorXd& u = bounds.upper[k];
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return std::min(u[a], -l[a]) > std::min(u[b], -l[b]); });
  const DenseLayer& layer = network.hidden_layer(k);
  const LinearModel base = n.f.model;
  for (int j : order) {
    if (deadline.expired()) break;
    n.f.model = base;  // the cuts of the neuron before: they made each LP 2-10x slower by the seventh neuron
    n.basis.rows.resize(static_cast<std::size_t>(base.num_rows()));
    const double up = std::min(u[j], neuron_max(n, layer, j, 1.0, rounds, deadline));
    const double down = up > 0.0 ? std::max(l[j], -neuron_max(n, layer, j, -1.0, rounds, deadline)) : l[j];
    // Both hold on the box, which is not empty; crossed bounds could come only from round-off and are not taken.
    if (down > up) continue;
    u[j] = up;
    l[j] = down;
  }
  return true;
}

}  // namespace

void refine_hidden_layers(const Network& network, const Domain& box, const Eigen::VectorXd& output_weights,
                          double constant, int last_layer, int rounds, NeuronBounds& bounds,
                          const Deadline& deadline) {
  double weights_below = static_cast<double>(network.hidden_layer(0).weights.stored());
  for (int k = 1; k <= std::min(last_layer, network.num_hidden_layers() - 1) && !deadline.expired(); ++k) {
    if (weights_below > kMaxRefinedWeights) break;
    weights_below += static_cast<double>(network.hidden_layer(k).weights.stored());
    if (!refine_layer(network, box, k, rounds, bounds, deadline)) break;
    Propagation prop = propagate(network, box.lower, box.upper, output_weights, constant, SplitState{}, &bounds,
                                 &deadline, false);
    if (!prop.empty) bounds = std::move(prop.bounds);
  }
}

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
