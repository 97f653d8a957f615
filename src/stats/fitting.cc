// Maximum-likelihood fits with location and scale:  max over (shapes, loc, scale) of
//   l = sum_i log pdf(x_i) = sum_i [log f((x_i - loc) / scale) - log scale]   (weighted by repeat counts).
// Closed forms: exponential loc = min, scale = mean - min; normal mean and sd (1/n); uniform [min, max].
// Others: NLopt's BOBYQA (bound-constrained, derivative-free) on the data mapped to y = (x - min) / (max - min)
// in [0, 1] (l changes by -n log(max - min)), from the method-of-moments start with the highest likelihood
// (fit_starts.cc; on the test data every start led to the same optimum, at three times the cost).
// Support constraints are built into the parameterization (fit_spec.h), so every value is inside the support
// at every evaluation (a value outside makes l = -infinity and breaks the optimizer's model):
//   finite left end L:  L = 0 - e^u, scale = e^w, loc = L - scale z_lo;
//   finite right end U: U = 1 + e^u, scale = e^w, loc = U - scale z_hi;
//   both (beta): L = -e^u1, U = 1 + e^u2, scale = (U - L) / (z_hi - z_lo);  neither: loc, scale = e^w free;
// shapes are optimized on a log scale within bounds. A shape governing a finite end is kept >= 1 (GEV:
// xi >= -1; F: dfn >= 2): below it f is unbounded at the end and so is l as the end approaches the extreme
// value (Smith 1985, "Maximum likelihood estimation in a class of nonregular cases").
// The GEV is fitted on each side of xi = 0 (right end anchored for xi < 0, left end for xi > 0), the xi > 0
// side only when the xi < 0 fit ends within 0.02 of 0 (where its optimum may lie across); the better
// likelihood is kept.
// Above 10,000 distinct values the likelihood is approximated: the top 2,000 stay exact, the others are merged
// into 8,000 groups of consecutive values of about equal count, each counted at its mean (the error in log f is
// second order in the group's width), so that a fit costs at most 10,000 densities per evaluation.
// Profile likelihood of the right endpoint M: l_p(M) = max of l over the other parameters with M fixed,
// i.e. the coordinate u of U = 1 + e^u held at log((M - max) / (max - min)); uniform: l_p(M) = -n log(M - min).
#include <nlopt.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "reluopt/error.h"
#include "stats/evt_internal.h"
#include "stats/fit_spec.h"

namespace reluopt {

namespace detail {

void check_values(const std::vector<double>& values, std::size_t min_count) {
  if (values.size() < min_count)
    throw Error("extreme-value analysis needs at least " + std::to_string(min_count) + " values, got " +
                std::to_string(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      throw Error("value " + std::to_string(i) + " (counting from 0) is " + std::to_string(values[i]) +
                  ", not a finite number");
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (!(*hi > *lo)) throw Error("all " + std::to_string(values.size()) + " values are equal: no distribution to fit");
}

WeightedSample weigh(const std::vector<double>& values) {
  WeightedSample sample;
  sample.n = values.size();
  for (double v : values) {
    if (!sample.values.empty() && sample.values.back() == v) {
      sample.counts.back() += 1.0;
    } else {
      sample.values.push_back(v);
      sample.counts.push_back(1.0);
    }
  }
  sample.min = values.front();
  sample.max = values.back();
  if (sample.values.size() <= kMaxLikelihoodPoints) return sample;

  // Too many distinct values for a likelihood per evaluation: below the top kExactTop, consecutive values are
  // merged into groups of about equal count, each at its mean.
  const std::size_t exact_from = sample.values.size() - kExactTop;
  double below = 0.0;
  for (std::size_t i = 0; i < exact_from; ++i) below += sample.counts[i];
  const double target = below / static_cast<double>(kMaxLikelihoodPoints - kExactTop);
  WeightedSample grouped;
  grouped.n = sample.n;
  grouped.min = sample.min;
  grouped.max = sample.max;
  double count = 0.0, sum = 0.0;
  for (std::size_t i = 0; i < exact_from; ++i) {
    count += sample.counts[i];
    sum += sample.counts[i] * sample.values[i];
    if (count >= target || i + 1 == exact_from) {
      grouped.values.push_back(sum / count);
      grouped.counts.push_back(count);
      count = sum = 0.0;
    }
  }
  grouped.values.insert(grouped.values.end(), sample.values.begin() + static_cast<std::ptrdiff_t>(exact_from),
                        sample.values.end());
  grouped.counts.insert(grouped.counts.end(), sample.counts.begin() + static_cast<std::ptrdiff_t>(exact_from),
                        sample.counts.end());
  return grouped;
}

double log_likelihood(const Distribution& d, const WeightedSample& sample) {
  constexpr double kFloor = -690.8;  // log 1e-300
  const double kLogLargest = std::log(std::numeric_limits<double>::max());  // a density that overflows: the floor
  const LogDensity log_pdf(d);
  double total = 0.0;
  for (std::size_t i = 0; i < sample.values.size(); ++i) {
    const double l = log_pdf(sample.values[i]);
    total += sample.counts[i] * ((std::isfinite(l) && l < kLogLargest) ? std::max(l, kFloor) : kFloor);
  }
  return total;
}

}  // namespace detail

namespace {

using detail::Anchor;
using detail::FitSpec;
using detail::ShapeRange;
using detail::WeightedSample;
using detail::kMaxGap;
using detail::kMaxLoc;
using detail::kMaxScale;
using detail::kMinGap;
using detail::kMinScale;

constexpr double kGevCrossing = 0.02;

// Parameter vector <-> distribution on y in [0, 1] (see the top of the file).
Distribution decode(const FitSpec& spec, const std::vector<double>& theta) {
  Distribution d;
  d.family = spec.family;
  const std::size_t k = spec.shapes.size();
  for (std::size_t i = 0; i < k; ++i) d.shapes.push_back(spec.shapes[i].sign * std::exp(theta[i]));
  const auto [z_lo, z_hi] = detail::standard_support(spec.family, d.shapes);
  switch (spec.anchor) {
    case Anchor::kNone:
      d.loc = theta[k];
      d.scale = std::exp(theta[k + 1]);
      break;
    case Anchor::kLower:
      d.scale = std::exp(theta[k + 1]);
      d.loc = -std::exp(theta[k]) - d.scale * z_lo;
      break;
    case Anchor::kUpper:
      d.scale = std::exp(theta[k + 1]);
      d.loc = 1.0 + std::exp(theta[k]) - d.scale * z_hi;
      break;
    case Anchor::kBoth: {
      const double lower = -std::exp(theta[k]);
      const double upper = 1.0 + std::exp(theta[k + 1]);
      d.scale = (upper - lower) / (z_hi - z_lo);
      d.loc = lower - d.scale * z_lo;
      break;
    }
  }
  return d;
}

std::pair<std::vector<double>, std::vector<double>> theta_bounds(const FitSpec& spec) {
  std::vector<double> lo, hi;
  for (const ShapeRange& s : spec.shapes) {
    lo.push_back(std::log(s.lo));
    hi.push_back(std::log(s.hi));
  }
  const double gap_lo = std::log(kMinGap), gap_hi = std::log(kMaxGap);
  const double scale_lo = std::log(kMinScale), scale_hi = std::log(kMaxScale);
  switch (spec.anchor) {
    case Anchor::kNone: lo.insert(lo.end(), {-kMaxLoc, scale_lo}); hi.insert(hi.end(), {kMaxLoc, scale_hi}); break;
    case Anchor::kLower:
    case Anchor::kUpper: lo.insert(lo.end(), {gap_lo, scale_lo}); hi.insert(hi.end(), {gap_hi, scale_hi}); break;
    case Anchor::kBoth: lo.insert(lo.end(), {gap_lo, gap_lo}); hi.insert(hi.end(), {gap_hi, gap_hi}); break;
  }
  return {lo, hi};
}

// A distribution on y -> parameter vector; an end inside the data is moved just outside it.
std::vector<double> encode(const FitSpec& spec, const Distribution& start) {
  std::vector<double> theta;
  std::vector<double> shapes;
  for (std::size_t i = 0; i < spec.shapes.size(); ++i) {
    const ShapeRange& r = spec.shapes[i];
    const double magnitude = std::clamp(std::abs(start.shapes[i]), r.lo, r.hi);
    theta.push_back(std::log(magnitude));
    shapes.push_back(r.sign * magnitude);
  }
  const auto [z_lo, z_hi] = detail::standard_support(spec.family, shapes);
  const double scale = std::max(start.scale, kMinScale);
  auto outside = [](double gap) { return gap > 0.0 ? std::max(gap, kMinGap) : 1e-3; };
  const double lower_gap = outside(-(start.loc + scale * z_lo));
  const double upper_gap = outside(start.loc + scale * z_hi - 1.0);
  switch (spec.anchor) {
    case Anchor::kNone: theta.insert(theta.end(), {start.loc, std::log(scale)}); break;
    case Anchor::kLower: theta.insert(theta.end(), {std::log(lower_gap), std::log(scale)}); break;
    case Anchor::kUpper: theta.insert(theta.end(), {std::log(upper_gap), std::log(scale)}); break;
    case Anchor::kBoth: theta.insert(theta.end(), {std::log(lower_gap), std::log(upper_gap)}); break;
  }
  const auto [lo, hi] = theta_bounds(spec);
  for (std::size_t i = 0; i < theta.size(); ++i) theta[i] = std::clamp(theta[i], lo[i], hi[i]);
  return theta;
}

// The likelihood over the optimizer's coordinates: theta, or theta without the coordinate `fixed` (held at
// fixed_value) for a profile likelihood.
struct LikelihoodProblem {
  LikelihoodProblem(const FitSpec& spec_, const WeightedSample& y_, const Deadline& deadline_,
                    std::optional<std::size_t> fixed_ = {}, double fixed_value_ = 0.0)
      : spec(&spec_), y(&y_), deadline(&deadline_), fixed(fixed_), fixed_value(fixed_value_) {}

  const FitSpec* spec;
  const WeightedSample* y;
  const Deadline* deadline;
  std::optional<std::size_t> fixed;
  double fixed_value;
  nlopt::opt* running = nullptr;  // the optimizer calling, stopped when the deadline expires
  double best = std::numeric_limits<double>::infinity();
  std::vector<double> best_free;

  std::vector<double> full(const std::vector<double>& free) const {
    std::vector<double> theta = free;
    if (fixed) theta.insert(theta.begin() + static_cast<std::ptrdiff_t>(*fixed), fixed_value);
    return theta;
  }
  std::vector<double> reduce(std::vector<double> theta) const {
    if (fixed) theta.erase(theta.begin() + static_cast<std::ptrdiff_t>(*fixed));
    return theta;
  }
};

double negative_log_likelihood(const std::vector<double>& free, std::vector<double>&, void* data) {
  auto* problem = static_cast<LikelihoodProblem*>(data);
  if (problem->running != nullptr && problem->deadline->expired()) problem->running->force_stop();
  const double value = -detail::log_likelihood(decode(*problem->spec, problem->full(free)), *problem->y);
  if (value < problem->best) {
    problem->best = value;
    problem->best_free = free;
  }
  return value;
}

// How hard an optimization works: a fit polishes twice (the restart rebuilds BOBYQA's quadratic model, which
// helps on the long curved valleys of location-scale likelihoods); a profile point is warm-started.
struct Effort {
  int rounds;
  double xtol_rel;
  int max_evaluations;
  double initial_step;  // of the log-shapes, log-gaps and log-scale
};
constexpr Effort kFitEffort{2, 1e-9, 1000, 0.3};
constexpr Effort kProfileEffort{1, 1e-8, 500, 0.05};

// The best point evaluated is kept even when NLopt stops on round-off. Every call is bounded by its evaluations
// and by the deadline (NLopt's own clock, and a forced stop from the objective when the stop request is set);
// throws Stopped when the deadline ended it.
void minimize(LikelihoodProblem& problem, std::vector<double> free, const Effort& effort) {
  const auto [full_lo, full_hi] = theta_bounds(*problem.spec);
  const std::vector<double> lo = problem.reduce(full_lo), hi = problem.reduce(full_hi);
  for (std::size_t i = 0; i < free.size(); ++i) free[i] = std::clamp(free[i], lo[i], hi[i]);
  for (int round = 0; round < effort.rounds; ++round) {
    detail::check_deadline(*problem.deadline);
    nlopt::opt opt(nlopt::LN_BOBYQA, static_cast<unsigned>(free.size()));
    opt.set_lower_bounds(lo);
    opt.set_upper_bounds(hi);
    opt.set_min_objective(negative_log_likelihood, &problem);
    opt.set_xtol_rel(effort.xtol_rel);
    opt.set_ftol_abs(1e-10);
    opt.set_maxeval(round == 0 ? effort.max_evaluations : effort.max_evaluations / 3);
    if (std::isfinite(problem.deadline->remaining())) opt.set_maxtime(std::max(problem.deadline->remaining(), 1e-3));
    opt.set_initial_step(round == 0 ? effort.initial_step : 0.05);
    double value = 0.0;
    problem.running = &opt;
    try {
      opt.optimize(free, value);
    } catch (const std::bad_alloc&) {
      problem.running = nullptr;
      throw;
    } catch (const std::exception&) {
      // NLopt gave up (round-off, invalid start, forced stop): the best point so far stands.
    }
    problem.running = nullptr;
    detail::check_deadline(*problem.deadline);
    if (problem.best_free.empty()) return;
    free = problem.best_free;
  }
}

WeightedSample normalized(const WeightedSample& sample) {
  WeightedSample y = sample;
  for (double& v : y.values) v = (v - sample.min) / (sample.max - sample.min);
  y.min = 0.0;
  y.max = 1.0;
  return y;
}

Distribution to_y(const Distribution& d, const WeightedSample& x) {
  const double range = x.max - x.min;
  return Distribution{d.family, d.shapes, (d.loc - x.min) / range, d.scale / range};
}

Distribution to_x(const Distribution& d, const WeightedSample& x) {
  const double range = x.max - x.min;
  return Distribution{d.family, d.shapes, x.min + range * d.loc, range * d.scale};
}

std::optional<Distribution> closed_form(Family family, const WeightedSample& x) {
  const double n = static_cast<double>(x.n);
  double mean = 0.0, var = 0.0;
  for (std::size_t i = 0; i < x.values.size(); ++i) mean += x.counts[i] * x.values[i] / n;
  for (std::size_t i = 0; i < x.values.size(); ++i) var += x.counts[i] * (x.values[i] - mean) * (x.values[i] - mean) / n;
  switch (family) {
    case Family::kExponential: return Distribution{family, {}, x.min, mean - x.min};
    case Family::kNormal: return Distribution{family, {}, mean, std::sqrt(var)};
    case Family::kUniform: return Distribution{family, {}, x.min, x.max - x.min};
    default: return std::nullopt;
  }
}

}  // namespace

namespace detail {

std::optional<Fit> fit_weighted(Family family, const WeightedSample& sample, const Deadline& deadline) {
  check_deadline(deadline);
  if (const std::optional<Distribution> d = closed_form(family, sample)) {
    const double ll = log_likelihood(*d, sample);
    if (!std::isfinite(ll)) return std::nullopt;
    return Fit{*d, ll, 0.0};
  }
  const WeightedSample y = normalized(sample);
  const Moments m = moments(y);
  std::optional<Fit> best;
  for (const FitSpec& spec : fit_specs(family)) {
    if (family == Family::kGenExtreme && spec.shapes[0].sign > 0.0 && best &&
        best->distribution.shapes[0] < -kGevCrossing)
      continue;
    LikelihoodProblem problem(spec, y, deadline);
    std::vector<double> no_gradient, chosen;
    double chosen_value = std::numeric_limits<double>::infinity();
    for (const Distribution& start : moment_starts(spec, m)) {
      std::vector<double> theta = encode(spec, start);
      const double value = negative_log_likelihood(theta, no_gradient, &problem);
      if (chosen.empty() || value < chosen_value) {
        chosen = theta;
        chosen_value = value;
      }
    }
    if (chosen.empty()) continue;
    minimize(problem, chosen, kFitEffort);
    if (problem.best_free.empty() || !std::isfinite(problem.best)) continue;
    const double ll = -problem.best - static_cast<double>(sample.n) * std::log(sample.max - sample.min);
    if (!best || ll > best->log_likelihood) best = Fit{to_x(decode(spec, problem.best_free), sample), ll, 0.0};
  }
  return best;
}

Fit profile_fit(const Fit& fit, const WeightedSample& sample, double gap, std::vector<double>& free,
                const Deadline& deadline) {
  check_deadline(deadline);
  const double n = static_cast<double>(sample.n), range = sample.max - sample.min;
  const Family family = fit.distribution.family;
  if (family == Family::kUniform) {
    const Distribution d{family, {}, sample.min, range + gap};
    return Fit{d, -n * std::log(range + gap), 0.0};
  }
  const std::vector<FitSpec> specs = fit_specs(family);
  if (specs.empty() || !right_endpoint(fit.distribution)) throw Error("internal: profile of an unbounded fit");
  const FitSpec& spec = specs.front();  // the right-end-anchored one (the GEV's xi < 0 side)
  const std::size_t k = spec.shapes.size();
  if (spec.anchor != Anchor::kUpper && spec.anchor != Anchor::kBoth) throw Error("internal: no right end to fix");
  const WeightedSample y = normalized(sample);
  LikelihoodProblem problem(spec, y, deadline, spec.anchor == Anchor::kUpper ? k : k + 1,
                            std::log(std::clamp(gap / range, kMinGap, kMaxGap)));
  if (free.empty()) free = problem.reduce(encode(spec, to_y(fit.distribution, sample)));
  minimize(problem, free, kProfileEffort);
  if (problem.best_free.empty()) return Fit{fit.distribution, -std::numeric_limits<double>::infinity(), 0.0};
  free = problem.best_free;
  return Fit{to_x(decode(spec, problem.full(free)), sample), -problem.best - n * std::log(range), 0.0};
}

}  // namespace detail

Fit fit_distribution(Family family, const std::vector<double>& values, const Deadline& deadline) {
  const detail::Standardized z = detail::standardize(values, 3);
  std::optional<Fit> fit = detail::fit_weighted(family, detail::weigh(z.sorted), deadline);
  if (!fit) throw Error("the " + family_name(family) + " fit failed: no start gave a finite likelihood");
  return z.units.to_x(*fit, values.size());
}

}  // namespace reluopt
