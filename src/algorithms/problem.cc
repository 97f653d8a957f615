#include "algorithms/problem.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "bounds/symbolic_bounds.h"
#include "lp/linear_model.h"
#include "reluopt/error.h"
#include "solver/lp_solver.h"

namespace reluopt {

namespace {

// The Chebyshev centre of P over its free coordinates (those with lower < upper):
//   max r  s.t.  a_i x + ||a_i|| r <= b_i,  x_j - r >= lo_j,  x_j + r <= hi_j,  r >= 0.
// Infeasible means P is empty; r = 0 means P has no interior, which hit-and-run cannot walk.
Eigen::VectorXd chebyshev_centre(const Domain& domain) {
  const int dim = domain.dim();
  LinearModel model;
  double widest = 0.0;
  for (int j = 0; j < dim; ++j) {
    model.add_column(domain.lower[j], domain.upper[j]);
    widest = std::max(widest, domain.upper[j] - domain.lower[j]);
  }
  const int r = model.add_column(0.0, widest, 1.0);
  for (int j = 0; j < dim; ++j) {
    if (domain.upper[j] <= domain.lower[j]) continue;
    model.add_row({j, r}, {1.0, -1.0}, domain.lower[j], kInfinity);
    model.add_row({j, r}, {1.0, 1.0}, -kInfinity, domain.upper[j]);
  }
  for (int i = 0; i < domain.num_rows(); ++i) {
    std::vector<int> index;
    std::vector<double> value;
    double norm = 0.0;
    for (int j = 0; j < dim; ++j) {
      if (domain.A(i, j) == 0.0) continue;
      index.push_back(j);
      value.push_back(domain.A(i, j));
      if (domain.upper[j] > domain.lower[j]) norm += domain.A(i, j) * domain.A(i, j);
    }
    index.push_back(r);
    value.push_back(std::sqrt(norm));
    model.add_row(index, value, -kInfinity, domain.b[i]);
  }
  const LpSolution solution = make_lp_solver()->solve(model);
  if (solution.status == LpStatus::kInfeasible) throw Error("domain is empty: no x satisfies A x <= b within the bounds");
  if (solution.status != LpStatus::kOptimal) throw Error("could not check the domain: the LP for its centre failed");
  const double radius = solution.values[r];
  if (widest > 0.0 && radius <= 1e-9 * std::max(1.0, widest))
    throw Error("domain has an empty interior: its rows leave no room to sample (equality-like rows are not supported)");
  return Eigen::Map<const Eigen::VectorXd>(solution.values.data(), dim);
}

}  // namespace

bool ModelRows::has_integers() const { return std::find(integer.begin(), integer.end(), true) != integer.end(); }

double row_tolerance(double rhs) { return 1e-7 * std::max(1.0, std::abs(rhs)); }

double output_row_excess(const ModelRows& rows, const Eigen::VectorXd& outputs) {
  double excess = -kInfinity;
  for (Eigen::Index i = 0; i < rows.output_rows.rows(); ++i) {
    const double rhs = rows.output_rhs[i];
    excess = std::max(excess, rows.output_rows.row(i).dot(outputs) - rhs - row_tolerance(rhs));
  }
  return excess;
}

namespace {

// Concave neurons (formulation/pattern_lp.h) stay free only where raising their post-activation also can only
// raise every output row's left side, (C W_K)_ij >= 0: then an LP optimum with y above max(h, 0) keeps its value
// and every row when y drops to max(h, 0), so the forward pass at its x meets the rows too. Otherwise a row could
// be met by a y that no x produces, and the neuron keeps its fixed state.
FreeMask concave_under_rows(const Network& network, const ModelRows& rows, FreeMask concave) {
  if (!rows.has_output_rows() || network.num_hidden_layers() == 0) return concave;
  const Eigen::MatrixXd push = rows.output_rows * network.output_layer().weights;
  std::vector<std::uint8_t>& last = concave.back();
  for (std::size_t j = 0; j < last.size(); ++j)
    if (last[j] && push.col(static_cast<Eigen::Index>(j)).minCoeff() < 0.0) last[j] = 0;
  return concave;
}

// Integer coordinates rounded; the box of an integer coordinate has integer bounds (core/model_reduction.h), so
// the point stays in it.
void round_integers(const ModelRows& rows, Eigen::VectorXd& x) {
  for (std::size_t i = 0; i < rows.integer.size(); ++i)
    if (rows.integer[i]) x[static_cast<Eigen::Index>(i)] = std::round(x[static_cast<Eigen::Index>(i)]);
}

bool meets_domain_rows(const Domain& domain, const Eigen::VectorXd& x) {
  for (int i = 0; i < domain.num_rows(); ++i)
    if (domain.A.row(i).dot(x) - domain.b[i] > row_tolerance(domain.b[i])) return false;
  return true;
}

}  // namespace

Problem make_problem(const Network& network, Domain domain, Objective objective, ModelRows rows) {
  domain.validate(network.input_dim());
  objective.validate(network.output_dim());
  Eigen::VectorXd interior = 0.5 * (domain.lower + domain.upper);
  if (domain.has_rows()) {
    interior = chebyshev_centre(domain);
  }
  NeuronBounds interval = interval_bounds(network, domain);
  FreeMask concave = concave_under_rows(network, rows, concave_neurons(network, objective, interval));
  if (rows.has_output_rows() && (rows.output_rows.cols() != network.output_dim() ||
                                 rows.output_rhs.size() != rows.output_rows.rows()))
    throw Error("output rows do not match the network's " + std::to_string(network.output_dim()) + " outputs");
  if (!rows.integer.empty() && static_cast<int>(rows.integer.size()) != network.input_dim())
    throw Error("integer flags do not match the network's " + std::to_string(network.input_dim()) + " inputs");
  return Problem{network,           std::move(domain),   std::move(objective), std::move(interior),
                 std::move(interval), std::move(concave), std::move(rows)};
}

EvaluatedPoint evaluate_point(const Problem& problem, Eigen::VectorXd x) {
  const Domain& domain = problem.domain;
  x = x.cwiseMax(domain.lower).cwiseMin(domain.upper);
  const bool integral = problem.rows.has_integers();
  if (integral) round_integers(problem.rows, x);
  if (domain.has_rows() && !integral) {
    // Solvers meet rows only up to their tolerance; step towards the interior point until every row holds.
    const Eigen::VectorXd excess = domain.A * x - domain.b;
    const Eigen::VectorXd centre_slack = domain.b - domain.A * problem.interior_point;
    double theta = 0.0;
    for (Eigen::Index i = 0; i < excess.size(); ++i)
      if (excess[i] > 0.0) theta = std::max(theta, excess[i] / (excess[i] + centre_slack[i]));
    if (theta > 0.0) {
      theta = std::min(1.0, theta * (1.0 + 1e-9) + 1e-15);
      x += theta * (problem.interior_point - x);
    }
  }
  EvaluatedPoint point;
  point.outputs = problem.network.forward(x);
  point.value = problem.objective.sign() * problem.objective.value(point.outputs);
  if (integral && domain.has_rows()) point.feasible = meets_domain_rows(domain, x);
  if (problem.rows.has_output_rows()) point.feasible = point.feasible && output_row_excess(problem.rows, point.outputs) <= 0.0;
  point.x = std::move(x);
  return point;
}

detail::MaxMinNetwork compile_objective(const Network& network, const Domain& domain, const Objective& objective,
                                        const Deadline& clock) {
  constexpr double kBoundsShare = 0.1;
  const Deadline bounds_clock = clock.limited(kBoundsShare * clock.remaining());
  const OutputRange y = output_range(network, domain.lower, domain.upper, &bounds_clock);
  const detail::TermLowerBounds lower = detail::term_lower_bounds(objective, y.lower, y.upper);
  return *detail::compile_max_min(network, objective, Deadline(), lower);
}

}  // namespace reluopt
