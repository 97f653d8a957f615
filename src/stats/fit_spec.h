#pragma once

// The parameterizations the likelihood is maximized over, and their method-of-moments starts (fitting.cc,
// fit_starts.cc). All on the data mapped to y = (x - min) / (max - min) in [0, 1].

#include <vector>

#include "reluopt/evt.h"
#include "stats/evt_internal.h"

namespace reluopt::detail {

// Which finite ends of the support are tied to the data, so that every value stays inside it:
//   kLower: L = 0 - e^u, scale = e^w, loc = L - scale z_lo    kUpper: U = 1 + e^u, scale = e^w, loc = U - scale z_hi
//   kBoth:  L = -e^u1, U = 1 + e^u2, scale = (U - L) / (z_hi - z_lo), loc = L - scale z_lo
//   kNone:  loc and w = log scale free.
// Parameter vector: log |shape| for each shape, then (u, w), (u1, u2) or (loc, w).
enum class Anchor { kNone, kLower, kUpper, kBoth };

// |shape| in [lo, hi], optimized as log |shape|; shape = sign |shape|.
struct ShapeRange {
  double lo;
  double hi;
  double sign = 1.0;
};

struct FitSpec {
  Family family;
  std::vector<ShapeRange> shapes;
  Anchor anchor;
};

inline constexpr double kMinGap = 1e-10;  // of the range: how close a fitted end may come to the extreme value
inline constexpr double kMaxGap = 1e6;
inline constexpr double kMinScale = 1e-8;
inline constexpr double kMaxScale = 1e6;
inline constexpr double kMaxLoc = 1e2;

// The parameterizations of a family fitted by optimization (two for the GEV: xi < 0, then xi > 0); none for
// the closed-form families.
std::vector<FitSpec> fit_specs(Family family);

struct Moments {
  double mean = 0.0;
  double sd = 0.0;
  double skew = 0.0;
  double kurtosis = 0.0;  // excess
  double median = 0.0;
};

Moments moments(const WeightedSample& y);

// Starting distributions on y for the spec's family (a few shapes, loc and scale matching the moments).
std::vector<Distribution> moment_starts(const FitSpec& spec, const Moments& m);

}  // namespace reluopt::detail
