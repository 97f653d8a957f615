#pragma once

// Outward rounding for bounds computed in double precision. A sum of n products computed in floating point is off
// by at most gamma_n times the sum of the terms' magnitudes, gamma_n = n u / (1 - n u), u = 2^-53 (Higham,
// Accuracy and Stability of Numerical Algorithms, §3.1); a bound adds such margins and is then rounded up.

#include <cmath>
#include <limits>

#include <Eigen/Dense>

namespace reluopt {

inline constexpr double kUnitRoundoff = std::numeric_limits<double>::epsilon() / 2.0;

// gamma_n with room for the few extra operations around each product.
inline double gamma(Eigen::Index n) {
  const double nu = static_cast<double>(n + 4) * kUnitRoundoff;
  return nu / (1.0 - nu);
}

// A double at least one step above x (x finite; inf and NaN pass through): adding more than x's spacing, 2^-52 |x|
// or the least subnormal, rounds to x's successor or beyond. Cheaper than std::nextafter, a library call made
// for every bound.
inline double step_up(double x) { return x + (std::abs(x) * 2.3e-16 + 5e-324); }

// A bound that the margin makes valid, with the margin's own rounding covered.
inline double settle(double value, double margin) { return step_up(value + margin * (1.0 + 1e-6)); }

}  // namespace reluopt
