#pragma once

// Extreme-value analysis of the values X_i that sampling reaches (MATH.md section 8, the paper's Theorem 3.2
// and Appendices A-B). Everything here analyses the RIGHT tail (maxima): for a minimization, negate the values.
// Pure functions over std::vector<double>; bad input (too few values, non-finite or all-equal values) throws
// reluopt::Error. Values of any finite magnitude: the analyses run in standard units u = (x - min) / (max - min)
// and map their results back (a fit's location and scale, the endpoint, the histogram), so they equal those on
// x itself wherever x's own arithmetic is exact enough. Functions that take a Deadline stop when it expires or
// its stop request is set, within a fraction of a second, by throwing reluopt::Error (stopping_rule: no
// decision instead).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reluopt/run_control.h"

namespace reluopt {

// Candidate families, with scipy.stats' parameterizations so that numbers can be cross-checked with distfit.
enum class Family {
  kExponential,      // expon(loc, scale)
  kPareto,           // pareto(b, loc, scale)
  kReversedWeibull,  // weibull_max(c, loc, scale): right endpoint loc
  kStudentT,         // t(df, loc, scale)
  kF,                // f(dfn, dfd, loc, scale)
  kGenExtreme,       // GEV with shape xi = -c of scipy's genextreme(c, loc, scale)
  kBeta,             // beta(a, b, loc, scale) on [loc, loc + scale]
  kGamma,            // gamma(a, loc, scale)
  kLognormal,        // lognorm(s, loc, scale)
  kNormal,           // norm(loc, scale)
  kUniform,          // uniform(loc, scale) on [loc, loc + scale]
};

std::vector<Family> all_families();
// "exponential", "pareto", "reversed_weibull", "student_t", "f", "genextreme", "beta", "gamma", "lognormal",
// "normal", "uniform".
std::string family_name(Family family);
// Names of the shapes, in the order of Distribution::shapes: pareto {b}, reversed_weibull {c}, student_t {df},
// f {dfn, dfd}, genextreme {xi}, beta {a, b}, gamma {a}, lognormal {s}; none for the others.
std::vector<std::string> shape_names(Family family);

// pdf(x) = f((x - loc) / scale) / scale with f the family's standard density.
struct Distribution {
  Family family = Family::kNormal;
  std::vector<double> shapes;
  double loc = 0.0;
  double scale = 1.0;
};

double pdf(const Distribution& d, double x);
double cdf(const Distribution& d, double x);
double survival(const Distribution& d, double x);  // 1 - cdf(x), accurate in the right tail
double quantile(const Distribution& d, double p);   // p in [0, 1]
std::optional<double> right_endpoint(const Distribution& d);  // nullopt when the support is unbounded above
// The extreme value index gamma by the family's closed form (MATH.md section 8): beta -1/b (b, the second
// shape, governs the right end: f ~ (M - x)^(b-1)), reversed Weibull -1/c, GEV xi, Student t 1/df,
// F 2/dfd, Pareto 1/b, uniform -1 (beta(1,1)); exponential, gamma, lognormal, normal 0.
double extreme_value_index(const Distribution& d);
// Shapes by name, then "loc" and "scale".
std::vector<std::pair<std::string, double>> named_parameters(const Distribution& d);

// Histogram density with numpy's bins='auto' rule (what distfit uses): bin width = min(Freedman-Diaconis
// 2 IQR n^(-1/3), Sturges range / (log2 n + 1)), Sturges alone when the IQR is 0; at most 1000 bins
// spanning [min, max]; density = count / (n width).
struct Histogram {
  double lo = 0.0;
  double width = 1.0;
  std::size_t n = 0;
  std::vector<double> density;
  double centre(std::size_t bin) const { return lo + (static_cast<double>(bin) + 0.5) * width; }
};
Histogram make_histogram(const std::vector<double>& values);
// sum over bins of (histogram density - pdf(bin centre))^2, as distfit ranks fits.
double residual_sum_of_squares(const Histogram& histogram, const Distribution& d);
// The RSS that sampling noise alone gives the true density, estimated from the histogram:
// sum_j d_j (1 - d_j w) / (n w) (multinomial variance of each bin's density, d_j the density, w the width).
double noise_rss(const Histogram& histogram);

struct Fit {
  Distribution distribution;
  double log_likelihood = 0.0;
  double rss = 0.0;  // against the histogram of the fitted values
};

// Maximum-likelihood fit with location and scale (closed form for exponential, normal, uniform; otherwise NLopt's
// BOBYQA from the best of a few method-of-moments starts). Every value lies inside the fitted support. The shape that
// governs a finite end of the support is kept >= 1 (beta a and b, reversed Weibull c, gamma a, GEV xi >= -1,
// F dfn >= 2), where the likelihood is bounded; below it the likelihood is unbounded as the end approaches the
// extreme value (Smith 1985), and a fit at that bound means the data pile up at the end.
// Throws reluopt::Error on fewer than 3 values, non-finite or all-equal values, or when the fit fails.
Fit fit_distribution(Family family, const std::vector<double>& values, const Deadline& deadline = {});
// Fits every family that can be fitted (in parallel on all cores), best first; families whose fit fails are
// left out. Order: by RSS, as distfit, except that the fits whose RSS exceeds the lowest by at most
// rss_tie_band * noise_rss (the histogram cannot tell them apart) come first in order of AIC = 2 p - 2 l
// (p parameters, l the log-likelihood). rss_tie_band = 0 is distfit's order.
inline constexpr double kRssTieBand = 0.5;
std::vector<Fit> fit_and_rank(const std::vector<double>& values, const std::vector<Family>& families = all_families(),
                              double rss_tie_band = kRssTieBand, const Deadline& deadline = {});

// The moment (Dekkers-Einmahl-de Haan) estimator of gamma on the top k order statistics of the excesses over
// the sample minimum (location invariant: the PORT variant with q = 0). nullopt when undefined (the top k + 1
// values tie).
std::optional<double> moment_estimator(const std::vector<double>& values, std::size_t k);
// k = floor(n^(2/3)) (the rate of the optimal k for a second-order parameter rho = -1), within [2, n - 2].
std::size_t default_moment_k(std::size_t n);

struct MomentEstimate {
  std::optional<double> gamma;
  std::optional<std::pair<double, double>> ci;  // bootstrap percentile interval
  std::size_t k = 0;
};
// The estimator with a percentile interval from `resamples` nonparametric bootstrap resamples (same k), each
// drawn as the order statistics the estimator reads (O(k) per resample; src/stats/tail_index.cc).
MomentEstimate moment_estimate(const std::vector<double>& values, std::size_t k, int resamples, double confidence,
                               std::uint64_t seed, const Deadline& deadline = {});

// Samples so that the best value is within eps of the right endpoint M with probability >= 1 - delta:
//   tail:        ln(1/delta) / (1 - F(M - eps)), F the fitted distribution, M its finite endpoint;
//                nullopt when M is infinite or 1 - F(M - eps) is 0.
//   closed form: ln(1/delta) / eps^(-1/gamma), the paper's Theorem 3.2 (drops the tail constant of
//                1 - F(M - eps) ~ C eps^(-1/gamma), so it depends on the units of eps); nullopt for gamma >= 0.
std::optional<double> samples_needed_tail(const Distribution& d, double eps, double delta);
std::optional<double> samples_needed_closed_form(double gamma, double eps, double delta);

struct EvtOptions {
  std::vector<Family> families = all_families();
  double rss_tie_band = kRssTieBand;  // see fit_and_rank; 0: distfit's pure RSS order
  std::optional<double> eps;   // default: 1% of the observed range max - min
  double delta = 0.05;
  double confidence = 0.95;    // level of the intervals (moment estimator, endpoint)
  std::size_t moment_k = 0;    // 0: default_moment_k(n)
  int bootstrap_resamples = 200;  // of the moment estimator's interval
  std::uint64_t seed = 1;         // of those resamples
  int threads = 0;             // the families are fitted in parallel; 0: all cores. Results do not depend on it.
  // Called from the calling thread as each stage begins ("sorting", "fitting 11 families", ...), for a
  // progress line.
  std::function<void(const std::string& stage)> on_stage;
};

// The estimated right endpoint M of the best fit, with its profile-likelihood (likelihood-ratio) interval
// {M >= max X_i : 2 (l - l_p(M)) <= chi2_1 quantile(confidence)}, l_p(M) the log-likelihood maximized with the
// endpoint held at M. M is never below a value that was reached, so the interval starts at max X_i at the
// lowest. Wilks' theorem gives it the nominal level asymptotically when the shape governing the end exceeds 2
// (gamma > -1/2); for shapes in [1, 2] the likelihood is non-regular and the level is approximate. It measures
// the estimation error of M assuming the family is right, not the error of choosing the family.
// hi is +infinity when the likelihood never drops enough (very flat tails).
struct Endpoint {
  Family family = Family::kBeta;
  double estimate = 0.0;
  double lo = 0.0;
  double hi = 0.0;
};

struct SampleComplexity {
  double eps = 0.0;
  double delta = 0.0;
  std::optional<double> n_tail;          // samples_needed_tail with the best fit (needs its finite endpoint)
  std::optional<double> n_closed_form;   // samples_needed_closed_form with the best fit's gamma
  std::optional<double> probability_now; // F(M - eps)^n: probability that the best of the n values so far is
                                         // more than eps below M, under the best fit
};

struct EvtReport {
  std::size_t n = 0;
  double min = 0.0;
  double max = 0.0;
  Histogram histogram;
  std::vector<Fit> fits;                 // every fitted family, best first (the order of fit_and_rank)
  double gamma_best_fit = 0.0;           // extreme_value_index(fits[0].distribution)
  MomentEstimate moment;
  std::optional<Endpoint> endpoint;      // nullopt when the best fit's support is unbounded above
  SampleComplexity sample_complexity;
  double confidence = 0.95;
  int bootstrap_resamples = 0;
  std::uint64_t seed = 0;
};

// The whole analysis. Throws reluopt::Error on fewer than kMinEvtValues values, non-finite or all-equal values,
// eps <= 0, delta outside (0, 1), and when the deadline expires or its stop request is set first. Its cost is one
// sort of the values and O(n) passes; the likelihoods run on at most 10,000 weighted points whatever n.
inline constexpr std::size_t kMinEvtValues = 30;
EvtReport analyse_extremes(const std::vector<double>& values, const EvtOptions& options = {},
                           const Deadline& deadline = {});

// A stopping rule for a sampling run: is the best value so far within eps of the true maximum M with
// probability >= 1 - delta? Cheap enough to call every few hundred samples (it refits only the finite-endpoint
// families; a GEV fit with xi >= 0 is not used); its cost grows with n, so call it on a geometric schedule
// (e.g. each time n has grown by 20%) for long runs. It stops only when the test passes for every finite-endpoint
// fit whose RSS is within rss_tie_band * noise_rss of the lowest (the fits the histogram cannot tell apart); the
// decision is that of the best-ranked fit, or of the first tied fit that fails. See src/stats/stopping_rule.cc.
struct StoppingOptions {
  std::size_t min_values = 100;   // fewer values: no decision (stop = false, fitted = false)
  std::vector<Family> families = {Family::kBeta, Family::kReversedWeibull, Family::kGenExtreme};
  double rss_tie_band = kRssTieBand;
  // true: stop when probability_upper <= delta / 2 (allows for the error of the fitted endpoint);
  // false: the plug-in rule, stop when probability <= delta (stops too early when M is underestimated).
  bool endpoint_uncertainty = true;
  int threads = 1;                // the families are fitted in parallel on this many threads; 0: all cores
};

struct StoppingDecision {
  bool stop = false;
  bool fitted = false;            // false: too few values, all values equal, or no finite-endpoint fit
  Family family = Family::kBeta;  // the fit the decision is from
  double estimate = 0.0;          // M, the fitted right endpoint (>= the largest value)
  // [largest value, M_up]: M_up is the upper end of the profile-likelihood interval of M at level 1 - delta
  // (one-sided level 1 - delta/2); +infinity when the likelihood is too flat to bound M.
  double lower = 0.0;
  double upper = 0.0;
  double probability = 1.0;        // F(M - eps)^n under the fit: the best value so far is more than eps below M
  double probability_upper = 1.0;  // the same under the profile fit with its endpoint at M_up
  // Samples at which the stop test in use passes if the fit stays the same: ln(1/t) / (1 - G(N - eps)), with
  // (G, N, t) = (profile fit at M_up, M_up, delta/2) by default or (fit, M, delta) for the plug-in rule;
  // infinity when that tail is 0 or M_up is infinite.
  double n_required = 0.0;
};

// When the deadline expires or its stop request is set during the check, the decision is "no decision"
// (fitted = false, stop = false), within a fraction of a second.
StoppingDecision stopping_rule(const std::vector<double>& values, double eps, double delta,
                               const StoppingOptions& options = {}, const Deadline& deadline = {});

// A gnuplot script that draws the histogram with the top three fitted densities (labelled with their RSS) and
// the endpoint estimate into the PNG `png_path` (pngcairo when available, else png).
std::string evt_plot_script(const EvtReport& report, const std::string& png_path);

}  // namespace reluopt
