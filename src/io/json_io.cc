#include "reluopt/json_io.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "reluopt/error.h"
#include "reluopt/output_file.h"

namespace reluopt {

namespace {

using nlohmann::json;

json parse_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open " + what + " file '" + path + "'");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw Error("malformed JSON in " + what + " file '" + path + "': " + std::string(e.what()).substr(0, 160));
  }
}

Eigen::VectorXd number_vector(const json& value, const std::string& field, const std::string& path) {
  if (!value.is_array()) throw Error("'" + field + "' in '" + path + "' must be an array of numbers");
  Eigen::VectorXd out(static_cast<Eigen::Index>(value.size()));
  for (std::size_t i = 0; i < value.size(); ++i) {
    const json& item = value[i];
    if (item.is_number()) {
      out[static_cast<Eigen::Index>(i)] = item.get<double>();
    } else if (item.is_string() && (item == "inf" || item == "-inf" || item == "nan")) {
      // Accepted so that validation, not parsing, reports the unbounded or NaN entry.
      out[static_cast<Eigen::Index>(i)] = item == "nan" ? NAN : (item == "inf" ? INFINITY : -INFINITY);
    } else if (item.is_null()) {
      out[static_cast<Eigen::Index>(i)] = NAN;  // JSON has no infinity; null is how writers spell it
    } else {
      throw Error("'" + field + "' in '" + path + "' must be an array of numbers (entry " + std::to_string(i) + ")");
    }
  }
  return out;
}

json vector_json(const Eigen::VectorXd& v) {
  json out = json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) out.push_back(v[i]);
  return out;
}

json finite_or_null(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

// The stop rule's verdict; the fit's numbers are null without a fit, an infinite end or N is null.
json stop_rule_json(const StopRuleReport& rule) {
  const auto fitted = [&](double value) { return rule.fitted ? finite_or_null(value) : json(nullptr); };
  return {{"eps", rule.eps},
          {"delta", rule.delta},
          {"verdict", stop_rule_verdict_name(rule.verdict)},
          {"samples_at_decision", rule.samples_at_decision},
          {"checks", rule.checks},
          {"family", rule.fitted ? json(rule.family) : json(nullptr)},
          {"estimate", fitted(rule.estimate)},
          {"interval", rule.fitted ? json::array({finite_or_null(rule.lower), finite_or_null(rule.upper)}) : json(nullptr)},
          {"probability", fitted(rule.probability)},
          {"probability_upper", fitted(rule.probability_upper)},
          {"n_required", fitted(rule.n_required)}};
}

}  // namespace

Domain read_domain_json(const std::string& path) {
  const json doc = parse_file(path, "domain");
  if (!doc.is_object() || !doc.contains("lower") || !doc.contains("upper"))
    throw Error("domain file '" + path + "' needs \"lower\" and \"upper\" arrays");
  Domain domain = Domain::box(number_vector(doc["lower"], "lower", path), number_vector(doc["upper"], "upper", path));
  const bool has_A = doc.contains("A") && !doc["A"].is_null();
  const bool has_b = doc.contains("b") && !doc["b"].is_null();
  if (has_A != has_b) throw Error("domain file '" + path + "' must give both \"A\" and \"b\" or neither");
  if (has_A) {
    const json& rows = doc["A"];
    if (!rows.is_array()) throw Error("'A' in '" + path + "' must be an array of rows");
    domain.b = number_vector(doc["b"], "b", path);
    domain.A.resize(static_cast<Eigen::Index>(rows.size()), domain.lower.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const Eigen::VectorXd row = number_vector(rows[r], "A", path);
      if (row.size() != domain.lower.size())
        throw Error("domain dimension mismatch in '" + path + "': row " + std::to_string(r) + " of A has " +
                    std::to_string(row.size()) + " entries but the bounds have " +
                    std::to_string(domain.lower.size()));
      domain.A.row(static_cast<Eigen::Index>(r)) = row.transpose();
    }
  }
  domain.description = path;
  return domain;
}

Objective read_objective_json(const std::string& path) {
  const json doc = parse_file(path, "objective");
  if (!doc.is_object() || !doc.contains("weights"))
    throw Error("objective file '" + path + "' needs a \"weights\" array");
  Objective objective;
  const std::string sense = doc.value("sense", "max");
  if (sense == "max" || sense == "maximize") objective.sense = Sense::kMaximize;
  else if (sense == "min" || sense == "minimize") objective.sense = Sense::kMinimize;
  else throw Error("objective file '" + path + "': sense must be \"max\" or \"min\", not \"" + sense + "\"");
  objective.weights = number_vector(doc["weights"], "weights", path);
  if (doc.contains("constant")) {
    if (!doc["constant"].is_number()) throw Error("objective file '" + path + "': constant must be a number");
    objective.constant = doc["constant"].get<double>();
  }
  objective.description = path;
  return objective;
}

std::string result_to_json(const SolveResult& result, const RunInfo& info) {
  json out;
  const bool found = result.status != SolveStatus::kNoSolution;
  out["method"] = result.method;
  out["status"] = status_name(result.status);
  out["objective"] = found ? json(result.objective) : json(nullptr);
  out["x"] = found ? vector_json(result.x) : json::array();
  out["outputs"] = found ? vector_json(result.outputs) : json::array();
  out["bound"] = result.bound ? json(*result.bound) : json(nullptr);
  out["gap"] = result.gap ? json(*result.gap) : json(nullptr);
  out["nodes"] = result.nodes;
  out["local_searches"] = result.local_searches;
  out["mips"] = result.mips;
  out["samples"] = result.samples;
  out["lps"] = result.lps;
  out["duplicate_patterns"] = result.duplicate_patterns;
  out["concave_neurons"] = result.concave_neurons;
  out["lp_failures"] = result.lp_failures;
  out["stopped_by"] = stop_reason_name(result.stopped_by);
  out["seconds"] = result.seconds;
  out["load_seconds"] = info.load_seconds;
  out["seed"] = result.seed;
  out["threads"] = result.threads;
  out["version"] = result.version;
  out["model"] = info.model;
  out["domain"] = info.domain;
  out["objective_function"] = info.objective;
  out["domain_violation"] = result.domain_violation;
  json trajectory = json::array();
  for (const auto& [seconds, value] : result.trajectory) trajectory.push_back({seconds, value});
  out["trajectory"] = std::move(trajectory);
  json bound_trajectory = json::array();
  for (const auto& [seconds, value] : result.bound_trajectory) bound_trajectory.push_back({seconds, value});
  out["bound_trajectory"] = std::move(bound_trajectory);
  if (result.stop_rule) out["stop_rule"] = stop_rule_json(*result.stop_rule);
  for (const auto& [key, text] : info.sections) out[key] = json::parse(text);
  out["prover"] = result.prover.empty() ? json(nullptr) : json(result.prover);
  out["solver_failure"] = result.solver_failure.empty() ? json(nullptr) : json(result.solver_failure);
  out["proof_check"] = result.proof_check.empty() ? json(nullptr) : json(result.proof_check);
  if (!result.bound_method.empty()) {
    out["formulation"] = {{"bounds", result.bound_method},
                          {"binaries", result.binaries},
                          {"partitions", result.partitions},
                          {"warm_start", result.warm_started}};
  }
  return out.dump(2) + "\n";
}

std::string relaxation_to_json(const RelaxationReport& report) {
  const json out = {{"formulation", report.formulation}, {"bound_method", report.bound_method},
                    {"bound", report.bound},             {"binaries", report.binaries},
                    {"bounds_seconds", report.bounds_seconds}, {"lp_seconds", report.lp_seconds},
                    {"version", RELUOPT_VERSION}};
  return out.dump(2) + "\n";
}

void write_values_csv(const SolveResult& result, const std::string& path) {
  std::ostringstream out;
  out << "sample,value\n";
  out.precision(17);
  for (const auto& [index, value] : result.sample_values) out << index << ',' << value << '\n';
  write_output_file(path, out.str(), "the sample values");
}

}  // namespace reluopt
