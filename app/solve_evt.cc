#include "solve_evt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json_numbers.h"
#include "reluopt/error.h"
#include "reluopt/evt.h"
#include "reluopt/evt_json.h"

namespace reluopt::cli {

namespace {

using nlohmann::json;

std::string g(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

}  // namespace

double solve_time_limit(double time_limit, bool evt) { return evt ? (1.0 - kEvtShare) * time_limit : time_limit; }

Deadline evt_deadline(double time_limit, double seconds_used, const std::atomic<bool>* stop) {
  if (stop != nullptr && stop->load()) return Deadline(kEvtGraceSeconds, nullptr);
  const double left = time_limit >= 0.0 ? time_limit - seconds_used : std::numeric_limits<double>::infinity();
  return Deadline(std::max(left, kEvtGraceSeconds), stop);
}

SolveEvt analyse_solve_values(const SolveResult& result, Sense sense, const SolveOptions& options,
                              const std::optional<std::string>& plot_file, const Deadline& deadline) {
  const bool minimize = sense == Sense::kMinimize;
  const double sign = minimize ? -1.0 : 1.0;
  std::vector<double> values;
  values.reserve(result.sampling.values.size());
  for (const auto& [index, value] : result.sampling.values) values.push_back(sign * value);
  const json about = {{"sense", minimize ? "min" : "max"}, {"analysed", minimize ? "-g" : "g"}};

  EvtOptions evt;
  evt.threads = result.run.threads;
  if (const std::optional<StopRuleOptions>& rule = options.sampling.stop_rule) {
    evt.eps = rule->eps;
    evt.delta = rule->delta;
  }
  EvtReport report;
  try {
    report = analyse_extremes(values, evt, deadline);
  } catch (const Error& e) {
    json section = {{"error", e.what()}, {"n", values.size()}};
    section.update(about);
    return {section.dump(), "  evt         none: " + std::string(e.what()) + (plot_file ? " (no plot drawn)" : "") + "\n", ""};
  }

  json section = json::parse(evt_report_to_json(report));
  section.update(about);
  section["optimum"] = nullptr;
  std::string summary = "  evt         " + std::to_string(report.n) + " values" +
                        (minimize ? " (right tail of -g: a minimization)" : "") + "; best fit " +
                        family_name(report.fits.front().distribution.family) + " (RSS " +
                        g(report.fits.front().rss) + "), gamma " + g(report.gamma_best_fit) + "\n";
  const int level = static_cast<int>(std::lround(100.0 * report.confidence));
  if (const std::optional<Endpoint>& end = report.endpoint) {
    const double estimate = sign * end->estimate;
    const double lo = minimize ? -end->hi : end->lo, hi = minimize ? -end->lo : end->hi;
    section["optimum"] = {{"estimate", finite_or_null(estimate)},
                          {"ci", json::array({finite_or_null(lo), finite_or_null(hi)})}};
    summary += "              optimum " + g(estimate) + " [" + g(lo) + ", " + g(hi) + "] (" + std::to_string(level) +
               "% profile-likelihood interval)\n";
  } else {
    summary += "              optimum: no estimate (the best fit has no finite end)\n";
  }
  const SampleComplexity& sc = report.sample_complexity;
  auto n_text = [](const std::optional<double>& n) { return n && std::isfinite(*n) ? g(*n) : std::string("n/a"); };
  summary += "              N(eps " + g(sc.eps) + ", delta " + g(sc.delta) + "): " + n_text(sc.n_tail) +
             " (tail formula), " + n_text(sc.n_closed_form) + " (paper's closed form)\n";
  return {section.dump(), summary, plot_file ? evt_plot_script(report, *plot_file) : ""};
}

}  // namespace reluopt::cli
