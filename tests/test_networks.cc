#include "test_networks.h"

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "formulation/pattern_lp.h"
#include "lp/linear_model.h"
#include "reluopt/solve.h"
#include "solver/lp_solver.h"

namespace reluopt::testing {

Network tiny_network() {
  DenseLayer hidden{Eigen::MatrixXd{{1.0, -1.0}, {1.0, 1.0}}, Eigen::VectorXd{{0.0, -1.0}}};
  DenseLayer output{Eigen::MatrixXd{{2.0, -1.0}}, Eigen::VectorXd{{0.5}}};
  return Network({hidden, output});
}

Network random_network(int input_dim, const std::vector<int>& hidden, int outputs, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> sizes{input_dim};
  sizes.insert(sizes.end(), hidden.begin(), hidden.end());
  sizes.push_back(outputs);
  std::vector<DenseLayer> layers;
  for (std::size_t k = 0; k + 1 < sizes.size(); ++k) {
    const int fan_in = sizes[k], fan_out = sizes[k + 1];
    std::uniform_real_distribution<double> weight(-std::sqrt(6.0 / (fan_in + fan_out)),
                                                  std::sqrt(6.0 / (fan_in + fan_out)));
    std::uniform_real_distribution<double> bias(-1.0 / std::sqrt(fan_in), 1.0 / std::sqrt(fan_in));
    DenseLayer layer{Eigen::MatrixXd(fan_out, fan_in), Eigen::VectorXd(fan_out)};
    for (int i = 0; i < fan_out; ++i) {
      for (int j = 0; j < fan_in; ++j) layer.weights.dense()(i, j) = weight(rng);
      layer.bias[i] = bias(rng);
    }
    layers.push_back(std::move(layer));
  }
  return Network(std::move(layers));
}

Domain random_polytope(int dim, int rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::uniform_real_distribution<double> margin(0.05, 0.4);
  Domain domain = Domain::unit_box(dim);
  domain.A.resize(rows, dim);
  domain.b.resize(rows);
  const Eigen::VectorXd centre = Eigen::VectorXd::Constant(dim, 0.5);
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < dim; ++j) domain.A(r, j) = gauss(rng);
    domain.A.row(r).normalize();
    domain.b[r] = domain.A.row(r).dot(centre) + margin(rng);
  }
  domain.description = "random polytope";
  return domain;
}

namespace {

// The region of one pattern in the layered space. Columns: x (d), then the post-activations of each
// hidden layer; the last hidden layer's (or x's) columns start at `*last_first`.
LinearModel layered_region(const Network& network, const Domain& domain, const ActivationPattern& pattern,
                           int* last_first) {
  LinearModel model;
  const int d = network.input_dim();
  for (int i = 0; i < d; ++i) model.add_column(domain.lower[i], domain.upper[i]);
  add_domain_rows(domain, model);
  int previous_first = 0, previous_size = d;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    const DenseLayer& layer = network.hidden_layer(k);
    const int first = model.num_cols();
    for (int j = 0; j < network.hidden_width(k); ++j) model.add_column(0.0, kInfinity);
    for (int j = 0; j < network.hidden_width(k); ++j) {
      // h = W x_prev + b.  Active: x_next - h = 0 and h >= 0.  Inactive: x_next = 0 and h <= 0.
      std::vector<int> index;
      std::vector<double> value;
      for (int i = 0; i < previous_size; ++i) {
        index.push_back(previous_first + i);
        value.push_back(layer.weights(j, i));
      }
      const double b = layer.bias[j];
      if (pattern.active[k][j]) {
        model.add_row(index, value, -b, kInfinity);
        std::vector<int> eq_index = index;
        std::vector<double> eq_value = value;
        eq_index.push_back(first + j);
        eq_value.push_back(-1.0);
        model.add_row(eq_index, eq_value, -b, -b);
      } else {
        model.add_row(index, value, -kInfinity, -b);
        model.set_col_bounds(first + j, 0.0, 0.0);
      }
    }
    previous_first = first;
    previous_size = network.hidden_width(k);
  }
  *last_first = previous_first;
  return model;
}

// The region LP of one pattern. Returns -inf when the region is empty.
double layered_region_max(const Network& network, const Domain& domain, const Objective& objective,
                          const ActivationPattern& pattern, LpSolver& lp) {
  int previous_first = 0;
  LinearModel model = layered_region(network, domain, pattern, &previous_first);
  const int previous_size = static_cast<int>(network.output_layer().weights.cols());
  const DenseLayer& out = network.output_layer();
  const Eigen::VectorXd c = objective.sign() * (objective.weights.transpose() * out.weights).transpose();
  for (int i = 0; i < previous_size; ++i) model.set_objective(previous_first + i, c[i]);
  model.set_objective_constant(objective.sign() * (objective.weights.dot(out.bias) + objective.constant));
  const LpSolution solution = lp.solve(model);
  if (solution.status == LpStatus::kInfeasible) return -std::numeric_limits<double>::infinity();
  if (solution.status != LpStatus::kOptimal) throw std::runtime_error("brute force: region LP failed");
  return solution.objective;
}

// max t (max sense) or max -t (min sense) over the region with t <= term (max) or t >= term (min) for each
// of `terms`: max over x of min of the terms, or of -max of the terms. -inf when the region is empty.
double region_epigraph_max(const Network& network, const Domain& domain, const ActivationPattern& pattern,
                           const std::vector<ObjectiveTerm>& terms, bool maximize, LpSolver& lp) {
  int last_first = 0;
  LinearModel model = layered_region(network, domain, pattern, &last_first);
  const DenseLayer& out = network.output_layer();
  const int t = model.add_column(-kInfinity, kInfinity, maximize ? 1.0 : -1.0);
  for (const ObjectiveTerm& term : terms) {
    const Eigen::VectorXd a = out.weights.transpose() * term.weights;
    std::vector<int> index{t};
    std::vector<double> value{1.0};
    for (Eigen::Index i = 0; i < a.size(); ++i) {
      index.push_back(last_first + static_cast<int>(i));
      value.push_back(-a[i]);
    }
    const double constant = term.weights.dot(out.bias) + term.constant;
    if (maximize) model.add_row(index, value, -kInfinity, constant);
    else model.add_row(index, value, constant, kInfinity);
  }
  const LpSolution solution = lp.solve(model);
  if (solution.status == LpStatus::kInfeasible) return -std::numeric_limits<double>::infinity();
  if (solution.status != LpStatus::kOptimal) throw std::runtime_error("brute force: epigraph LP failed");
  return solution.objective;
}

// Every choice of one term per disjunct, by index.
std::vector<std::vector<ObjectiveTerm>> term_choices(const std::vector<std::vector<ObjectiveTerm>>& disjuncts) {
  std::vector<std::vector<ObjectiveTerm>> choices{{}};
  for (const std::vector<ObjectiveTerm>& disjunct : disjuncts) {
    std::vector<std::vector<ObjectiveTerm>> next;
    for (const std::vector<ObjectiveTerm>& choice : choices)
      for (const ObjectiveTerm& term : disjunct) {
        next.push_back(choice);
        next.back().push_back(term);
      }
    choices = std::move(next);
  }
  return choices;
}

ActivationPattern pattern_of(const Network& network, long bits) {
  ActivationPattern pattern;
  int next = 0;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    std::vector<std::uint8_t> layer(network.hidden_width(k));
    for (auto& bit : layer) bit = (bits >> next++) & 1L;
    pattern.active.push_back(std::move(layer));
  }
  return pattern;
}

}  // namespace

PossibleStates possible_states(const Network& network, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
  PossibleStates states;
  Eigen::VectorXd lo = lower, hi = upper;
  int bit = 0;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    const DenseLayer& layer = network.hidden_layer(k);
    const Weights positive = layer.weights.positive_part(), negative = layer.weights.negative_part();
    const Eigen::VectorXd h_lo = positive * lo + negative * hi + layer.bias;
    const Eigen::VectorXd h_hi = positive * hi + negative * lo + layer.bias;
    for (Eigen::Index i = 0; i < h_lo.size(); ++i, ++bit) {
      if (h_hi[i] <= 0.0) continue;
      if (h_lo[i] >= 0.0) states.fixed |= 1L << bit;
      else states.free.push_back(bit);
    }
    lo = h_lo.cwiseMax(0.0);
    hi = h_hi.cwiseMax(0.0);
  }
  return states;
}

long state_bits(const PossibleStates& states, long k) {
  long bits = states.fixed;
  for (std::size_t j = 0; j < states.free.size(); ++j)
    if ((k >> j) & 1L) bits |= 1L << states.free[j];
  return bits;
}

// max of max_k min_l t_kl is max over k of an epigraph LP per region; min of it is, with l(k) the term that
// attains each disjunct's minimum at the optimum, min over the choices l(k) of min max_k t_k,l(k).
double brute_force_max_min(const Network& network, const Domain& domain, const Objective& objective) {
  const int n = network.num_hidden_neurons();
  if (n > 16) throw std::invalid_argument("brute_force_max_min: too many neurons");
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  const bool maximize = objective.sense == Sense::kMaximize;
  const std::vector<std::vector<ObjectiveTerm>> groups = maximize ? objective.terms() : term_choices(objective.terms());
  double best = -std::numeric_limits<double>::infinity();
  const PossibleStates states = possible_states(network, domain.lower, domain.upper);
  for (long k = 0; k < (1L << states.free.size()); ++k)
    for (const std::vector<ObjectiveTerm>& group : groups)
      best = std::max(best, region_epigraph_max(network, domain, pattern_of(network, state_bits(states, k)), group,
                                                maximize, *lp));
  return best;
}

double brute_force_max(const Network& network, const Domain& domain, const Objective& objective) {
  const int n = network.num_hidden_neurons();
  if (n > 16) throw std::invalid_argument("brute_force_max: too many neurons");
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  double best = -std::numeric_limits<double>::infinity();
  const PossibleStates states = possible_states(network, domain.lower, domain.upper);
  for (long k = 0; k < (1L << states.free.size()); ++k)
    best = std::max(best,
                    layered_region_max(network, domain, objective, pattern_of(network, state_bits(states, k)), *lp));
  return best;
}

double brute_force_max_where(const Network& network, const Domain& domain, const Objective& objective,
                             const SplitState& splits) {
  if (network.num_hidden_neurons() > 16) throw std::invalid_argument("brute_force_max_where: too many neurons");
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  double best = -std::numeric_limits<double>::infinity();
  const PossibleStates states = possible_states(network, domain.lower, domain.upper);
  for (long k = 0; k < (1L << states.free.size()); ++k) {
    const ActivationPattern pattern = pattern_of(network, state_bits(states, k));
    bool agrees = true;
    for (std::size_t layer = 0; layer < splits.size(); ++layer)
      for (std::size_t j = 0; j < splits[layer].size(); ++j)
        if (splits[layer][j] != Split::kFree && (splits[layer][j] == Split::kActive) != (pattern.active[layer][j] != 0))
          agrees = false;
    if (agrees) best = std::max(best, layered_region_max(network, domain, objective, pattern, *lp));
  }
  return best;
}

void PrintTo(const SmallCase& c, std::ostream* os) {
  *os << c.dim << " inputs, " << c.hidden.size() << " hidden layers, " << c.outputs << " outputs, "
      << (c.polytope ? "polytope" : "box") << (c.minimize ? ", minimize" : "") << ", seed " << c.seed;
}

std::string hidden_name(const std::vector<int>& hidden) {
  std::ostringstream name;
  name << 'h';
  for (std::size_t k = 0; k < hidden.size(); ++k) name << (k ? "x" : "") << hidden[k];
  return name.str();
}

std::string small_case_name(const ::testing::TestParamInfo<SmallCase>& info) {
  const SmallCase& c = info.param;
  std::ostringstream name;
  name << 'd' << c.dim << '_' << hidden_name(c.hidden);
  if (c.outputs > 1) name << "_m" << c.outputs;
  name << (c.polytope ? "_polytope" : "_box") << (c.minimize ? "_min" : "") << "_seed" << c.seed;
  return name.str();
}

SmallProblem make_small_problem(const SmallCase& c) {
  Network network = random_network(c.dim, c.hidden, c.outputs, c.seed);
  Domain domain = c.polytope ? random_polytope(c.dim, 3, c.seed + 100) : Domain::unit_box(c.dim);
  Objective objective = Objective::output(c.outputs);
  if (c.outputs > 1) objective.weights = Eigen::VectorXd::LinSpaced(c.outputs, 1.0, -1.0);
  if (c.minimize) objective.sense = Sense::kMinimize;
  // The weaker bounds are interval bounds of the box widened by 0.5: some stable neurons become unstable, and
  // every layer stays consistent with the loosened layer before it, as a bound method would produce them.
  std::vector<NeuronBounds> bounds{interval_bounds(network, domain)};
  const Domain wider = Domain::box((domain.lower.array() - 0.5).matrix(), (domain.upper.array() + 0.5).matrix());
  bounds.push_back(interval_bounds(network, wider));
  return SmallProblem{std::move(network), std::move(domain), std::move(objective), std::move(bounds)};
}

SmallProblemTest::SmallProblemTest(SmallProblem problem)
    : net_(std::move(problem.network)),
      domain_(std::move(problem.domain)),
      objective_(std::move(problem.objective)),
      bounds_(std::move(problem.bounds)) {}

double SmallProblemTest::forward_value(const Eigen::VectorXd& x) const {
  return objective_.sign() * objective_.value(net_.forward(x));
}

void expect_honest(const Network& net, const Domain& domain, const Objective& objective, const SolveResult& r) {
  ASSERT_NE(r.status, SolveStatus::kNoSolution);
  EXPECT_LE(domain.max_violation(r.x), 1e-12);
  EXPECT_DOUBLE_EQ(r.objective, objective.value(net.forward(r.x)));
}

void expect_tiny_network_optima(const SolveOptions& options) {
  const Network net = tiny_network();
  const SolveResult r = solve(net, Domain::unit_box(2), Objective::output(1), options);
  expect_honest(net, Domain::unit_box(2), Objective::output(1), r);
  EXPECT_EQ(r.method, method_name(options.method));
  EXPECT_NEAR(r.objective, 2.5, 1e-9);
  Objective minimize = Objective::output(1);
  minimize.sense = Sense::kMinimize;
  const SolveResult m = solve(net, Domain::unit_box(2), minimize, options);
  expect_honest(net, Domain::unit_box(2), minimize, m);
  EXPECT_NEAR(m.objective, -0.5, 1e-9);
}

}  // namespace reluopt::testing
