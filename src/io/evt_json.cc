// Files of the extreme-value analysis: the per-sample values CSV in, the report JSON out.
#include "reluopt/evt_json.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "io/json_numbers.h"
#include "io/output_file.h"
#include "reluopt/error.h"

namespace reluopt {

namespace {

using nlohmann::json;

std::string_view trim(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

// The comma-separated fields of a line, trimmed, into `fields` (reused from line to line).
void split(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return;
    start = comma + 1;
  }
}

// Text from a file, for an error message: printable ASCII as is, other bytes as \xNN, at most 40 characters.
std::string printable(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  for (; i < text.size() && out.size() < 40; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return i < text.size() ? out + "..." : out;
}

// A number as from_chars reads it, with an optional leading '+'; nullopt when the whole text is not one.
std::optional<double> parse_number(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// Calls on_line(line, number) for each line of the file (without its end of line), reading blocks of 4 MB.
template <typename OnLine>
void for_each_line(std::ifstream& in, const std::string& path, OnLine on_line) {
  constexpr std::size_t kBlock = 1 << 22;
  std::string buffer, carry;
  buffer.resize(kBlock);
  std::size_t number = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(kBlock));
    const auto got = static_cast<std::size_t>(in.gcount());
    std::string_view block(buffer.data(), got);
    while (true) {
      const std::size_t newline = block.find('\n');
      if (newline == std::string_view::npos) break;
      if (carry.empty()) {
        on_line(block.substr(0, newline), ++number);
      } else {
        carry.append(block.substr(0, newline));
        on_line(std::string_view(carry), ++number);
        carry.clear();
      }
      block.remove_prefix(newline + 1);
    }
    carry.append(block);
  }
  if (in.bad()) throw Error("error reading values file '" + path + "'");
  if (!carry.empty()) on_line(std::string_view(carry), ++number);
}

json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

}  // namespace

std::vector<double> read_values_csv(const std::string& path, const std::function<void(std::size_t)>& on_lines) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw Error("values file '" + path + "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open values file '" + path + "': " + std::strerror(errno));
  // The layout, from the first non-blank line: a header naming a "value" column, or one number per line.
  std::optional<std::size_t> fields_per_line;
  std::size_t column = 0;
  std::vector<double> values;
  std::vector<std::string_view> fields;
  for_each_line(in, path, [&](std::string_view line, std::size_t number) {
    if (number == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);  // a UTF-8 byte order mark
    if (trim(line).empty()) return;
    split(line, fields);
    const auto where = [&] { return "line " + std::to_string(number) + " of '" + path + "'"; };
    if (!fields_per_line) {
      fields_per_line = fields.size();
      if (fields.size() == 1 && parse_number(fields[0])) {
        column = 0;  // no header: a plain column of numbers
      } else {
        column = std::find(fields.begin(), fields.end(), "value") - fields.begin();
        if (column == fields.size())
          throw Error("values file '" + path + "' needs one number per line or a header line naming a \"value\" "
                      "column (as 'reluopt solve --values-out' writes), not '" + printable(line) + "'");
        return;
      }
    }
    if (fields.size() != *fields_per_line)
      throw Error(where() + " has " + std::to_string(fields.size()) + " fields, the first line " +
                  std::to_string(*fields_per_line));
    const std::optional<double> value = parse_number(fields[column]);
    if (!value) throw Error(where() + ": '" + printable(fields[column]) + "' is not a number");
    if (!std::isfinite(*value)) throw Error(where() + ": the value is not finite");
    values.push_back(*value);
    if (on_lines && values.size() % (1 << 16) == 0) on_lines(values.size());
  });
  if (!fields_per_line) throw Error("values file '" + path + "' is empty");
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
