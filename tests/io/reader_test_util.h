#pragma once

// Helpers shared by the model-reader tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/network.h"

namespace reluopt::testing {

inline Eigen::VectorXd to_vector(const nlohmann::json& values) {
  const std::vector<double> v = values.get<std::vector<double>>();
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// A fixture directory's expected.json (written by its make_*_fixtures.py), and the files it names.
inline nlohmann::json read_expected(const std::string& dir) {
  std::ifstream in(dir + "expected.json");
  return nlohmann::json::parse(in);
}

inline std::vector<std::string> expected_files(const nlohmann::json& expected) {
  std::vector<std::string> files;
  for (const auto& [file, unused] : expected.items()) files.push_back(file);
  return files;
}

// The network of an ONNX file read with every 2-D convolution of a whole layer input kept implicit (Conv2d), as
// the reader keeps only those too large to write out.
inline Network read_onnx_implicit_convs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  detail::ReadLimits limits;
  limits.implicit_conv_taps = 0;
  return detail::read_onnx(in, path, limits);
}

// Checks that `implicit` (read_onnx_implicit_convs) is `plain` read the default way: the same outputs at
// expected["inputs"] and, layer by layer when both have as many, the same entries and biases exactly. Returns the
// number of implicit convolution layers.
inline int expect_same_network(const Network& plain, const Network& implicit, const nlohmann::json& expected) {
  int convs = 0;
  for (const DenseLayer& layer : implicit.layers()) convs += layer.weights.is_conv();
  for (const nlohmann::json& input : expected.at("inputs")) {
    const Eigen::VectorXd x = to_vector(input);
    EXPECT_LE((plain.forward(x) - implicit.forward(x)).cwiseAbs().maxCoeff(), 1e-12);
  }
  if (plain.layers().size() != implicit.layers().size()) return convs;
  for (std::size_t k = 0; k < plain.layers().size(); ++k) {
    EXPECT_TRUE(plain.layers()[k].weights == implicit.layers()[k].weights) << "layer " << k;
    EXPECT_EQ(plain.layers()[k].bias, implicit.layers()[k].bias) << "layer " << k;
    EXPECT_EQ(plain.layers()[k].linear, implicit.layers()[k].linear) << "layer " << k;
  }
  return convs;
}

// The test name of a fixture file: its name without the extension.
inline std::string fixture_test_name(const ::testing::TestParamInfo<std::string>& param_info) {
  return param_info.param.substr(0, param_info.param.find('.'));
}

// The network's outputs at expected["inputs"] are expected["outputs"], to `tolerance` relative to values
// above 1 in magnitude.
inline void expect_forward_passes(const Network& network, const nlohmann::json& expected, double tolerance) {
  const nlohmann::json& inputs = expected.at("inputs");
  const nlohmann::json& outputs = expected.at("outputs");
  ASSERT_EQ(inputs.size(), outputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Eigen::VectorXd want = to_vector(outputs[i]);
    const Eigen::VectorXd got = network.forward(to_vector(inputs[i]));
    ASSERT_EQ(got.size(), want.size()) << "input " << i;
    for (Eigen::Index j = 0; j < want.size(); ++j)
      EXPECT_NEAR(got[j], want[j], tolerance * std::max(1.0, std::abs(want[j])))
          << "input " << i << ", output " << j;
  }
}

// The message of the reluopt::Error thrown by `read`, or a failure if none is thrown.
template <typename Read>
std::string error_message(Read read) {
  try {
    read();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no reluopt::Error thrown";
  return "";
}

// A model file a reader refuses, and the words its error message must hold.
struct BadFixture {
  std::string file;
  std::vector<std::string> words;
};

inline void PrintTo(const BadFixture& fixture, std::ostream* os) { *os << fixture.file; }

// The test name of a refused fixture: its file name without the extension.
inline std::string bad_fixture_test_name(const ::testing::TestParamInfo<BadFixture>& param_info) {
  return param_info.param.file.substr(0, param_info.param.file.find('.'));
}

// The message is one line and holds every word.
inline void expect_one_line_with(const std::string& message, const std::vector<std::string>& words) {
  EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
  for (const std::string& word : words)
    EXPECT_NE(message.find(word), std::string::npos) << "'" << word << "' not in: " << message;
}

// A file in a fresh temporary directory of its own (process and test), removed with the test.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& contents) : dir_(fresh_directory()), path_(dir_ / name) {
    std::filesystem::create_directories(dir_);
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() { std::filesystem::remove_all(dir_); }
  std::string path() const { return path_.string(); }
  std::string directory() const { return dir_.string(); }

 private:
  static std::filesystem::path fresh_directory() {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("reluopt_reader_test_") + std::to_string(::getpid()) + "_" +
                       test->test_suite_name() + "_" + test->name();
    std::replace(name.begin(), name.end(), '/', '_');  // parameterized tests are named Suite/Name/0
    return std::filesystem::temp_directory_path() / name;
  }

  std::filesystem::path dir_;
  std::filesystem::path path_;
};

}  // namespace reluopt::testing
