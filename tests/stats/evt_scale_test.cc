// The extreme-value analysis on values of any magnitude (it runs in standard units and maps back), under a
// deadline and a stop request, its bootstrap by order statistics, and the values files it reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "evt_command.h"
#include "reluopt/error.h"
#include "reluopt/evt.h"
#include "reluopt/evt_json.h"
#include "stats/evt_internal.h"

namespace reluopt {
namespace {

namespace fs = std::filesystem;

std::vector<double> draw(const Distribution& d, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> values;
  for (int i = 0; i < n; ++i) values.push_back(quantile(d, (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53));
  return values;
}

const Distribution kBeta23{Family::kBeta, {2.0, 3.0}, 0.0, 1.0};

std::vector<double> affine(std::vector<double> values, double scale, double shift) {
  for (double& v : values) v = shift + scale * v;
  return values;
}

// |a - b| <= tolerance |b|, for numbers of any magnitude.
void expect_relative(double a, double b, double tolerance, const std::string& what) {
  if (std::isinf(b)) {
    EXPECT_EQ(a, b) << what;
  } else {
    EXPECT_LE(std::abs(a - b), tolerance * std::abs(b)) << what << ": " << a << " vs " << b;
  }
}

// The report on scale * x + shift is the report on x with its locations and lengths mapped the same way (fits
// compared family by family: two fits with the same RSS may swap places by rounding).
void expect_mapped(const EvtReport& scaled, const EvtReport& plain, double scale, double shift, double tolerance) {
  ASSERT_EQ(scaled.fits.size(), plain.fits.size());
  EXPECT_EQ(scaled.fits.front().distribution.family, plain.fits.front().distribution.family);
  for (const Fit& fit : plain.fits) {
    const Distribution& p = fit.distribution;
    const std::string name = family_name(p.family);
    const auto same = std::find_if(scaled.fits.begin(), scaled.fits.end(),
                                   [&](const Fit& f) { return f.distribution.family == p.family; });
    ASSERT_NE(same, scaled.fits.end()) << name;
    const Distribution& s = same->distribution;
    for (std::size_t j = 0; j < p.shapes.size(); ++j) expect_relative(s.shapes[j], p.shapes[j], tolerance, name);
    expect_relative(s.loc, shift + scale * p.loc, tolerance, name + " loc");
    expect_relative(s.scale, scale * p.scale, tolerance, name + " scale");
  }
  expect_relative(scaled.gamma_best_fit, plain.gamma_best_fit, tolerance, "gamma");
  ASSERT_TRUE(scaled.moment.gamma && plain.moment.gamma && scaled.moment.ci && plain.moment.ci);
  expect_relative(*scaled.moment.gamma, *plain.moment.gamma, tolerance, "moment");
  expect_relative(scaled.moment.ci->first, plain.moment.ci->first, tolerance, "moment ci");
  ASSERT_TRUE(scaled.endpoint && plain.endpoint);
  expect_relative(scaled.endpoint->estimate, shift + scale * plain.endpoint->estimate, tolerance, "M");
  expect_relative(scaled.endpoint->lo, shift + scale * plain.endpoint->lo, tolerance, "M lo");
  expect_relative(scaled.endpoint->hi, shift + scale * plain.endpoint->hi, tolerance, "M hi");
  EXPECT_GE(scaled.endpoint->lo, scaled.max);
  ASSERT_TRUE(scaled.sample_complexity.n_tail && plain.sample_complexity.n_tail);
  expect_relative(*scaled.sample_complexity.n_tail, *plain.sample_complexity.n_tail, tolerance, "n_tail");
  EXPECT_EQ(scaled.histogram.density.size(), plain.histogram.density.size());
}

// 2000 beta values times 1e200 made `reluopt evt` run for more than 300 s (BOBYQA in the endpoint's profile
// likelihood); the deadline turns a relapse into a failure instead of a hang.
TEST(EvtMagnitude, ValuesNear1e200GiveTheOrdinaryReport) {
  const std::vector<double> values = draw(kBeta23, 2000, 31);
  const Deadline deadline(60.0, nullptr);
  const EvtReport plain = analyse_extremes(values, {}, deadline);
  // A power of two maps the standard units bit for bit: the same report, mapped.
  const double two_664 = std::ldexp(1.0, 664);  // 1.5e200
  expect_mapped(analyse_extremes(affine(values, two_664, 0.0), {}, deadline), plain, two_664, 0.0, 1e-12);
  // Any other scale and a shift change the standard units by rounding: the optimizer's tolerance.
  expect_mapped(analyse_extremes(affine(values, 1e200, 3e200), {}, deadline), plain, 1e200, 3e200, 1e-3);
  expect_mapped(analyse_extremes(affine(values, 1e-250, -1e-249), {}, deadline), plain, 1e-250, -1e-249, 1e-3);
}

TEST(EvtMagnitude, ValuesSpanningTheWholeDoubleRange) {
  // max - min overflows: the standard units are taken from halved values.
  const double big = 0.8 * std::numeric_limits<double>::max();
  std::vector<double> values = draw(kBeta23, 500, 32);
  for (double& v : values) v = big * (2.0 * v - 1.0);
  const EvtReport r = analyse_extremes(values, {}, Deadline(60.0, nullptr));
  EXPECT_EQ(r.min, *std::min_element(values.begin(), values.end()));
  EXPECT_EQ(r.max, *std::max_element(values.begin(), values.end()));
  ASSERT_FALSE(r.fits.empty());
  EXPECT_EQ(r.fits.front().distribution.family, Family::kBeta);
  ASSERT_TRUE(r.endpoint);
  EXPECT_GE(r.endpoint->estimate, r.max);
  EXPECT_TRUE(std::isfinite(r.sample_complexity.eps));
  ASSERT_TRUE(r.moment.gamma);
  EXPECT_NEAR(*r.moment.gamma, *moment_estimator(draw(kBeta23, 500, 32), r.moment.k), 1e-9);
  EXPECT_NEAR(*moment_estimator(values, r.moment.k), *r.moment.gamma, 1e-9);
}

// The fit mapped back is the fit of the values themselves: its log-likelihood is that of the values under it,
// its RSS that against their histogram, and no small change of a parameter in x's units does better.
TEST(EvtMagnitude, TheMappedFitIsTheFitOfTheValues) {
  const std::vector<double> values = affine(draw(kBeta23, 1500, 33), 7.0, 100.0);
  for (Family family : {Family::kBeta, Family::kGenExtreme, Family::kNormal, Family::kGamma}) {
    const Fit fit = fit_distribution(family, values);
    double log_likelihood = 0.0;
    for (double v : values) log_likelihood += std::log(pdf(fit.distribution, v));
    EXPECT_NEAR(fit.log_likelihood, log_likelihood, 1e-6 * std::abs(log_likelihood)) << family_name(family);
    for (double step : {1e-3, -1e-3}) {
      for (bool location : {true, false}) {
        Distribution moved = fit.distribution;
        (location ? moved.loc : moved.scale) += step * fit.distribution.scale;
        double moved_likelihood = 0.0;
        for (double v : values) moved_likelihood += std::log(pdf(moved, v));
        EXPECT_LE(moved_likelihood, log_likelihood + 1e-6) << family_name(family) << (location ? " loc " : " scale ")
                                                           << step;
      }
    }
  }
  const std::vector<Fit> ranked = fit_and_rank(values);
  const Histogram histogram = make_histogram(values);
  for (const Fit& fit : ranked)
    EXPECT_NEAR(fit.rss, residual_sum_of_squares(histogram, fit.distribution), 1e-9 * (1.0 + fit.rss))
        << family_name(fit.distribution.family);
}

TEST(EvtMagnitude, StoppingRuleOnValuesNear1e199) {
  const std::vector<double> values = draw(kBeta23, 600, 34);
  const Deadline deadline(60.0, nullptr);
  const StoppingDecision plain = stopping_rule(values, 0.1, 0.05, {}, deadline);
  const double two_660 = std::ldexp(1.0, 660);  // 4.9e198
  const StoppingDecision scaled = stopping_rule(affine(values, two_660, 0.0), 0.1 * two_660, 0.05, {}, deadline);
  ASSERT_TRUE(plain.fitted && scaled.fitted);
  EXPECT_EQ(scaled.stop, plain.stop);
  EXPECT_EQ(scaled.family, plain.family);
  expect_relative(scaled.estimate, two_660 * plain.estimate, 1e-12, "M");
  expect_relative(scaled.upper, two_660 * plain.upper, 1e-12, "M_up");
  expect_relative(scaled.probability_upper, plain.probability_upper, 1e-9, "probability");
  EXPECT_GE(scaled.estimate, scaled.lower);
}

// The likelihood's closed-form log-densities are log(pdf) of every family wherever the pdf is positive (at a
// support end Boost may give 0 where the density's limit is positive, as gamma(1) at 0: no value the fits
// leave inside the support is there).
TEST(EvtLogDensity, IsTheLogOfThePdf) {
  const std::vector<Distribution> all = {
      {Family::kExponential, {}, 1.0, 2.0},    {Family::kPareto, {2.5}, -1.0, 3.0},
      {Family::kReversedWeibull, {2.0}, 5.0, 2.0}, {Family::kReversedWeibull, {1.0}, 5.0, 2.0},
      {Family::kStudentT, {4.0}, 1.0, 2.0},    {Family::kF, {5.0, 12.0}, 0.5, 2.0},
      {Family::kF, {2.0, 3.0}, 0.5, 2.0},      {Family::kGenExtreme, {-0.3}, 1.0, 2.0},
      {Family::kGenExtreme, {0.25}, 1.0, 2.0}, {Family::kGenExtreme, {0.0}, 1.0, 2.0},
      {Family::kBeta, {2.0, 3.0}, -1.0, 4.0},  {Family::kBeta, {1.0, 1.0}, -1.0, 4.0},
      {Family::kGamma, {2.5}, 1.0, 2.0},       {Family::kGamma, {1.0}, 1.0, 2.0},
      {Family::kLognormal, {0.6}, 1.0, 2.0},   {Family::kNormal, {}, 1.0, 2.0},
      {Family::kUniform, {}, 1.0, 2.0}};
  for (const Distribution& d : all) {
    const detail::LogDensity log_pdf(d);
    for (double p : {0.0, 1e-6, 0.01, 0.3, 0.5, 0.9, 0.999, 1.0}) {
      const double x = quantile(d, p), density = pdf(d, x);
      const std::string where = family_name(d.family) + " at p=" + std::to_string(p);
      if (density > 0.0 && std::isfinite(density)) {
        EXPECT_NEAR(log_pdf(x), std::log(density), 1e-9 * (1.0 + std::abs(std::log(density)))) << where;
      } else if (p > 0.0 && p < 1.0) {
        EXPECT_LT(log_pdf(x), -690.0) << where;
      }
    }
    EXPECT_EQ(log_pdf(std::nan("")), -std::numeric_limits<double>::infinity());
  }
}

// ---- deadline and stop request -------------------------------------------------------------------------------

TEST(EvtDeadline, AnExpiredDeadlineEndsEveryAnalysis) {
  const std::vector<double> values = draw(kBeta23, 500, 35);
  const Deadline expired(0.0, nullptr);
  try {
    analyse_extremes(values, {}, expired);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("time limit"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fit_distribution(Family::kBeta, values, expired), Error);
  EXPECT_THROW(fit_and_rank(values, all_families(), kRssTieBand, expired), Error);
  EXPECT_THROW(moment_estimate(values, 0, 100, 0.95, 1, expired), Error);
  // The stopping rule: no decision, so a run that has run out of time is not stopped by the rule.
  const StoppingDecision d = stopping_rule(values, 0.1, 0.05, {}, expired);
  EXPECT_FALSE(d.fitted);
  EXPECT_FALSE(d.stop);
}

TEST(EvtDeadline, AStopRequestInterrupts) {
  std::atomic<bool> stop{true};
  const Deadline interrupted(std::numeric_limits<double>::infinity(), &stop);
  try {
    analyse_extremes(draw(kBeta23, 500, 36), {}, interrupted);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("interrupted"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(stopping_rule(draw(kBeta23, 500, 36), 0.1, 0.05, {}, interrupted).fitted);
}

TEST(EvtDeadline, StagesAreReportedInOrder) {
  std::vector<std::string> stages;
  EvtOptions options;
  options.bootstrap_resamples = 20;
  options.on_stage = [&](const std::string& stage) { stages.push_back(stage); };
  analyse_extremes(draw(kBeta23, 300, 37), options);
  ASSERT_EQ(stages.size(), 4u);
  EXPECT_EQ(stages[0], "sorting 300 values");
  EXPECT_EQ(stages[1], "fitting 11 families");
  EXPECT_EQ(stages[2], "bootstrap of the moment estimator");
  EXPECT_EQ(stages[3], "profile likelihood of the endpoint");
}

// ---- bootstrap ------------------------------------------------------------------------------------------

// The resamples drawn as order statistics have the law of full resamples: the percentile interval agrees with
// one from sorted full resamples to within the Monte Carlo error of 2000 resamples.
TEST(EvtBootstrap, OrderStatisticResamplesMatchFullResamples) {
  const std::vector<double> values = draw(kBeta23, 2000, 38);
  const std::size_t k = default_moment_k(values.size());
  const int resamples = 2000;
  const MomentEstimate fast = moment_estimate(values, k, resamples, 0.9, 7);
  ASSERT_TRUE(fast.ci);
  std::mt19937_64 rng(8);
  std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
  std::vector<double> resample(values.size()), estimates;
  for (int b = 0; b < resamples; ++b) {
    for (double& v : resample) v = values[pick(rng)];
    if (const std::optional<double> g = moment_estimator(resample, k)) estimates.push_back(*g);
  }
  std::sort(estimates.begin(), estimates.end());
  const auto at = [&](double q) { return estimates[static_cast<std::size_t>(q * (estimates.size() - 1))]; };
  EXPECT_NEAR(fast.ci->first, at(0.05), 0.03);
  EXPECT_NEAR(fast.ci->second, at(0.95), 0.03);
  // Deterministic for a seed.
  EXPECT_EQ(moment_estimate(values, k, 50, 0.9, 7).ci, moment_estimate(values, k, 50, 0.9, 7).ci);
}

// ---- values files ---------------------------------------------------------------------------------------

std::string temp_path(const std::string& name) { return (fs::path(::testing::TempDir()) / name).string(); }

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string error_of(const std::string& path) {
  try {
    read_values_csv(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(EvtValuesFile, ReadsAPlainColumnOfNumbers) {
  const std::string path = temp_path("evt_plain.txt");
  write(path, "\xEF\xBB\xBF" "1.5\r\n\n-2e-3\n+7\n 1e200 \n");
  EXPECT_EQ(read_values_csv(path), (std::vector<double>{1.5, -2e-3, 7.0, 1e200}));
  write(path, "sample,value\n0,+1.5\n");
  EXPECT_EQ(read_values_csv(path), (std::vector<double>{1.5}));
}

TEST(EvtValuesFile, BadFilesNameTheFileAndTheProblem) {
  const std::string path = temp_path("evt_bad_values.txt");
  write(path, "");
  EXPECT_NE(error_of(path).find("is empty"), std::string::npos) << error_of(path);
  write(path, "\n \n");
  EXPECT_NE(error_of(path).find("is empty"), std::string::npos) << error_of(path);
  write(path, "1.5\n2.5\n3,4\n");
  EXPECT_NE(error_of(path).find("line 3"), std::string::npos) << error_of(path);
  write(path, "0,1.5\n1,2.5\n");  // a CSV without its header
  EXPECT_NE(error_of(path).find("header"), std::string::npos) << error_of(path);
  write(path, "1.5\n\xff\xfe\x01\n");
  const std::string binary = error_of(path);
  EXPECT_NE(binary.find("line 2"), std::string::npos) << binary;
  EXPECT_NE(binary.find("\\xff\\xfe\\x01"), std::string::npos) << binary;  // no raw bytes in the message
  write(path, "1.5\ninf\n");
  EXPECT_NE(error_of(path).find("not finite"), std::string::npos) << error_of(path);
  EXPECT_NE(error_of(::testing::TempDir()).find("is a directory"), std::string::npos);
  EXPECT_NE(error_of(temp_path("evt_no_such_values.txt")).find("No such file"), std::string::npos);
  for (const std::string& message : {error_of(path), error_of(::testing::TempDir())})
    EXPECT_NE(message.find(path.substr(0, path.rfind('/'))), std::string::npos) << message;
}

TEST(EvtPlotFile, AMissingDirectoryIsOneClearError) {
  const std::string png = temp_path("no_such_directory/evt.png");
  try {
    cli::draw_evt_plot("", png);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(png), std::string::npos) << e.what();
  }
}

TEST(EvtCommand, TimeLimitAndQuietFlags) {
  const std::string path = temp_path("evt_time_limit.txt");
  std::string text;
  for (double v : draw(kBeta23, 300, 39)) text += std::to_string(v) + "\n";
  write(path, text);
  try {
    cli::run_evt_command({path, "--time-limit", "0", "--quiet"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("time limit"), std::string::npos) << e.what();
  }
  for (const char* bad : {"-1", "inf", "nan", "x"})
    EXPECT_THROW(cli::run_evt_command({path, "--time-limit", bad}), std::exception) << bad;
  EXPECT_EQ(cli::run_evt_command({path, "--quiet", "--time-limit", "60"}), 0);
}

}  // namespace
}  // namespace reluopt
