// The candidate distributions on Boost.Math, in scipy.stats' parameterizations:
//   pdf(x) = f(z) / scale, F(x) = F0(z), Q(p) = loc + scale Q0(p), z = (x - loc) / scale, where the standard
//   form (f, F0, Q0) is Boost's distribution with unit scale, except two transforms of Boost distributions:
//     reversed Weibull (scipy weibull_max): z <= 0, F0(z) = exp(-(-z)^c) = 1 - W(-z), W Boost's Weibull(c, 1);
//     GEV with shape xi (scipy genextreme's c is -xi): F0(z) = exp(-(1 + xi z)^(-1/xi)), 1 + xi z > 0.
//       With G Boost's standard Gumbel (extreme_value(0, 1)) and w = log1p(xi z) / xi:
//       F0(z) = G(w), f(z) = g(w) / (1 + xi z), Q0(p) = expm1(xi G^-1(p)) / xi (the Gumbel itself at xi = 0).
// Extreme value index (de Haan & Ferreira 2006, MATH.md section 8):
//   beta(a, b) on [0, 1]: f(z) ~ (1 - z)^(b - 1) / B(a, b) at z -> 1, so 1 - F0(1 - e) ~ C e^b: gamma = -1/b
//   (the second shape b governs the right end; the paper's "-1/alpha" names the same shape in its notation);
//   reversed Weibull -1/c; GEV xi; Student t 1/df; F(dfn, dfd) 2/dfd; Pareto 1/b; uniform -1;
//   exponential, gamma, lognormal, normal 0 (light tails, Gumbel domain).
#include <boost/math/distributions/beta.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/extreme_value.hpp>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/pareto.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/distributions/uniform.hpp>
#include <boost/math/distributions/weibull.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <tuple>

#include "reluopt/error.h"
#include "stats/evt_internal.h"

namespace reluopt {

namespace {

namespace bm = boost::math;
namespace pol = boost::math::policies;

// No exceptions from Boost inside a likelihood: out-of-domain parameters give NaN, poles and overflow infinity.
// No promotion to long double: the fits evaluate millions of densities.
using Policy = pol::policy<pol::domain_error<pol::ignore_error>, pol::pole_error<pol::ignore_error>,
                           pol::overflow_error<pol::ignore_error>, pol::evaluation_error<pol::ignore_error>,
                           pol::promote_double<false>>;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Boost's log Gamma: unlike std::lgamma it writes no global (signgam), so fits may run on several threads.
double log_gamma(double x) { return bm::lgamma(x, Policy()); }
constexpr double kGumbelXi = 1e-12;  // |xi| below this: the GEV is the Gumbel

// Calls fn with the Boost distribution of the standard form of every family that has one directly.
template <typename Fn>
double with_standard(Family family, const std::vector<double>& s, Fn fn) {
  switch (family) {
    case Family::kExponential: return fn(bm::exponential_distribution<double, Policy>(1.0));
    case Family::kPareto: return fn(bm::pareto_distribution<double, Policy>(1.0, s[0]));
    case Family::kStudentT: return fn(bm::students_t_distribution<double, Policy>(s[0]));
    case Family::kF: return fn(bm::fisher_f_distribution<double, Policy>(s[0], s[1]));
    case Family::kBeta: return fn(bm::beta_distribution<double, Policy>(s[0], s[1]));
    case Family::kGamma: return fn(bm::gamma_distribution<double, Policy>(s[0], 1.0));
    case Family::kLognormal: return fn(bm::lognormal_distribution<double, Policy>(0.0, s[0]));
    case Family::kNormal: return fn(bm::normal_distribution<double, Policy>(0.0, 1.0));
    case Family::kUniform: return fn(bm::uniform_distribution<double, Policy>(0.0, 1.0));
    case Family::kReversedWeibull:
    case Family::kGenExtreme: break;
  }
  throw Error("internal: family without a direct Boost standard form");
}

const bm::extreme_value_distribution<double, Policy> kGumbel(0.0, 1.0);

// The GEV's Gumbel variable w(z); z is inside the support.
double gev_w(double xi, double z) { return std::abs(xi) < kGumbelXi ? z : std::log1p(xi * z) / xi; }

double standard_pdf(Family family, const std::vector<double>& s, double z) {
  const auto [lo, hi] = detail::standard_support(family, s);
  if (z < lo || z > hi) return 0.0;
  if (family == Family::kReversedWeibull) return bm::pdf(bm::weibull_distribution<double, Policy>(s[0], 1.0), -z);
  if (family == Family::kGenExtreme) {
    const double xi = s[0];
    if (z == lo || z == hi) return 0.0;
    return bm::pdf(kGumbel, gev_w(xi, z)) / (std::abs(xi) < kGumbelXi ? 1.0 : 1.0 + xi * z);
  }
  return with_standard(family, s, [z](const auto& dist) { return bm::pdf(dist, z); });
}

// F0(z), or 1 - F0(z) when upper.
double standard_cdf(Family family, const std::vector<double>& s, double z, bool upper) {
  const auto [lo, hi] = detail::standard_support(family, s);
  if (z <= lo) return upper ? 1.0 : 0.0;
  if (z >= hi) return upper ? 0.0 : 1.0;
  if (family == Family::kReversedWeibull) {
    const bm::weibull_distribution<double, Policy> weibull(s[0], 1.0);
    return upper ? bm::cdf(weibull, -z) : bm::cdf(bm::complement(weibull, -z));
  }
  if (family == Family::kGenExtreme) {
    const double w = gev_w(s[0], z);
    return upper ? bm::cdf(bm::complement(kGumbel, w)) : bm::cdf(kGumbel, w);
  }
  return with_standard(family, s, [z, upper](const auto& dist) {
    return upper ? bm::cdf(bm::complement(dist, z)) : bm::cdf(dist, z);
  });
}

double standard_quantile(Family family, const std::vector<double>& s, double p) {
  const auto [lo, hi] = detail::standard_support(family, s);
  if (p <= 0.0) return lo;
  if (p >= 1.0) return hi;
  if (family == Family::kReversedWeibull)
    return -bm::quantile(bm::complement(bm::weibull_distribution<double, Policy>(s[0], 1.0), p));
  if (family == Family::kGenExtreme) {
    const double w = bm::quantile(kGumbel, p);
    return std::abs(s[0]) < kGumbelXi ? w : std::expm1(s[0] * w) / s[0];
  }
  return with_standard(family, s, [p](const auto& dist) { return bm::quantile(dist, p); });
}

}  // namespace

namespace detail {

std::pair<double, double> standard_support(Family family, const std::vector<double>& s) {
  switch (family) {
    case Family::kExponential:
    case Family::kF:
    case Family::kGamma:
    case Family::kLognormal: return {0.0, kInf};
    case Family::kPareto: return {1.0, kInf};
    case Family::kReversedWeibull: return {-kInf, 0.0};
    case Family::kStudentT:
    case Family::kNormal: return {-kInf, kInf};
    case Family::kBeta:
    case Family::kUniform: return {0.0, 1.0};
    case Family::kGenExtreme:
      if (std::abs(s[0]) < kGumbelXi) return {-kInf, kInf};
      return s[0] > 0.0 ? std::pair{-1.0 / s[0], kInf} : std::pair{-kInf, -1.0 / s[0]};
  }
  return {-kInf, kInf};
}

// Standard log-densities, z inside the support (lgamma and lbeta terms in constant_):
//   exponential -z;  normal -z^2/2 - log sqrt(2 pi);  uniform 0;  Pareto(b) log b - (b + 1) log z;
//   reversed Weibull(c) log c + (c - 1) log(-z) - (-z)^c;  Student t(df) -(df + 1)/2 log1p(z^2 / df) + C;
//   F(d1, d2) (d1/2 - 1) log z - (d1 + d2)/2 log(d2 + d1 z) + C;  beta(a, b) (a - 1) log z + (b - 1) log1p(-z) + C;
//   gamma(a) (a - 1) log z - z + C;  lognormal(s) -log z - (log z)^2 / (2 s^2) + C;
//   GEV(xi) -(1 + 1/xi) log1p(xi z) - exp(-log1p(xi z) / xi)  (Gumbel: -z - exp(-z)).
// A zero exponent contributes 0 at a support end (no 0 log 0).
LogDensity::LogDensity(const Distribution& d) : d_(d) {
  const std::vector<double>& s = d.shapes;
  std::tie(lo_, hi_) = standard_support(d.family, s);
  const double half_log_2pi = 0.5 * std::log(2.0 * std::numbers::pi);
  double c = 0.0;
  switch (d.family) {
    case Family::kNormal: c = -half_log_2pi; break;
    case Family::kPareto: c = std::log(s[0]); p_ = s[0] + 1.0; break;
    case Family::kReversedWeibull: c = std::log(s[0]); p_ = s[0]; break;
    case Family::kStudentT:
      c = log_gamma(0.5 * (s[0] + 1.0)) - log_gamma(0.5 * s[0]) - 0.5 * std::log(s[0] * std::numbers::pi);
      p_ = 0.5 * (s[0] + 1.0);
      break;
    case Family::kF:
      c = 0.5 * s[0] * std::log(s[0]) + 0.5 * s[1] * std::log(s[1]) - log_gamma(0.5 * s[0]) -
          log_gamma(0.5 * s[1]) + log_gamma(0.5 * (s[0] + s[1]));
      p_ = 0.5 * s[0] - 1.0;
      q_ = 0.5 * (s[0] + s[1]);
      break;
    case Family::kBeta:
      c = log_gamma(s[0] + s[1]) - log_gamma(s[0]) - log_gamma(s[1]);
      p_ = s[0] - 1.0;
      q_ = s[1] - 1.0;
      break;
    case Family::kGamma: c = -log_gamma(s[0]); p_ = s[0] - 1.0; break;
    case Family::kLognormal: c = -std::log(s[0]) - half_log_2pi; p_ = 0.5 / (s[0] * s[0]); break;
    case Family::kExponential:
    case Family::kUniform:
    case Family::kGenExtreme: break;
  }
  constant_ = c - std::log(d.scale);
}

double LogDensity::operator()(double x) const {
  const double z = (x - d_.loc) / d_.scale;
  if (!(z >= lo_ && z <= hi_)) return -kInf;
  const auto times_log = [](double exponent, double value) { return exponent == 0.0 ? 0.0 : exponent * value; };
  const std::vector<double>& s = d_.shapes;
  double l = 0.0;
  switch (d_.family) {
    case Family::kExponential: l = -z; break;
    case Family::kNormal: l = -0.5 * z * z; break;
    case Family::kUniform: l = 0.0; break;
    case Family::kPareto: l = -p_ * std::log(z); break;
    case Family::kReversedWeibull: l = times_log(p_ - 1.0, std::log(-z)) - std::pow(-z, p_); break;
    case Family::kStudentT: l = -p_ * std::log1p(z * z / s[0]); break;
    case Family::kF: l = times_log(p_, std::log(z)) - q_ * std::log(s[1] + s[0] * z); break;
    case Family::kBeta: l = times_log(p_, std::log(z)) + times_log(q_, std::log1p(-z)); break;
    case Family::kGamma: l = times_log(p_, std::log(z)) - z; break;
    case Family::kLognormal: {
      const double log_z = std::log(z);
      l = -log_z - p_ * log_z * log_z;
      break;
    }
    case Family::kGenExtreme: {
      const double xi = s[0];
      if (std::abs(xi) < kGumbelXi) {
        l = -z - std::exp(-z);
      } else {
        const double log_t = std::log1p(xi * z);
        l = -(1.0 + 1.0 / xi) * log_t - std::exp(-log_t / xi);
      }
      break;
    }
  }
  return l + constant_;
}

}  // namespace detail

std::vector<Family> all_families() {
  return {Family::kExponential, Family::kPareto, Family::kReversedWeibull, Family::kStudentT,
          Family::kF,           Family::kGenExtreme, Family::kBeta,        Family::kGamma,
          Family::kLognormal,   Family::kNormal,   Family::kUniform};
}

std::string family_name(Family family) {
  switch (family) {
    case Family::kExponential: return "exponential";
    case Family::kPareto: return "pareto";
    case Family::kReversedWeibull: return "reversed_weibull";
    case Family::kStudentT: return "student_t";
    case Family::kF: return "f";
    case Family::kGenExtreme: return "genextreme";
    case Family::kBeta: return "beta";
    case Family::kGamma: return "gamma";
    case Family::kLognormal: return "lognormal";
    case Family::kNormal: return "normal";
    case Family::kUniform: return "uniform";
  }
  return "unknown";
}

std::vector<std::string> shape_names(Family family) {
  switch (family) {
    case Family::kPareto: return {"b"};
    case Family::kReversedWeibull: return {"c"};
    case Family::kStudentT: return {"df"};
    case Family::kF: return {"dfn", "dfd"};
    case Family::kGenExtreme: return {"xi"};
    case Family::kBeta: return {"a", "b"};
    case Family::kGamma: return {"a"};
    case Family::kLognormal: return {"s"};
    default: return {};
  }
}

double pdf(const Distribution& d, double x) {
  return standard_pdf(d.family, d.shapes, (x - d.loc) / d.scale) / d.scale;
}

double cdf(const Distribution& d, double x) { return standard_cdf(d.family, d.shapes, (x - d.loc) / d.scale, false); }

double survival(const Distribution& d, double x) {
  return standard_cdf(d.family, d.shapes, (x - d.loc) / d.scale, true);
}

double quantile(const Distribution& d, double p) { return d.loc + d.scale * standard_quantile(d.family, d.shapes, p); }

std::optional<double> right_endpoint(const Distribution& d) {
  const double hi = detail::standard_support(d.family, d.shapes).second;
  if (!std::isfinite(hi)) return std::nullopt;
  return d.loc + d.scale * hi;
}

double extreme_value_index(const Distribution& d) {
  switch (d.family) {
    case Family::kBeta: return -1.0 / d.shapes[1];
    case Family::kReversedWeibull: return -1.0 / d.shapes[0];
    case Family::kGenExtreme: return d.shapes[0];
    case Family::kStudentT: return 1.0 / d.shapes[0];
    case Family::kF: return 2.0 / d.shapes[1];
    case Family::kPareto: return 1.0 / d.shapes[0];
    case Family::kUniform: return -1.0;
    case Family::kExponential:
    case Family::kGamma:
    case Family::kLognormal:
    case Family::kNormal: return 0.0;
  }
  return 0.0;
}

std::vector<std::pair<std::string, double>> named_parameters(const Distribution& d) {
  std::vector<std::pair<std::string, double>> out;
  const std::vector<std::string> names = shape_names(d.family);
  for (std::size_t i = 0; i < names.size() && i < d.shapes.size(); ++i) out.emplace_back(names[i], d.shapes[i]);
  out.emplace_back("loc", d.loc);
  out.emplace_back("scale", d.scale);
  return out;
}

}  // namespace reluopt
