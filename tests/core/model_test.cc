#include "reluopt/model.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <random>
#include <string>

#include "algorithms/model_brute_force.h"
#include "bounds/bounds.h"
#include "core/model_reduction.h"
#include "reluopt/error.h"
#include "reluopt/run_control.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::random_network;

std::shared_ptr<const Network> shared(Network network) { return std::make_shared<const Network>(std::move(network)); }

VariableBlock block(const std::string& name, std::vector<double> lower, std::vector<double> upper,
                    std::vector<bool> integer = {}) {
  return {name, Eigen::Map<Eigen::VectorXd>(lower.data(), static_cast<Eigen::Index>(lower.size())),
          Eigen::Map<Eigen::VectorXd>(upper.data(), static_cast<Eigen::Index>(upper.size())), std::move(integer)};
}

LinearExpr expr(std::vector<LinearExpr::Term> terms, double constant = 0.0) { return {std::move(terms), constant}; }

// x in [0,1]^3 (x[1] integer), z in [-2, 5]; "deep" (2 hidden layers) reads x[2], x[0]; "shallow" (1 hidden
// layer) reads z[0], x[1], z[0]; "linear" (no hidden layer) reads x; a constraint on variables alone, one
// mixing an output and a variable, an equality on outputs.
Model mixed_model() {
  Model m;
  m.variables = {block("x", {0, 0, 0}, {1, 1, 1}, {false, true, false}), block("z", {-2}, {5})};
  m.networks = {{"deep", shared(random_network(2, {4, 3}, 2, 11)), {2, 0}, ""},
                {"shallow", shared(random_network(3, {5}, 1, 12)), {3, 1, 3}, ""},
                {"linear", shared(random_network(3, {}, 2, 13)), {0, 1, 2}, ""}};
  using R = Reference;
  m.constraints = {{expr({{R::variable(0, 0), 1.0}, {R::variable(1, 0), -1.0}}, 0.5), ConstraintSense::kLessEqual, 2.0,
                    ""},
                   {expr({{R::output(0, 1), 2.0}, {R::variable(1, 0), 1.0}}), ConstraintSense::kGreaterEqual, -3.0, ""},
                   {expr({{R::output(2, 0), 1.0}, {R::output(1, 0), -1.0}}), ConstraintSense::kEqual, 0.25, "tie"}};
  m.objective = expr({{R::output(0, 0), 1.0}, {R::variable(1, 0), -0.1}, {R::output(1, 0), 0.5}}, 3.0);
  return m;
}

Eigen::VectorXd random_point(const Domain& domain, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::VectorXd v(domain.dim());
  for (int i = 0; i < domain.dim(); ++i) v[i] = domain.lower[i] + u(rng) * (domain.upper[i] - domain.lower[i]);
  return v;
}

void expect_error(const Model& model, const std::string& message) {
  try {
    model.validate();
    ADD_FAILURE() << "no error, expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

struct BadModel {
  std::string what;
  std::function<void(Model&)> edit;
  std::string message;
};

TEST(ModelValidate, MixedModelIsValid) { EXPECT_NO_THROW(mixed_model().validate()); }

TEST(ModelValidate, EachErrorNamesItsEntry) {
  using R = Reference;
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<BadModel> cases{
      {"crossed", [](Model& m) { m.variables[0].lower[2] = 3; m.variables[0].upper[2] = 1; },
       "variables 'x': lower 3 > upper 1 at coordinate 2"},
      {"infinite", [&](Model& m) { m.variables[1].upper[0] = inf; },
       "variables 'z': bounds must be finite at coordinate 0"},
      {"huge", [](Model& m) { m.variables[1].lower[0] = -1e16; },
       "variables 'z': bound -1e+16 at coordinate 0, beyond 1e+15 in magnitude (docs/NUMERICS.md)"},
      {"huge coefficient", [](Model& m) { m.constraints[1].expr.terms[0].coefficient = 2e15; },
       "constraint 1: term 0 (deep[1]) has coefficient 2e+15, beyond 1e+15 in magnitude (docs/NUMERICS.md)"},
      {"huge rhs", [](Model& m) { m.constraints[0].rhs = -3e15; },
       "constraint 0: the right-hand side -3e+15, beyond 1e+15 in magnitude (docs/NUMERICS.md)"},
      {"huge constant", [](Model& m) { m.objective.constant = 1e20; },
       "objective: the constant 1e+20, beyond 1e+15 in magnitude (docs/NUMERICS.md)"},
      {"sizes", [](Model& m) { m.variables[0].upper.resize(2); }, "variables 'x': lower has 3 entries, upper 2"},
      {"mask", [](Model& m) { m.variables[0].integer = {true}; }, "variables 'x': integer has 1 entry, the bounds 3"},
      {"no integer", [](Model& m) { m.variables[0].lower[1] = 0.2; m.variables[0].upper[1] = 0.8; },
       "variables 'x': integer coordinate 1 has no integer in [0.2, 0.8]"},
      {"shared name", [](Model& m) { m.networks[1].name = std::string(1, 'z'); },  // (GCC 12's -Wrestrict on = "z")
       "network 'z': the name is already used by variables 'z'"},
      {"bad name", [](Model& m) { m.variables[1].name = "z[0]"; },
       "variables 'z[0]': the name must start with a letter or '_' and hold only letters, digits, '_', '.' or '-'"},
      {"input size", [](Model& m) { m.networks[0].input = {0}; },
       "network 'deep': input has 1 entry, its network 2 inputs"},
      {"input index", [](Model& m) { m.networks[0].input = {0, 4}; },
       "network 'deep': input 1 is variable 4, outside the 4 variables"},
      {"null network", [](Model& m) { m.networks[2].network = nullptr; }, "network 'linear': no network given"},
      {"no terms", [](Model& m) { m.constraints[0].expr.terms.clear(); }, "constraint 0: no terms"},
      {"output index", [](Model& m) { m.constraints[2].expr.terms[1].ref = R::output(1, 4); },
       "constraint 2 ('tie'): term 1 refers to output 4 of network 'shallow', which has 1 output"},
      {"block index", [](Model& m) { m.constraints[1].expr.terms[1].ref = R::variable(2, 0); },
       "constraint 1: term 1 refers to variable block 2 of 2"},
      {"coefficient", [&](Model& m) { m.objective.terms[1].coefficient = inf; },
       "objective: term 1 (z[0]) has a coefficient that is not finite"},
      {"rhs", [&](Model& m) { m.constraints[0].rhs = -inf; }, "constraint 0: the right-hand side is not finite"},
      {"no variables", [](Model& m) { m = Model{}; }, "the model has no variables"},
  };
  for (const BadModel& c : cases) {
    SCOPED_TRACE(c.what);
    Model m = mixed_model();
    c.edit(m);
    expect_error(m, c.message);
  }
}

TEST(ModelEvaluate, ReportsValuesAndViolations) {
  const Model m = mixed_model();
  Eigen::VectorXd v(4);
  v << 0.5, 1.0, 0.25, 1.0;
  const ModelPoint p = evaluate(m, v);
  ASSERT_EQ(p.variables.size(), 2u);
  EXPECT_EQ(p.variables[0], Eigen::Vector3d(0.5, 1.0, 0.25));
  EXPECT_EQ(p.variables[1], Eigen::VectorXd::Constant(1, 1.0));
  ASSERT_EQ(p.outputs.size(), 3u);
  EXPECT_EQ(p.outputs[0], m.networks[0].network->forward(Eigen::Vector2d(0.25, 0.5)));
  EXPECT_EQ(p.outputs[1], m.networks[1].network->forward(Eigen::Vector3d(1.0, 1.0, 1.0)));
  EXPECT_DOUBLE_EQ(p.objective, p.outputs[0][0] - 0.1 + 0.5 * p.outputs[1][0] + 3.0);
  const double tie = std::abs(p.outputs[2][0] - p.outputs[1][0] - 0.25);
  EXPECT_DOUBLE_EQ(p.max_violation, std::max(tie, std::max(0.0, -3.0 - 2.0 * p.outputs[0][1] - 1.0)));
  v[1] = 0.5;  // x[1] is integer
  EXPECT_GE(evaluate(m, v).max_violation, 0.5);
  v[1] = 1.0;
  v[3] = 6.0;  // z <= 5
  EXPECT_GE(evaluate(m, v).max_violation, 1.0);
  v[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(evaluate(m, v).max_violation, std::numeric_limits<double>::infinity());
}

// The composite's outputs are [f_deep(x2, x0); f_shallow(z, x1, z); f_linear(x); z] (z alone has a variable
// term in the objective or an output row), up to the rounding of the carried relu(v - L) + L.
TEST(ModelReduction, CompositeEqualsTheForwardPassesOfItsNetworks) {
  const Model m = mixed_model();
  const ReducedModel r = reduce(m);
  ASSERT_FALSE(r.plain());
  EXPECT_EQ(r.composite->input_dim(), 4);
  EXPECT_EQ(r.composite->num_hidden_layers(), 2);
  EXPECT_EQ(r.composite->output_dim(), 2 + 1 + 2 + 1);
  EXPECT_EQ(r.variables_offset, 5);
  EXPECT_EQ(r.output_variables, std::vector<int>{3});
  std::mt19937_64 rng(3);
  for (int sample = 0; sample < 200; ++sample) {
    const Eigen::VectorXd v = random_point(r.domain, rng);
    const Eigen::VectorXd y = r.composite->forward(v);
    const ModelPoint p = evaluate(m, v);
    for (int k = 0; k < 3; ++k)
      EXPECT_LE((r.network_outputs(y, k) - p.outputs[k]).cwiseAbs().maxCoeff(), 1e-13) << "network " << k;
    EXPECT_LE(std::abs(y[5] - v[3]), 1e-15);
    EXPECT_NEAR(r.objective.value(y), p.objective, 1e-13);
  }
}

// The networks sit side by side in the composite's layers, beside one-weight carry rows: a layer is stored sparse
// when at most a quarter of its weights are nonzero, with exactly those nonzeros, and equals its dense form.
TEST(ModelReduction, CompositeLayersAreSparseWhenMostlyZero) {
  const ReducedModel r = reduce(mixed_model());
  int sparse = 0;
  for (const DenseLayer& layer : r.composite->layers()) {
    const Eigen::MatrixXd dense = layer.weights.to_dense();
    const Eigen::Index nonzeros = (dense.array() != 0.0).count();
    EXPECT_EQ(layer.weights.is_sparse(), nonzeros <= dense.size() / 4);
    if (layer.weights.is_sparse()) EXPECT_EQ(layer.weights.stored(), nonzeros);
    EXPECT_EQ(layer.weights, Weights(dense));
    sparse += layer.weights.is_sparse();
  }
  EXPECT_GT(sparse, 0);
}

int unstable_alone(const Model& m, const Domain& box_of_v) {
  int alone = 0;
  for (const NetworkUse& use : m.networks) {
    Domain box = Domain::box(Eigen::VectorXd(use.input.size()), Eigen::VectorXd(use.input.size()));
    for (std::size_t j = 0; j < use.input.size(); ++j) {
      box.lower[static_cast<Eigen::Index>(j)] = box_of_v.lower[use.input[j]];
      box.upper[static_cast<Eigen::Index>(j)] = box_of_v.upper[use.input[j]];
    }
    alone += interval_bounds(*use.network, box).num_unstable();
  }
  return alone;
}

// The carried neurons are stable under interval arithmetic, and a network that starts late sees the same
// input box as alone: the composite has exactly its networks' unstable neurons, or fewer when a network reads
// one variable twice (its two columns merge into one, which interval arithmetic bounds more tightly).
TEST(ModelReduction, AddsNoUnstableNeuron) {
  Model m = mixed_model();
  m.networks[1].input = {3, 1, 0};
  const ReducedModel r = reduce(m);
  const NeuronBounds bounds = interval_bounds(*r.composite, r.domain);
  EXPECT_EQ(bounds.num_unstable(), unstable_alone(m, r.domain));
  // The carried v (all four: the late networks read x and z) are the last 4 neurons of each hidden layer, active
  // by a margin under every bound method.
  for (BoundMethod method : {BoundMethod::kInterval, BoundMethod::kSymbolic, BoundMethod::kLp}) {
    const NeuronBounds b = compute_bounds(*r.composite, r.domain, {method, 1}, Deadline());
    for (int layer = 0; layer < 2; ++layer)
      EXPECT_GE(b.lower[layer].tail(4).minCoeff(), 0.9) << bound_method_name(method);
  }
  const Model twice = mixed_model();
  const ReducedModel t = reduce(twice);
  EXPECT_LE(interval_bounds(*t.composite, t.domain).num_unstable(), unstable_alone(twice, t.domain));
}

TEST(ModelReduction, ConstraintsBecomeDomainRowsAndOutputRows) {
  const Model m = mixed_model();
  const ReducedModel r = reduce(m);
  // x[0] - z[0] + 0.5 <= 2 over v; integer x[1] keeps [0, 1].
  ASSERT_EQ(r.domain.num_rows(), 1);
  EXPECT_EQ(Eigen::RowVector4d(r.domain.A.row(0)), Eigen::RowVector4d(1, 0, 0, -1));
  EXPECT_EQ(r.domain.b[0], 1.5);
  EXPECT_EQ(r.integer, (std::vector<bool>{false, true, false, false}));
  // 2 deep[1] + z[0] >= -3 as one row, the equality as two.
  ASSERT_EQ(r.output_rows.rows(), 3);
  Eigen::VectorXd first = Eigen::VectorXd::Zero(6);
  first[1] = -2.0;
  first[5] = -1.0;
  EXPECT_EQ(Eigen::VectorXd(r.output_rows.row(0).transpose()), first);
  EXPECT_EQ(r.output_rhs[0], 3.0);
  Eigen::VectorXd tie = Eigen::VectorXd::Zero(6);
  tie[3] = 1.0;
  tie[2] = -1.0;
  EXPECT_EQ(Eigen::VectorXd(r.output_rows.row(1).transpose()), tie);
  EXPECT_EQ(Eigen::VectorXd(r.output_rows.row(2).transpose()), -tie);
  EXPECT_EQ(r.output_rhs.tail(2), Eigen::Vector2d(0.25, -0.25));
  // At random points the rows hold exactly where the model's constraints do.
  std::mt19937_64 rng(5);
  for (int sample = 0; sample < 100; ++sample) {
    Eigen::VectorXd v = random_point(r.domain, rng);
    v[1] = std::round(v[1]);
    const double rows = std::max(r.domain.max_violation(v), r.output_violation(r.composite->forward(v)));
    EXPECT_NEAR(rows, evaluate(m, v).max_violation, 1e-12);
  }
}

// Only what a late network reads or y emits is carried: one deep network over x with a cost on x[2] carries
// x[2] alone; a shallow network reading x[0] adds x[0] to the carried ones but not to y.
TEST(ModelReduction, CarriesOnlyWhatIsReadLater) {
  Model m;
  m.variables = {block("x", {0, 0, -1}, {1, 1, 1})};
  m.networks = {{"deep", shared(random_network(3, {4, 5}, 1, 21)), {0, 1, 2}, ""}};
  m.objective = expr({{Reference::output(0, 0), 1.0}, {Reference::variable(0, 2), -0.5}});
  ReducedModel r = reduce(m);
  EXPECT_EQ(r.composite->hidden_width(0), 4 + 1);
  EXPECT_EQ(r.composite->hidden_width(1), 5 + 1);
  EXPECT_EQ(r.composite->output_dim(), 2);
  EXPECT_EQ(r.output_variables, std::vector<int>{2});
  m.networks.push_back({"shallow", shared(random_network(1, {2}, 1, 22)), {0}, ""});
  r = reduce(m);
  EXPECT_EQ(r.composite->hidden_width(0), 4 + 2);
  EXPECT_EQ(r.composite->hidden_width(1), 5 + 2 + 2);
  EXPECT_EQ(r.composite->output_dim(), 3);
  std::mt19937_64 rng(8);
  for (int sample = 0; sample < 50; ++sample) {
    const Eigen::VectorXd v = random_point(r.domain, rng);
    const Eigen::VectorXd y = r.composite->forward(v);
    const ModelPoint p = evaluate(m, v);
    EXPECT_NEAR(y[0], p.outputs[0][0], 1e-13);
    EXPECT_NEAR(y[1], p.outputs[1][0], 1e-13);
    EXPECT_NEAR(y[2], v[2], 1e-15);
  }
  // A network that only permutes or skips inputs needs no carried neuron and no variable in y.
  Model permuted;
  permuted.variables = {block("x", {0, 0, -1}, {1, 1, 1})};
  permuted.networks = {{"f", shared(random_network(2, {3}, 1, 23)), {2, 0}, ""}};
  permuted.objective = expr({{Reference::output(0, 0), 1.0}});
  const ReducedModel q = reduce(permuted);
  EXPECT_FALSE(q.plain());
  EXPECT_EQ(q.composite->hidden_width(0), 3);
  EXPECT_EQ(q.composite->output_dim(), 1);
  EXPECT_EQ(q.composite->forward(Eigen::Vector3d(0.25, 0.5, -0.5)),
            permuted.networks[0].network->forward(Eigen::Vector2d(-0.5, 0.25)));
}

// c - x0 - 2 x1 == 0 is solved for c, which no network reads, though x1 has the larger coefficient: x keeps its
// box for the bounds of f's neurons.
TEST(ModelReduction, EliminatesAVariableNoNetworkReadsFirst) {
  using R = Reference;
  Model m;
  m.variables = {block("x", {0, 0}, {1, 1}), block("c", {0}, {5})};
  m.networks = {{"f", shared(random_network(2, {3}, 1, 71)), {0, 1}, ""}};
  m.constraints = {testing::make_constraint(
      {{R::variable(1, 0), 1.0}, {R::variable(0, 0), -1.0}, {R::variable(0, 1), -2.0}}, ConstraintSense::kEqual, 0.0)};
  m.objective = expr({{R::output(0, 0), 1.0}, {R::variable(1, 0), -0.1}});
  const ReducedModel r = reduce(m);
  EXPECT_EQ(r.domain.lower, Eigen::Vector2d(0, 0));
  EXPECT_EQ(r.domain.upper, Eigen::Vector2d(1, 1));
  EXPECT_EQ(Eigen::MatrixXd(r.input_map), (Eigen::Matrix<double, 3, 2>() << 1, 0, 0, 1, 1, 2).finished());
  // A variable with a coefficient below 1e-3 of the largest is no pivot: 1e-4 c == x0 is solved for x0.
  m.constraints[0] =
      testing::make_constraint({{R::variable(1, 0), 1e-4}, {R::variable(0, 0), -1.0}}, ConstraintSense::kEqual, 0.0);
  EXPECT_EQ(Eigen::MatrixXd(reduce(m).input_map), (Eigen::Matrix<double, 3, 2>() << 0, 1e-4, 1, 0, 0, 1).finished());
}

TEST(ModelReduction, IntegerBoundsRoundInwards) {
  Model m;
  m.variables = {block("n", {-0.5, 0.2}, {2.7, 3.0}, {true, true}), block("c", {0.5}, {0.7})};
  m.networks = {{"f", shared(random_network(3, {3}, 1, 4)), {0, 1, 2}, ""}};
  m.objective = expr({{Reference::output(0, 0), 1.0}});
  const ReducedModel r = reduce(m);
  EXPECT_EQ(r.domain.lower, Eigen::Vector3d(0.0, 1.0, 0.5));
  EXPECT_EQ(r.domain.upper, Eigen::Vector3d(2.0, 3.0, 0.7));
  EXPECT_TRUE(r.has_integers());
}

// One network over all the variables, constraints on variables alone or on outputs alone, an objective on the
// outputs: the problem reluopt has always solved, reduced to itself.
TEST(ModelReduction, OneNetworkOverItsInputIsNotPadded) {
  Model m;
  m.variables = {block("x", {0, -1}, {1, 1})};
  m.networks = {{"f", shared(random_network(2, {4, 4}, 3, 9)), {0, 1}, ""}};
  m.constraints = {{expr({{Reference::variable(0, 0), 1.0}, {Reference::variable(0, 1), 1.0}}),
                    ConstraintSense::kLessEqual, 0.5, ""},
                   {expr({{Reference::variable(0, 0), 1.0}, {Reference::variable(0, 1), -1.0}}),
                    ConstraintSense::kGreaterEqual, -0.8, ""},
                   {expr({{Reference::output(0, 2), 1.0}}), ConstraintSense::kLessEqual, 0.1, ""}};
  m.objective = expr({{Reference::output(0, 0), 2.0}, {Reference::output(0, 1), -1.0}}, 1.0);
  m.sense = Sense::kMinimize;
  const ReducedModel r = reduce(m);
  ASSERT_TRUE(r.plain());
  EXPECT_EQ(r.composite.get(), m.networks[0].network.get());
  EXPECT_EQ(Eigen::MatrixXd(r.input_map), Eigen::Matrix2d::Identity());
  EXPECT_EQ(r.input_offset, Eigen::Vector2d::Zero());
  EXPECT_EQ(r.domain.num_rows(), 2);
  EXPECT_EQ(r.output_rows.rows(), 1);
  EXPECT_EQ(r.objective.weights, Eigen::Vector3d(2.0, -1.0, 0.0));
  EXPECT_EQ(r.objective.constant, 1.0);
  EXPECT_EQ(r.objective.sense, Sense::kMinimize);
  // A variable term in the objective, or an input that is not the whole of v, needs the padded composite.
  Model variable_term = m;
  variable_term.objective.terms.push_back({Reference::variable(0, 1), 1.0});
  EXPECT_FALSE(reduce(variable_term).plain());
  Model permuted = m;
  permuted.networks[0].input = {1, 0};
  EXPECT_FALSE(reduce(permuted).plain());
  // An equality eliminates a variable: the composite reads the one left.
  Model equality = m;
  equality.constraints[0].sense = ConstraintSense::kEqual;
  const ReducedModel e = reduce(equality);
  EXPECT_FALSE(e.plain());
  EXPECT_EQ(e.composite->input_dim(), 1);
}

// z - 0.5 x0 - 2 x1 == -1 is solved for z (the continuous variable of largest coefficient: x1 is integer);
// 2 n0 + 3 n1 <= 7 stays a row; z's bounds become two rows over u = (x0, x1, n).
TEST(ModelReduction, EqualitiesEliminateContinuousVariables) {
  using R = Reference;
  Model m;
  m.variables = {block("x", {0, 0}, {1, 1}, {false, true}), block("z", {-1}, {2}),
                 block("n", {0, 0}, {3, 3}, {true, true})};
  m.networks = {{"f", shared(random_network(3, {4, 3}, 1, 61)), {0, 2, 3}, ""},
                {"g", shared(random_network(2, {3}, 1, 62)), {2, 4}, ""}};
  m.constraints = {{expr({{R::variable(1, 0), 1.0}, {R::variable(0, 0), -0.5}, {R::variable(0, 1), -2.0}}),
                    ConstraintSense::kEqual, -1.0, ""},
                   {expr({{R::variable(2, 0), 2.0}, {R::variable(2, 1), 3.0}}), ConstraintSense::kLessEqual, 7.0, ""}};
  m.objective = expr({{R::output(0, 0), 1.0}, {R::output(1, 0), 1.0}, {R::variable(1, 0), 0.5}});
  const ReducedModel r = reduce(m);
  ASSERT_EQ(r.domain.dim(), 4);
  EXPECT_EQ(r.integer, (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(r.composite->input_dim(), 4);
  Eigen::MatrixXd map = Eigen::MatrixXd::Zero(5, 4);
  map(0, 0) = 1; map(1, 1) = 1; map(2, 0) = 0.5; map(2, 1) = 2; map(3, 2) = 1; map(4, 3) = 1;
  EXPECT_EQ(Eigen::MatrixXd(r.input_map), map);
  EXPECT_EQ(r.input_offset, (Eigen::VectorXd(5) << 0, 0, -1, 0, 0).finished());
  ASSERT_EQ(r.domain.num_rows(), 3);  // 2 n0 + 3 n1 <= 7, then -1 <= 0.5 x0 + 2 x1 - 1 <= 2
  EXPECT_EQ(Eigen::RowVector4d(r.domain.A.row(0)), Eigen::RowVector4d(0, 0, 2, 3));
  EXPECT_EQ(Eigen::RowVector4d(r.domain.A.row(1)), Eigen::RowVector4d(0.5, 2, 0, 0));
  EXPECT_EQ(r.domain.b[1], 3.0);
  EXPECT_EQ(Eigen::RowVector4d(r.domain.A.row(2)), Eigen::RowVector4d(-0.5, -2, 0, 0));
  EXPECT_EQ(r.domain.b[2], 0.0);
  std::mt19937_64 rng(9);
  for (int sample = 0; sample < 100; ++sample) {
    Eigen::VectorXd u = random_point(r.domain, rng);
    u[1] = std::round(u[1]);
    u[2] = sample % 3;  // within 2 n0 + 3 n1 <= 7
    u[3] = 1.0;
    const Eigen::VectorXd v = r.variables(u);
    const Eigen::VectorXd y = r.composite->forward(u);
    const ModelPoint p = evaluate(m, v);
    EXPECT_NEAR(r.objective.value(y), p.objective, 1e-13);
    EXPECT_NEAR(std::max(r.domain.max_violation(u), 0.0), std::max(0.0, std::max(-1.0 - v[2], v[2] - 2.0)), 1e-15);
    if (r.domain.max_violation(u) == 0.0) {
      EXPECT_LE(p.max_violation, 1e-15);
    }
  }
}

// A choice of one option, n0 + n1 + n2 == 1 over binaries, is solved for n0 (no network reads it; f reads n1, n2
// and x), and n0 - m == 0 then for m (2 - ... : the integer quotients); at every integer u the eliminated variables
// are integers and the choice holds exactly. 2 n1 + 4 m == 3 (-2 n1 - 4 n2 == -1 once m is eliminated) can be
// solved for no variable with whole quotients: refused, naming the constraint.
TEST(ModelReduction, AnEqualityOverIntegersIsSolvedForAVariableWhoseCoefficientDividesTheRest) {
  using R = Reference;
  Model m;
  m.variables = {block("n", {0, 0, 0}, {1, 1, 1}, {true, true, true}), block("x", {-1}, {1}),
                 block("m", {0}, {5}, {true})};
  m.networks = {{"f", shared(random_network(3, {4}, 1, 81)), {1, 2, 3}, ""}};
  m.constraints = {
      testing::make_constraint({{R::variable(0, 0), 1.0}, {R::variable(0, 1), 1.0}, {R::variable(0, 2), 1.0}},
                               ConstraintSense::kEqual, 1.0),
      testing::make_constraint({{R::variable(2, 0), 3.0}, {R::variable(0, 0), -3.0}}, ConstraintSense::kEqual, 0.0)};
  m.objective = expr({{R::output(0, 0), 1.0}, {R::variable(2, 0), 0.5}});
  const ReducedModel r = reduce(m);
  ASSERT_EQ(r.domain.dim(), 3);  // u = (n1, n2, x)
  EXPECT_EQ(r.integer, (std::vector<bool>{true, true, false}));
  Eigen::MatrixXd map = Eigen::MatrixXd::Zero(5, 3);
  map(0, 0) = -1; map(0, 1) = -1; map(1, 0) = 1; map(2, 1) = 1; map(3, 2) = 1; map(4, 0) = -1; map(4, 1) = -1;
  EXPECT_EQ(Eigen::MatrixXd(r.input_map), map);
  EXPECT_EQ(r.input_offset, (Eigen::VectorXd(5) << 1, 0, 0, 0, 1).finished());
  int feasible = 0;
  for (int n1 = 0; n1 <= 1; ++n1)
    for (int n2 = 0; n2 <= 1; ++n2) {
      const Eigen::Vector3d u(n1, n2, 0.25);
      const ModelPoint p = evaluate(m, r.variables(u));
      const bool inside = r.domain.max_violation(u) <= 0.0;
      EXPECT_EQ(inside, n1 + n2 <= 1) << n1 << n2;
      if (inside) EXPECT_EQ(p.max_violation, 0.0) << n1 << n2;
      feasible += inside;
    }
  EXPECT_EQ(feasible, 3);
  m.constraints.push_back(
      testing::make_constraint({{R::variable(0, 1), 2.0}, {R::variable(2, 0), 4.0}}, ConstraintSense::kEqual, 3.0));
  m.constraints.back().name = "lattice";
  try {
    reduce(m);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("constraint 2 ('lattice'): an equality over integer variables alone"),
              std::string::npos) << e.what();
  }
}

// An equality on the last variable left fixes its box instead of eliminating it: u keeps one coordinate, of width
// zero, and maps to the one point. The same equality outside the box, or off the integers for an integer
// variable, leaves a domain that no u meets (a row 0 <= -1).
TEST(ModelReduction, AnEqualityOnTheLastVariableFixesItsBox) {
  using R = Reference;
  Model m;
  m.variables = {block("x", {0, -1}, {1, 1}), block("n", {0}, {3}, {true})};
  m.networks = {{"f", shared(random_network(3, {4}, 1, 71)), {0, 1, 2}, ""}};
  m.objective = expr({{R::output(0, 0), 1.0}});
  const auto with_last = [&](double coefficient, double rhs) {
    Model fixed = m;
    fixed.constraints = {
        testing::make_constraint({{R::variable(0, 0), 1.0}, {R::variable(0, 1), 2.0}}, ConstraintSense::kEqual, 0.5),
        testing::make_constraint({{R::variable(0, 1), 1.0}}, ConstraintSense::kEqual, -0.25),
        testing::make_constraint({{R::variable(1, 0), coefficient}}, ConstraintSense::kEqual, rhs)};
    return reduce(fixed);
  };
  const ReducedModel r = with_last(3.0, 6.0);
  ASSERT_EQ(r.domain.dim(), 1);
  EXPECT_EQ(r.integer, (std::vector<bool>{true}));
  EXPECT_EQ(r.domain.lower[0], 2.0);
  EXPECT_EQ(r.domain.upper[0], 2.0);
  EXPECT_EQ(r.variables(Eigen::VectorXd::Constant(1, 2.0)), Eigen::Vector3d(1.0, -0.25, 2.0));
  EXPECT_LE(r.domain.max_violation(Eigen::VectorXd::Constant(1, 2.0)), 0.0);
  for (const auto& [coefficient, rhs] : {std::pair{3.0, 5.0}, std::pair{1.0, 4.0}, std::pair{1.0, -1.0}}) {
    const ReducedModel none = with_last(coefficient, rhs);
    EXPECT_GT(none.domain.max_violation(Eigen::VectorXd::Constant(1, none.domain.lower[0])), 0.0) << rhs;
  }
}

TEST(ModelReduction, ModelWithoutNetworksIsTheIdentity) {
  Model m;
  m.variables = {block("x", {0, 1}, {2, 3}, {true, false})};
  m.objective = expr({{Reference::variable(0, 1), 1.0}});
  const ReducedModel r = reduce(m);
  EXPECT_EQ(r.composite->num_hidden_layers(), 0);
  EXPECT_EQ(r.composite->forward(Eigen::Vector2d(1.0, 2.5)), Eigen::Vector2d(1.0, 2.5));
  EXPECT_EQ(r.objective.weights, Eigen::Vector2d(0.0, 1.0));
}

TEST(ModelReduction, CarryShiftKeepsThePreActivationPositive) {
  for (double lower : {0.0, 3.0, -0.3, -7.25, 1e15, -1e15 + 1, -123456789.123})
    EXPECT_GE(lower - carry_shift(lower), 0.9) << lower;
  EXPECT_GE(-1e15 - carry_shift(-1e15), 0.0);
}

}  // namespace
}  // namespace reluopt
