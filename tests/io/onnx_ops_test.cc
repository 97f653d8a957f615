// The fixtures of the linear operators that public verification benchmarks use around their ReLUs (Split, Neg, Sum,
// ReduceSum, ReduceMean, Expand, Tile, ConstantOfShape, Pad in edge and reflect mode, Resize and Upsample in nearest
// mode, MatMul of a batch of matrices) and their expected outputs are written by tests/io/make_ops_fixtures.py,
// which computes the outputs with its own numpy forward pass, independent of this reader. Weights are doubles, so
// the network the reader builds must reproduce them to 1e-9.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/reader_test_util.h"
#include "reluopt/model_io.h"

namespace reluopt {
namespace {

using testing::BadFixture;
using testing::error_message;
using testing::expect_forward_passes;
using testing::expect_one_line_with;

const std::string kOpsDir = std::string(RELUOPT_FIXTURES_DIR) + "/ops/";

const nlohmann::json& expected_outputs() {
  static const nlohmann::json expected = testing::read_expected(kOpsDir);
  return expected;
}

class GoodOpsFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(GoodOpsFixture, MatchesIndependentForwardPass) {
  const Network network = read_onnx(kOpsDir + GetParam());
  expect_forward_passes(network, expected_outputs().at(GetParam()), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoodOpsFixture, ::testing::ValuesIn(testing::expected_files(expected_outputs())),
                         testing::fixture_test_name);

TEST(OnnxOps, EveryOperatorHasAFixture) {
  for (const char* file :
       {"split_input_across_relu.onnx", "split_dual_model.onnx", "split_equal_sum.onnx",
        "reduce_sum_axes_input_neg.onnx", "reduce_mean_spatial.onnx", "reduce_sum_all_and_noop.onnx",
        "expand_tile_constant_of_shape.onnx", "matmul_batched.onnx", "resize_sizes_half_pixel.onnx",
        "resize_scales_asymmetric_ceil.onnx", "resize_align_corners_prefer_ceil.onnx",
        "resize_pytorch_half_pixel_floor.onnx", "resize_down_tf_half_pixel.onnx", "upsample_opset7.onnx",
        "upsample_opset9.onnx", "resize_opset10.onnx", "pad_edge_reflect.onnx",
        "pad_reflect_opset10_crop.onnx", "resize_then_conv.onnx"})
    EXPECT_TRUE(expected_outputs().contains(file)) << file;
}

// Element selections and sums keep a layer's tensors sparse: a 3 x 3 convolution of a 2x nearest upsampling reads
// at most 2 x 2 distinct pixels of each of the 2 channels, so the layer it closes stores at most 8 weights a row
// (of 128 inputs), exactly its nonzeros.
TEST(OnnxOps, ResampledConvolutionStaysSparse) {
  const Network network = read_onnx(kOpsDir + "resize_then_conv.onnx");
  ASSERT_EQ(network.layers().size(), 3u);
  const Weights& w = network.layers()[1].weights;
  EXPECT_EQ(w.rows(), 512);
  EXPECT_EQ(w.cols(), 128);
  EXPECT_TRUE(w.is_sparse());
  EXPECT_LE(w.stored(), 8 * 512);
  EXPECT_EQ(w.stored(), (w.to_dense().array() != 0.0).count());
}

class BadOpsFixture : public ::testing::TestWithParam<BadFixture> {};

TEST_P(BadOpsFixture, RefusedWithOneLineNamingTheProblem) {
  const std::string message = error_message([] { read_onnx(kOpsDir + GetParam().file); });
  expect_one_line_with(message, GetParam().words);
  expect_one_line_with(message, {GetParam().file});
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BadOpsFixture,
    ::testing::Values(
        // Binarized networks (traffic-sign recognition) are step functions, not networks of ReLUs.
        BadFixture{"sign.onnx", {"unsupported ONNX operator 'Sign'", "node 't1'", "a step function"}},
        BadFixture{"resize_linear.onnx", {"mode 'linear' is not supported (only nearest)", "(Resize)"}},
        BadFixture{"split_bad_lengths.onnx", {"split [2,3] does not cut dimension 6 into 2 outputs", "(Split)"}},
        BadFixture{"pad_wrap.onnx", {"mode 'wrap' (from opset 19) is not supported (opset 13)", "(Pad)"}},
        BadFixture{"resize_huge_axis.onnx", {"dimension 2 of the result is too large", "(Resize)"}}),
    testing::bad_fixture_test_name);

}  // namespace
}  // namespace reluopt
