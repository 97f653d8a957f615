// 16-bit float initializers: FLOAT16 and BFLOAT16 weights, as raw little-endian bytes, in int32_data and as
// external data, with float16 graph inputs and outputs. Every 16-bit float is exact in double, so the reader's
// network reproduces the numpy forward pass on the decoded weights (tests/io/make_dtype_fixtures.py, whose decoding
// agrees with onnx.numpy_helper's) to 1e-12. An infinite 16-bit weight and raw bytes that do not fit the shape are
// refused with one line naming the tensor.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/reader_test_util.h"
#include "reluopt/model_io.h"

namespace reluopt {
namespace {

const std::string kDtypeDir = std::string(RELUOPT_FIXTURES_DIR) + "/dtype/";

const nlohmann::json& dtype_expected() {
  static const nlohmann::json expected = testing::read_expected(kDtypeDir);
  return expected;
}

class Float16Fixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Float16Fixture, MatchesTheExactForwardPass) {
  const LoadedModel loaded = read_model(kDtypeDir + GetParam());
  testing::expect_forward_passes(loaded.network, dtype_expected().at(GetParam()), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Float16Fixture, ::testing::ValuesIn(testing::expected_files(dtype_expected())),
                         testing::fixture_test_name);

class RefusedFloat16Fixture : public ::testing::TestWithParam<testing::BadFixture> {};

TEST_P(RefusedFloat16Fixture, RefusedWithOneLineNamingTheTensor) {
  const std::string message = testing::error_message([] { read_model(kDtypeDir + GetParam().file); });
  testing::expect_one_line_with(message, GetParam().words);
  testing::expect_one_line_with(message, {GetParam().file});
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, RefusedFloat16Fixture,
    ::testing::Values(testing::BadFixture{"float16_infinite.onnx", {"tensor 'W1'", "at element 3 is not finite"}},
                      testing::BadFixture{"bfloat16_short_raw.onnx",
                                          {"tensor 'B1'", "4 bytes of data for shape [3]"}}),
    testing::bad_fixture_test_name);

}  // namespace
}  // namespace reluopt
