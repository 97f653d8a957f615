// Distribution-free tail index and the sample complexity of MATH.md section 8.
// Moment estimator (Dekkers, Einmahl & de Haan 1989) on Y = X - X_(1), the excesses over the sample minimum
// (the PORT variant of Araujo Santos, Fraga Alves & Gomes 2006 with q = 0: X's location drops out, and the
// logarithms need positive values). With Y_(1) <= ... <= Y_(n):
//   M_j = (1/k) sum_{i=0}^{k-1} (log Y_(n-i) - log Y_(n-k))^j,  j = 1, 2
//   gamma = M_1 + 1 - (1/2) (1 - M_1^2 / M_2)^(-1)        (consistent for every real gamma)
// k = floor(n^(2/3)): the order of the MSE-optimal k when the second-order parameter is rho = -1.
// The interval is the percentile interval of the estimator over nonparametric bootstrap resamples (same k).
// Sample complexity: P(M - max_{i<=N} X_i >= eps) = F(M - eps)^N <= exp(-N (1 - F(M - eps))), so
//   N_tail = ln(1/delta) / (1 - F(M - eps)),   N_closed = ln(1/delta) / eps^(-1/gamma)  (Theorem 3.2).
#include <algorithm>
#include <cmath>
#include <random>

#include "reluopt/error.h"
#include "stats/evt_internal.h"

namespace reluopt {

namespace detail {

double sorted_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::nan("");
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double t = position - static_cast<double>(below);
  return sorted[below] + t * (sorted[above] - sorted[below]);
}

}  // namespace detail

namespace {

// The estimator on ascending values.
std::optional<double> moment_on_sorted(const std::vector<double>& x, std::size_t k) {
  const std::size_t n = x.size();
  if (k < 2 || k + 1 > n) return std::nullopt;
  const double threshold = x[n - 1 - k] - x[0];
  if (!(threshold > 0.0)) return std::nullopt;
  const double log_threshold = std::log(threshold);
  double m1 = 0.0, m2 = 0.0;
  for (std::size_t i = 0; i < k; ++i) {
    const double d = std::log(x[n - 1 - i] - x[0]) - log_threshold;
    m1 += d;
    m2 += d * d;
  }
  m1 /= static_cast<double>(k);
  m2 /= static_cast<double>(k);
  if (!(m2 > 0.0)) return std::nullopt;
  const double gamma = m1 + 1.0 - 0.5 / (1.0 - m1 * m1 / m2);
  if (!std::isfinite(gamma)) return std::nullopt;
  return gamma;
}

}  // namespace

std::size_t default_moment_k(std::size_t n) {
  if (n < 4) return 0;
  // (+1e-9: 1000^(2/3) is 99.999... in floating point)
  const auto k = static_cast<std::size_t>(std::floor(std::pow(static_cast<double>(n), 2.0 / 3.0) + 1e-9));
  return std::clamp<std::size_t>(k, 2, n - 2);
}

std::optional<double> moment_estimator(const std::vector<double>& values, std::size_t k) {
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  return moment_on_sorted(sorted, k);
}

MomentEstimate moment_estimate(const std::vector<double>& values, std::size_t k, int resamples, double confidence,
                               std::uint64_t seed) {
  MomentEstimate out;
  out.k = k == 0 ? default_moment_k(values.size()) : k;
  out.gamma = moment_estimator(values, out.k);
  if (!out.gamma || resamples <= 0) return out;

  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
  std::vector<double> resample(values.size()), estimates;
  for (int b = 0; b < resamples; ++b) {
    for (double& v : resample) v = values[pick(rng)];
    std::sort(resample.begin(), resample.end());
    if (const std::optional<double> g = moment_on_sorted(resample, out.k)) estimates.push_back(*g);
  }
  // Resamples with too many ties have no estimate; an interval from fewer than half of them would mislead.
  if (2 * estimates.size() < static_cast<std::size_t>(resamples)) return out;
  std::sort(estimates.begin(), estimates.end());
  const double tail = (1.0 - confidence) / 2.0;
  out.ci = std::pair{detail::sorted_quantile(estimates, tail), detail::sorted_quantile(estimates, 1.0 - tail)};
  return out;
}

std::optional<double> samples_needed_tail(const Distribution& d, double eps, double delta) {
  const std::optional<double> endpoint = right_endpoint(d);
  if (!endpoint) return std::nullopt;
  const double tail = survival(d, *endpoint - eps);
  if (!(tail > 0.0)) return std::nullopt;
  return std::log(1.0 / delta) / tail;
}

std::optional<double> samples_needed_closed_form(double gamma, double eps, double delta) {
  if (!(gamma < 0.0)) return std::nullopt;
  return std::log(1.0 / delta) / std::pow(eps, -1.0 / gamma);
}

}  // namespace reluopt
