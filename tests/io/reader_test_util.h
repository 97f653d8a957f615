#pragma once

// Helpers shared by the model-reader tests.
#include <gtest/gtest.h>

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

}  // namespace reluopt::testing
