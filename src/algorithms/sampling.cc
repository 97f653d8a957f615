#include "algorithms/sampling.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "algorithms/checkpoint_gate.h"
#include "algorithms/incumbent.h"
#include "algorithms/mip.h"  // close_gap
#include "algorithms/model_region.h"
#include "core/domain_sampler.h"
#include "core/peers.h"
#include "formulation/pattern_lp.h"
#include "reluopt/error.h"
#include "reluopt/evt.h"
#include "solver/dense_first_lp.h"

namespace reluopt {

namespace {

// Steps of the descent on the rows' violation from each sample (model_region.h).
constexpr int kRowDescentSteps = 50;

// Share of a timed run that the sampling of a model with rows may take before the model MIP looks for a first
// feasible point when the samples found none (docs/PROBLEM.md).
constexpr double kRowSamplingShare = 0.5;

// Per-pattern values: the maximum found from the pattern's region (NaN while it is being solved).
using PatternValues = std::unordered_map<std::size_t, double>;

// X_i of one sample as its thread recorded it: the value, or NaN when it is the value of `pattern` that another
// thread solves (sampling without an improver) or that a time limit cut short.
struct SampleRecord {
  std::size_t pattern;
  double value;
};

// State shared by the sampling threads. Thread t is thread first_thread + t of total_threads over every
// process of the run (one process: 0 and T).
struct SharedState {
  SharedState(const Deadline& deadline, int threads, int first_thread, int total_threads)
      : incumbent(&deadline), records(threads), gathered(threads, 0), first_thread(first_thread),
        total_threads(total_threads) {}

  std::mutex patterns_mutex;
  PatternValues solved_patterns;  // keyed by 64-bit pattern hashes
  std::atomic<long> samples{0};
  std::atomic<long> lps{0};
  std::atomic<long> duplicates{0};
  std::atomic<long> lp_failures{0};
  std::atomic<long> infeasible_regions{0};
  std::atomic<int> finished{0};
  std::atomic<bool> abandoned{false};  // a worker threw (WorkerThreads::run): the others end
  Incumbent incumbent;
  // Thread t records its samples first_thread + t + k total_threads in order; gather() moves them into `values`.
  std::vector<std::vector<SampleRecord>> records;
  std::vector<long> gathered;                       // per thread: records already moved
  const int first_thread;
  const int total_threads;
  // With a model's rows in a timed run: when the samples must have found a first feasible point, or stop and
  // leave the rest of the time to the model MIP.
  std::optional<Deadline> first_point_by;
  std::vector<std::pair<long, double>> values;      // (sample index, X_i), maximized sense, by index
  // Over several processes: how many of `values` went to the lead at checkpoints, and on the lead everyone's.
  std::size_t values_sent = 0;
  std::vector<std::pair<long, double>> everyone;
  // The stop rule's last check.
  std::optional<StoppingDecision> decision;
  long decision_samples = 0;
  int checks = 0;

  bool first_visit(std::size_t hash) {
    std::lock_guard<std::mutex> lock(patterns_mutex);
    return solved_patterns.emplace(hash, std::numeric_limits<double>::quiet_NaN()).second;
  }
  void set_value(std::size_t hash, double value) {
    std::lock_guard<std::mutex> lock(patterns_mutex);
    solved_patterns[hash] = value;
  }

  // Moves every thread's records into `values`, resolving a pending value by its pattern, when no thread is
  // recording (at a checkpoint or after the join). The moved samples all follow those moved before. Values a
  // time limit cut short are left out.
  void gather(bool resolve_patterns) {
    const long threads = static_cast<long>(records.size());
    std::vector<std::pair<long, double>> fresh;
    std::lock_guard<std::mutex> lock(patterns_mutex);
    for (long t = 0; t < threads; ++t) {
      for (const SampleRecord& record : records[t]) {
        const long index = first_thread + t + gathered[t]++ * total_threads;
        double value = record.value;
        if (std::isnan(value) && resolve_patterns) value = solved_patterns.at(record.pattern);
        if (!std::isnan(value)) fresh.emplace_back(index, value);
      }
      records[t].clear();
    }
    std::sort(fresh.begin(), fresh.end());
    values.insert(values.end(), fresh.begin(), fresh.end());
  }
};

// A worker's end, however it comes (an exception too): it leaves the checkpoint gate, whose other workers would
// wait for it, and counts as finished for the driver's loop.
struct WorkerEnd {
  SharedState& shared;
  CheckpointGate* gate;
  ~WorkerEnd() {
    if (gate != nullptr) gate->leave();
    shared.finished.fetch_add(1);
  }
};

// One thread's loop: sample, LP of the sample's region, and (Algorithm 2) local search from its optimum.
void sampling_worker(const Problem& problem, const SolveOptions& options, int thread, const Deadline& deadline,
                     const ImproverFactory& make_improver, const MoverFactory& make_mover, SharedState& shared,
                     CheckpointGate* gate) {
  const WorkerEnd end{shared, gate};
  const FreeMask* concave = options.relax_concave ? &problem.concave : nullptr;
  RegionSolver regions(problem, concave, deadline);
  const int global_thread = shared.first_thread + thread;
  DomainSampler sampler(problem.domain, problem.interior_point, stream_seed(options.seed, global_thread),
                        options.sampling.hit_and_run_thinning);
  const std::unique_ptr<RegionImprover> improver = make_improver ? make_improver() : nullptr;
  const std::unique_ptr<SampleMover> mover = make_mover ? make_mover(global_thread) : nullptr;
  PatternValues own_patterns;  // with an improver: this thread's solved patterns
  const bool recording = options.sampling.record_values || options.sampling.stop_rule.has_value();
  std::vector<SampleRecord>& records = shared.records[thread];
  double thread_best = -kInfinity;
  EvaluatedPoint moved;  // the mover's point of the current sample
  // With output rows a sample first descends the rows' violation, so that its region tends to meet them.
  const auto toward_rows = [&](const Eigen::VectorXd& sample) {
    return descend_row_violation(problem, sample, kRowDescentSteps, deadline);
  };
  auto offer = [&](EvaluatedPoint point) {
    if (point.feasible) thread_best = std::max(thread_best, point.value);
    shared.incumbent.offer(std::move(point));
  };
  for (long i = global_thread; i < options.sampling.samples; i += shared.total_threads) {
    if (deadline.expired() || shared.abandoned.load(std::memory_order_relaxed) || (gate != nullptr && !gate->admit(i)))
      break;
    if (shared.first_point_by && shared.first_point_by->expired() && !shared.incumbent.best_value()) break;
    // The sample (or the point a mover reached from it) is feasible: keep it, so an LP failure never leaves us
    // without a point.
    EvaluatedPoint sampled = mover ? mover->move(sampler.next(), deadline) : evaluate_point(problem, toward_rows(sampler.next()));
    shared.samples.fetch_add(1, std::memory_order_relaxed);
    // Patterns that differ only in concave neurons share one LP.
    const ActivationPattern pattern = pattern_key(problem.network.activation_pattern(sampled.x), concave);
    const std::size_t hash = pattern.hash();
    if (recording) records.push_back({hash, std::numeric_limits<double>::quiet_NaN()});
    const double sample_value = sampled.value;
    const bool wants_lp = !mover || mover->wants_region_lp(sampled, thread_best);
    if (mover) moved = sampled;
    offer(std::move(sampled));
    const bool first = improver ? own_patterns.emplace(hash, std::numeric_limits<double>::quiet_NaN()).second
                                : shared.first_visit(hash);
    if (!first) {
      shared.duplicates.fetch_add(1, std::memory_order_relaxed);
      // Without an improver another thread may still be solving the pattern: gather() looks its value up.
      if (recording && improver) records.back().value = own_patterns.at(hash);
      continue;
    }
    auto record_value = [&](double value) {
      if (improver) own_patterns[hash] = value;
      else shared.set_value(hash, value);
      if (recording) records.back().value = value;
    };
    if (!wants_lp) {
      record_value(sample_value);
      continue;
    }
    RegionOutcome region = regions.solve(pattern, deadline);
    // The deadline expired (the loop ends), or the region's LP could not be set up in the time left: the sample
    // stays the point of its region.
    if (region.status == RegionStatus::kStopped) continue;
    shared.lps.fetch_add(1, std::memory_order_relaxed);
    // A region that the rows cut off is no failure; without rows the region holds its sample, so an infeasible
    // LP is the solver's failure.
    const bool cut_off = region.status == RegionStatus::kInfeasible && !problem.rows.empty();
    if (region.status != RegionStatus::kSolved) {
      (cut_off ? shared.infeasible_regions : shared.lp_failures).fetch_add(1, std::memory_order_relaxed);
      record_value(sample_value);
      continue;
    }
    EvaluatedPoint& optimum = region.optimum;
    if (mover && optimum.feasible && moved.feasible) mover->region_solved(moved, optimum);
    double value = optimum.feasible ? optimum.value : sample_value;
    const bool feasible = optimum.feasible;
    offer(optimum);
    if (improver && feasible) {
      if (std::optional<EvaluatedPoint> better = improver->improve(optimum, thread_best, deadline)) {
        value = std::max(value, better->value);
        offer(std::move(*better));
      }
    }
    record_value(value);
  }
}

// X_0..X_{n-1} at checkpoint n: this process's; over several processes, on the lead, everyone's (elsewhere
// none: the process sends its own to the lead).
std::vector<double> checkpoint_values(long n, Peers* peers, const Deadline& deadline, SharedState& shared) {
  const std::vector<std::pair<long, double>>* all = &shared.values;
  if (peers != nullptr) {
    const Peers::Values fresh(shared.values.begin() + long(shared.values_sent), shared.values.end());
    shared.values_sent = shared.values.size();
    const Peers::Values others = peers->checkpoint(n, fresh, deadline);
    if (!peers->lead()) return {};
    shared.everyone.insert(shared.everyone.end(), fresh.begin(), fresh.end());
    shared.everyone.insert(shared.everyone.end(), others.begin(), others.end());
    std::sort(shared.everyone.begin(), shared.everyone.end());
    all = &shared.everyone;
  }
  std::vector<double> values;
  values.reserve(all->size());
  for (const auto& [index, value] : *all) values.push_back(value);
  return values;
}

// The stop rule at checkpoint n, on X_i of samples 0..n-1 (the gate holds every worker; over several processes,
// every process's gate): true to go on. Over several processes the lead decides and the others follow.
bool check_stop_rule(const StopRuleOptions& rule, long n, int threads, bool resolve_patterns,
                     const Deadline& deadline, Peers* peers, SharedState& shared) {
  if (deadline.expired()) return false;  // samples below n may be unfinished; the run ends anyway
  shared.gather(resolve_patterns);
  const std::vector<double> values = checkpoint_values(n, peers, deadline, shared);
  if (peers != nullptr && !peers->lead()) return peers->decide(n, false, deadline);
  if (deadline.expired()) {  // a process's values did not come
    if (peers != nullptr) peers->decide(n, false, deadline);
    return false;
  }
  StoppingOptions stopping;
  stopping.threads = threads;
  StoppingDecision decision;
  try {
    decision = stopping_rule(values, rule.eps, rule.delta, stopping, deadline);
  } catch (const Error&) {
    // A value that is not finite: no decision at this checkpoint.
  }
  ++shared.checks;
  shared.decision = decision;
  shared.decision_samples = n;
  if (peers != nullptr) peers->decide(n, !decision.stop, deadline);
  return !decision.stop;
}

// The rule's last check in the user's sense (sign -1: it ran on -g, so M and its interval turn around).
StopRuleReport stop_rule_report(const StopRuleOptions& rule, const SharedState& shared, double sign) {
  StopRuleReport report;
  report.eps = rule.eps;
  report.delta = rule.delta;
  report.checks = shared.checks;
  report.samples_at_decision = shared.decision_samples;
  const std::optional<StoppingDecision>& d = shared.decision;
  report.fitted = d && d->fitted;
  report.verdict = d && d->stop       ? StopRuleVerdict::kStopped
                   : report.fitted ? StopRuleVerdict::kNotReached
                                   : StopRuleVerdict::kNoFit;
  if (!report.fitted) return report;
  report.family = family_name(d->family);
  report.estimate = sign * d->estimate;
  report.lower = sign > 0 ? d->lower : -d->upper;
  report.upper = sign > 0 ? d->upper : -d->lower;
  report.probability = d->probability;
  report.probability_upper = d->probability_upper;
  report.n_required = d->n_required;
  return report;
}

RunTally local_counts(const SharedState& shared) {
  RunTally tally;
  tally.samples = shared.samples.load();
  tally.lps = shared.lps.load();
  tally.duplicates = shared.duplicates.load();
  tally.lp_failures = shared.lp_failures.load();
  return tally;
}

// The calling thread while the workers run: points to and from the other processes every 20 ms, and the
// progress line (on the lead, with the others' counts).
void watch_workers(const Problem& problem, const RunContext& control, const Deadline& deadline, int threads,
                   SharedState& shared) {
  double next_progress = control.progress_interval;
  while (shared.finished.load() < threads) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (control.peers != nullptr) trade_points(problem, *control.peers, shared.incumbent);
    if (control.exchange != nullptr) trade_points(problem, *control.exchange, shared.incumbent);
    if (deadline.elapsed() < next_progress) continue;
    next_progress = deadline.elapsed() + control.progress_interval;
    RunTally others;
    if (control.peers != nullptr) others = control.peers->exchange_counts(local_counts(shared));
    if (!control.on_progress) continue;
    Progress progress;
    progress.seconds = deadline.elapsed();
    progress.samples = shared.samples.load() + others.samples;
    progress.lps = shared.lps.load() + others.lps;
    if (auto best = shared.incumbent.best_value()) progress.incumbent = problem.objective.sign() * *best;
    control.on_progress(progress);
  }
}

// This process's counts, values and best point; with other processes, on the lead, everyone's (their best
// points offered to the incumbent).
RunTally run_tally(const Problem& problem, const RunContext& control, const Deadline& deadline,
                        bool resolve_patterns, bool record_values, SharedState& shared) {
  RunTally tally = local_counts(shared);
  if (record_values) {
    shared.gather(resolve_patterns);
    tally.values = shared.values;
  }
  if (control.peers == nullptr) return tally;
  if (std::optional<EvaluatedPoint> best = shared.incumbent.best()) tally.best_points.push_back(best->x);
  tally = control.peers->finish(tally, deadline);
  for (Eigen::VectorXd& x : tally.best_points) shared.incumbent.offer(evaluate_point(problem, std::move(x)));
  return tally;
}

}  // namespace

SolveResult run_sampling(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                         const RunContext& control, const ImproverFactory& improver, const MoverFactory& mover) {
  // The rule's tail model takes every sample's region value; with a model's rows a region may have none.
  if (options.sampling.stop_rule && !problem.rows.empty())
    throw Error("--stop-rule does not take a problem with constraints on network outputs or integer variables");
  const long samples = options.sampling.samples;
  WorkerThreads workers(static_cast<int>(std::clamp<long>(resolve_threads(options.threads), 1, std::max(1L, samples))));
  const int threads = std::max(1, workers.started());
  Peers* peers = control.peers;

  SharedState shared(deadline, threads, peers ? peers->rank() * threads : 0, peers ? peers->size() * threads : threads);
  const bool rows = !problem.rows.empty();
  if (rows && std::isfinite(deadline.remaining())) shared.first_point_by = deadline.share(kRowSamplingShare);
  std::optional<CheckpointGate> gate;
  if (const std::optional<StopRuleOptions>& rule = options.sampling.stop_rule)
    gate.emplace(
        threads, rule->first_check, rule->growth,
        [&, rule = *rule](long n) { return check_stop_rule(rule, n, threads, !improver, deadline, peers, shared); },
        peers != nullptr ? samples : 0);
  const auto work = [&](int t) {
    sampling_worker(problem, options, t, deadline, improver, mover, shared, gate ? &*gate : nullptr);
  };
  workers.run(work, &shared.abandoned);
  if (workers.started() == 0) work(0);
  try {
    watch_workers(problem, control, deadline, threads, shared);
  } catch (...) {
    // The workers use `shared` and `gate`, which are destroyed before `workers`: join them first.
    workers.join();
    throw;
  }
  workers.join();
  const RunTally tally =
      run_tally(problem, control, deadline, !improver, options.sampling.record_values, shared);

  SolveResult result;
  result.method = method_name(Method::kSampling);
  result.sampling.samples = tally.samples;
  result.run.lps = tally.lps;
  result.sampling.duplicate_patterns = tally.duplicates;
  result.sampling.lp_failures = tally.lp_failures;
  result.run.concave_neurons = options.relax_concave ? count_neurons(problem.concave) : 0;
  result.run.seed = options.seed;
  result.run.threads = threads;
  if (peers != nullptr) {
    result.distributed.ranks = peers->size();
    result.distributed.ranks_finished = peers->finished();
    result.distributed.communication_seconds = peers->communication_seconds();
  }
  result.run.seconds = deadline.elapsed();
  const bool rule_stopped = shared.decision && shared.decision->stop;
  result.stopped_by = deadline.interrupted()     ? StopReason::kInterrupted
                      : rule_stopped             ? StopReason::kStopRule
                      : result.sampling.samples < samples ? StopReason::kTimeLimit
                                                 : StopReason::kCompleted;
  result.sampling.infeasible_regions = shared.infeasible_regions.load();
  std::optional<SolveResult> rescue;
  if (rows && !shared.incumbent.best_value() && !deadline.expired()) {
    rescue = run_rows_mip(problem, options, deadline, RunContext{});
    if (rescue->status != SolveStatus::kNoSolution && rescue->status != SolveStatus::kInfeasible)
      shared.incumbent.offer(evaluate_point(problem, rescue->x));
    result.run.nodes = rescue->run.nodes;
  }
  shared.incumbent.fill(problem, result);
  if (rescue) {
    if (rescue->status == SolveStatus::kInfeasible) result.status = SolveStatus::kInfeasible;
    result.bound = rescue->bound;
    if (rescue->stopped_by == StopReason::kCompleted && result.stopped_by == StopReason::kTimeLimit)
      result.stopped_by = StopReason::kCompleted;
    close_gap(result);
    return result;
  }
  const double sign = problem.objective.sign();
  if (options.sampling.stop_rule) result.stop_rule = stop_rule_report(*options.sampling.stop_rule, shared, sign);
  // X_i of the paper's Appendix: the value reached from each sample's region, in sample order. A region whose
  // LP the deadline cut short has no value.
  if (options.sampling.record_values) {
    result.sampling.values.reserve(tally.values.size());
    for (const auto& [index, value] : tally.values) result.sampling.values.emplace_back(index, sign * value);
  }
  // With no unstable neuron the network is affine on all of P, so one LP solved the whole problem; so it did
  // when every unstable neuron is concave and left free.
  const int fixed_unstable = problem.interval.num_unstable() - result.run.concave_neurons;
  // A region MIP that a limit cut short is no proof; neither is one LP when its optimum missed a row.
  const bool exact_regions = !problem.rows.has_integers() && result.sampling.infeasible_regions == 0;
  if (result.status == SolveStatus::kFeasible && fixed_unstable == 0 && result.run.lps > 0 &&
      result.sampling.lp_failures == 0 && exact_regions) {
    result.status = SolveStatus::kOptimal;
    result.bound = result.objective;
  }
  return result;
}

}  // namespace reluopt
