// The convolutional ONNX fixtures and their expected outputs are written by tests/io/make_conv_fixtures.py,
// which computes the outputs with its own numpy implementation of Conv, AveragePool and BatchNormalization
// (explicit padding and loops over windows), independent of this reader. Weights are doubles, so the folded
// dense layers must reproduce the reference to 1e-9.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/reader_test_util.h"
#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/model_io.h"

namespace reluopt {
namespace {

using testing::BadFixture;
using testing::error_message;
using testing::expect_forward_passes;
using testing::expect_one_line_with;

const std::string kConvDir = std::string(RELUOPT_FIXTURES_DIR) + "/conv/";

const nlohmann::json& expected_outputs() {
  static const nlohmann::json expected = testing::read_expected(kConvDir);
  return expected;
}

class GoodConvFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(GoodConvFixture, MatchesIndependentForwardPass) {
  const nlohmann::json& expected = expected_outputs().at(GetParam());
  const Network network = read_onnx(kConvDir + GetParam());
  // Conv, BatchNormalization, pooling and reshapes fold into the affine maps: one hidden layer per Relu.
  EXPECT_EQ(network.num_hidden_layers(), expected.at("num_hidden_layers").get<int>()) << network.describe();
  expect_forward_passes(network, expected, 1e-9);
}

// Read with every 2-D convolution implicit (Conv2d, as the reader keeps VGG-size ones), the same network.
TEST_P(GoodConvFixture, ImplicitConvolutionsGiveTheSameNetwork) {
  const nlohmann::json& expected = expected_outputs().at(GetParam());
  const Network implicit = testing::read_onnx_implicit_convs(kConvDir + GetParam());
  expect_forward_passes(implicit, expected, 1e-9);
  testing::expect_same_network(read_onnx(kConvDir + GetParam()), implicit, expected);
}

TEST(OnnxConv, ImplicitConvolutionsAreRead) {
  int convs = 0;
  for (const std::string& file : testing::expected_files(expected_outputs()))
    convs += testing::expect_same_network(read_onnx(kConvDir + file), testing::read_onnx_implicit_convs(kConvDir + file),
                                          expected_outputs().at(file));
  EXPECT_GE(convs, 8);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoodConvFixture, ::testing::ValuesIn(testing::expected_files(expected_outputs())),
                         testing::fixture_test_name);

TEST(OnnxConv, EveryVariantHasExpectedOutputs) {
  for (const char* file : {"conv_stride2.onnx", "conv_pads.onnx", "conv_same_upper.onnx", "conv_same_lower.onnx",
                           "conv_dilation2.onnx", "conv_groups2.onnx", "conv_batchnorm.onnx", "avgpool.onnx",
                           "avgpool_pads.onnx", "avgpool_count_pad.onnx", "global_avgpool.onnx",
                           "reshape_shape_gather_concat.onnx", "input_1x1x1x5.onnx", "opset11_conv.onnx", "normalized_conv.onnx",
                           "pad_slice_cast_dropout.onnx", "slice_huge_steps.onnx", "convtranspose_stride2.onnx",
                           "convtranspose_outpad_dilation.onnx", "convtranspose_groups_after_gemm.onnx"})
    EXPECT_TRUE(expected_outputs().contains(file)) << file;
}

// 8x8 input, 3 maps of 3x3 with stride 2: 3x3 outputs per map.
//   out[m, i, j] = b[m] + sum_{r,c < 3} W[m, r, c] x[2i + r, 2j + c]
// so each hidden neuron reads 9 inputs, and neuron (m, i, j) reads input (2i, 2j) with weight W[m, 0, 0].
TEST(OnnxConv, ConvLayerIsTheDenseEquivalent) {
  const Network network = read_onnx(kConvDir + "conv_stride2.onnx");
  EXPECT_EQ(network.describe(), "64 -> 27 -> 2");
  const Eigen::MatrixXd w = network.hidden_layer(0).weights.to_dense();
  for (Eigen::Index row = 0; row < w.rows(); ++row) {
    EXPECT_EQ((w.row(row).array() != 0.0).count(), 9) << "neuron " << row;
    const Eigen::Index m = row / 9, i = row % 9 / 3, j = row % 3;
    EXPECT_EQ(w(row, 2 * i * 8 + 2 * j), w(m * 9, 0)) << "neuron " << row;
  }
}

TEST(OnnxConv, BatchNormalizationFoldsIntoTheConv) {
  // Conv -> BatchNormalization -> Relu -> Flatten -> BatchNormalization -> Gemm: two affine layers.
  EXPECT_EQ(read_onnx(kConvDir + "conv_batchnorm.onnx").describe(), "98 -> 36 -> 3");
}

TEST(OnnxConv, MemoryCapCountsTheFoldedLayersAndLiveTensors) {
  // avgpool_conv: 64 -> 192 -> 64 -> 2, the first layer sparse (1452 nonzeros, 12 bytes each, and 192 biases:
  // 18960 bytes), the second dense (64 x 192 doubles: 98304 bytes). That one is built while the first layer,
  // conv3's tensor it comes from (64 x 193 doubles, dense: 98816 bytes) and the output Gemm's weights (130
  // doubles: 1040 bytes) are held: 217120 bytes suffice, one byte less does not.
  std::ifstream file(kConvDir + "avgpool_conv.onnx", std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  const auto read = [&](std::uint64_t max_bytes) {
    std::istringstream in(bytes.str());
    return detail::read_onnx(in, "avgpool_conv.onnx", detail::ReadLimits{max_bytes});
  };
  EXPECT_EQ(read(217120).describe(), "64 -> 192 -> 64 -> 2");
  const std::string message = error_message([&] { read(217119); });
  EXPECT_NE(message.find("besides the"), std::string::npos) << message;
  EXPECT_NE(message.find("its layers and live tensors hold"), std::string::npos) << message;
}

// A convolution's layer is stored sparse, its nonzeros counted: conv_groups2's first layer reads 2 of 4
// channels through 3 x 3 kernels (18 weights a neuron, 96 neurons); the output Gemm stays dense.
TEST(OnnxConv, ConvolutionLayersAreStoredSparse) {
  const Network network = read_onnx(kConvDir + "conv_groups2.onnx");
  const Weights& first = network.hidden_layer(0).weights;
  EXPECT_TRUE(first.is_sparse());
  EXPECT_EQ(first.stored(), 96 * 18);
  EXPECT_EQ(first.stored(), (first.to_dense().array() != 0.0).count());
  EXPECT_FALSE(network.output_layer().weights.is_sparse());
}

class RefusedConvFixture : public ::testing::TestWithParam<BadFixture> {};

TEST_P(RefusedConvFixture, OneLineErrorNamesTheOperator) {
  std::vector<std::string> words = GetParam().words;
  words.push_back(GetParam().file);
  expect_one_line_with(error_message([&] { read_onnx(kConvDir + GetParam().file); }), words);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, RefusedConvFixture,
    ::testing::Values(
        BadFixture{"softmax.onnx", {"unsupported ONNX operator 'Softmax'", "smooth activation",
                                   "preserves the outputs' order but not their values: export the network without it"}},
        BadFixture{"sigmoid.onnx", {"unsupported ONNX operator 'Sigmoid'", "smooth activation"}},
        BadFixture{"conv_bad_group.onnx", {"inconsistent shapes", "(Conv)", "in 3 groups"}},
        BadFixture{"convtranspose_output_shape.onnx", {"output_shape is not supported", "(ConvTranspose)"}}),
    testing::bad_fixture_test_name);

}  // namespace
}  // namespace reluopt
