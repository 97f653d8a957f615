// The prover of a timed default run (docs/METHODS.md, "The prover at the end of a timed run"): which one, both
// at once, and the first proof that ends the run at once when the prover settles it in a fraction of the time.
#include "algorithms/first_proof.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "algorithms/bab.h"
#include "algorithms/mip.h"
#include "algorithms/model_region.h"
#include "core/worker_threads.h"

namespace reluopt {

namespace {

// Both provers at once from the same start, bab in the calling thread and the big-M MIP on CBC in another, each on
// half of the threads; the first proof stops the other. Each bound is valid, so the result keeps the tighter one
// and the better point. The calling thread's progress comes from bab alone.
SolveResult prove_with_both(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                            const RunContext& control, const std::optional<EvaluatedPoint>& start) {
  const int threads = resolve_threads(options.threads);
  SolveOptions bab_options = options, mip_options = options;
  mip_options.method = Method::kMip;
  mip_options.threads = std::max(1, threads / 2);
  bab_options.threads = std::max(1, threads - threads / 2);
  std::atomic<bool> stop{false};
  std::atomic<int> running{2};
  const Deadline shared(deadline.remaining(), &stop);
  SolveResult mip;
  // Thread 0 runs the MIP; thread 1 passes the caller's stop request to both through `stop`. Without them, bab
  // proves alone.
  WorkerThreads beside(2);
  if (beside.started() < 2) return run_bab(problem, options, deadline, control, start);
  beside.run([&](int t) {
    if (t == 0) {
      try {
        mip = run_mip(problem, mip_options, shared, RunContext{}, start);
      } catch (...) {
        running.fetch_sub(1);  // thread 1 ends; bab stops at `stop`, which the pool sets, and join() rethrows
        throw;
      }
      if (mip.status == SolveStatus::kOptimal) stop.store(true);
      running.fetch_sub(1);
      return;
    }
    while (running.load() > 0) {
      if (deadline.interrupted()) stop.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }, &stop);
  SolveResult bab;
  try {
    bab = run_bab(problem, bab_options, shared, control, start);
  } catch (...) {
    stop.store(true);
    running.fetch_sub(1);
    throw;  // the threads end (the MIP at the stop request) before `beside` is gone
  }
  if (bab.status == SolveStatus::kOptimal) stop.store(true);
  running.fetch_sub(1);
  beside.join();
  const double sign = problem.objective.sign();
  SolveResult& best = mip.status != SolveStatus::kNoSolution &&
                              (bab.status == SolveStatus::kNoSolution || sign * mip.objective > sign * bab.objective)
                          ? mip
                          : bab;
  SolveResult proof = best;
  proof.trajectory = bab.trajectory;
  proof.bound_trajectory = bab.bound_trajectory;
  if (mip.bound && (!bab.bound || sign * *mip.bound < sign * *bab.bound)) {
    proof.bound = mip.bound;
    proof.bound_trajectory.emplace_back(mip.run.seconds, *mip.bound);
  } else {
    proof.bound = bab.bound;
  }
  proof.run.nodes = bab.run.nodes + mip.run.nodes;
  proof.mip.binaries = mip.mip.binaries;
  proof.mip.bound_method = mip.mip.bound_method;
  proof.stopped_by = mip.stopped_by == StopReason::kCompleted ? mip.stopped_by : bab.stopped_by;
  return proof;
}

}  // namespace

Prover prover_for(const Problem& problem, const SolveOptions& options) {
  if (problem.rows.empty()) return options.enhanced.prover;
  return options.enhanced.prover == Prover::kMip ? Prover::kMip : Prover::kBab;
}

SolveResult run_prover(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                       const RunContext& control, const std::optional<EvaluatedPoint>& start) {
  const Prover prover = prover_for(problem, options);
  if (prover == Prover::kBab) return run_bab(problem, options, deadline, control, start);
  if (!problem.rows.empty()) return run_rows_mip(problem, options, deadline, control, start);
  if (prover == Prover::kBoth) return prove_with_both(problem, options, deadline, control, start);
  SolveOptions mip_options = options;
  mip_options.method = Method::kMip;
  return run_mip(problem, mip_options, deadline, control, start);
}

bool proven(const SolveResult& result) {
  return result.status == SolveStatus::kOptimal || result.status == SolveStatus::kInfeasible;
}

SolveResult run_first_proof(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                            const RunContext& control) {
  SolveOptions prover_options = options;
  prover_options.mip.warm_start = false;
  // A model's rows and integers: the model MIP, which proves the example models 10-25x faster than bab
  // (bench/results/default_proof.md).
  if (!problem.rows.empty()) prover_options.enhanced.prover = Prover::kMip;
  SolveResult result = run_prover(problem, prover_options, deadline, control, std::nullopt);
  result.prover = prover_name(prover_for(problem, prover_options));
  return result;
}

SolveResult first_proof_result(SolveResult first, const Deadline& deadline) {
  first.method = method_name(Method::kEnhanced);
  if (deadline.interrupted()) first.stopped_by = StopReason::kInterrupted;
  first.run.seconds = deadline.elapsed();
  return first;
}

void join_first_proof(const Problem& problem, const SolveResult& first, double search_start, SolveResult& result) {
  const double sign = problem.objective.sign();
  std::vector<std::pair<double, double>> trajectory = first.trajectory;
  for (const auto& [seconds, value] : result.trajectory)
    if (trajectory.empty() || sign * value > sign * trajectory.back().second)
      trajectory.emplace_back(search_start + seconds, value);
  result.trajectory = std::move(trajectory);
  result.bound_trajectory = first.bound_trajectory;
  result.bound = first.bound;
  result.prover = first.prover;
  result.run.lps += first.run.lps;
  if (!first.mip.bound_method.empty()) {
    result.mip.binaries = first.mip.binaries;
    result.mip.bound_method = first.mip.bound_method;
  }
  const bool first_found = first.status == SolveStatus::kFeasible || first.status == SolveStatus::kOptimal;
  if (first_found && (result.status == SolveStatus::kNoSolution || sign * first.objective > sign * result.objective)) {
    result.status = SolveStatus::kFeasible;
    result.x = first.x;
    result.outputs = first.outputs;
    result.objective = first.objective;
    result.domain_violation = first.domain_violation;
  }
  close_gap(result);
}

void keep_first_bound(const Problem& problem, const SolveResult& first, SolveResult& result) {
  const double sign = problem.objective.sign();
  if (first.bound && (!result.bound || sign * *first.bound < sign * *result.bound)) result.bound = first.bound;
  result.run.nodes += first.run.nodes;
  close_gap(result);
}

}  // namespace reluopt
