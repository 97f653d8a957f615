// Reads the domain and objective JSON files (format in include/reluopt/json_io.h and docs/FORMATS.md).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "io/json_checks.h"
#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/json_io.h"

namespace reluopt {

namespace detail {

using nlohmann::json;

// `file` names the file in messages, e.g. "domain file 'd.json'".
json parse_json(std::istream& in, const std::string& file) {
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw Error("malformed JSON in " + file + ": " + std::string(e.what()).substr(0, 160));
  }
}

// "" when `item` is a number, else what it is instead. A domain must be bounded and an objective finite, so
// null, "inf" and "nan" (how some writers spell the values JSON lacks) are refused as not finite. Every
// number is finite: the parser refuses 1e400 as an overflow.
std::string not_a_number(const json& item) {
  if (item.is_number()) return "";
  std::string word = item.is_string() ? item.get<std::string>() : "";
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  if (!word.empty() && (word[0] == '+' || word[0] == '-')) word.erase(0, 1);
  const bool non_finite = item.is_null() || word == "inf" || word == "infinity" || word == "nan";
  return std::string(non_finite ? "is not finite: " : "is not a number: ") + item.dump().substr(0, 40);
}

std::string unknown_key(const json& object, const std::vector<std::string>& allowed) {
  for (const auto& item : object.items())
    if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) {
      std::string keys;
      for (const std::string& key : allowed) keys += (keys.empty() ? "'" : ", '") + key + "'";
      return "unknown key '" + item.key().substr(0, 40) + "' (the keys are " + keys + ")";
    }
  return "";
}

}  // namespace detail

namespace {

using nlohmann::json;
using detail::not_a_number;
using detail::parse_json;
using detail::unknown_key;

Eigen::VectorXd number_vector(const json& value, const std::string& field, const std::string& file) {
  if (!value.is_array()) throw Error(file + ": " + field + " must be an array of numbers");
  Eigen::VectorXd out(static_cast<Eigen::Index>(value.size()));
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (const std::string problem = not_a_number(value[i]); !problem.empty())
      throw Error(file + ": entry " + std::to_string(i) + " of " + field + " " + problem);
    out[static_cast<Eigen::Index>(i)] = value[i].get<double>();
  }
  return out;
}

Eigen::MatrixXd number_matrix(const json& rows, const std::string& field, Eigen::Index columns,
                              const std::string& file) {
  if (!rows.is_array()) throw Error(file + ": " + field + " must be an array of rows");
  Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), columns);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::string row_field = "row " + std::to_string(r) + " of " + field;
    const Eigen::VectorXd row = number_vector(rows[r], row_field, file);
    if (row.size() != columns)
      throw Error("domain dimension mismatch in " + file + ": " + row_field + " has " + std::to_string(row.size()) +
                  " entries but the bounds have " + std::to_string(columns));
    out.row(static_cast<Eigen::Index>(r)) = row.transpose();
  }
  return out;
}

Domain read_domain(std::istream& in, const std::string& name) {
  const std::string file = "domain file '" + name + "'";
  const json doc = parse_json(in, file);
  if (!doc.is_object() || !doc.contains("lower") || !doc.contains("upper"))
    throw Error(file + " needs \"lower\" and \"upper\" arrays");
  if (const std::string problem = unknown_key(doc, {"lower", "upper", "A", "b"}); !problem.empty())
    throw Error(file + ": " + problem);
  Domain domain = Domain::box(number_vector(doc.at("lower"), "\"lower\"", file),
                              number_vector(doc.at("upper"), "\"upper\"", file));
  if (domain.lower.size() != domain.upper.size())
    throw Error("domain dimension mismatch in " + file + ": \"lower\" has " + std::to_string(domain.lower.size()) +
                " entries and \"upper\" " + std::to_string(domain.upper.size()));
  for (Eigen::Index i = 0; i < domain.dim(); ++i)
    if (domain.lower[i] > domain.upper[i])
      throw Error(file + " is empty: entry " + std::to_string(i) + " of \"lower\" is above that of \"upper\"");
  const bool has_A = doc.contains("A") && !doc.at("A").is_null();
  const bool has_b = doc.contains("b") && !doc.at("b").is_null();
  if (has_A != has_b) throw Error(file + " must give both \"A\" and \"b\" or neither");
  if (has_A) {
    domain.A = number_matrix(doc.at("A"), "\"A\"", domain.dim(), file);
    domain.b = number_vector(doc.at("b"), "\"b\"", file);
    if (domain.b.size() != domain.A.rows())
      throw Error("domain dimension mismatch in " + file + ": \"A\" has " + std::to_string(domain.A.rows()) +
                  " rows but \"b\" has " + std::to_string(domain.b.size()) + " entries");
  }
  domain.description = name;
  return domain;
}

// {"weights": [...], "constant": c}, the constant optional; `field` names the object in messages ("": the file).
ObjectiveTerm read_term(const json& item, const std::string& field, const std::string& file) {
  const std::string of = field.empty() ? "" : " of " + field;
  if (!item.is_object() || !item.contains("weights")) throw Error(file + ": " + field + " needs a \"weights\" array");
  if (!field.empty())
    if (const std::string problem = unknown_key(item, {"weights", "constant"}); !problem.empty())
      throw Error(file + ": " + field + ": " + problem);
  ObjectiveTerm term;
  term.weights = number_vector(item.at("weights"), "\"weights\"" + of, file);
  if (item.contains("constant")) {
    const json& constant = item.at("constant");
    if (const std::string problem = not_a_number(constant); !problem.empty())
      throw Error(file + ": \"constant\"" + of + " " + problem);
    term.constant = constant.get<double>();
  }
  return term;
}

// "disjuncts": [[term, ...], ...], each term as read_term reads it: max over the disjuncts of the min of terms.
std::vector<std::vector<ObjectiveTerm>> read_disjuncts(const json& value, const std::string& file) {
  if (!value.is_array() || value.empty()) throw Error(file + ": \"disjuncts\" must be a non-empty array of arrays");
  std::vector<std::vector<ObjectiveTerm>> disjuncts;
  for (std::size_t k = 0; k < value.size(); ++k) {
    const std::string where = "disjunct " + std::to_string(k);
    if (!value[k].is_array() || value[k].empty()) throw Error(file + ": " + where + " must be a non-empty array of terms");
    disjuncts.emplace_back();
    for (std::size_t l = 0; l < value[k].size(); ++l)
      disjuncts.back().push_back(read_term(value[k][l], "term " + std::to_string(l) + " of " + where, file));
  }
  return disjuncts;
}

// "sense" is "max" or "min", or spelled out, "maximize" or "minimize"; then either "weights" and "constant", or
// "disjuncts" for a max-min objective.
Objective read_objective(std::istream& in, const std::string& name) {
  const std::string file = "objective file '" + name + "'";
  const json doc = parse_json(in, file);
  const bool max_min = doc.is_object() && doc.contains("disjuncts");
  if (!doc.is_object() || (!max_min && !doc.contains("weights")))
    throw Error(file + " needs a \"weights\" array or a \"disjuncts\" array");
  if (max_min && (doc.contains("weights") || doc.contains("constant")))
    throw Error(file + " gives \"disjuncts\" together with \"weights\" or \"constant\": give one form");
  if (const std::string problem = unknown_key(doc, {"sense", "weights", "constant", "disjuncts"}); !problem.empty())
    throw Error(file + ": " + problem);
  const json sense = doc.contains("sense") ? doc.at("sense") : json("max");
  Sense parsed = Sense::kMaximize;
  if (sense == "max" || sense == "maximize") parsed = Sense::kMaximize;
  else if (sense == "min" || sense == "minimize") parsed = Sense::kMinimize;
  else throw Error(file + ": \"sense\" must be \"max\" or \"min\", not " + sense.dump().substr(0, 40));
  Objective objective;
  if (max_min) {
    objective = Objective::max_min(read_disjuncts(doc.at("disjuncts"), file), parsed);
  } else {
    const ObjectiveTerm term = read_term(doc, "", file);
    objective.weights = term.weights;
    objective.constant = term.constant;
    objective.sense = parsed;
  }
  objective.description = name;
  return objective;
}

}  // namespace

namespace detail {

Domain read_domain_json(std::istream& in, const std::string& name) {
  return with_printable_errors([&] { return read_domain(in, name); });
}

Objective read_objective_json(std::istream& in, const std::string& name) {
  return with_printable_errors([&] { return read_objective(in, name); });
}

}  // namespace detail

Domain read_domain_json(const std::string& path) {
  std::ifstream in = detail::open_input(path, "domain");
  return detail::read_domain_json(in, path);
}

Objective read_objective_json(const std::string& path) {
  std::ifstream in = detail::open_input(path, "objective");
  return detail::read_objective_json(in, path);
}

}  // namespace reluopt
