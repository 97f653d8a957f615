// Histogram, ranking and the report (MATH.md section 8).
// Histogram: numpy's bins='auto' (distfit's default): width h = min(2 IQR n^(-1/3), (max - min) / (log2 n + 1)),
//   the second alone when IQR = 0; B = ceil((max - min) / h) bins (at most 1000) of equal width on [min, max];
//   density_j = count_j / (n (max - min) / B).
// Ranking: RSS = sum_j (density_j - pdf(centre_j))^2, lowest first (distfit), except that the fits within
//   rss_tie_band * E0 of the lowest RSS, E0 = sum_j density_j (1 - density_j w) / (n w) the expected RSS of the
//   true density under multinomial noise (w the bin width), are ordered by AIC = 2 p - 2 l: an RSS difference
//   below the noise does not separate two fits (on GEV samples a beta and the GEV differ by ~1% in RSS but by
//   several units of log-likelihood).
// Report: gamma of the best fit by its closed form; the moment estimator (tail_index.cc); the best fit's
//   endpoint with its profile-likelihood interval at `confidence` (endpoint.cc); N(eps, delta) by both formulas.
// Everything runs on the values in standard units u in [0, 1] (evt_internal.h), sorted once; only the results
// are mapped back to x. The cost beyond that sort is O(n) (standardizing, merging repeats, binning); the fits and
// the profile likelihood see at most 10,000 weighted points, and a bootstrap resample O(n^(2/3)) order statistics.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <mutex>

#include <boost/math/distributions/chi_squared.hpp>

#include "reluopt/error.h"
#include "core/worker_threads.h"
#include "stats/evt_internal.h"

namespace reluopt {

namespace {

constexpr std::size_t kMaxBins = 1000;

// body(i) for i in [0, count) on `threads` threads (0: all cores); the first exception is rethrown.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& body) {
  const std::size_t workers =
      std::clamp<std::size_t>(resolve_threads(threads), 1, std::max<std::size_t>(count, 1));
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  WorkerThreads helpers(static_cast<int>(workers) - 1);
  helpers.run([&](int) { work(); });
  work();
  helpers.join();
  if (error) std::rethrow_exception(error);
}

double aic(const Fit& fit) {
  return 2.0 * static_cast<double>(fit.distribution.shapes.size() + 2) - 2.0 * fit.log_likelihood;
}

}  // namespace

namespace detail {

Fit Units::to_x(const Fit& fit, std::size_t n) const {
  const double density = half / unit;  // of a density in u, in x
  return Fit{to_x(fit.distribution), fit.log_likelihood - static_cast<double>(n) * log_length(),
             fit.rss * density * density};
}

namespace {

// Sorts blocks of 2^20 values and merges them pairwise, looking at the deadline between blocks: a stop request is
// seen within a block's time (tens of milliseconds), not only after the whole sort (a second at 10M values).
void sort_values(std::vector<double>& v, const Deadline& deadline) {
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  const std::size_t n = v.size();
  const auto at = [&](std::size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(std::min(i, n)); };
  for (std::size_t lo = 0; lo < n; lo += kBlock) {
    check_deadline(deadline);
    std::sort(at(lo), at(lo + kBlock));
  }
  for (std::size_t width = kBlock; width < n; width *= 2) {
    for (std::size_t lo = 0; lo + width < n; lo += 2 * width) {
      check_deadline(deadline);
      std::inplace_merge(at(lo), at(lo + width), at(lo + 2 * width));
    }
  }
}

}  // namespace

Standardized standardize(const std::vector<double>& values, std::size_t min_count, const Deadline& deadline) {
  check_values(values, min_count);
  Standardized z;
  z.sorted = values;
  sort_values(z.sorted, deadline);
  z.min = z.sorted.front();
  z.max = z.sorted.back();
  Units& units = z.units;
  units.half = std::isfinite(z.max - z.min) ? 1.0 : 0.5;
  units.centre = units.half * z.min;
  units.unit = units.half * z.max - units.half * z.min;
  units.max = z.max;
  for (double& v : z.sorted) v = (units.half * v - units.centre) / units.unit;
  return z;
}

Histogram histogram_of_sorted(const std::vector<double>& sorted) {
  const double n = static_cast<double>(sorted.size());
  const double range = sorted.back() - sorted.front();
  Histogram h;
  h.lo = sorted.front();
  h.n = sorted.size();
  if (!(range > 0.0)) {
    h.width = 1.0;
    h.density = {1.0};
    return h;
  }
  const double iqr = sorted_quantile(sorted, 0.75) - sorted_quantile(sorted, 0.25);
  const double sturges = range / (std::log2(n) + 1.0);
  const double fd = 2.0 * iqr * std::pow(n, -1.0 / 3.0);
  const double width = fd > 0.0 ? std::min(fd, sturges) : sturges;
  const std::size_t bins = std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(range / width)), 1, kMaxBins);
  h.width = range / static_cast<double>(bins);
  std::vector<double> counts(bins, 0.0);
  for (double v : sorted) counts[std::min(static_cast<std::size_t>((v - h.lo) / h.width), bins - 1)] += 1.0;
  for (double c : counts) h.density.push_back(c / (n * h.width));
  return h;
}

Histogram histogram_to_x(const Histogram& h, const Units& units) {
  Histogram x = h;
  x.lo = units.to_x(h.lo);
  x.width = units.length_to_x(h.width);
  for (double& d : x.density) d *= units.half / units.unit;
  return x;
}

std::vector<Fit> rank_fits(const WeightedSample& sample, const Histogram& histogram, const std::vector<Family>& families,
                           bool finite_endpoint_only, double tie_band, int threads, const Deadline& deadline) {
  std::vector<std::optional<Fit>> results(families.size());
  parallel_for(families.size(), threads, [&](std::size_t i) {
    results[i] = fit_weighted(families[i], sample, deadline);
  });
  std::vector<Fit> fits;
  for (std::optional<Fit>& fit : results) {
    if (!fit || (finite_endpoint_only && !right_endpoint(fit->distribution))) continue;
    fit->rss = residual_sum_of_squares(histogram, fit->distribution);
    if (std::isfinite(fit->rss)) fits.push_back(std::move(*fit));
  }
  std::stable_sort(fits.begin(), fits.end(), [](const Fit& a, const Fit& b) { return a.rss < b.rss; });
  if (fits.empty()) return fits;
  const double band = fits.front().rss + tie_band * noise_rss(histogram);
  const auto tied_end = std::find_if(fits.begin(), fits.end(), [band](const Fit& f) { return f.rss > band; });
  std::stable_sort(fits.begin(), tied_end, [](const Fit& a, const Fit& b) { return aic(a) < aic(b); });
  return fits;
}

void check_eps_delta(double eps, double delta) {
  if (!(eps > 0.0) || !std::isfinite(eps)) throw Error("eps must be a finite number > 0");
  if (!(delta > 0.0 && delta < 1.0)) throw Error("delta must lie in (0, 1)");
}

}  // namespace detail

Histogram make_histogram(const std::vector<double>& values) {
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (values.empty() || !(*hi > *lo)) return detail::histogram_of_sorted(values);
  const detail::Standardized z = detail::standardize(values, 1);
  return detail::histogram_to_x(detail::histogram_of_sorted(z.sorted), z.units);
}

double noise_rss(const Histogram& histogram) {
  double total = 0.0;
  const double n = static_cast<double>(histogram.n), w = histogram.width;
  for (double d : histogram.density) total += d * (1.0 - d * w) / (n * w);
  return total;
}

double residual_sum_of_squares(const Histogram& histogram, const Distribution& d) {
  double rss = 0.0;
  for (std::size_t j = 0; j < histogram.density.size(); ++j) {
    const double r = histogram.density[j] - pdf(d, histogram.centre(j));
    rss += r * r;
  }
  return rss;
}

std::vector<Fit> fit_and_rank(const std::vector<double>& values, const std::vector<Family>& families,
                              double rss_tie_band, const Deadline& deadline) {
  const detail::Standardized z = detail::standardize(values, 3);
  std::vector<Fit> fits = detail::rank_fits(detail::weigh(z.sorted), detail::histogram_of_sorted(z.sorted), families,
                                            false, rss_tie_band, 0, deadline);
  for (Fit& fit : fits) fit = z.units.to_x(fit, values.size());
  return fits;
}

namespace {

void check_evt_options(const EvtOptions& options) {
  if (options.eps) detail::check_eps_delta(*options.eps, options.delta);
  else detail::check_eps_delta(1.0, options.delta);
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) throw Error("confidence must lie in (0, 1)");
}

// The endpoint of the best fit (in u) with its profile-likelihood interval, in x.
Endpoint endpoint_of(const Fit& best, const detail::WeightedSample& sample, const detail::Units& units,
                     double confidence, const Deadline& deadline) {
  const double limit = boost::math::quantile(boost::math::chi_squared_distribution<double>(1.0), confidence) / 2.0;
  const detail::EndpointInterval interval = detail::endpoint_interval(best, sample, limit, true, deadline);
  return Endpoint{best.distribution.family, units.above_max_to_x(*right_endpoint(best.distribution)),
                  units.above_max_to_x(interval.lo), units.above_max_to_x(interval.hi)};
}

}  // namespace

EvtReport analyse_extremes(const std::vector<double>& values, const EvtOptions& options, const Deadline& deadline) {
  const auto stage = [&](const std::string& what) {
    if (options.on_stage) options.on_stage(what);
  };
  check_evt_options(options);
  stage("sorting " + std::to_string(values.size()) + " values");
  const detail::Standardized z = detail::standardize(values, kMinEvtValues, deadline);
  const detail::Units& units = z.units;
  const detail::WeightedSample sample = detail::weigh(z.sorted);
  const double eps_u = options.eps ? units.length_to_u(*options.eps) : 0.01;  // default: 1% of the range

  EvtReport report;
  report.n = sample.n;
  report.min = z.min;
  report.max = z.max;
  report.confidence = options.confidence;
  report.bootstrap_resamples = options.bootstrap_resamples;
  report.seed = options.seed;
  const Histogram histogram = detail::histogram_of_sorted(z.sorted);
  report.histogram = detail::histogram_to_x(histogram, units);
  stage("fitting " + std::to_string(options.families.size()) + " families");
  const std::vector<Fit> fits = detail::rank_fits(sample, histogram, options.families, false, options.rss_tie_band,
                                                  options.threads, deadline);
  if (fits.empty()) throw Error("no candidate distribution could be fitted to the values");
  for (const Fit& fit : fits) report.fits.push_back(units.to_x(fit, sample.n));
  const Fit& best = fits.front();
  report.gamma_best_fit = extreme_value_index(best.distribution);
  stage("bootstrap of the moment estimator");
  report.moment = detail::moment_estimate_sorted(z.sorted, options.moment_k, options.bootstrap_resamples,
                                                 options.confidence, options.seed, deadline);
  if (right_endpoint(best.distribution)) {
    stage("profile likelihood of the endpoint");
    report.endpoint = endpoint_of(best, sample, units, options.confidence, deadline);
  }

  SampleComplexity& sc = report.sample_complexity;
  sc.eps = options.eps.value_or(units.length_to_x(eps_u));
  sc.delta = options.delta;
  sc.n_tail = samples_needed_tail(best.distribution, eps_u, options.delta);
  sc.n_closed_form = samples_needed_closed_form(report.gamma_best_fit, sc.eps, options.delta);
  if (const std::optional<double> m = right_endpoint(best.distribution))
    sc.probability_now = std::pow(cdf(best.distribution, *m - eps_u), static_cast<double>(sample.n));
  return report;
}

}  // namespace reluopt
