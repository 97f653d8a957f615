// Linear bound propagation (src/bounds/symbolic_bounds.cc) and the first layer's LP bounds under splits
// (src/bounds/split_bounds.cc) against forward passes and brute force: every bound holds at every sampled point,
// under every split, on networks of 1-4 hidden layers.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "bounds/split_bounds.h"
#include "bounds/symbolic_bounds.h"
#include "core/domain_sampler.h"
#include "reluopt/error.h"
#include "reluopt/solve.h"
#include "solver/lp_solver.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::SmallCase;

// Checks that every pre-activation at x lies within the bounds.
void expect_contains(const NeuronBounds& bounds, const Network& net, const Eigen::VectorXd& x) {
  const ForwardTrace trace = net.trace(x);
  for (int k = 0; k < net.num_hidden_layers(); ++k)
    for (int j = 0; j < net.hidden_width(k); ++j) {
      EXPECT_LE(bounds.lower[k][j], trace.pre_activation[k][j]) << "layer " << k << " neuron " << j;
      EXPECT_GE(bounds.upper[k][j], trace.pre_activation[k][j]) << "layer " << k << " neuron " << j;
    }
}

class Symbolic : public testing::SmallProblemTest {};

TEST_P(Symbolic, ObjectiveBoundIsAtLeastTheEnumeratedMaximum) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  const Propagation p = propagate(net_, domain_.lower, domain_.upper, objective_.sign() * objective_.weights,
                                  objective_.sign() * objective_.constant, SplitState{}, nullptr);
  ASSERT_FALSE(p.empty);
  EXPECT_GE(p.objective.upper, exact);
  // The linear function it came from bounds the objective at every point of the box.
  const Domain box = Domain::box(domain_.lower, domain_.upper);
  DomainSampler sampler(box, 0.5 * (box.lower + box.upper), GetParam().seed);
  for (int i = 0; i < 200; ++i) {
    const Eigen::VectorXd x = sampler.next();
    EXPECT_LE(forward_value(x), p.objective.lambda.dot(x) + p.objective.constant + 1e-12);
    expect_contains(p.bounds, net_, x);
  }
}

TEST_P(Symbolic, NeverLooserThanIntervalArithmetic) {
  const NeuronBounds interval = interval_bounds(net_, Domain::box(domain_.lower, domain_.upper));
  const NeuronBounds symbolic = symbolic_bounds(net_, domain_.lower, domain_.upper);
  for (int k = 0; k < net_.num_hidden_layers(); ++k)
    for (int j = 0; j < net_.hidden_width(k); ++j) {
      EXPECT_GE(symbolic.lower[k][j], interval.lower[k][j] - 1e-12 * (1 + std::abs(interval.lower[k][j])));
      EXPECT_LE(symbolic.upper[k][j], interval.upper[k][j] + 1e-12 * (1 + std::abs(interval.upper[k][j])));
    }
}

// Random splits: at every sampled point whose pattern agrees with them, the bounds and the objective bound hold.
TEST_P(Symbolic, BoundsHoldUnderSplits) {
  std::mt19937_64 rng(GetParam().seed);
  const Domain box = Domain::box(domain_.lower, domain_.upper);
  DomainSampler sampler(box, 0.5 * (box.lower + box.upper), GetParam().seed + 1);
  std::vector<Eigen::VectorXd> points;
  for (int i = 0; i < 400; ++i) points.push_back(sampler.next());
  for (int trial = 0; trial < 10; ++trial) {
    // The splits of one sampled point, on a random subset of neurons: never empty.
    const ActivationPattern pattern = net_.activation_pattern(points[trial]);
    SplitState splits;
    for (int k = 0; k < net_.num_hidden_layers(); ++k) {
      splits.emplace_back(net_.hidden_width(k), Split::kFree);
      for (int j = 0; j < net_.hidden_width(k); ++j)
        if (rng() % 2) splits[k][j] = pattern.active[k][j] ? Split::kActive : Split::kInactive;
    }
    const Propagation p = propagate(net_, domain_.lower, domain_.upper, objective_.sign() * objective_.weights,
                                    objective_.sign() * objective_.constant, splits, nullptr);
    ASSERT_FALSE(p.empty) << "a split state with a point in it was called empty";
    for (const Eigen::VectorXd& x : points) {
      const ActivationPattern at = net_.activation_pattern(x);
      bool agrees = true;
      for (int k = 0; k < net_.num_hidden_layers(); ++k)
        for (int j = 0; j < net_.hidden_width(k); ++j)
          if (splits[k][j] != Split::kFree && (splits[k][j] == Split::kActive) != (at.active[k][j] != 0))
            agrees = false;
      if (!agrees) continue;
      EXPECT_LE(forward_value(x), p.objective.upper);
      expect_contains(p.bounds, net_, x);
    }
  }
}

// The first layer's bounds by LPs over P and a node's first-layer split half-spaces (src/bounds/split_bounds.cc):
// every sampled point of P whose first-layer pattern agrees with the splits lies within them, and they are never
// looser than the bounds they started from.
TEST_P(Symbolic, FirstLayerBoundsUnderSplitsHoldOverP) {
  std::mt19937_64 rng(GetParam().seed + 7);
  const Domain box = Domain::box(domain_.lower, domain_.upper);
  DomainSampler sampler(box, 0.5 * (box.lower + box.upper), GetParam().seed + 2);
  std::vector<Eigen::VectorXd> points;
  for (int draw = 0; draw < 100000 && points.size() < 400; ++draw) {
    const Eigen::VectorXd x = sampler.next();
    if (domain_.max_violation(x) == 0.0) points.push_back(x);
  }
  ASSERT_GE(points.size(), 10u);
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  const NeuronBounds start = symbolic_bounds(net_, domain_.lower, domain_.upper);
  for (int trial = 0; trial < 10; ++trial) {
    const ActivationPattern pattern = net_.activation_pattern(points[static_cast<std::size_t>(trial)]);
    SplitState splits{std::vector<Split>(static_cast<std::size_t>(net_.hidden_width(0)), Split::kFree)};
    for (int j = 0; j < net_.hidden_width(0); ++j)
      if (rng() % 3 == 0) splits[0][j] = pattern.active[0][j] ? Split::kActive : Split::kInactive;
    NeuronBounds bounds = start;
    tighten_first_layer(net_, domain_, domain_.lower, domain_.upper, splits, nullptr, bounds, *lp, Deadline());
    EXPECT_TRUE((bounds.lower[0].array() >= start.lower[0].array()).all());
    EXPECT_TRUE((bounds.upper[0].array() <= start.upper[0].array()).all());
    for (const Eigen::VectorXd& x : points) {
      const ActivationPattern at = net_.activation_pattern(x);
      bool agrees = true;
      for (int j = 0; j < net_.hidden_width(0); ++j)
        if (splits[0][j] != Split::kFree && (splits[0][j] == Split::kActive) != (at.active[0][j] != 0)) agrees = false;
      if (!agrees) continue;
      const Eigen::VectorXd h = net_.hidden_layer(0).weights * x + net_.hidden_layer(0).bias;
      for (int j = 0; j < net_.hidden_width(0); ++j) {
        EXPECT_LE(bounds.lower[0][j], h[j]) << "trial " << trial << " neuron " << j;
        EXPECT_GE(bounds.upper[0][j], h[j]) << "trial " << trial << " neuron " << j;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    SmallNetworks, Symbolic,
    ::testing::ValuesIn(testing::sanitizer_share<SmallCase>(
        {SmallCase{2, {6}, 1, false, false, 1}, SmallCase{3, {10}, 1, false, false, 2},
         SmallCase{4, {12}, 1, true, false, 3}, SmallCase{2, {5, 5}, 1, false, false, 4},
         SmallCase{3, {6, 6}, 1, true, false, 5}, SmallCase{4, {6, 5}, 2, false, true, 6},
         SmallCase{3, {4, 4, 4}, 1, false, false, 7}, SmallCase{2, {3, 3, 3, 3}, 1, true, false, 8},
         SmallCase{5, {4, 4, 4}, 3, true, true, 9}, SmallCase{3, {3, 3, 3, 3}, 2, false, true, 10}})),
    testing::small_case_name);

// Down a branch of nested first-layer splits, the LPs started from the parent's bases (FirstLayerBases), or skipped
// where the parent's optimum is still feasible, give the bounds of fresh LPs to the solvers' tolerance.
TEST(SplitBoundsWarmStart, BasesFromTheParentGiveTheFreshBounds) {
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const Network net = testing::random_network(5, {12}, 1, seed);
    const Domain domain = seed % 2 ? Domain::unit_box(5) : testing::random_polytope(5, 3, seed);
    const NeuronBounds start = symbolic_bounds(net, domain.lower, domain.upper);
    const std::unique_ptr<LpSolver> warm_lp = make_lp_solver(), fresh_lp = make_lp_solver();
    std::mt19937_64 rng(seed);
    SplitState splits{std::vector<Split>(12, Split::kFree)};
    FirstLayerBases parent;
    NeuronBounds prior = start;  // as in bab: the parent's bounds, valid on the child
    for (int depth = 0; depth < 6; ++depth) {
      // As bab does: a child splits a neuron its parent leaves unstable, and never flips a split.
      std::vector<int> free;
      for (int j = 0; j < 12; ++j)
        if (splits[0][static_cast<std::size_t>(j)] == Split::kFree && !prior.is_stable(0, j)) free.push_back(j);
      if (free.empty()) break;
      splits[0][static_cast<std::size_t>(free[rng() % free.size()])] = rng() % 2 ? Split::kActive : Split::kInactive;
      NeuronBounds warm = prior, fresh = start;
      FirstLayerBases bases;
      tighten_first_layer(net, domain, domain.lower, domain.upper, splits, nullptr, warm, *warm_lp, Deadline(),
                          nullptr, depth == 0 ? nullptr : &parent, &bases);
      tighten_first_layer(net, domain, domain.lower, domain.upper, splits, nullptr, fresh, *fresh_lp, Deadline());
      // Split neurons keep their bounds from before the split (fresh: the root's); neurons the prior already makes
      // stable get no LP on the warm side. Every other one gets the fresh LP's bound.
      for (int j = 0; j < 12; ++j) {
        if (splits[0][static_cast<std::size_t>(j)] != Split::kFree || prior.is_stable(0, j)) continue;
        EXPECT_NEAR(warm.upper[0][j], fresh.upper[0][j], 1e-7 * (1.0 + std::abs(fresh.upper[0][j])));
        if (warm.upper[0][j] > 0.0)
          EXPECT_NEAR(warm.lower[0][j], fresh.lower[0][j], 1e-7 * (1.0 + std::abs(fresh.lower[0][j])));
        compared += !bases.upper[static_cast<std::size_t>(j)].empty();
      }
      parent = std::move(bases);
      prior = warm;
    }
  }
  EXPECT_GT(compared, 50);
}

// Many random networks (1-4 hidden layers, widths up to 40, weights scaled up to 1e3) over random boxes: no
// sampled point is ever outside a bound.
TEST(SymbolicRandomized, NoSampledPointEscapesTheBounds) {
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 60; ++trial) {
    const int d = 1 + static_cast<int>(rng() % 6), layers = 1 + static_cast<int>(rng() % 4);
    std::vector<int> hidden;
    for (int k = 0; k < layers; ++k) hidden.push_back(2 + static_cast<int>(rng() % 39));
    Network base = testing::random_network(d, hidden, 2, 1000 + trial);
    const double scale = std::pow(10.0, static_cast<double>(rng() % 4));
    std::vector<DenseLayer> scaled = base.layers();
    for (DenseLayer& layer : scaled) {
      layer.weights.dense() *= scale;
      layer.bias *= scale;
    }
    const Network net(scaled);
    std::uniform_real_distribution<double> uniform(-3.0, 3.0);
    Eigen::VectorXd lo(d), hi(d);
    for (int i = 0; i < d; ++i) {
      const double a = uniform(rng), b = uniform(rng);
      lo[i] = std::min(a, b);
      hi[i] = std::max(a, b);
    }
    const Eigen::VectorXd c = Eigen::VectorXd::Random(2);
    const Propagation p = propagate(net, lo, hi, c, 0.25, SplitState{}, nullptr);
    ASSERT_FALSE(p.empty);
    const Domain box = Domain::box(lo, hi);
    DomainSampler sampler(box, 0.5 * (lo + hi), trial);
    for (int s = 0; s < 300; ++s) {
      Eigen::VectorXd x = sampler.next();
      if (s < 2 * d) x[s % d] = s < d ? lo[s % d] : hi[s % d];  // box faces too
      EXPECT_LE(c.dot(net.forward(x)) + 0.25, p.objective.upper) << "trial " << trial;
      expect_contains(p.bounds, net, x);
    }
  }
}

// bab's input splits: each half propagated with its parent's bounds as the prior (which, past the first layer, takes
// the interval bounds' place), six halvings deep, with and without the concave neurons relaxed. Every bound of every
// box holds at points sampled in it.
TEST(SymbolicPrior, HalvesBoundedWithTheirParentsBoundsHoldAtSampledPoints) {
  std::mt19937_64 rng(2027);
  for (int trial = 0; trial < 24; ++trial) {
    const int d = 1 + static_cast<int>(rng() % 4), layers = 2 + static_cast<int>(rng() % 2);
    std::vector<int> hidden;
    for (int k = 0; k < layers; ++k) hidden.push_back(4 + static_cast<int>(rng() % 20));
    const Network net = testing::random_network(d, hidden, 1, 3000 + trial);
    const Eigen::VectorXd c = Eigen::VectorXd::Ones(1);
    const bool objective_only = trial % 2 == 1;
    Eigen::VectorXd lo = Eigen::VectorXd::Zero(d), hi = Eigen::VectorXd::Ones(d);
    Propagation parent = propagate(net, lo, hi, c, 0.0, SplitState{}, nullptr, nullptr, objective_only);
    for (int depth = 0; depth < 6; ++depth) {
      const auto i = static_cast<Eigen::Index>(rng() % static_cast<std::uint64_t>(d));
      (rng() % 2 ? lo : hi)[i] = 0.5 * (lo[i] + hi[i]);
      Propagation child = propagate(net, lo, hi, c, 0.0, SplitState{}, &parent.bounds, nullptr, objective_only);
      ASSERT_FALSE(child.empty);
      const Domain box = Domain::box(lo, hi);  // the sampler keeps a reference
      DomainSampler sampler(box, 0.5 * (lo + hi), 100 * trial + depth);
      for (int s = 0; s < 200; ++s) {
        const Eigen::VectorXd x = sampler.next();
        EXPECT_LE(net.forward(x)[0], child.objective.upper) << "trial " << trial << " depth " << depth;
        if (!objective_only) expect_contains(child.bounds, net, x);
      }
      parent = std::move(child);
    }
  }
}

// An expired deadline stops the back-substitution of intermediate neurons: they keep interval bounds (valid),
// and the objective still gets a valid bound.
TEST(SymbolicDeadline, ExpiredDeadlineKeepsIntervalBoundsAndAValidObjectiveBound) {
  const testing::SmallProblem problem = testing::make_small_problem(SmallCase{3, {4, 4, 4}, 1, false, false, 7});
  const Domain box = Domain::box(problem.domain.lower, problem.domain.upper);
  const Deadline expired(0.0, nullptr);
  const Eigen::VectorXd c = problem.objective.sign() * problem.objective.weights;
  const double c0 = problem.objective.sign() * problem.objective.constant;
  const Propagation p = propagate(problem.network, box.lower, box.upper, c, c0, SplitState{}, nullptr, &expired);
  const NeuronBounds interval = interval_bounds(problem.network, box);
  for (std::size_t k = 0; k < interval.lower.size(); ++k) {
    EXPECT_LE((p.bounds.lower[k] - interval.lower[k]).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_LE((p.bounds.upper[k] - interval.upper[k]).cwiseAbs().maxCoeff(), 1e-9);
  }
  EXPECT_GE(p.objective.upper, testing::brute_force_max(problem.network, problem.domain, problem.objective));
  const Propagation full = propagate(problem.network, box.lower, box.upper, c, c0, SplitState{}, nullptr);
  EXPECT_LE(full.objective.upper, p.objective.upper);
}

TEST(SymbolicSplits, ContradictingSplitsAreEmpty) {
  const Network net = testing::tiny_network();
  // a = relu(x1 - x2) with x1 - x2 in [-1, 1]; on the box x1 in [0, 0.1], x2 in [0.5, 1], x1 - x2 < 0.
  Eigen::VectorXd lo(2), hi(2);
  lo << 0.0, 0.5;
  hi << 0.1, 1.0;
  SplitState splits{{Split::kActive, Split::kFree}};
  EXPECT_TRUE(propagate(net, lo, hi, Eigen::VectorXd::Ones(1), 0.0, splits, nullptr).empty);
  splits[0][0] = Split::kInactive;
  EXPECT_FALSE(propagate(net, lo, hi, Eigen::VectorXd::Ones(1), 0.0, splits, nullptr).empty);
}

// The relaxation's bound with --bounds symbolic is a valid bound (>= the enumerated maximum).
TEST(SymbolicRelax, RelaxBoundIsValid) {
  const testing::SmallProblem problem = testing::make_small_problem(SmallCase{3, {6, 6}, 1, true, false, 5});
  SolveOptions options;
  options.method = Method::kMip;
  options.mip.bounds.method = BoundMethod::kSymbolic;
  const RelaxationReport report = relax(problem.network, problem.domain, problem.objective, options);
  EXPECT_GE(problem.objective.sign() * report.bound,
            testing::brute_force_max(problem.network, problem.domain, problem.objective) - 1e-9);
  EXPECT_EQ(report.bound_method, "symbolic");
}

// relax() is the root relaxation of a MIP formulation: the library refuses the other methods, as the CLI does.
TEST(SymbolicRelax, RelaxRefusesMethodsWithoutAFormulation) {
  const testing::SmallProblem problem = testing::make_small_problem(SmallCase{3, {6}, 1, false, false, 2});
  for (Method method : {Method::kSampling, Method::kEnhanced, Method::kBab}) {
    SolveOptions options;
    options.method = method;
    EXPECT_THROW(relax(problem.network, problem.domain, problem.objective, options), Error) << method_name(method);
  }
}

// Neurons off over the whole box (u <= 0) are left out of the back-substitution's products: the bounds are those
// of the network without them (to round-off), on every later layer and the objective.
TEST(SymbolicDeadNeurons, BoundsEqualThoseOfTheNetworkWithoutTheDeadNeurons) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const Network base = testing::random_network(3, {7, 6, 5}, 1, 300 + seed);
    std::vector<DenseLayer> with = base.layers();
    const std::vector<Eigen::Index> dead{1, 4, 5}, kept{0, 2, 3, 6};
    for (Eigen::Index j : dead) with[0].bias[j] = -10.0 - with[0].weights.dense().row(j).cwiseAbs().sum();
    std::vector<DenseLayer> without = with;
    without[0].weights = Eigen::MatrixXd(with[0].weights.dense()(kept, Eigen::all));
    without[0].bias = with[0].bias(kept);
    without[1].weights = Eigen::MatrixXd(with[1].weights.dense()(Eigen::all, kept));
    const Network a(with), b(without);
    const Eigen::VectorXd lo = Eigen::VectorXd::Zero(3), hi = Eigen::VectorXd::Ones(3);
    const Eigen::VectorXd c = Eigen::VectorXd::Ones(1);
    const Propagation pa = propagate(a, lo, hi, c, 0.0, SplitState{}, nullptr);
    const Propagation pb = propagate(b, lo, hi, c, 0.0, SplitState{}, nullptr);
    ASSERT_FALSE(pa.empty);
    ASSERT_FALSE(pb.empty);
    for (Eigen::Index j : dead) EXPECT_LE(pa.bounds.upper[0][j], 0.0);
    for (int k = 1; k < 3; ++k)
      for (int j = 0; j < a.hidden_width(k); ++j) {
        EXPECT_NEAR(pa.bounds.lower[k][j], pb.bounds.lower[k][j], 1e-9) << "seed " << seed << " layer " << k;
        EXPECT_NEAR(pa.bounds.upper[k][j], pb.bounds.upper[k][j], 1e-9) << "seed " << seed << " layer " << k;
      }
    EXPECT_NEAR(pa.objective.upper, pb.objective.upper, 1e-9) << "seed " << seed;
  }
}

}  // namespace
}  // namespace reluopt
