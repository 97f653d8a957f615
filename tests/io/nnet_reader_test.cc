// small.nnet and its expected raw-unit outputs are written by scripts/make_onnx_fixtures.py, which applies
// the NNet semantics step by step (normalize, run the normalized network, de-normalize).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/reader_test_util.h"
#include <nlohmann/json.hpp>

#include "reluopt/error.h"
#include "reluopt/model_io.h"

namespace reluopt {
namespace {

using testing::error_message;
using testing::TempFile;
using testing::to_vector;

const std::string kNnetDir = std::string(RELUOPT_FIXTURES_DIR) + "/nnet/";

const nlohmann::json& expected_small() {
  static const nlohmann::json expected = [] {
    std::ifstream in(kNnetDir + "expected.json");
    return nlohmann::json::parse(in).at("small.nnet");
  }();
  return expected;
}

void expect_matches_expected(const Network& network) {
  EXPECT_EQ(network.describe(), "3 -> 5 -> 4 -> 2");
  const nlohmann::json& inputs = expected_small().at("inputs");
  const nlohmann::json& outputs = expected_small().at("outputs");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Eigen::VectorXd want = to_vector(outputs[i]);
    const Eigen::VectorXd got = network.forward(to_vector(inputs[i]));
    ASSERT_EQ(got.size(), want.size());
    for (Eigen::Index j = 0; j < want.size(); ++j)
      EXPECT_NEAR(got[j], want[j], 1e-9 * std::max(1.0, std::abs(want[j])))
          << "input " << i << ", output " << j;
  }
}

std::string small_nnet_text() {
  std::ifstream in(kNnetDir + "small.nnet");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(NnetReader, FoldsNormalizationIntoRawUnitNetwork) {
  const LoadedModel model = read_nnet(kNnetDir + "small.nnet");
  EXPECT_EQ(model.format, "nnet");
  EXPECT_EQ(model.network.num_hidden_layers(), expected_small().at("num_hidden_layers").get<int>());
  expect_matches_expected(model.network);
}

TEST(NnetReader, ReturnsInputBounds) {
  const LoadedModel model = read_nnet(kNnetDir + "small.nnet");
  ASSERT_TRUE(model.input_bounds.has_value());
  EXPECT_EQ(model.input_bounds->description, "NNet input bounds");
  EXPECT_EQ(model.input_bounds->lower, to_vector(expected_small().at("input_lower")));
  EXPECT_EQ(model.input_bounds->upper, to_vector(expected_small().at("input_upper")));
  EXPECT_FALSE(model.input_bounds->has_rows());
}

TEST(NnetReader, ReadModelDispatchesOnExtensionIgnoringCase) {
  const TempFile copy("copy.NNet", small_nnet_text());
  const LoadedModel model = read_model(copy.path());
  EXPECT_EQ(model.format, "nnet");
  expect_matches_expected(model.network);
}

TEST(NnetReader, TruncatedFileNamesPathAndLine) {
  const std::string path = kNnetDir + "bad.nnet";
  const std::string message = error_message([&] { read_nnet(path); });
  EXPECT_NE(message.find("'" + path + "' line 22"), std::string::npos) << message;
  EXPECT_NE(message.find("ends early"), std::string::npos) << message;
  EXPECT_NE(message.find("layer 2"), std::string::npos) << message;
}

TEST(NnetReader, MalformedNumberNamesLine) {
  std::string text = small_nnet_text();
  text.replace(text.find("1.0,10.0,6.0"), 3, "1.0x");  // the input maximums, line 7
  const TempFile bad("bad_number.nnet", text);
  const std::string message = error_message([&] { read_nnet(bad.path()); });
  EXPECT_NE(message.find("line 7: '1.0x' is not a number"), std::string::npos) << message;
}

TEST(NnetReader, WrongCountNamesLine) {
  std::string text = small_nnet_text();
  text.replace(text.find("3,5,4,2,"), 8, "3,5,4,");  // layer sizes, line 4
  const TempFile bad("short_sizes.nnet", text);
  const std::string message = error_message([&] { read_nnet(bad.path()); });
  EXPECT_NE(message.find("line 4: expected the layer sizes (4 numbers), found 3"), std::string::npos)
      << message;
}

TEST(NnetReader, EmptyValueNamesLine) {
  std::string text = small_nnet_text();
  text.replace(text.find("0.25,5.0,"), 9, "0.25,,");  // the means, line 8
  const TempFile bad("empty_value.nnet", text);
  const std::string message = error_message([&] { read_nnet(bad.path()); });
  EXPECT_NE(message.find("line 8: empty value"), std::string::npos) << message;
}

TEST(NnetReader, TrailingDataIsRejected) {
  const TempFile bad("trailing.nnet", small_nnet_text() + "1.0,\n");
  const std::string message = error_message([&] { read_nnet(bad.path()); });
  EXPECT_NE(message.find("unexpected data after the last layer"), std::string::npos) << message;
}

TEST(NnetReader, MissingFileNamesPath) {
  const std::string path = kNnetDir + "missing.nnet";
  const std::string message = error_message([&] { read_nnet(path); });
  EXPECT_NE(message.find("cannot open model file '" + path + "'"), std::string::npos) << message;
}

}  // namespace
}  // namespace reluopt
