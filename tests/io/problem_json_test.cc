// Problem files (src/io/problem_json.cc, docs/PROBLEM.md): the fixture tests/fixtures/problem/pricing.json, the
// round trip through model_to_json, and a one-line message naming the entry and the key for every error.
#include "io/problem_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "core/model_reduction.h"
#include "reluopt/error.h"
#include "reluopt/model.h"
#include "reluopt/model_io.h"
#include "reluopt/model_io.h"

namespace reluopt {
namespace {

using nlohmann::json;

const std::string kDirectory = std::string(RELUOPT_FIXTURES_DIR) + "/problem";
const std::string kPricing = kDirectory + "/pricing.json";

json pricing_json() {
  std::ifstream in(kPricing);
  return json::parse(in);
}

Model read_text(const std::string& text) {
  std::istringstream in(text);
  return detail::read_problem_json(in, "p.json", kDirectory);
}

TEST(ProblemJson, ReadsTheFixture) {
  const Model m = read_problem_json(kPricing);
  EXPECT_EQ(m.sense, Sense::kMaximize);
  ASSERT_EQ(m.variables.size(), 2u);
  EXPECT_EQ(m.variables[0].name, "x");
  EXPECT_EQ(m.variables[0].lower, Eigen::Vector3d(0, 0, 1));
  EXPECT_EQ(m.variables[0].upper, Eigen::Vector3d(5, 1, 9));
  EXPECT_EQ(m.variables[0].integer, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(m.variables[1].lower, Eigen::VectorXd::Zero(1));  // a number for a block of one
  EXPECT_EQ(m.variables[1].upper, Eigen::VectorXd::Constant(1, 100.0));
  ASSERT_EQ(m.networks.size(), 3u);
  EXPECT_EQ(m.networks[0].input, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(m.networks[1].input, (std::vector<int>{0, 2}));
  EXPECT_EQ(m.networks[2].input, (std::vector<int>{1, 3}));
  EXPECT_EQ(m.networks[1].source, kDirectory + "/risk.nnet");  // relative to the problem file
  EXPECT_EQ(m.networks[1].network, m.networks[2].network);       // one model file is read once
  const Network demand = read_model(kDirectory + "/demand.nnet").network;
  EXPECT_EQ(m.networks[0].network->forward(Eigen::Vector3d(1, 0.5, 2)), demand.forward(Eigen::Vector3d(1, 0.5, 2)));
  ASSERT_EQ(m.constraints.size(), 3u);
  EXPECT_EQ(m.constraints[0].name, "risk limit");
  EXPECT_EQ(m.constraints[0].sense, ConstraintSense::kLessEqual);
  EXPECT_EQ(m.constraints[0].rhs, 0.2);
  EXPECT_EQ(m.constraints[0].expr.terms[0].ref, Reference::output(1, 0));
  EXPECT_EQ(m.constraints[1].sense, ConstraintSense::kEqual);
  EXPECT_EQ(m.constraints[2].sense, ConstraintSense::kGreaterEqual);
  EXPECT_EQ(m.objective.terms.size(), 3u);
  EXPECT_EQ(m.objective.constant, 2.0);
  // The value at a point is the forward passes' and the reduction agrees with it.
  const Eigen::Vector4d v(2, 0.5, 3, 5);
  const ModelPoint p = evaluate(m, v);
  EXPECT_DOUBLE_EQ(p.objective, p.outputs[0][0] - 0.3 * 2 - 0.01 * 5 + 2);
  // x[0] + x[2] - z[0] == 0 eliminates z[0]: u = x, and z's bounds are two rows 0 <= x[0] + x[2] <= 100.
  const ReducedModel r = reduce(m);
  const Eigen::Vector3d u(2, 0.5, 3);
  EXPECT_EQ(r.variables(u), v);
  EXPECT_NEAR(r.objective.value(r.composite->forward(u)), p.objective, 1e-12);
  EXPECT_EQ(r.domain.num_rows(), 2);
  EXPECT_EQ(r.output_rows.rows(), 2);
}

// model_to_json then the reader give the model back; written next to the models or elsewhere.
TEST(ProblemJson, RoundTrip) {
  const Model m = read_problem_json(kPricing);
  for (const std::string& directory : {kDirectory, std::string(RELUOPT_FIXTURES_DIR)}) {
    SCOPED_TRACE(directory);
    const std::string text = model_to_json(m, directory);
    std::istringstream in(text);
    const Model back = detail::read_problem_json(in, "written.json", directory);
    EXPECT_EQ(model_to_json(back, directory), text);
    ASSERT_EQ(back.networks.size(), 3u);
    for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(back.networks[k].input, m.networks[k].input);
    EXPECT_EQ(back.variables[0].integer, m.variables[0].integer);
    const Eigen::Vector4d v(1, 0.25, 2, 3);
    EXPECT_EQ(evaluate(back, v).objective, evaluate(m, v).objective);
    EXPECT_EQ(evaluate(back, v).max_violation, evaluate(m, v).max_violation);
  }
  const json written = json::parse(model_to_json(m, std::string(RELUOPT_FIXTURES_DIR)));
  EXPECT_EQ(written["networks"][0]["model"], "problem/demand.nnet");
  const json elsewhere = json::parse(model_to_json(m, kDirectory + "/elsewhere"));  // absolute outside
  EXPECT_EQ(elsewhere["networks"][0]["model"], std::filesystem::absolute(kDirectory + "/demand.nnet").string());
  EXPECT_EQ(written["networks"][0]["input"], "x");
  EXPECT_EQ(written["networks"][1]["input"], json::parse(R"({"name": "x", "indices": [0, 2]})"));
  EXPECT_EQ(written["networks"][2]["input"], json::parse(R"(["x[1]", "z[0]"])"));
  EXPECT_EQ(written["constraints"][1]["=="], 0.0);
}

// A max-min objective is read term by term, written back as read, and evaluate() takes max_k min_l.
TEST(ProblemJson, MaxMinObjectiveRoundTrip) {
  json doc = pricing_json();
  doc["objective"] = json::parse(R"({"disjuncts": [[{"terms": {"demand[0]": 1, "x[0]": -0.3}, "constant": 2},
                                                    {"terms": {"spread[0]": 2}}],
                                                   [{"terms": {"z[0]": -0.01}, "constant": 1}]]})");
  const Model m = read_text(doc.dump());
  ASSERT_EQ(m.objective_disjuncts.size(), 2u);
  EXPECT_EQ(m.objective_disjuncts[0].size(), 2u);
  EXPECT_EQ(m.objective_disjuncts[0][0].constant, 2.0);
  const std::string text = model_to_json(m, kDirectory);
  std::istringstream in(text);
  const Model back = detail::read_problem_json(in, "written.json", kDirectory);
  EXPECT_EQ(model_to_json(back, kDirectory), text);
  const Eigen::Vector4d v(1, 0.25, 2, 3);
  const ModelPoint p = evaluate(back, v);
  const double a = p.outputs[0][0] - 0.3 * v[0] + 2.0, b = 2.0 * p.outputs[2][0], c = -0.01 * v[3] + 1.0;
  EXPECT_DOUBLE_EQ(p.objective, std::max(std::min(a, b), c));
}

TEST(ProblemJson, NetworkWithoutAFileCannotBeWritten) {
  Model m = read_problem_json(kPricing);
  m.networks[2].source.clear();
  try {
    model_to_json(m);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "network 'spread' has no model file to write the problem with");
  }
}

TEST(ProblemJson, MissingFileIsNamed) {
  try {
    read_problem_json(kDirectory + "/nope.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot open problem file '" + kDirectory + "/nope.json'", 0), 0u)
        << e.what();
  }
}

struct BadFile {
  std::string what;
  std::function<void(json&)> edit;
  std::string message;  // after "problem file 'p.json': "
};

TEST(ProblemJson, EveryErrorNamesItsEntryAndKey) {
  const std::string constraint_keys = "(the keys are 'name', 'terms', '<=', '>=', '==')";
  const std::vector<BadFile> cases{
      {"top-level key", [](json& d) { d["objectve"] = d["objective"]; },
       "the top level: unknown key 'objectve' (the keys are 'sense', 'variables', 'networks', 'constraints', "
       "'objective')"},
      {"no sense", [](json& d) { d.erase("sense"); }, "the top level: key 'sense' is missing"},
      {"sense", [](json& d) { d["sense"] = "maximise"; },
       "the top level: key 'sense' must be \"max\" or \"min\", not \"maximise\""},
      {"no objective", [](json& d) { d.erase("objective"); }, "the top level: key 'objective' is missing"},
      {"variables", [](json& d) { d["variables"] = json::array(); },
       "the top level: key 'variables' must be a non-empty array"},
      {"networks", [](json& d) { d["networks"] = 3; }, "the top level: key 'networks' must be an array"},
      {"block key", [](json& d) { d["variables"][1]["lb"] = 0; },
       "variables[1]: unknown key 'lb' (the keys are 'name', 'size', 'lower', 'upper', 'integer')"},
      {"block name", [](json& d) { d["variables"][1].erase("name"); }, "variables[1]: key 'name' is missing"},
      {"no upper", [](json& d) { d["variables"][0].erase("upper"); }, "variables 'x': key 'upper' is missing"},
      {"length", [](json& d) { d["variables"][0]["upper"] = {5, 1}; },
       "variables 'x': key 'upper' has 2 entries, the block 3"},
      {"size", [](json& d) { d["variables"][1]["size"] = 0; },
       "variables 'z': key 'size' must be an integer from 1 to 1e8, not 0"},
      {"not a number", [](json& d) { d["variables"][0]["lower"][1] = "a"; },
       "variables 'x': entry 1 of key 'lower' is not a number: \"a\""},
      {"null", [](json& d) { d["variables"][1]["upper"] = nullptr; }, "variables 'z': key 'upper' is not finite: null"},
      {"crossed", [](json& d) { d["variables"][0]["lower"][0] = 6; },
       "variables 'x': lower 6 > upper 5 at coordinate 0"},
      {"integer", [](json& d) { d["variables"][0]["integer"] = {true}; },
       "variables 'x': key 'integer' must be true, false or an array of 3 booleans"},
      {"shared name", [](json& d) { d["networks"][1]["name"] = "z"; },
       "network 'z': the name is already used by variables 'z'"},
      {"network key", [](json& d) { d["networks"][0]["path"] = "a"; },
       "networks[0]: unknown key 'path' (the keys are 'name', 'model', 'input')"},
      {"no input", [](json& d) { d["networks"][0].erase("input"); }, "network 'demand': key 'input' is missing"},
      {"input block", [](json& d) { d["networks"][0]["input"] = "q"; },
       "network 'demand': key 'input': unknown variables 'q'"},
      {"input network", [](json& d) { d["networks"][1]["input"] = "demand"; },
       "network 'risk': key 'input': 'demand' is a network, not variables"},
      {"input index", [](json& d) { d["networks"][1]["input"]["indices"][1] = 3; },
       "network 'risk': key 'input': index 3 is outside variables 'x' (3 coordinates)"},
      {"input size", [](json& d) { d["networks"][1]["input"] = "x"; },
       "network 'risk': key 'input' gives 3 variables, model 'risk.nnet' takes 2 inputs"},
      {"input reference", [](json& d) { d["networks"][2]["input"][1] = "z"; },
       "network 'spread': key 'input': 'z' is not a reference such as \"x[0]\""},
      {"input output", [](json& d) { d["networks"][2]["input"][1] = "demand[0]"; },
       "network 'spread': key 'input': 'demand[0]' is not a variable"},
      {"unknown name", [](json& d) { d["constraints"][0]["terms"] = {{"rsk[0]", 1.0}}; },
       "constraint 0 ('risk limit'): unknown name 'rsk' in 'rsk[0]'"},
      {"reference", [](json& d) { d["constraints"][1]["terms"]["x0"] = 1.0; },
       "constraint 1: 'x0' is not a reference such as \"x[0]\""},
      {"empty reference", [](json& d) { d["constraints"][1]["terms"][""] = 1.0; },
       "constraint 1: '' is not a reference such as \"x[0]\""},
      {"sign", [](json& d) { d["constraints"][1]["terms"]["x[-1]"] = 1.0; },
       "constraint 1: 'x[-1]' is not a reference such as \"x[0]\""},
      {"outside", [](json& d) { d["constraints"][1]["terms"]["x[3]"] = 1.0; },
       "constraint 1: 'x[3]' is outside variables 'x' (3 coordinates)"},
      {"output outside", [](json& d) { d["objective"]["terms"]["demand[1]"] = 1.0; },
       "objective: 'demand[1]' is outside network 'demand' (1 output)"},
      {"coefficient", [](json& d) { d["constraints"][1]["terms"]["x[0]"] = "1"; },
       "constraint 1: term 'x[0]': coefficient is not a number: \"1\""},
      {"two senses", [](json& d) { d["constraints"][1][">="] = 0; },
       "constraint 1: needs exactly one of the keys '<=', '>=', '==' (it has 2)"},
      {"no sense", [](json& d) { d["constraints"][1].erase("=="); },
       "constraint 1: needs exactly one of the keys '<=', '>=', '==' (it has 0)"},
      {"constraint key", [constraint_keys](json& d) { d["constraints"][2]["<"] = 1; },
       "constraint 2: unknown key '<' " + constraint_keys},
      {"empty terms", [](json& d) { d["constraints"][2]["terms"] = json::object(); },
       "constraint 2: key 'terms' is empty"},
      {"terms", [](json& d) { d["constraints"][2]["terms"] = {1, 2}; },
       "constraint 2: key 'terms' must be an object such as {\"x[0]\": 1.5}"},
      {"objective key", [](json& d) { d["objective"]["weights"] = {1}; },
       "objective: unknown key 'weights' (the keys are 'terms', 'constant')"},
      {"constant", [](json& d) { d["objective"]["constant"] = "inf"; },
       "objective: key 'constant' is not finite: \"inf\""},
      {"terms and disjuncts", [](json& d) { d["objective"]["disjuncts"] = json::parse(R"([[{"terms": {}}]])"); },
       "objective: unknown key 'constant' (the keys are 'disjuncts')"},
      {"no disjunct", [](json& d) { d["objective"] = json::parse(R"({"disjuncts": []})"); },
       "objective: key 'disjuncts' must be a non-empty array of arrays of terms"},
      {"empty disjunct", [](json& d) { d["objective"] = json::parse(R"({"disjuncts": [[{"terms": {}}], []]})"); },
       "objective: disjunct 1: must be a non-empty array of {\"terms\": ..., \"constant\": ...}"},
      {"disjunct term key",
       [](json& d) { d["objective"] = json::parse(R"({"disjuncts": [[{"terms": {}}, {"weights": [1]}]]})"); },
       "objective: disjunct 0, term 1: unknown key 'weights' (the keys are 'terms', 'constant')"},
      {"disjunct reference",
       [](json& d) { d["objective"] = json::parse(R"({"disjuncts": [[{"terms": {"demand[2]": 1}}]]})"); },
       "objective: disjunct 0, term 0: 'demand[2]' is outside network 'demand' (1 output)"},
  };
  for (const BadFile& c : cases) {
    SCOPED_TRACE(c.what);
    json doc = pricing_json();
    c.edit(doc);
    try {
      read_text(doc.dump());
      ADD_FAILURE() << "no error, expected: " << c.message;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "problem file 'p.json': " + c.message);
    }
  }
}

TEST(ProblemJson, UnreadableModelAndMalformedJsonAreNamed) {
  json doc = pricing_json();
  doc["networks"][0]["model"] = "nope.nnet";
  try {
    read_text(doc.dump());
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string expected =
        "problem file 'p.json': network 'demand': key 'model': cannot open model file '" + kDirectory + "/nope.nnet'";
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
  }
  try {
    read_text("{\"sense\": \"max\",");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("malformed JSON in problem file 'p.json': ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace reluopt
