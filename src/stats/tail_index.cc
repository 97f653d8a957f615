// Distribution-free tail index and the sample complexity of MATH.md section 8.
// Moment estimator (Dekkers, Einmahl & de Haan 1989) on Y = X - X_(1), the excesses over the sample minimum
// (the PORT variant of Araujo Santos, Fraga Alves & Gomes 2006 with q = 0: X's location drops out, and the
// logarithms need positive values). With Y_(1) <= ... <= Y_(n):
//   M_j = (1/k) sum_{i=0}^{k-1} (log Y_(n-i) - log Y_(n-k))^j,  j = 1, 2
//   gamma = M_1 + 1 - (1/2) (1 - M_1^2 / M_2)^(-1)        (consistent for every real gamma)
// k = floor(n^(2/3)): the order of the MSE-optimal k when the second-order parameter is rho = -1.
// The interval is the percentile interval of the estimator over nonparametric bootstrap resamples (same k).
// The estimator reads only the k + 1 largest values and the smallest, so a resample is drawn as those order
// statistics alone, in O(k) instead of n draws and a sort: a resample takes n uniform indices into the sorted
// values, and the largest of n iid uniforms on (0, 1) are U_(n) = V_1^(1/n), U_(n-j) = U_(n-j+1) V_(j+1)^(1/(n-j))
// (Renyi's representation), V iid uniform; given U_(n-k) = t, the other n - k - 1 are iid uniform on (0, t), whose
// minimum is t (1 - V^(1/(n-k-1))). The index of a uniform U is floor(n U), monotone, so these are the resample's
// order statistics exactly in law.
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

// The estimator from the k + 1 largest values, top[i] = X_(n-i) for i = 0..k, and the smallest.
std::optional<double> moment_on_top(const std::vector<double>& top, double smallest) {
  if (top.size() < 3) return std::nullopt;
  const std::size_t k = top.size() - 1;
  // Excesses of values whose range overflows are taken halved: the estimator reads only their ratios.
  const double h = std::isfinite(top[0] - smallest) ? 1.0 : 0.5;
  const double threshold = h * top[k] - h * smallest;
  if (!(threshold > 0.0)) return std::nullopt;
  const double log_threshold = std::log(threshold);
  double m1 = 0.0, m2 = 0.0;
  for (std::size_t i = 0; i < k; ++i) {
    const double d = std::log(h * top[i] - h * smallest) - log_threshold;
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

// The estimator on ascending values.
std::optional<double> moment_on_sorted(const std::vector<double>& x, std::size_t k) {
  const std::size_t n = x.size();
  if (k < 2 || k + 1 > n) return std::nullopt;
  return moment_on_top(std::vector<double>(x.rbegin(), x.rbegin() + static_cast<std::ptrdiff_t>(k + 1)), x[0]);
}

// A uniform on (0, 1) from 53 random bits (portable across standard libraries).
double open_uniform(std::mt19937_64& rng) { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53; }

// The k + 1 largest values of a bootstrap resample of ascending `x` (descending) and its smallest, by the
// order statistics of uniforms (see the top of the file).
double resample_top(const std::vector<double>& x, std::size_t k, std::mt19937_64& rng, std::vector<double>& top) {
  const double n = static_cast<double>(x.size());
  const auto index = [&](double log_u) {
    return std::min(static_cast<std::size_t>(n * std::exp(log_u)), x.size() - 1);
  };
  double log_u = 0.0;
  top.resize(k + 1);
  for (std::size_t j = 0; j <= k; ++j) {
    log_u += std::log(open_uniform(rng)) / (n - static_cast<double>(j));
    top[j] = x[index(log_u)];
  }
  const double rest = n - static_cast<double>(k) - 1.0;
  if (rest < 1.0) return top[k];
  return x[index(log_u + std::log(-std::expm1(std::log(open_uniform(rng)) / rest)))];
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

namespace detail {

MomentEstimate moment_estimate_sorted(const std::vector<double>& sorted, std::size_t k, int resamples,
                                      double confidence, std::uint64_t seed, const Deadline& deadline) {
  MomentEstimate out;
  out.k = k == 0 ? default_moment_k(sorted.size()) : k;
  out.gamma = moment_on_sorted(sorted, out.k);
  if (!out.gamma || resamples <= 0) return out;

  std::mt19937_64 rng(seed);
  std::vector<double> top, estimates;
  for (int b = 0; b < resamples; ++b) {
    check_deadline(deadline);
    const double smallest = resample_top(sorted, out.k, rng, top);
    if (const std::optional<double> g = moment_on_top(top, smallest)) estimates.push_back(*g);
  }
  // Resamples with too many ties have no estimate; an interval from fewer than half of them would mislead.
  if (2 * estimates.size() < static_cast<std::size_t>(resamples)) return out;
  std::sort(estimates.begin(), estimates.end());
  const double tail = (1.0 - confidence) / 2.0;
  out.ci = std::pair{sorted_quantile(estimates, tail), sorted_quantile(estimates, 1.0 - tail)};
  return out;
}

}  // namespace detail

MomentEstimate moment_estimate(const std::vector<double>& values, std::size_t k, int resamples, double confidence,
                               std::uint64_t seed, const Deadline& deadline) {
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  return detail::moment_estimate_sorted(sorted, k, resamples, confidence, seed, deadline);
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
