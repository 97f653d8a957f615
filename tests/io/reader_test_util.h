#pragma once

// Helpers shared by the model-reader tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "reluopt/error.h"

namespace reluopt::testing {

inline Eigen::VectorXd to_vector(const nlohmann::json& values) {
  const std::vector<double> v = values.get<std::vector<double>>();
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
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
