// reluopt::verify and fold_case against ground truth on tiny random networks, with properties built to exercise
// folding: repeated constraints, multiples by powers of two and by 3, strict and non-strict comparisons,
// constants near the outputs' extremes and bounds, constraints that always or never hold, disjunctions of 1 to
// 30 conjunctions with subset relations, several boxes. A dense grid of each box gives one side of the truth (a
// point where the property holds as written); the exact maximum of the margin (brute_force_max_min, which
// enumerates activation patterns) gives the other. Every assertion is one-sided, so that timing changes what
// verify decides but never whether a test passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bounds/symbolic_bounds.h"
#include "reluopt/verify.h"
#include "test_networks.h"

namespace reluopt {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using Conjunction = std::vector<OutputConstraint>;

// A grid of per_axis points along each input of the box (its vertices included) and their forward passes.
struct Grid {
  std::vector<Eigen::VectorXd> x, y;
};

Grid grid(const Network& network, const Domain& box, int per_axis) {
  const int d = box.dim();
  Grid g;
  std::vector<int> index(static_cast<std::size_t>(d), 0);
  while (true) {
    Eigen::VectorXd x(d);
    for (int i = 0; i < d; ++i) {
      const double t = static_cast<double>(index[static_cast<std::size_t>(i)]) / (per_axis - 1);
      const bool last = index[static_cast<std::size_t>(i)] == per_axis - 1;
      x[i] = last ? box.upper[i] : std::min(box.upper[i], box.lower[i] + t * (box.upper[i] - box.lower[i]));
    }
    g.y.push_back(network.forward(x));
    g.x.push_back(std::move(x));
    int i = 0;
    while (i < d && ++index[static_cast<std::size_t>(i)] == per_axis) index[static_cast<std::size_t>(i++)] = 0;
    if (i == d) return g;
  }
}

// The constraint scaled as verify scales it: by the power of two that brings its largest |weight| into [1, 2).
// The test's numbers are normal doubles far from underflow and overflow, so the scaling is exact.
OutputConstraint scaled(OutputConstraint c) {
  const int e = std::ilogb(c.weights.cwiseAbs().maxCoeff());
  c.weights = c.weights.unaryExpr([e](double w) { return std::ldexp(w, -e); });
  c.constant = std::ldexp(c.constant, -e);
  return c;
}

VnnlibCase scaled(const VnnlibCase& property_case) {
  VnnlibCase out{property_case.box, {}};
  for (const Conjunction& conjunction : property_case.unsafe) {
    out.unsafe.emplace_back();
    for (const OutputConstraint& c : conjunction) out.unsafe.back().push_back(scaled(c));
  }
  return out;
}

// Whether y satisfies every constraint of some conjunction, as written.
bool violates(const VnnlibCase& property_case, const Eigen::VectorXd& y) {
  return std::any_of(property_case.unsafe.begin(), property_case.unsafe.end(), [&](const Conjunction& conjunction) {
    return std::all_of(conjunction.begin(), conjunction.end(), [&](const OutputConstraint& c) { return c.holds(y); });
  });
}

// max_k min_l -g_kl(y), an empty conjunction giving 0 (margin_objective's value at y).
double margin(const VnnlibCase& property_case, const Eigen::VectorXd& y) {
  double best = -kInf;
  for (const Conjunction& conjunction : property_case.unsafe) {
    double least = conjunction.empty() ? 0.0 : kInf;
    for (const OutputConstraint& c : conjunction) least = std::min(least, -c.value(y));
    best = std::max(best, least);
  }
  return best;
}

// The smallest |g(y)| of the scaled constraints at y: how close y is to deciding one of them otherwise.
double closest(const VnnlibCase& scaled_case, const Eigen::VectorXd& y) {
  double least = kInf;
  for (const Conjunction& conjunction : scaled_case.unsafe)
    for (const OutputConstraint& c : conjunction) least = std::min(least, std::abs(c.value(y)));
  return least;
}

bool inside(const Domain& box, const Eigen::VectorXd& x) {
  return x.size() == box.dim() && (x.array() >= box.lower.array()).all() && (x.array() <= box.upper.array()).all();
}

// Sound bounds on d^T y over the box (symbolic bounds, then intervals), without the round-off margins that
// folding adds: constants at them sit on folding's decision boundaries.
std::pair<double, double> sound_range(const Network& network, const Domain& box, const Eigen::VectorXd& d) {
  Eigen::VectorXd lo = box.lower, hi = box.upper;
  if (network.num_hidden_layers() > 0) {
    const NeuronBounds bounds = symbolic_bounds(network, box.lower, box.upper);
    lo = bounds.lower.back().cwiseMax(0.0);
    hi = bounds.upper.back().cwiseMax(0.0);
  }
  Eigen::VectorXd ylo, yhi, reach;
  interval_layer(network.output_layer(), lo, hi, ylo, yhi, reach);
  double a = 0.0, b = 0.0;
  for (Eigen::Index j = 0; j < d.size(); ++j) {
    a += std::min(d[j] * ylo[j], d[j] * yhi[j]);
    b += std::max(d[j] * ylo[j], d[j] * yhi[j]);
  }
  return {a, b};
}

// ---- Random properties ----

class PropertyMaker {
 public:
  PropertyMaker(const Network& network, std::uint64_t seed) : network_(network), rng_(seed) {}

  // A box inside [0,1]^d: mostly a random one, sometimes the whole cube or one thin in an input.
  Domain box() {
    const int d = network_.input_dim();
    Eigen::VectorXd lo(d), hi(d);
    for (int i = 0; i < d; ++i) {
      double a = uniform(0.0, 1.0), b = uniform(0.0, 1.0);
      if (a > b) std::swap(a, b);
      if (coin(0.3)) a = 0.0, b = 1.0;
      if (coin(0.05)) b = a;
      lo[i] = a;
      hi[i] = b;
    }
    return Domain::box(lo, hi);
  }

  // Half of the cases lean to unsat: each conjunction starts with a constraint that holds on little or none of
  // the box.
  VnnlibCase property_case(const Domain& box, const Grid& points) {
    const bool lean = coin(0.5);
    scarce_share_ = lean ? 0.6 : 0.0;
    std::vector<Conjunction> scarce;
    std::vector<Conjunction> pool = constraint_pool(box, points, scarce);
    if (pool.empty()) pool = scarce;
    if (scarce.empty()) scarce = pool;
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1), pick_scarce(0, scarce.size() - 1);
    const auto variant = [this](const Conjunction& variants) {
      return variants[std::uniform_int_distribution<std::size_t>(0, variants.size() - 1)(rng_)];
    };
    VnnlibCase out{box, {}};
    const int disjuncts = coin(0.3) ? 1 : std::uniform_int_distribution<int>(2, 30)(rng_);
    for (int k = 0; k < disjuncts; ++k) {
      Conjunction conjunction;
      if (!out.unsafe.empty() && coin(0.3)) {
        // A superset or a copy of an earlier conjunction: its unsafe set lies in that one's.
        conjunction = out.unsafe[std::uniform_int_distribution<std::size_t>(0, out.unsafe.size() - 1)(rng_)];
        if (coin(0.7)) conjunction.push_back(variant(pool[pick(rng_)]));
      } else if (!coin(0.01)) {
        const int size = std::uniform_int_distribution<int>(1, 4)(rng_);
        if (lean) conjunction.push_back(variant(scarce[pick_scarce(rng_)]));
        for (int l = lean ? 1 : 0; l < size; ++l) conjunction.push_back(variant(pool[pick(rng_)]));
      }
      std::shuffle(conjunction.begin(), conjunction.end(), rng_);
      out.unsafe.push_back(std::move(conjunction));
    }
    return out;
  }

 private:
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng_); }
  bool coin(double p) { return std::bernoulli_distribution(p)(rng_); }

  Eigen::VectorXd direction() {
    const int m = network_.output_dim();
    Eigen::VectorXd d = Eigen::VectorXd::Zero(m);
    const int i = std::uniform_int_distribution<int>(0, m - 1)(rng_);
    int j = std::uniform_int_distribution<int>(0, m - 2)(rng_);
    j += j >= i ? 1 : 0;
    switch (std::uniform_int_distribution<int>(0, 3)(rng_)) {
      case 0: d[i] = coin(0.5) ? 1.0 : -1.0; break;      // Y_i >= t or Y_i <= t
      case 1: d[i] = 1.0, d[j] = -1.0; break;            // Y_i - Y_j, as in robustness properties
      case 2:
        for (int k = 0; k < m; ++k) d[k] = std::normal_distribution<double>()(rng_);
        break;
      default:
        for (int k = 0; k < m; ++k) d[k] = std::uniform_int_distribution<int>(-3, 3)(rng_);
        if (d.cwiseAbs().maxCoeff() == 0.0) d[i] = 1.0;
    }
    return d;
  }

  // A threshold t for d^T y <= t: binding, near the grid's extremes, near or beyond the sound bounds.
  double threshold(double grid_min, double grid_max, double sound_min, double sound_max) {
    const double offsets[] = {0.0, 1e-12, -1e-12, 1e-6, -1e-6, 5e-5, -5e-5, 2e-4, -2e-4, 1e-2, -1e-2};
    const double offset = offsets[std::uniform_int_distribution<int>(0, 10)(rng_)];
    switch (std::uniform_int_distribution<int>(0, 19)(rng_)) {
      case 0: return sound_max + offset;  // holds everywhere, or nearly
      case 1: return 1e6;
      case 2: case 3: return sound_min + offset;  // never holds, or nearly
      case 4: return -1e6;
      case 5: case 6: case 7: return grid_max + offset;
      case 8: case 9: case 10: return grid_min + offset;
      default: return uniform(grid_min, grid_max);
    }
  }

  // A threshold that leaves little or nothing of d^T y <= t on the box: the unsat side.
  double scarce_threshold(double grid_min, double grid_max, double sound_min) {
    const double offsets[] = {0.0, 1e-12, -1e-12, 1e-6, -1e-6, 5e-5, -5e-5, 2e-4, -2e-4, -1e-2};
    const double offset = offsets[std::uniform_int_distribution<int>(0, 9)(rng_)];
    switch (std::uniform_int_distribution<int>(0, 5)(rng_)) {
      case 0: return grid_min + offset;
      case 1: return sound_min + offset;
      case 2: return -1e6;
      default: return grid_min - uniform(0.0, 0.2) * (grid_max - grid_min) - 1e-3;
    }
  }

  // Constraints d^T y <= t (or < t), each with variants that scale it by powers of two or by 3 and flip its
  // strictness: the first of each entry is the constraint, the others its variants.
  // The scarce constraints go into `scarce`.
  std::vector<Conjunction> constraint_pool(const Domain& box, const Grid& points, std::vector<Conjunction>& scarce) {
    std::vector<Conjunction> pool;
    const int directions = std::uniform_int_distribution<int>(2, 5)(rng_);
    for (int k = 0; k < directions; ++k) {
      const Eigen::VectorXd d = direction();
      double grid_min = kInf, grid_max = -kInf;
      for (const Eigen::VectorXd& y : points.y) {
        grid_min = std::min(grid_min, d.dot(y));
        grid_max = std::max(grid_max, d.dot(y));
      }
      const auto [sound_min, sound_max] = sound_range(network_, box, d);
      const int thresholds = std::uniform_int_distribution<int>(1, 3)(rng_);
      for (int t = 0; t < thresholds; ++t) {
        const bool is_scarce = coin(scarce_share_);
        const double at = is_scarce ? scarce_threshold(grid_min, grid_max, sound_min)
                                 : threshold(grid_min, grid_max, sound_min, sound_max);
        Conjunction variants;
        const double factors[] = {1.0, 2.0, 0.25, 1024.0, 3.0, 6.0, 0.75, std::ldexp(1.0, -30)};
        for (const double factor : factors) {
          const bool strict = coin(0.5);
          variants.push_back(OutputConstraint{factor * d, -factor * at, strict, 1});
        }
        (is_scarce ? scarce : pool).push_back(std::move(variants));
      }
    }
    return pool;
  }

  const Network& network_;
  double scarce_share_ = 0.0;
  std::mt19937_64 rng_;
};

// ---- The checks ----

// What verify may claim about case k of `property`, from its grid and (when cheap) the exact maximum.
struct Truth {
  bool grid_sat = false;       // a grid point satisfies the property as written
  double grid_margin = -kInf;  // the largest scaled margin over the grid
};

Truth grid_truth(const VnnlibCase& property_case, const Grid& points) {
  const VnnlibCase scaled_case = scaled(property_case);
  Truth truth;
  for (const Eigen::VectorXd& y : points.y) {
    truth.grid_sat = truth.grid_sat || violates(property_case, y);
    truth.grid_margin = std::max(truth.grid_margin, margin(scaled_case, y));
  }
  return truth;
}

// fold_case keeps the unsafe set: at every grid point not within round-off of a constraint's boundary, the
// folded case holds exactly where the original does, and the scaled margin is covered by the folded margin or
// the dropped conjunctions' bound.
void expect_fold_keeps_the_unsafe_set(const Network& network, const VnnlibCase& property_case, const Grid& points,
                                      const std::string& what) {
  const FoldedCase folded = fold_case(network, property_case);
  ASSERT_TRUE(folded.complete) << what;
  const VnnlibCase scaled_case = scaled(property_case);
  const bool whole = folded.folded.unsafe.size() == 1 && folded.folded.unsafe[0].empty();
  for (std::size_t p = 0; p < points.y.size(); ++p) {
    const Eigen::VectorXd& y = points.y[p];
    if (closest(scaled_case, y) < 1e-9) continue;
    ASSERT_EQ(violates(folded.folded, y), violates(property_case, y))
        << what << " at x = " << points.x[p].transpose();
    if (whole) continue;
    const double covered = std::max(folded.dropped_bound.value_or(-kInf), margin(folded.folded, y));
    const double scaled_margin = margin(scaled_case, y);
    ASSERT_GE(covered, scaled_margin - 1e-12 * (1.0 + std::abs(scaled_margin)))
        << what << " at x = " << points.x[p].transpose();
  }
}

// The exact maximum of the margin over the case's box when it is >= 0, else a number in [it, 0): conjunction
// by conjunction, the exact maximum of each constraint's -g (brute_force_max, cached by coefficients) bounds the
// conjunction's from above and, when it is negative, does for it; the others go to brute_force_max_min.
double exact_max_margin(const Network& network, const VnnlibCase& scaled_case) {
  // max of -u^T y over the box, by u = w / |w|_inf: positive multiples of a direction share it.
  std::map<std::vector<double>, double> top_of;
  const auto constraint_top = [&](const OutputConstraint& c) {
    const double scale = c.weights.cwiseAbs().maxCoeff();
    const Eigen::VectorXd u = c.weights / scale;
    const std::vector<double> key(u.data(), u.data() + u.size());
    auto it = top_of.find(key);
    if (it == top_of.end()) {
      Objective objective = Objective::output(network.output_dim(), 0);
      objective.weights = -u;
      it = top_of.emplace(key, testing::brute_force_max(network, scaled_case.box, objective)).first;
    }
    return scale * it->second - c.constant;
  };
  double top = -kInf;
  for (const Conjunction& conjunction : scaled_case.unsafe) {
    double upper = conjunction.empty() ? 0.0 : kInf;
    for (const OutputConstraint& c : conjunction) upper = std::min(upper, constraint_top(c));
    if (upper >= 0.0 && !conjunction.empty()) {
      const VnnlibCase alone{scaled_case.box, {conjunction}};
      upper = testing::brute_force_max_min(network, scaled_case.box, margin_objective(alone, network.output_dim()));
    }
    top = std::max(top, upper);
  }
  return top;
}

// verify's answer is consistent with the grid and, for unsat, with the exact maximum of each case's margin.
void expect_sound(const Network& network, const VnnlibProperty& property, const std::vector<Grid>& grids,
                  const VerifyResult& result, const std::string& what) {
  std::vector<Truth> truth;
  for (std::size_t k = 0; k < property.cases.size(); ++k) truth.push_back(grid_truth(property.cases[k], grids[k]));
  ASSERT_LE(result.cases.size(), property.cases.size()) << what;
  for (std::size_t k = 0; k < result.cases.size(); ++k) {
    const VerifyCaseReport& report = result.cases[k];
    if (!report.bound) continue;
    // A case folded to {{}} (every point unsafe) has margin 0 everywhere (docs/VERIFY.md, Folding): its bound is
    // >= 0, not >= the scaled margin of the constraints as written, which is positive there.
    const bool whole = report.disjuncts == 1 && report.constraints == 0;
    const double least = whole ? std::min(0.0, truth[k].grid_margin) : truth[k].grid_margin;
    EXPECT_GE(*report.bound, least - 1e-9) << what << ", case " << k;
  }
  if (result.status == VerifyStatus::kSat) {
    const std::size_t k = result.cases.size() - 1;
    ASSERT_TRUE(inside(property.cases[k].box, result.x)) << what;
    ASSERT_EQ(result.y, network.forward(result.x)) << what;
    EXPECT_TRUE(violates(property.cases[k], result.y)) << what << ": the counterexample fails the property";
  }
  if (result.status != VerifyStatus::kUnsat) return;
  ASSERT_EQ(result.cases.size(), property.cases.size()) << what;
  for (std::size_t k = 0; k < property.cases.size(); ++k) {
    EXPECT_FALSE(truth[k].grid_sat) << what << ": unsat, but a grid point of case " << k << " is a counterexample";
    if (network.num_hidden_neurons() > 8) continue;
    const double top = exact_max_margin(network, scaled(property.cases[k]));
    EXPECT_LT(top, 0.0) << what << ": unsat, but case " << k << " reaches margin " << top;
  }
}

VerifyResult run_verify(const Network& network, const VnnlibProperty& property, double time_limit) {
  VerifyOptions options;
  options.threads = 2;
  options.seed = 1;
  RunControl control;
  control.time_limit = time_limit;
  return verify(network, property, options, control);
}

// Tiny networks: 2 or 3 inputs, one hidden layer of 3 to 8 neurons or two of 3 to 5, 2 to 4 outputs.
Network tiny_random_network(std::uint64_t seed) {
  std::mt19937_64 rng(seed * 7919 + 17);
  const int inputs = std::uniform_int_distribution<int>(2, 3)(rng);
  const int outputs = std::uniform_int_distribution<int>(2, 4)(rng);
  std::vector<int> hidden;
  if (std::bernoulli_distribution(0.5)(rng)) hidden = {std::uniform_int_distribution<int>(3, 8)(rng)};
  else hidden = {std::uniform_int_distribution<int>(3, 5)(rng), std::uniform_int_distribution<int>(3, 5)(rng)};
  return testing::random_network(inputs, hidden, outputs, seed);
}

struct Tally {
  int sat = 0, unsat = 0, other = 0;
};

// One random property over 1 to 3 boxes of a tiny network, checked by fold_case and by verify with
// `time_limit` seconds.
void check_random_property(std::uint64_t seed, double time_limit, Tally& tally) {
  const Network network = tiny_random_network(seed);
  PropertyMaker maker(network, seed);
  std::mt19937_64 rng(seed);
  const int boxes = std::uniform_int_distribution<int>(1, 3)(rng);
  VnnlibProperty property{network.input_dim(), network.output_dim(), {}};
  std::vector<Grid> grids;
  for (int b = 0; b < boxes; ++b) {
    const Domain box = maker.box();
    grids.push_back(grid(network, box, network.input_dim() == 2 ? 41 : 15));
    property.cases.push_back(maker.property_case(box, grids.back()));
  }
  std::ostringstream what;
  what << "seed " << seed << " (time limit " << time_limit << " s)";
  for (std::size_t k = 0; k < property.cases.size(); ++k)
    expect_fold_keeps_the_unsafe_set(network, property.cases[k], grids[k], what.str() + ", case " + std::to_string(k));
  const VerifyResult result = run_verify(network, property, time_limit);
  expect_sound(network, property, grids, result, what.str());
  (result.status == VerifyStatus::kSat ? tally.sat : result.status == VerifyStatus::kUnsat ? tally.unsat
                                                                                          : tally.other)++;
}

TEST(VerifyFoldRandom, AnswersAgreeWithTheGridAndTheExactMaximum) {
  Tally tally;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) check_random_property(seed, 0.5, tally);
  // Enough of the properties are decided either way for the checks above to mean something.
  EXPECT_GE(tally.sat, 10);
  EXPECT_GE(tally.unsat, 5);
  std::cout << "sat " << tally.sat << ", unsat " << tally.unsat << ", undecided " << tally.other << "\n";
}

// Almost no time: folding and the runs stop at the deadline, and what is claimed is still true.
TEST(VerifyFoldRandom, AnswersAtTheDeadlineAreSound) {
  Tally tally;
  for (std::uint64_t seed = 101; seed <= 120; ++seed) check_random_property(seed, 1e-3, tally);
  for (std::uint64_t seed = 121; seed <= 130; ++seed) check_random_property(seed, 0.0, tally);
}

// 2000 disjuncts run in two groups; all but the last are beyond the grid's maximum of their direction, and the
// last holds at the box's centre: the first group may well be proven unsat, the case never is.
TEST(VerifyFoldRandom, ACounterexampleInTheLastGroupKeepsTheCaseFromUnsat) {
  const Network network = testing::random_network(2, {4}, 3, 9);
  const Domain box = Domain::unit_box(2);
  const Grid points = grid(network, box, 101);
  const Eigen::VectorXd centre = network.forward(Eigen::VectorXd::Constant(2, 0.5));
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  VnnlibCase property_case{box, {}};
  for (int k = 0; k < 2000; ++k) {
    Eigen::VectorXd a(network.output_dim());
    for (Eigen::Index j = 0; j < a.size(); ++j) a[j] = normal(rng);
    double top = -kInf;
    for (const Eigen::VectorXd& y : points.y) top = std::max(top, a.dot(y));
    // a^T y >= t between the grid's maximum and the sound bound (which folding cannot decide), or
    // a^T y >= a^T y_centre for the last.
    const double at = k == 1999 ? a.dot(centre) : top + 0.5 * (sound_range(network, box, a).second - top);
    property_case.unsafe.push_back({OutputConstraint{-a, at, false, k + 1}});
  }
  const VnnlibProperty property{2, 3, {property_case}};
  const VerifyResult result = run_verify(network, property, 3.0);
  ASSERT_EQ(result.cases.size(), 1u);
  EXPECT_GE(result.cases[0].runs, 2u);
  EXPECT_NE(result.status, VerifyStatus::kUnsat);
  if (result.cases[0].bound) {
    EXPECT_GE(*result.cases[0].bound, 0.0);
  }
  if (result.status == VerifyStatus::kSat) {
    EXPECT_TRUE(violates(property_case, result.y));
  }
}

}  // namespace
}  // namespace reluopt
