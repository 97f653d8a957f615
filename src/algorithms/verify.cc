// reluopt::verify (include/reluopt/verify.h, docs/VERIFY.md): a VNN-LIB property decided by maximizing its margin
// over each input box, with the search and the prover running at once.
#include "reluopt/verify.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <limits>

#include "core/worker_threads.h"
#include "reluopt/error.h"
#include "reluopt/peers.h"
#include "reluopt/solve.h"

namespace reluopt {

namespace {

// The search stops once it holds a point of at least this margin (a smaller one keeps it looking for a larger
// margin, which survives a forward pass in lower precision; the point is reported at the end either way).
constexpr double kSatStopMargin = 1e-6;
// Samples of a timed search: it runs until the time limit, a counterexample or a proof.
constexpr long kTimedSamples = 1000000000;

bool inside(const Domain& box, const Eigen::VectorXd& x) {
  return x.size() == box.dim() && (x.array() >= box.lower.array()).all() && (x.array() <= box.upper.array()).all();
}

// Whether the forward pass y satisfies every constraint of one conjunction of the case, as written.
bool violates(const VnnlibCase& property_case, const Eigen::VectorXd& y) {
  for (const std::vector<OutputConstraint>& conjunction : property_case.unsafe)
    if (std::all_of(conjunction.begin(), conjunction.end(), [&](const OutputConstraint& c) { return c.holds(y); }))
      return true;
  return false;
}

// x rounded to the nearest floats inside the box (a float32 checker reads it unchanged), or x itself when the box
// is too thin for a float.
Eigen::VectorXd float_point(const Domain& box, const Eigen::VectorXd& x) {
  Eigen::VectorXd rounded(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    float f = static_cast<float>(x[i]);
    if (f < box.lower[i]) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    if (f > box.upper[i]) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    rounded[i] = f;
  }
  return inside(box, rounded) ? rounded : x;
}

struct CaseRun {
  SolveResult search;
  SolveResult prover;
};

// A control that stops both runs at a counterexample, at a proof, or at the caller's stop request. Over several
// processes only the lead's prover sees the global bound; the others' prover stops when the lead's ends it.
RunControl case_control(double seconds, std::atomic<bool>& stop, const std::atomic<bool>* outer, bool lead) {
  RunControl control;
  control.time_limit = seconds;
  control.stop = &stop;
  control.progress_interval = 0.05;
  control.on_progress = [&stop, outer, lead](const Progress& progress) {
    const bool found = progress.incumbent && *progress.incumbent >= kSatStopMargin;
    const bool proved = lead && progress.bound && *progress.bound < -kUnsatMargin;
    if (found || proved || (outer != nullptr && outer->load())) stop.store(true);
  };
  return control;
}

// Over several processes (`peers`), the search and the prover of case k each run over all of them, on channels
// 2k + 1 and 2k + 2.
CaseRun run_case(const Network& network, const VnnlibCase& property_case, const Objective& margin,
                 const VerifyOptions& options, double seconds, const std::atomic<bool>* outer, Peers* peers,
                 int k) {
  const int threads = resolve_threads(options.threads);
  SolveOptions search;
  search.method = Method::kEnhanced;
  search.enhanced.mip_share = 0.0;
  search.sampling.samples = std::isfinite(seconds) ? kTimedSamples : search.sampling.samples;
  search.threads = std::max(1, threads / 2);
  search.seed = options.seed;
  SolveOptions prover;
  prover.method = Method::kBab;
  prover.threads = std::max(1, threads - threads / 2);
  prover.seed = options.seed;
  std::atomic<bool> stop{false};
  const RunControl control = case_control(seconds, stop, outer, peers == nullptr || peers->lead());
  RunControl search_control = control, prover_control = control;
  if (peers != nullptr) {
    search_control.peers = &peers->channel(2 * k + 1);
    prover_control.peers = &peers->channel(2 * k + 2);
  }
  // The search runs beside the prover; with no thread to spare, the prover decides alone.
  std::promise<SolveResult> search_result;
  std::future<SolveResult> searched = search_result.get_future();
  WorkerThreads beside(1);
  beside.run([&](int) {
    try {
      search_result.set_value(solve(network, property_case.box, margin, search, search_control));
    } catch (...) {
      search_result.set_exception(std::current_exception());
    }
  });
  if (beside.started() == 0) search_result.set_value(SolveResult{});
  CaseRun run;
  try {
    run.prover = solve(network, property_case.box, margin, prover, prover_control);
  } catch (...) {
    stop.store(true);
    searched.wait();
    throw;
  }
  // A finished prover has the optimum: the search has nothing left to find.
  stop.store(true);
  run.search = searched.get();
  return run;
}

// Records a run's point in `report` and, when it is a re-checked counterexample, in `result`: its float-rounded
// neighbour (float_point) when that is a counterexample too, else the point itself.
void take_point(const Network& network, const VnnlibCase& property_case, const Objective& margin,
                const SolveResult& run, VerifyCaseReport& report, VerifyResult& result) {
  if (run.status == SolveStatus::kNoSolution || run.x.size() == 0) return;
  for (const Eigen::VectorXd& x : {float_point(property_case.box, run.x), run.x}) {
    const Eigen::VectorXd y = network.forward(x);
    report.best_margin = std::max(report.best_margin, margin.value(y));
    if (result.status != VerifyStatus::kSat && inside(property_case.box, x) && violates(property_case, y)) {
      result.status = VerifyStatus::kSat;
      result.x = x;
      result.y = y;
      report.decided = true;
    }
  }
}

void check_property(const Network& network, const VnnlibProperty& property) {
  if (property.num_inputs != network.input_dim() || property.num_outputs != network.output_dim())
    throw Error("the property declares " + std::to_string(property.num_inputs) + " inputs and " +
                std::to_string(property.num_outputs) + " outputs but the network has " +
                std::to_string(network.input_dim()) + " and " + std::to_string(network.output_dim()) +
                " (dimension mismatch)");
}

}  // namespace

std::string verify_status_name(VerifyStatus status) {
  switch (status) {
    case VerifyStatus::kSat: return "sat";
    case VerifyStatus::kUnsat: return "unsat";
    case VerifyStatus::kUnknown: return "unknown";
    case VerifyStatus::kTimeout: return "timeout";
  }
  return "unknown";
}

Objective margin_objective(const VnnlibCase& property_case, int num_outputs) {
  std::vector<std::vector<ObjectiveTerm>> disjuncts;
  for (const std::vector<OutputConstraint>& conjunction : property_case.unsafe) {
    disjuncts.emplace_back();
    for (const OutputConstraint& c : conjunction) disjuncts.back().push_back(ObjectiveTerm{-c.weights, -c.constant});
    // An empty conjunction holds everywhere: margin 0.
    if (conjunction.empty()) disjuncts.back().push_back(ObjectiveTerm{Eigen::VectorXd::Zero(num_outputs), 0.0});
  }
  Objective objective = Objective::max_min(std::move(disjuncts), Sense::kMaximize);
  objective.description = "the margin of the property";
  return objective;
}

VerifyResult verify(const Network& network, const VnnlibProperty& property, const VerifyOptions& options,
                    const RunControl& control) {
  check_property(network, property);
  const Deadline deadline(control.time_limit, control.stop);
  VerifyResult result;
  bool proven = true;
  bool limit_hit = false;  // some case ended undecided at its share of the time limit
  // Over several processes every one follows the lead's decide() after each case.
  for (std::size_t k = 0; k < property.cases.size() && (result.status != VerifyStatus::kSat || control.peers); ++k) {
    const VnnlibCase& property_case = property.cases[k];
    const Objective margin = margin_objective(property_case, property.num_outputs);
    const double share = deadline.remaining() / static_cast<double>(property.cases.size() - k);
    const Deadline case_clock;
    VerifyCaseReport report;
    if (!deadline.expired()) {
      const CaseRun run = run_case(network, property_case, margin, options, std::max(0.0, share), control.stop,
                                   control.peers, static_cast<int>(k));
      take_point(network, property_case, margin, run.search, report, result);
      take_point(network, property_case, margin, run.prover, report, result);
      report.bound = run.prover.bound;
    }
    limit_hit = limit_hit || (case_clock.elapsed() >= share && !deadline.interrupted());
    if (report.bound && *report.bound < -kUnsatMargin) report.decided = true;
    proven = proven && report.bound && *report.bound < -kUnsatMargin;
    report.seconds = case_clock.elapsed();
    result.cases.push_back(report);
    // Over several processes the lead's answer (from everyone's points and the global bound) is the one: the
    // others go on to the next case only when it does.
    if (control.peers != nullptr && !control.peers->decide(static_cast<long>(k), result.status != VerifyStatus::kSat, deadline))
      break;
  }
  if (result.status != VerifyStatus::kSat)
    result.status = proven ? VerifyStatus::kUnsat : limit_hit ? VerifyStatus::kTimeout : VerifyStatus::kUnknown;
  result.seconds = deadline.elapsed();
  return result;
}

}  // namespace reluopt
