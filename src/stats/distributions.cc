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
