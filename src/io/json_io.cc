#include "reluopt/json_io.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/json_numbers.h"
#include "io/output_file.h"
#include "reluopt/error.h"

namespace reluopt {

namespace {

using nlohmann::json;

json vector_json(const Eigen::VectorXd& v) {
  json out = json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) out.push_back(v[i]);
  return out;
}

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

std::string result_to_json(const SolveResult& result, const RunInfo& info) {
  json out;
  const bool found = result.status != SolveStatus::kNoSolution && result.status != SolveStatus::kInfeasible;
  out["method"] = result.method;
  out["status"] = status_name(result.status);
  out["objective"] = found ? json(result.objective) : json(nullptr);
  out["x"] = found ? vector_json(result.x) : json::array();
  out["outputs"] = found ? vector_json(result.outputs) : json::array();
  out["bound"] = result.bound ? json(*result.bound) : json(nullptr);
  out["gap"] = result.gap ? json(*result.gap) : json(nullptr);
  out["nodes"] = result.run.nodes;
  out["local_searches"] = result.enhanced.local_searches;
  out["mips"] = result.enhanced.local_mips;
  out["gradient_steps"] = result.gradient.steps;
  out["perturbations"] = result.gradient.perturbations;
  out["walks"] = result.walk.walks;
  out["samples"] = result.sampling.samples;
  out["lps"] = result.run.lps;
  out["duplicate_patterns"] = result.sampling.duplicate_patterns;
  out["concave_neurons"] = result.run.concave_neurons;
  out["lp_failures"] = result.sampling.lp_failures;
  if (result.sampling.infeasible_regions > 0) out["infeasible_regions"] = result.sampling.infeasible_regions;
  out["stopped_by"] = stop_reason_name(result.stopped_by);
  out["seconds"] = result.run.seconds;
  out["load_seconds"] = info.load_seconds;
  out["seed"] = result.run.seed;
  out["threads"] = result.run.threads;
  if (result.distributed.ranks > 1) {
    out["ranks"] = result.distributed.ranks;
    out["ranks_finished"] = result.distributed.ranks_finished;
    out["communication_seconds"] = result.distributed.communication_seconds;
  }
  out["version"] = result.run.version;
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
  if (!result.mip.bound_method.empty()) {
    out["formulation"] = {{"bounds", result.mip.bound_method},
                          {"binaries", result.mip.binaries},
                          {"partitions", result.mip.partitions},
                          {"warm_start", result.mip.warm_started}};
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
  for (const auto& [index, value] : result.sampling.values) out << index << ',' << value << '\n';
  write_output_file(path, out.str(), "the sample values");
}

}  // namespace reluopt
