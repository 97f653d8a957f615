// Stopping rule for a sampling run (MATH.md section 8). With a finite-endpoint fit F (beta, reversed Weibull, GEV
// with xi < 0), its endpoint M and the n values so far:
//   probability = P(max_{i<=n} X_i < M - eps) = F(M - eps)^n       (the plug-in of Theorem 3.2's proof).
// The plug-in treats M and F as exact. With a few hundred values the fitted M can sit below the true endpoint by
// more than eps, and a rule on the plug-in alone stops too early (beta(2, 3) on [0, 1], eps = 0.1, delta = 0.05:
// it stopped at n = 400 where the true probability was 0.23). By default the rule also allows for the error in M:
//   M_up = upper end of the profile-likelihood interval of M at level 1 - delta (one-sided level 1 - delta/2),
//   F_up = the fit of the same family with its endpoint held at M_up (the profile fit),
//   probability_upper = F_up(M_up - eps)^n;   stop when probability_upper <= delta/2,
// so that P(stop while max X_i < M - eps) <= delta/2 + delta/2 (Bonferroni) when the family is right and the
// likelihood-ratio calibration holds. The plug-in rule (endpoint_uncertainty = false) stops when
// probability <= delta.
// The family is not known either. Fitted to the whole sample, a three-parameter reversed Weibull or GEV ties its
// tail to the bulk, and with a few hundred values its endpoint interval can sit wholly below the true maximum:
// on a 100 -> 100 -> 1 Xavier network (bench/results/evt_tables.md) the reversed Weibull put M_up at 3.28-3.37
// for n = 100..432 and passed the test at eps = 0.21, while the network reaches 3.47; the beta fit, as close to
// the histogram, put M_up above 4 and did not pass. So the test must pass for every fit whose RSS is within the
// tie band of the lowest (the fits the histogram cannot tell apart, as in the ranking). The decision reported is
// the best-ranked fit's when it fails or when every tied fit passes, else that of the first tied fit that fails.
// n_required = ln(1/t) / (1 - G(N - eps)) with the fit (G, N) and threshold t of the stop test in use: since
// G(N - eps)^n <= exp(-n (1 - G(N - eps))), the test passes by then if the fit stays the same.
// The rule runs in standard units (evt_internal.h); M and its interval are mapped back to x. Its cost is one sort
// of the values plus fits on at most 10,000 weighted points.
#include <boost/math/distributions/chi_squared.hpp>
#include <algorithm>
#include <cmath>
#include <limits>

#include "reluopt/error.h"
#include "stats/evt_internal.h"

namespace reluopt {

namespace {

// The test of the rule on one finite-endpoint fit.
StoppingDecision decide_on_fit(const Fit& fit, const detail::WeightedSample& sample, double eps, double delta,
                               bool conservative, const Deadline& deadline) {
  const double n = static_cast<double>(sample.n);
  StoppingDecision decision;
  decision.fitted = true;
  decision.family = fit.distribution.family;
  decision.estimate = *right_endpoint(fit.distribution);
  decision.probability = std::pow(cdf(fit.distribution, decision.estimate - eps), n);

  const double limit = boost::math::quantile(boost::math::chi_squared_distribution<double>(1.0), 1.0 - delta) / 2.0;
  const detail::EndpointInterval interval = detail::endpoint_interval(fit, sample, limit, false, deadline);
  decision.lower = sample.max;
  decision.upper = interval.hi;
  if (interval.at_hi)
    decision.probability_upper = std::pow(cdf(interval.at_hi->distribution, interval.hi - eps), n);

  const double threshold = conservative ? delta / 2.0 : delta;
  decision.stop = (conservative ? decision.probability_upper : decision.probability) <= threshold;
  decision.n_required = std::numeric_limits<double>::infinity();
  if (!conservative || interval.at_hi) {
    const Distribution& g = conservative ? interval.at_hi->distribution : fit.distribution;
    const double tail = survival(g, (conservative ? interval.hi : decision.estimate) - eps);
    if (tail > 0.0) decision.n_required = std::log(1.0 / threshold) / tail;
  }
  return decision;
}

// The rule on values in standard units, its decision in them.
StoppingDecision decide(const detail::Standardized& z, double eps, double delta, const StoppingOptions& options,
                        const Deadline& deadline) {
  const detail::WeightedSample sample = detail::weigh(z.sorted);
  const Histogram histogram = detail::histogram_of_sorted(z.sorted);
  const std::vector<Fit> fits = detail::rank_fits(sample, histogram, options.families, true, options.rss_tie_band,
                                                  options.threads, deadline);
  if (fits.empty()) return StoppingDecision{};

  // The best-ranked fit first: when it does not pass, the others need not be tried.
  StoppingDecision decision = decide_on_fit(fits.front(), sample, eps, delta, options.endpoint_uncertainty, deadline);
  double lowest_rss = fits.front().rss;
  for (const Fit& fit : fits) lowest_rss = std::min(lowest_rss, fit.rss);
  const double band = lowest_rss + options.rss_tie_band * noise_rss(histogram);
  for (std::size_t i = 1; i < fits.size() && decision.stop; ++i) {
    if (fits[i].rss > band) continue;
    const StoppingDecision other = decide_on_fit(fits[i], sample, eps, delta, options.endpoint_uncertainty, deadline);
    if (!other.stop) decision = other;
  }
  return decision;
}

}  // namespace

StoppingDecision stopping_rule(const std::vector<double>& values, double eps, double delta,
                               const StoppingOptions& options, const Deadline& deadline) {
  detail::check_eps_delta(eps, delta);
  if (values.size() < std::max<std::size_t>(options.min_values, 3)) return StoppingDecision{};
  for (double v : values)
    if (!std::isfinite(v)) throw Error("stopping rule: a value is not a finite number");
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (!(*hi > *lo)) return StoppingDecision{};
  detail::Standardized z;
  StoppingDecision decision;
  try {
    z = detail::standardize(values, 3, deadline);
    decision = decide(z, z.units.length_to_u(eps), delta, options, deadline);
  } catch (const detail::Stopped&) {
    return StoppingDecision{};
  }
  if (!decision.fitted) return decision;
  decision.estimate = z.units.above_max_to_x(decision.estimate);
  decision.lower = z.max;
  decision.upper = z.units.above_max_to_x(decision.upper);
  return decision;
}

}  // namespace reluopt
