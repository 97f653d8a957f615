// Parameterizations and method-of-moments starts of the fits (fitting.cc), from the mean m, standard
// deviation sd, skewness g and excess kurtosis k of y = (x - min) / (max - min):
//   gamma(a): a = 4 / g^2, scale = sd / sqrt(a), loc = m - a scale;
//   lognormal(s): (e^{s^2} + 2) sqrt(e^{s^2} - 1) = g, scale = sd / sqrt(e^{s^2} (e^{s^2} - 1)), loc = m - scale e^{s^2/2};
//   beta on [L, U]: mean mu and variance v of (y - L) / (U - L), c = mu (1 - mu) / v - 1, a = mu c, b = (1 - mu) c;
//   reversed Weibull(c): W = (loc - x) / scale ~ Weibull(c), E W = G(1 + 1/c), Var W = G(1 + 2/c) - G(1 + 1/c)^2;
//   GEV(xi): mean = loc + scale (G(1 - xi) - 1) / xi, variance = scale^2 (G(1 - 2 xi) - G(1 - xi)^2) / xi^2;
//   F(dfn, dfd): mean dfd / (dfd - 2), variance 2 dfd^2 (dfn + dfd - 2) / (dfn (dfd - 2)^2 (dfd - 4));
//   t(df): df = 4 + 6 / k, loc = median;   Pareto(b): median = loc + scale 2^(1/b);
// each for a few fixed shapes (G is the gamma function).
// Shape bounds: a shape governing a finite end is >= 1 (GEV xi >= -1, F dfn >= 2), where the likelihood is
// bounded (Smith 1985); the others are wide bounds that keep the optimizer away from overflow.
#include <boost/math/special_functions/gamma.hpp>
#include <algorithm>
#include <cmath>
#include <utility>

#include "stats/fit_spec.h"

namespace reluopt::detail {

namespace {

Distribution make(Family family, std::vector<double> shapes, double loc, double scale) {
  return Distribution{family, std::move(shapes), loc, scale};
}

// Lognormal shape whose skewness is g, by bisection ((e^{s^2} + 2) sqrt(e^{s^2} - 1) increases with s).
double lognormal_shape_for_skew(double g) {
  double lo = 1e-3, hi = 3.0;
  for (int it = 0; it < 60; ++it) {
    const double s = 0.5 * (lo + hi), e = std::exp(s * s);
    ((e + 2.0) * std::sqrt(e - 1.0) < g ? lo : hi) = s;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

std::vector<FitSpec> fit_specs(Family family) {
  switch (family) {
    case Family::kPareto: return {{family, {{0.05, 1e3}}, Anchor::kLower}};
    case Family::kReversedWeibull: return {{family, {{1.0, 1e3}}, Anchor::kUpper}};
    case Family::kStudentT: return {{family, {{0.1, 1e4}}, Anchor::kNone}};
    case Family::kF: return {{family, {{2.0, 1e4}, {0.1, 1e4}}, Anchor::kLower}};
    case Family::kGenExtreme:
      return {{family, {{1e-6, 1.0, -1.0}}, Anchor::kUpper}, {family, {{1e-6, 2.0, 1.0}}, Anchor::kLower}};
    case Family::kBeta: return {{family, {{1.0, 1e4}, {1.0, 1e4}}, Anchor::kBoth}};
    case Family::kGamma: return {{family, {{1.0, 1e4}}, Anchor::kLower}};
    case Family::kLognormal: return {{family, {{1e-3, 5.0}}, Anchor::kLower}};
    default: return {};
  }
}

Moments moments(const WeightedSample& y) {
  Moments m;
  const double n = static_cast<double>(y.n);
  for (std::size_t i = 0; i < y.values.size(); ++i) m.mean += y.counts[i] * y.values[i] / n;
  double m2 = 0.0, m3 = 0.0, m4 = 0.0, seen = 0.0;
  bool median_set = false;
  for (std::size_t i = 0; i < y.values.size(); ++i) {
    const double d = y.values[i] - m.mean;
    m2 += y.counts[i] * d * d / n;
    m3 += y.counts[i] * d * d * d / n;
    m4 += y.counts[i] * d * d * d * d / n;
    seen += y.counts[i];
    if (!median_set && seen >= n / 2.0) {
      m.median = y.values[i];
      median_set = true;
    }
  }
  m.sd = std::sqrt(m2);
  m.skew = m2 > 0.0 ? m3 / std::pow(m2, 1.5) : 0.0;
  m.kurtosis = m2 > 0.0 ? m4 / (m2 * m2) - 3.0 : 0.0;
  return m;
}

std::vector<Distribution> moment_starts(const FitSpec& spec, const Moments& m) {
  using boost::math::tgamma;
  std::vector<Distribution> out;
  const double sd = std::max(m.sd, 1e-6);
  switch (spec.family) {
    case Family::kPareto:
      for (double b : {1.5, 3.0, 10.0}) {
        const double lower = -0.01, scale = (m.median - lower) / (std::pow(2.0, 1.0 / b) - 1.0);
        out.push_back(make(spec.family, {b}, lower - scale, scale));
      }
      break;
    case Family::kReversedWeibull:
      for (double c : {1.5, 3.0, 6.0}) {
        const double mu = tgamma(1.0 + 1.0 / c), sigma = std::sqrt(tgamma(1.0 + 2.0 / c) - mu * mu);
        const double scale = sd / sigma;
        out.push_back(make(spec.family, {c}, m.mean + scale * mu, scale));
      }
      break;
    case Family::kStudentT:
      for (double df : {m.kurtosis > 0.0 ? 4.0 + 6.0 / m.kurtosis : 30.0, 3.0, 30.0})
        out.push_back(make(spec.family, {df}, m.median, sd * std::sqrt(std::max(df - 2.0, 0.5) / df)));
      break;
    case Family::kF:
      for (auto [d1, d2] : {std::pair{5.0, 10.0}, std::pair{10.0, 50.0}, std::pair{50.0, 10.0}}) {
        const double mean = d2 / (d2 - 2.0);
        const double var = 2.0 * d2 * d2 * (d1 + d2 - 2.0) / (d1 * (d2 - 2.0) * (d2 - 2.0) * (d2 - 4.0));
        const double scale = sd / std::sqrt(var);
        out.push_back(make(spec.family, {d1, d2}, m.mean - scale * mean, scale));
      }
      break;
    case Family::kGenExtreme: {
      const std::vector<double> xis =
          spec.shapes[0].sign < 0.0 ? std::vector<double>{-0.1, -0.3, -0.6} : std::vector<double>{0.05, 0.2};
      for (double xi : xis) {
        const double g1 = tgamma(1.0 - xi), g2 = tgamma(1.0 - 2.0 * xi);
        const double scale = sd * std::abs(xi) / std::sqrt(g2 - g1 * g1);
        out.push_back(make(spec.family, {xi}, m.mean - scale * (g1 - 1.0) / xi, scale));
      }
      break;
    }
    case Family::kBeta:
      for (double margin : {0.01, 0.1, 0.5}) {
        const double width = 1.0 + 2.0 * margin;
        const double mu = (m.mean + margin) / width, v = (sd / width) * (sd / width);
        const double c = std::max(mu * (1.0 - mu) / v - 1.0, 0.5);
        out.push_back(make(spec.family, {std::max(mu * c, 1.0), std::max((1.0 - mu) * c, 1.0)}, -margin, width));
      }
      break;
    case Family::kGamma:
      for (double a : {m.skew > 0.05 ? 4.0 / (m.skew * m.skew) : 100.0, 2.0, 20.0}) {
        const double scale = sd / std::sqrt(a);
        out.push_back(make(spec.family, {a}, m.mean - a * scale, scale));
      }
      break;
    case Family::kLognormal:
      for (double s : {m.skew > 0.01 ? lognormal_shape_for_skew(m.skew) : 0.05, 0.2, 1.0}) {
        const double e = std::exp(s * s), scale = sd / std::sqrt(e * (e - 1.0));
        out.push_back(make(spec.family, {s}, m.mean - scale * std::sqrt(e), scale));
      }
      break;
    default: break;
  }
  return out;
}

}  // namespace reluopt::detail
