// The forms that the accepted operators gained in opsets 18 to 28 (ReduceMean's axes input, Split's num_outputs,
// Pad's axes input and wrap mode, Resize's axes, keep_aspect_ratio_policy and half_pixel_symmetric, AveragePool's
// dilations), ReduceMax and ReduceMin at opsets 13 to 20, the pools' partial ceil_mode windows, Dropout's inputs,
// CastLike, integer Div, the Constant forms of shape computations and a model at opset 28: fixtures and expected
// outputs by tests/io/make_opset_fixtures.py, whose numpy forward pass, written from the operator definitions, agrees
// with onnx's reference evaluator. Weights are doubles, so the network the reader builds must reproduce the outputs
// to 1e-9. And PyTorch's exports of a small residual network (Conv, BatchNormalization, MaxPool, a residual Add,
// Linear), by today's dynamo exporter at opsets 18 and 20 and by the TorchScript exporter at opsets 9 and 11 as
// 2019-2021 PyTorch wrote them (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Transpose -> MatMul -> Add,
// x.size(1) // 2 as an int64 Div and Casts): fixtures and torch's outputs in double precision by
// tests/io/make_torch_fixtures.py, reproduced to 1e-6 (both exporters may fold BatchNormalization into the
// convolution as float32 weights, which moves the file's function off torch's: by up to 2.7e-8 here, against 1e-13
// where BatchNormalization stays a node).
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/reader_test_util.h"
#include "reluopt/model_io.h"

namespace reluopt {
namespace {

const std::string kOpsetDir = std::string(RELUOPT_FIXTURES_DIR) + "/opset/";

const nlohmann::json& opset_expected() {
  static const nlohmann::json expected = testing::read_expected(kOpsetDir);
  return expected;
}

class NewOpsetFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(NewOpsetFixture, MatchesIndependentForwardPass) {
  const Network network = read_onnx(kOpsetDir + GetParam());
  testing::expect_forward_passes(network, opset_expected().at(GetParam()), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, NewOpsetFixture, ::testing::ValuesIn(testing::expected_files(opset_expected())),
                         testing::fixture_test_name);

TEST(OnnxOpset, EveryNewFormHasAFixture) {
  for (const char* file :
       {"reduce_mean_axes_input_opset18.onnx", "reduce_max_min_opset13.onnx", "reduce_max_min_axes_input_opset18.onnx",
        "reduce_max_opset20.onnx", "split_num_outputs_opset18.onnx", "pad_axes_input_opset18.onnx",
        "pad_wrap_opset19.onnx", "resize_axes_not_larger_opset18.onnx", "resize_axes_not_smaller_opset18.onnx",
        "resize_half_pixel_symmetric_opset19.onnx", "average_pool_dilations_exclude_pad_opset19.onnx",
        "average_pool_dilations_include_pad_opset19.onnx", "shape_div_castlike_dropout_opset21.onnx",
        "cast_transpose_opset28.onnx", "max_pool_ceil_mode_0_opset22.onnx", "max_pool_ceil_mode_1_opset22.onnx",
        "max_pool_ceil_mode_2_opset22.onnx", "average_pool_ceil_mode_0_opset22.onnx",
        "average_pool_ceil_mode_1_opset22.onnx", "average_pool_ceil_mode_2_opset22.onnx"})
    EXPECT_TRUE(opset_expected().contains(file)) << file;
}

const std::string kTorchDir = std::string(RELUOPT_FIXTURES_DIR) + "/torch/";

const nlohmann::json& torch_expected() {
  static const nlohmann::json expected = testing::read_expected(kTorchDir);
  return expected;
}

class TorchExportFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(TorchExportFixture, MatchesTorchForwardPass) {
  const Network network = read_onnx(kTorchDir + GetParam());
  testing::expect_forward_passes(network, torch_expected().at(GetParam()), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TorchExportFixture, ::testing::ValuesIn(testing::expected_files(torch_expected())),
                         testing::fixture_test_name);

TEST(OnnxOpset, EveryExporterHasAFixture) {
  for (const char* file : {"dynamo_opset18_unoptimized.onnx", "dynamo_default.onnx", "dynamo_dynamic_batch.onnx",
                           "dynamo_external_data.onnx", "torchscript_opset9_view.onnx",
                           "torchscript_opset11_unfolded.onnx", "torchscript_opset9_size_arithmetic.onnx",
                           "dynamo_max_reductions.onnx"})
    EXPECT_TRUE(torch_expected().contains(file)) << file;
}

// The dynamo exporter's default writes the weights beside the model: read from the model's folder, whatever the
// current directory, and refused, with the tensor named, when the model comes as bytes with no folder.
TEST(OnnxOpset, ExternalDataIsReadFromTheModelsFolderOnly) {
  const std::string path = kTorchDir + "dynamo_external_data.onnx";
  const LoadedModel loaded = read_model(path);
  testing::expect_forward_passes(loaded.network, torch_expected().at("dynamo_external_data.onnx"), 1e-6);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string message = testing::error_message([&] { read_onnx_bytes(bytes, "model.onnx"); });
  testing::expect_one_line_with(message, {"of 'model.onnx': external data is read only with the model's file"});
}

class RefusedOpsetFixture : public ::testing::TestWithParam<testing::BadFixture> {};

// A form the reader does not take is refused at its node, naming the node, the operator and the opset.
TEST_P(RefusedOpsetFixture, RefusedWithOneLineNamingTheNode) {
  const std::string message = testing::error_message([] { read_onnx(kOpsetDir + GetParam().file); });
  testing::expect_one_line_with(message, GetParam().words);
  testing::expect_one_line_with(message, {GetParam().file});
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, RefusedOpsetFixture,
    ::testing::Values(
        testing::BadFixture{"dropout_training_opset22.onnx",
                            {"training_mode=1 (a random dropout) is not supported", "node 'drop' (Dropout)"}},
        // FLOAT8E4M3FN is type 17, which the onnx headers the reader is built with may not name.
        testing::BadFixture{"cast_float8_opset19.onnx",
                            {"cast to type number 17", "is not supported (opset 19)", "node 'to_float8' (Cast)"}},
        testing::BadFixture{"resize_half_pixel_symmetric_opset18.onnx",
                            {"coordinate_transformation_mode 'half_pixel_symmetric' (from opset 19)",
                             "is not supported (opset 18)", "(Resize)"}},
        testing::BadFixture{"average_pool_ceil_window_in_padding_opset21.onnx",
                            {"a ceil_mode window wholly in the right padding (dropped from 22)",
                             "is not supported (opset 21)", "(AveragePool)"}},
        testing::BadFixture{"pad_repeated_axes_opset18.onnx", {"repeated axis -2", "(Pad)"}},
        testing::BadFixture{"resize_repeated_axes_opset18.onnx", {"repeated axis -1", "(Resize)"}},
        testing::BadFixture{"external_data_outside_opset18.onnx",
                            {"tensor 'c0'", "external data location '../outside.bin' leaves the model's folder"}}),
    testing::bad_fixture_test_name);

}  // namespace
}  // namespace reluopt
