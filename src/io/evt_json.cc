// Files of the extreme-value analysis: the per-sample values CSV in, the report JSON out.
#include "reluopt/evt_json.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "reluopt/error.h"
#include "reluopt/output_file.h"

namespace reluopt {

namespace {

using nlohmann::json;

std::string trim(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

json finite_or_null(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

}  // namespace

std::vector<double> read_values_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open values file '" + path + "'");
  std::string line;
  std::size_t line_number = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++line_number;
    if (!trim(line).empty()) header = split(line);
  }
  std::size_t column = header.size();
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == "value") column = i;
  if (column == header.size())
    throw Error("values file '" + path + "' needs a header line with a \"value\" column (as written by "
                "'reluopt solve --values-out')");

  std::vector<double> values;
  while (std::getline(in, line)) {
    ++line_number;
    if (trim(line).empty()) continue;
    const std::vector<std::string> fields = split(line);
    const std::string where = "line " + std::to_string(line_number) + " of '" + path + "'";
    if (fields.size() != header.size())
      throw Error(where + " has " + std::to_string(fields.size()) + " fields, the header " +
                  std::to_string(header.size()));
    const std::string& text = fields[column];
    double value = 0.0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) throw Error(where + ": '" + text + "' is not a number");
    if (!std::isfinite(value)) throw Error(where + ": the value is not finite");
    values.push_back(value);
  }
  if (in.bad()) throw Error("error reading values file '" + path + "'");
  return values;
}

std::string evt_report_to_json(const EvtReport& report) {
  json fits = json::array();
  for (const Fit& fit : report.fits) {
    json params = json::object();
    for (const auto& [name, value] : named_parameters(fit.distribution)) params[name] = finite_or_null(value);
    fits.push_back({{"family", family_name(fit.distribution.family)},
                    {"params", params},
                    {"rss", finite_or_null(fit.rss)},
                    {"log_likelihood", finite_or_null(fit.log_likelihood)},
                    {"gamma", finite_or_null(extreme_value_index(fit.distribution))}});
  }
  json gamma = {{"best_fit", finite_or_null(report.gamma_best_fit)},
                {"best_fit_family", report.fits.empty() ? json(nullptr)
                                                        : json(family_name(report.fits.front().distribution.family))},
                {"moment", optional_number(report.moment.gamma)},
                {"moment_ci", report.moment.ci ? json::array({finite_or_null(report.moment.ci->first),
                                                              finite_or_null(report.moment.ci->second)})
                                               : json(nullptr)},
                {"moment_k", report.moment.k},
                {"moment_resamples", report.bootstrap_resamples},
                {"moment_seed", report.seed}};
  json endpoint = nullptr;
  if (report.endpoint)
    endpoint = {{"estimate", finite_or_null(report.endpoint->estimate)},
                {"ci", json::array({finite_or_null(report.endpoint->lo), finite_or_null(report.endpoint->hi)})},
                {"family", family_name(report.endpoint->family)},
                {"method", "profile likelihood ratio of the best fit, cut below at the largest value"}};
  const SampleComplexity& sc = report.sample_complexity;
  json doc = {{"n", report.n},
              {"min", report.min},
              {"max", report.max},
              {"fits", fits},
              {"gamma", gamma},
              {"endpoint", endpoint},
              {"sample_complexity",
               {{"eps", sc.eps},
                {"delta", sc.delta},
                {"n_tail", optional_number(sc.n_tail)},
                {"n_closed_form", optional_number(sc.n_closed_form)},
                {"probability_now", optional_number(sc.probability_now)}}},
              {"histogram",
               {{"bin_rule", "numpy 'auto': min(Freedman-Diaconis, Sturges) width"},
                {"bins", report.histogram.density.size()},
                {"width", report.histogram.width}}},
              {"confidence", report.confidence}};
  return doc.dump(2) + "\n";
}

void write_text_file(const std::string& path, const std::string& text) {
  write_output_file(path, text, "the extreme-value report");
}

}  // namespace reluopt
