#include "report.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

namespace reluopt::cli {

namespace {

std::string format_number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

std::string stop_text(const SolveResult& result) {
  switch (result.stopped_by) {
    case StopReason::kCompleted:
      if (result.status == SolveStatus::kOptimal) return "proven optimal";
      if (result.status == SolveStatus::kInfeasible) return "proven infeasible";
      return result.sampling.samples > 0 ? "all samples done" : "search finished";
    case StopReason::kTimeLimit: return "time limit reached";
    case StopReason::kInterrupted: return "interrupted";
    case StopReason::kStopRule: return "stopping rule met";
  }
  return "";
}

// The stop rule's verdict and, with a fit, the fitted optimum with its interval (the lines of summary_text).
std::string stop_rule_text(const StopRuleReport& rule) {
  std::ostringstream out;
  out << "  stop rule   " << stop_rule_verdict_name(rule.verdict) << " (eps " << format_number(rule.eps) << ", delta "
      << format_number(rule.delta) << "; " << rule.checks << " checks, the last at " << rule.samples_at_decision
      << " samples)\n";
  if (!rule.fitted) return out.str();
  out << "              optimum M " << format_number(rule.estimate) << " [" << format_number(rule.lower) << ", "
      << format_number(rule.upper) << "] (" << rule.family << " fit), P(best misses M by > eps) "
      << format_number(rule.probability_upper) << " at the interval's far end, needs <= delta/2; N "
      << format_number(rule.n_required) << "\n";
  return out.str();
}

// The lines of the per-method statistics: samples, concave neurons, local searches, gradient ascents, walks.
std::string statistics_text(const SolveResult& result) {
  std::ostringstream out;
  const SamplingStats& sampling = result.sampling;
  const std::string& method = result.method;
  if (sampling.samples > 0 || method == "sampling" || method == "enhanced" || method == "gradient") {
    out << "  samples     " << sampling.samples << " (" << result.run.lps << " LPs, " << sampling.duplicate_patterns
        << " duplicate patterns skipped";
    if (sampling.lp_failures > 0) out << ", " << sampling.lp_failures << " LPs failed";
    out << ")\n";
  }
  if (result.run.concave_neurons > 0)
    out << "  concave     " << result.run.concave_neurons
        << " neurons free: no fixed state in an LP, no binary in a MIP\n";
  if (method == "enhanced")
    out << "  local       " << result.enhanced.local_searches << " local searches, " << result.enhanced.local_mips
        << " local MIPs\n";
  if (method == "gradient" || result.gradient.steps > 0)
    out << "  gradient    " << result.gradient.steps << " steps, " << result.gradient.perturbations
        << " perturbations\n";
  if (method == "walk") out << "  walk        " << result.walk.walks << " walks, " << result.run.lps << " LPs\n";
  return out.str();
}

}  // namespace

std::string summary_text(const SolveResult& result, const RunInfo& info, const std::string& network_shape) {
  std::ostringstream out;
  out << "reluopt " << result.run.version << ", method " << result.method << "\n";
  out << "  model       " << info.model << " (" << network_shape << ")\n";
  out << "  domain      " << info.domain << "\n";
  out << "  objective   " << info.objective << "\n";
  out << "  status      " << status_name(result.status) << " (" << stop_text(result) << ")\n";
  if (result.status == SolveStatus::kInfeasible) {
    out << "  value       none: no point satisfies the constraints\n";
  } else if (result.status != SolveStatus::kNoSolution) {
    out << "  value       " << format_number(result.objective) << "  (forward pass at x)\n";
  } else {
    out << "  value       none: no point found within the limits\n";
  }
  out << "  bound       " << (result.bound ? format_number(*result.bound) : "none proven");
  if (result.gap) out << "  (gap " << format_number(100.0 * *result.gap) << "%)";
  out << "\n";
  if (!result.mip.bound_method.empty()) {
    out << "  MIP         " << result.mip.binaries << " binaries, " << result.mip.bound_method << " bounds";
    if (result.mip.partitions > 0) out << ", " << result.mip.partitions << " partitions";
    out << ", " << result.run.nodes << " nodes" << (result.mip.warm_started ? ", warm-started" : "") << "\n";
  }
  if (result.prover == "bab")
    out << "  prover      bab: " << result.run.nodes << " nodes (bound propagation, node LPs)\n";
  if (result.prover == "both")
    out << "  prover      both: bab and the big-M MIP on CBC, " << result.run.nodes << " nodes in all\n";
  if (!result.solver_failure.empty()) out << "  FAILURE     " << result.solver_failure << "\n";
  if (!result.proof_check.empty()) out << "  check       " << result.proof_check << "\n";
  out << statistics_text(result);
  if (result.stop_rule) out << stop_rule_text(*result.stop_rule);
  char timing[128];
  std::snprintf(timing, sizeof timing, "%.3f s on %d thread%s, seed %llu", result.run.seconds, result.run.threads,
                result.run.threads == 1 ? "" : "s", static_cast<unsigned long long>(result.run.seed));
  out << "  time        " << timing;
  if (result.distributed.ranks > 1) {
    out << " x " << result.distributed.ranks << " ranks";
    const int lost = result.distributed.ranks - result.distributed.ranks_finished;
    if (lost > 0) out << " (" << lost << " lost)";
  }
  // The time limit counts from the command's start, so the run had what loading left of it.
  if (info.load_seconds >= 0.05) {
    std::snprintf(timing, sizeof timing, " (after %.3f s loading the model)", info.load_seconds);
    out << timing;
  }
  out << "\n";
  if (result.status != SolveStatus::kNoSolution && result.status != SolveStatus::kInfeasible) {
    const Eigen::Index shown = std::min<Eigen::Index>(result.x.size(), 8);
    out << "  x           [";
    for (Eigen::Index i = 0; i < shown; ++i) out << (i ? ", " : "") << format_number(result.x[i]);
    if (shown < result.x.size()) out << ", ... (" << result.x.size() << " values; all in the JSON)";
    out << "]\n";
  }
  return out.str();
}

std::string progress_line(const Progress& progress) {
  char line[200];
  std::snprintf(line, sizeof line, "[%7.1fs] samples %ld  LPs %ld  incumbent %s  bound %s", progress.seconds,
                progress.samples, progress.lps,
                progress.incumbent ? format_number(*progress.incumbent).c_str() : "-",
                progress.bound ? format_number(*progress.bound).c_str() : "-");
  return progress.nodes > 0 ? std::string(line) + "  nodes " + std::to_string(progress.nodes) : std::string(line);
}

int check_stdout(int code) {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return code;
  std::fprintf(stderr, "reluopt: error: cannot write to standard output%s%s\n", error != 0 ? ": " : "",
               error != 0 ? std::strerror(error) : "");
  std::fflush(stderr);
  return code != 0 ? code : 1;
}

}  // namespace reluopt::cli
