// The piecewise-linear and residual ONNX fixtures and their expected outputs are written by
// tests/io/make_pwl_fixtures.py, which computes the outputs with its own numpy forward pass (MaxPool by loops
// over windows, Clip as numpy's clip, residual branches as named tensors), independent of this reader. Weights
// are doubles, so the network the reader builds (ReLUs and linear neurons) must reproduce them to 1e-9.
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/reader_test_util.h"
#include "reluopt/model_io.h"

namespace reluopt {
namespace {

using testing::error_message;
using testing::expect_forward_passes;
using testing::expect_one_line_with;

const std::string kPwlDir = std::string(RELUOPT_FIXTURES_DIR) + "/pwl/";

const nlohmann::json& expected_outputs() {
  static const nlohmann::json expected = testing::read_expected(kPwlDir);
  return expected;
}

class GoodPwlFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(GoodPwlFixture, MatchesIndependentForwardPass) {
  const Network network = read_onnx(kPwlDir + GetParam());
  expect_forward_passes(network, expected_outputs().at(GetParam()), 1e-9);
}

// Read with every 2-D convolution implicit, the same network (a convolution after a max pooling reads a layer of
// linear neurons).
TEST_P(GoodPwlFixture, ImplicitConvolutionsGiveTheSameNetwork) {
  const nlohmann::json& expected = expected_outputs().at(GetParam());
  const Network implicit = testing::read_onnx_implicit_convs(kPwlDir + GetParam());
  expect_forward_passes(implicit, expected, 1e-9);
  testing::expect_same_network(read_onnx(kPwlDir + GetParam()), implicit, expected);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoodPwlFixture, ::testing::ValuesIn(testing::expected_files(expected_outputs())),
                         testing::fixture_test_name);

TEST(OnnxPwl, EveryOperatorHasAFixture) {
  for (const char* file : {"leaky_relu.onnx", "prelu.onnx", "clip_relu6.onnx", "clip_hardtanh_opset9.onnx",
                           "clip_max_only.onnx", "hard_sigmoid.onnx", "abs.onnx", "max_min_of_branches.onnx",
                           "maxpool.onnx", "maxpool_pads_stride2.onnx", "global_maxpool.onnx",
                           "resnet_two_blocks.onnx", "concat_sub_skip.onnx"})
    EXPECT_TRUE(expected_outputs().contains(file)) << file;
}

// A residual branch is carried beside the ReLUs as linear neurons; a chain of ReLUs has none, as before.
TEST(OnnxPwl, LinearNeuronsOnlyWhereAValueIsCarried) {
  EXPECT_TRUE(read_onnx(kPwlDir + "resnet_two_blocks.onnx").has_linear_neurons());
  EXPECT_TRUE(read_onnx(kPwlDir + "maxpool.onnx").has_linear_neurons());
  EXPECT_FALSE(read_onnx(kPwlDir + "abs.onnx").has_linear_neurons());
  EXPECT_FALSE(read_onnx(std::string(RELUOPT_FIXTURES_DIR) + "/conv/conv_pads.onnx").has_linear_neurons());
}

// The reader holds a layer's tensors sparse (convolutions of a ReLU's output, residual sums, max-pooling
// differences) and the layers it builds from them have exactly the nonzeros of the network (GoodPwlFixture checks
// the forward passes), counted here by hand: the layer is sparse when at most a quarter of its weights are nonzero.
// One layer: {rows, columns, sparse, stored}.
struct LayerCount {
  Eigen::Index rows, cols;
  bool sparse;
  Eigen::Index stored;
};

void expect_layers(const std::string& file, const std::vector<LayerCount>& expected) {
  const Network network = read_onnx(kPwlDir + file);
  ASSERT_EQ(network.layers().size(), expected.size()) << file;
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const Weights& w = network.layers()[k].weights;
    EXPECT_EQ(w.rows(), expected[k].rows) << file << " layer " << k;
    EXPECT_EQ(w.cols(), expected[k].cols) << file << " layer " << k;
    EXPECT_EQ(w.is_sparse(), expected[k].sparse) << file << " layer " << k;
    EXPECT_EQ(w.stored(), expected[k].stored) << file << " layer " << k;
    if (w.is_sparse()) EXPECT_EQ(w.stored(), (w.to_dense().array() != 0.0).count()) << file << " layer " << k;
  }
}

TEST(OnnxPwl, SparseTensorsGiveTheLayersNonzeros) {
  // maxpool: a 2-map 3x3 convolution of a 6x6 image (in-bounds taps 16 per dimension: 2 x 16^2 = 512), then two
  // rounds of b + relu(a - b) over the 18 windows of 4: 36 differences of 2 taps beside 36 carried candidates,
  // then 18 differences of two candidates of 2 entries each beside 18 carried ones; the Gemm is dense.
  expect_layers("maxpool.onnx", {{72, 36, true, 512}, {72, 72, true, 108}, {36, 72, true, 108}, {3, 36, false, 108}});
  // resnet_two_blocks: the stem convolution of a 4x4 image (2 x 10^2 = 200 of 512 entries: dense), then per block
  // a convolution over 2 channels (400 nonzeros) beside the carried stem (32), and the sum of the stem (32) and a
  // convolution of the inner ReLUs (400).
  expect_layers("resnet_two_blocks.onnx", {{32, 16, false, 512}, {64, 32, true, 432}, {32, 64, true, 432},
                                           {64, 32, true, 432}, {32, 64, true, 432}, {3, 32, false, 96}});
}

// skip_connection.onnx is y = x + relu(W x + b): y - x = relu(...) is never negative, and x passes unchanged
// where the ReLU is off.
TEST(OnnxPwl, SkipConnectionAddsTheInput) {
  const Network network = read_onnx(std::string(RELUOPT_FIXTURES_DIR) + "/onnx/skip_connection.onnx");
  ASSERT_EQ(network.input_dim(), 3);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uniform(-2.0, 2.0);
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::VectorXd x(3);
    for (Eigen::Index i = 0; i < 3; ++i) x[i] = uniform(rng);
    const Eigen::VectorXd branch = network.forward(x) - x;
    EXPECT_GE(branch.minCoeff(), -1e-12) << x.transpose();
  }
}

TEST(OnnxPwl, SmoothActivationsAreRefusedByName) {
  for (const std::string op : {"Sigmoid", "Tanh"}) {
    const std::string file = op == "Sigmoid" ? "sigmoid.onnx" : "tanh.onnx";
    expect_one_line_with(error_message([&] { read_onnx(kPwlDir + file); }),
                         {"unsupported ONNX operator '" + op + "'", "node 't1'", "smooth activation", file});
  }
}

}  // namespace
}  // namespace reluopt
