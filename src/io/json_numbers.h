#pragma once

// A number in the JSON the writers produce: JSON has no infinity or NaN, so a value that is not finite is null.
#include <cmath>

#include <nlohmann/json.hpp>

namespace reluopt {

inline nlohmann::json finite_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace reluopt
