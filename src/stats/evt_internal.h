#pragma once

// Shared by the files of src/stats: the standard units every analysis runs in, the standard forms' supports,
// the weighted sample the likelihood runs on, and the fitting entry points the report and the stopping rule use.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "reluopt/error.h"
#include "reluopt/evt.h"
#include "reluopt/run_control.h"

namespace reluopt::detail {

// The analyses run on u = (x - min) / (max - min) in [0, 1] (standardize.cc), so that no density, variance,
// histogram or likelihood sees values far from 1 whatever the magnitude of x, and map their results back:
//   x = (centre + unit u) / half,  centre = half min,  unit = half max - half min,
// with half = 1, or 1/2 when max - min overflows (values of both signs near the largest double).
// A location maps as x, a length (scale, width, gap) as unit / half, a density as half / unit; a
// log-likelihood drops by n log(unit / half).
// A point at or above the largest value (an endpoint) maps as max + its distance above it, so that it is never
// below the largest value by rounding.
struct Units {
  double centre = 0.0;
  double unit = 1.0;
  double half = 1.0;
  double max = 1.0;  // the largest value, in x

  double to_x(double u) const { return (centre + unit * u) / half; }
  double above_max_to_x(double u) const { return max + length_to_x(u - 1.0); }
  double length_to_x(double length) const { return unit * length / half; }
  double length_to_u(double length) const { return length * half / unit; }
  double log_length() const { return std::log(unit) - std::log(half); }
  Distribution to_x(const Distribution& d) const { return {d.family, d.shapes, to_x(d.loc), length_to_x(d.scale)}; }
  Fit to_x(const Fit& fit, std::size_t n) const;
};

// The values in standard units, ascending (one sort serves the histogram, the likelihood and the tail index).
struct Standardized {
  std::vector<double> sorted;  // u, ascending, from 0 to 1
  Units units;
  double min = 0.0;  // of x
  double max = 0.0;
};
// Throws reluopt::Error (check_values) unless there are min_count finite values, not all equal; Stopped when the
// deadline expires (the sort looks at it between blocks of 2^20 values).
Standardized standardize(const std::vector<double>& values, std::size_t min_count, const Deadline& deadline = {});
// Histogram (numpy 'auto') of ascending values.
Histogram histogram_of_sorted(const std::vector<double>& sorted);
Histogram histogram_to_x(const Histogram& h, const Units& units);

// Thrown when the deadline of an analysis expires or its stop request is set: the analysis is abandoned.
class Stopped : public Error {
 public:
  explicit Stopped(const Deadline& deadline)
      : Error(deadline.interrupted() ? "the extreme-value analysis was interrupted"
                                     : "the time limit ended the extreme-value analysis") {}
};
inline void check_deadline(const Deadline& deadline) {
  if (deadline.expired()) throw Stopped(deadline);
}

// Ascending values merged into distinct values with their counts (ReLU samples repeat values: every
// sample of one region reaches the same LP maximum), so a likelihood costs one pdf per distinct value. Beyond
// kMaxLikelihoodPoints distinct values, all but the top kExactTop are merged further into groups of consecutive
// values, each at its mean (fitting.cc). min and max are always the sample's.
inline constexpr std::size_t kMaxLikelihoodPoints = 10000;
inline constexpr std::size_t kExactTop = 2000;
struct WeightedSample {
  std::vector<double> values;  // distinct, ascending
  std::vector<double> counts;
  std::size_t n = 0;
  double min = 0.0;
  double max = 0.0;
};

// Throws reluopt::Error when fewer than `min_count` values, a value is not finite, or all values are equal.
void check_values(const std::vector<double>& values, std::size_t min_count);
WeightedSample weigh(const std::vector<double>& sorted);

// Support [lo, hi] of the standard form (loc 0, scale 1); infinite ends are +-infinity.
std::pair<double, double> standard_support(Family family, const std::vector<double>& shapes);

// log pdf(x) of one distribution, by the closed form of each family's log-density with its constants (log
// Gamma terms) computed once (distributions.cc): the likelihood's inner loop, several times cheaper than
// log(pdf(x)) through Boost's densities (incomplete beta and gamma derivatives for F and gamma). -infinity
// outside the support.
class LogDensity {
 public:
  explicit LogDensity(const Distribution& d);
  double operator()(double x) const;

 private:
  Distribution d_;
  double lo_, hi_;      // the standard form's support
  double constant_;     // of the standard log-density, less log scale
  double p_ = 0.0, q_ = 0.0;  // family-specific exponents
};

// sum_i count_i log pdf(value_i); a value outside the support or with an underflowing pdf counts as log 1e-300.
double log_likelihood(const Distribution& d, const WeightedSample& sample);

// The maximum-likelihood fit; nullopt when no start gives a finite likelihood. Throws Stopped when the deadline
// expires.
std::optional<Fit> fit_weighted(Family family, const WeightedSample& sample, const Deadline& deadline);

// The profile fit of a fit with a finite right endpoint (beta, reversed Weibull, GEV with xi < 0, uniform): the
// maximum-likelihood fit of the same family with the endpoint held at sample.max + gap, started from `free`
// (its other parameters from an earlier call; empty: from `fit`), which is updated.
Fit profile_fit(const Fit& fit, const WeightedSample& sample, double gap, std::vector<double>& free,
                const Deadline& deadline);

// The profile-likelihood interval of the right endpoint of `best`: the endpoints M >= sample.max whose profile
// log-likelihood is at most `limit` below best.log_likelihood (endpoint.cc). hi is +infinity when the likelihood
// never drops that much; `at_hi` is the profile fit there. With lower = false, lo is sample.max (no search).
struct EndpointInterval {
  double lo = 0.0;
  double hi = 0.0;
  std::optional<Fit> at_hi;
};
EndpointInterval endpoint_interval(const Fit& best, const WeightedSample& sample, double limit, bool lower,
                                   const Deadline& deadline);

// Fits `families`, drops failed ones (and, with finite_endpoint_only, those without a finite right endpoint), sets
// each RSS and orders them as fit_and_rank does (evt_report.cc).
std::vector<Fit> rank_fits(const WeightedSample& sample, const Histogram& histogram, const std::vector<Family>& families,
                           bool finite_endpoint_only, double rss_tie_band, int threads, const Deadline& deadline);

// The moment estimator and its bootstrap interval on ascending values (tail_index.cc).
MomentEstimate moment_estimate_sorted(const std::vector<double>& sorted, std::size_t k, int resamples,
                                      double confidence, std::uint64_t seed, const Deadline& deadline);

// Throws reluopt::Error unless eps is finite and > 0 and delta is in (0, 1).
void check_eps_delta(double eps, double delta);

// The q-quantile (q in [0, 1]) of ascending `sorted` by linear interpolation (numpy's default).
double sorted_quantile(const std::vector<double>& sorted, double q);

}  // namespace reluopt::detail
