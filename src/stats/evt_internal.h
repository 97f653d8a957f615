#pragma once

// Shared by the files of src/stats: the standard forms' supports, the weighted sample the likelihood runs on,
// and the fitting entry points the report and the stopping rule use.

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "reluopt/evt.h"

namespace reluopt::detail {

// The values sorted and merged into distinct values with their counts (ReLU samples repeat values: every
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
WeightedSample weigh(std::vector<double> values);

// Support [lo, hi] of the standard form (loc 0, scale 1); infinite ends are +-infinity.
std::pair<double, double> standard_support(Family family, const std::vector<double>& shapes);

// sum_i count_i log pdf(value_i); a value outside the support or with an underflowing pdf counts as log 1e-300.
double log_likelihood(const Distribution& d, const WeightedSample& sample);

// The maximum-likelihood fit; nullopt when no start gives a finite likelihood.
std::optional<Fit> fit_weighted(Family family, const WeightedSample& sample);

// The profile fit of a fit with a finite right endpoint (beta, reversed Weibull, GEV with xi < 0, uniform): the
// maximum-likelihood fit of the same family with the endpoint held at sample.max + gap, started from `free`
// (its other parameters from an earlier call; empty: from `fit`), which is updated.
Fit profile_fit(const Fit& fit, const WeightedSample& sample, double gap, std::vector<double>& free);

// The profile-likelihood interval of the right endpoint of `best`: the endpoints M >= sample.max whose profile
// log-likelihood is at most `limit` below best.log_likelihood (endpoint.cc). hi is +infinity when the likelihood
// never drops that much; `at_hi` is the profile fit there. With lower = false, lo is sample.max (no search).
struct EndpointInterval {
  double lo = 0.0;
  double hi = 0.0;
  std::optional<Fit> at_hi;
};
EndpointInterval endpoint_interval(const Fit& best, const WeightedSample& sample, double limit, bool lower);

// Fits `families`, drops failed ones (and, with finite_endpoint_only, those without a finite right endpoint), sets
// each RSS and orders them as fit_and_rank does (evt_report.cc).
std::vector<Fit> rank_fits(const WeightedSample& sample, const Histogram& histogram, const std::vector<Family>& families,
                           bool finite_endpoint_only, double rss_tie_band, int threads);

// Throws reluopt::Error unless eps is finite and > 0 and delta is in (0, 1).
void check_eps_delta(double eps, double delta);

// The q-quantile (q in [0, 1]) of ascending `sorted` by linear interpolation (numpy's default).
double sorted_quantile(const std::vector<double>& sorted, double q);

}  // namespace reluopt::detail
