// The ONNX fixtures and their expected outputs are written by scripts/make_onnx_fixtures.py, which computes
// the outputs with its own numpy interpreter of the ONNX operators, independent of this reader.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/reader_test_util.h"
#include <nlohmann/json.hpp>

#include "reluopt/error.h"
#include "reluopt/model_io.h"

namespace reluopt {
namespace {

using testing::BadFixture;
using testing::error_message;
using testing::expect_forward_passes;
using testing::expect_one_line_with;
using testing::to_vector;

const std::string kOnnxDir = std::string(RELUOPT_FIXTURES_DIR) + "/onnx/";

// One file per exporter style or operator variant the reader accepts.
const std::vector<std::string> kGoodFixtures = {
    "gemm_transb_pytorch.onnx",                     // PyTorch: [1,d,1] input, Flatten, Gemm transB=1
    "gemm_alpha_beta_transA.onnx",                  // Gemm alpha/beta/transA, weight on the left, no C
    "matmul_add_weight_right_symbolic_batch.onnx",  // tf2onnx: symbolic batch, affine layers merged
    "matmul_weight_left.onnx",                      // W @ x on a column, Transpose, bias on the left
    "matlab_opset8_weights_as_inputs.onnx",         // MATLAB: weights among the graph inputs, opset 8
    "normalization_sub_div_mul.onnx",               // Sub/Div/Mul/Add by constants, c - y
    "reshape_squeeze_unsqueeze_opset11.onnx",       // axes as attributes
    "reshape_squeeze_unsqueeze_opset13.onnx",       // axes as inputs, Reshape 0/-1, [3,2] @ W, Flatten 0
    "constant_node.onnx",                           // weights, scale and shape from Constant nodes
    "identity.onnx",                                // Identity, 1-D input [d]
    "opset17_gemm.onnx",
    "double_weights.onnx",  // DOUBLE weights in double_data and raw_data
    "linear_only.onnx",     // no ReLU: one linear layer
    "multi_output.onnx",    // m = 3 outputs
};

const nlohmann::json& expected_outputs() {
  static const nlohmann::json expected = [] {
    std::ifstream in(kOnnxDir + "expected.json");
    return nlohmann::json::parse(in);
  }();
  return expected;
}

class GoodOnnxFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(GoodOnnxFixture, MatchesReferenceForwardPass) {
  const std::string file = GetParam();
  ASSERT_TRUE(expected_outputs().contains(file)) << file << " is missing from expected.json";
  const nlohmann::json& expected = expected_outputs().at(file);
  const Network network = read_onnx(kOnnxDir + file);

  // Affine maps with no ReLU between them are merged, so there is one hidden layer per Relu node.
  EXPECT_EQ(network.num_hidden_layers(), expected.at("num_hidden_layers").get<int>()) << network.describe();
  // Float weights are widened exactly to double, so both tolerances are loose; double files get the tight
  // one.
  const double tolerance = expected.at("weights") == "double" ? 1e-9 : 1e-5;
  expect_forward_passes(network, expected, tolerance);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoodOnnxFixture, ::testing::ValuesIn(kGoodFixtures),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.param.substr(0, param_info.param.find('.'));
                         });

TEST(OnnxReader, EveryFixtureWithExpectedOutputsIsTested) {
  for (const auto& [file, unused] : expected_outputs().items())
    EXPECT_NE(std::find(kGoodFixtures.begin(), kGoodFixtures.end(), file), kGoodFixtures.end()) << file;
}

TEST(OnnxReader, ShapesOfSpecialCases) {
  const Network linear = read_onnx(kOnnxDir + "linear_only.onnx");
  EXPECT_EQ(linear.num_hidden_layers(), 0);
  EXPECT_EQ(linear.describe(), "3 -> 2");
  // Three affine maps around two ReLUs: the two maps with no ReLU between them become one layer.
  EXPECT_EQ(read_onnx(kOnnxDir + "matmul_add_weight_right_symbolic_batch.onnx").describe(),
            "5 -> 8 -> 4 -> 3");
  EXPECT_EQ(read_onnx(kOnnxDir + "multi_output.onnx").output_dim(), 3);
  EXPECT_EQ(read_onnx(kOnnxDir + "gemm_transb_pytorch.onnx").input_dim(), 4);
}

class BadOnnxFixture : public ::testing::TestWithParam<BadFixture> {};

TEST_P(BadOnnxFixture, ThrowsErrorNamingTheCulprit) {
  const std::string path = kOnnxDir + GetParam().file;
  expect_one_line_with(error_message([&] { read_onnx(path); }), GetParam().words);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BadOnnxFixture,
    ::testing::Values(
        BadFixture{"unsupported_op.onnx",
                   {"unsupported ONNX operator 'Sigmoid'", "node 'sig_1'", "unsupported_op.onnx"}},
        BadFixture{"inconsistent_shapes.onnx", {"inconsistent shapes", "'bad_matmul'", "[1,4]", "[5,3]"}},
        BadFixture{"not_onnx.onnx", {"not an ONNX model", "not_onnx.onnx"}},
        BadFixture{"external_data.onnx", {"external", "fc1.weight"}},
        BadFixture{"no_such_file.onnx", {"cannot open model file", "no_such_file.onnx"}}),
    testing::bad_fixture_test_name);

TEST(ReadModel, OnnxHasNoInputBounds) {
  const LoadedModel model = read_model(kOnnxDir + "multi_output.onnx");
  EXPECT_EQ(model.format, "onnx");
  EXPECT_FALSE(model.input_bounds.has_value());
  EXPECT_EQ(model.network.output_dim(), 3);
}

TEST(ReadModel, MissingFileIsNamed) {
  const std::string path = kOnnxDir + "missing.nnet";
  const std::string message = error_message([&] { read_model(path); });
  EXPECT_NE(message.find("cannot open model file '" + path + "'"), std::string::npos) << message;
}

TEST(ReadModel, OtherExtensionsAreReadAsOnnxByContent) {
  const std::string message = error_message([] { read_model(kOnnxDir + "expected.json"); });
  EXPECT_NE(message.find("not an ONNX model"), std::string::npos) << message;
}

// read_onnx_bytes reads what read_onnx reads from the file, and names the model as it is told.
TEST(ReadOnnxBytes, SameNetworkAsTheFile) {
  const std::string path = kOnnxDir + "multi_output.onnx";
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const Network from_bytes = read_onnx_bytes(bytes, "<bytes>");
  const Network from_file = read_onnx(path);
  ASSERT_EQ(from_bytes.layers().size(), from_file.layers().size());
  for (std::size_t k = 0; k < from_file.layers().size(); ++k) {
    EXPECT_EQ(from_bytes.layers()[k].weights, from_file.layers()[k].weights);
    EXPECT_EQ(from_bytes.layers()[k].bias, from_file.layers()[k].bias);
  }
  const std::string message = error_message([] { read_onnx_bytes("not a model", "<onnx.ModelProto>"); });
  EXPECT_EQ(message, "'<onnx.ModelProto>' is not an ONNX model");
}

}  // namespace
}  // namespace reluopt
