#pragma once

// Networks, domains, a brute-force optimizer and a fixture over small random problems, shared by the tests.

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bounds/bounds.h"
#include "bounds/symbolic_bounds.h"
#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/options.h"
#include "reluopt/result.h"

namespace reluopt::testing {

// x1 ──( 1)──> a = relu(x1 - x2)       ──( 2)──┐
//   ╲ (-1)                                      ├──> y = 2 a - b + 0.5
// x2 ──( 1)──> b = relu(x1 + x2 - 1)  ──(-1)──┘
// On [0,1]^2 both pre-activations lie in [-1, 1].
// max y = 2.5 at (1, 0): a = 1, b = 0 (b's pre-activation is exactly 0 there).
// min y = -0.5 at (1, 1): a = 0, b = 1.
Network tiny_network();

// Xavier-uniform weights, biases U(-1/sqrt(fan_in), 1/sqrt(fan_in)), from a fixed seed.
Network random_network(int input_dim, const std::vector<int>& hidden, int outputs, std::uint64_t seed);

// [0,1]^d cut by `rows` random half-spaces that all keep the centre strictly inside.
Domain random_polytope(int dim, int rows, std::uint64_t seed);

// The hidden neurons' states that interval arithmetic over the box [lower, upper] leaves possible, neuron i (in
// layer order) as bit i: a neuron whose pre-activation is <= 0 on the whole box is inactive (its active region, if
// not empty, has h = 0 and the same values), one whose pre-activation is >= 0 active; `fixed` holds those states,
// `free` the bits of the others. The brute-force optimizers enumerate the 2^|free| patterns state_bits(s, k).
struct PossibleStates {
  long fixed = 0;
  std::vector<int> free;
};
PossibleStates possible_states(const Network& network, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper);
long state_bits(const PossibleStates& states, long k);

// The exact maximum of sign * g over P, by enumerating every activation pattern and solving each region's
// LP in the layered space (variables x_1..x_K, with x_{k+1} = h_k on active and x_{k+1} = 0 >= h_k on
// inactive neurons): a formulation independent of the input-space LP under test.
// Only for networks with at most ~12 hidden neurons. Returns the maximized value sign * g.
double brute_force_max(const Network& network, const Domain& domain, const Objective& objective);

// The same over the points of P whose pre-activations satisfy the splits (h >= 0 where split active, h <= 0 where
// split inactive): the patterns that disagree with a split are skipped. -inf when no point satisfies them.
double brute_force_max_where(const Network& network, const Domain& domain, const Objective& objective,
                             const SplitState& splits);

// The exact maximum of sign * g for a max-min objective (or a linear one), by epigraph LPs over every
// activation pattern in the layered space: independent of the compiled network under test.
double brute_force_max_min(const Network& network, const Domain& domain, const Objective& objective);

// A reported point is honest: inside P (rows included) and its objective the forward pass's value at x.
void expect_honest(const Network& net, const Domain& domain, const Objective& objective, const SolveResult& r);

// `options` (a heuristic method) reaches tiny_network()'s maximum 2.5 and its minimum -0.5, honestly.
void expect_tiny_network_optima(const SolveOptions& options);

// A random network small enough for brute_force_max, on the unit box or a random polytope.
struct SmallCase {
  int dim;
  std::vector<int> hidden;
  int outputs;
  bool polytope;
  bool minimize;
  std::uint64_t seed;
};

void PrintTo(const SmallCase& c, std::ostream* os);

// The cases a parameterized family over random small problems runs: all of them, but every other one (from the
// first) in the sanitizer builds (RELUOPT_SANITIZED), which run the code 5-10 times slower; the cases differ in
// shape and seed, not in the code they reach (docs/FUZZING.md).
template <class Case>
std::vector<Case> sanitizer_share(std::vector<Case> cases) {
#ifdef RELUOPT_SANITIZED
  std::vector<Case> kept;
  for (std::size_t i = 0; i < cases.size(); i += 2) kept.push_back(cases[i]);
  return kept;
#else
  return cases;
#endif
}

// A test name such as "d3_h6x6_m2_polytope_min_seed5", for the 4th argument of INSTANTIATE_TEST_SUITE_P.
std::string small_case_name(const ::testing::TestParamInfo<SmallCase>& info);

// "h6x6" for hidden widths {6, 6}: the part of a test name that names the hidden layers.
std::string hidden_name(const std::vector<int>& hidden);

struct SmallProblem {
  Network network;
  Domain domain;
  Objective objective;
  // Interval bounds, then valid but weaker ones (see make_small_problem).
  std::vector<NeuronBounds> bounds;
};

// random_network(dim, hidden, outputs, seed) over [0,1]^dim or random_polytope(dim, 3, seed + 100); the
// objective weighs several outputs from 1 down to -1.
SmallProblem make_small_problem(const SmallCase& c);

// A fixture over SmallCase parameters: each test gets the problem of its case.
class SmallProblemTest : public ::testing::TestWithParam<SmallCase> {
 protected:
  SmallProblemTest() : SmallProblemTest(make_small_problem(GetParam())) {}

  // The maximized value sign * g at x, from a forward pass.
  double forward_value(const Eigen::VectorXd& x) const;

  const Network net_;
  const Domain domain_;
  const Objective objective_;
  const std::vector<NeuronBounds> bounds_;

 private:
  explicit SmallProblemTest(SmallProblem problem);
};

}  // namespace reluopt::testing
