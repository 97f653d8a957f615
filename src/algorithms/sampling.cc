#include "algorithms/sampling.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "algorithms/incumbent.h"
#include "reluopt/domain_sampler.h"
#include "reluopt/pattern_lp.h"
#include "solver/dense_first_lp.h"

namespace reluopt {

namespace {

// Per-pattern values: the maximum found from the pattern's region (NaN while it is being solved).
using PatternValues = std::unordered_map<std::size_t, double>;

// State shared by the sampling threads.
struct SharedState {
  explicit SharedState(const Deadline& deadline) : incumbent(&deadline) {}

  std::mutex patterns_mutex;
  PatternValues solved_patterns;  // keyed by 64-bit pattern hashes
  std::atomic<long> samples{0};
  std::atomic<long> lps{0};
  std::atomic<long> duplicates{0};
  std::atomic<long> lp_failures{0};
  std::atomic<int> finished{0};
  Incumbent incumbent;
  std::mutex records_mutex;
  std::vector<std::pair<long, double>> sample_values;        // (sample index, X_i)
  std::vector<std::pair<long, std::size_t>> pending_values;  // (sample index, pattern hash), shared patterns

  bool first_visit(std::size_t hash) {
    std::lock_guard<std::mutex> lock(patterns_mutex);
    return solved_patterns.emplace(hash, std::numeric_limits<double>::quiet_NaN()).second;
  }
  void set_value(std::size_t hash, double value) {
    std::lock_guard<std::mutex> lock(patterns_mutex);
    solved_patterns[hash] = value;
  }
};

// One thread's loop: sample, LP of the sample's region, and (Algorithm 2) local search from its optimum.
void sampling_worker(const Problem& problem, const SolveOptions& options, int thread, int threads,
                     const Deadline& deadline, const ImproverFactory& make_improver, SharedState& shared) {
  DenseFirstLp lp;
  DomainSampler sampler(problem.domain, problem.interior_point, stream_seed(options.seed, thread),
                        options.sampling.hit_and_run_thinning);
  const std::unique_ptr<RegionImprover> improver = make_improver ? make_improver() : nullptr;
  PatternValues own_patterns;  // with an improver: this thread's solved patterns
  std::vector<std::pair<long, std::size_t>> records;
  double thread_best = -kInfinity;
  auto offer = [&](EvaluatedPoint point) {
    thread_best = std::max(thread_best, point.value);
    shared.incumbent.offer(std::move(point));
  };
  for (long i = thread; i < options.sampling.samples; i += threads) {
    if (deadline.expired()) break;
    const Eigen::VectorXd sample = sampler.next();
    shared.samples.fetch_add(1, std::memory_order_relaxed);
    const ActivationPattern pattern = problem.network.activation_pattern(sample);
    const std::size_t hash = pattern.hash();
    if (options.sampling.record_values) records.emplace_back(i, hash);
    // The sample itself is feasible: keep it, so an LP failure never leaves us without a point.
    EvaluatedPoint sampled = evaluate_point(problem, sample);
    const double sample_value = sampled.value;
    offer(std::move(sampled));
    const bool first = improver ? own_patterns.emplace(hash, std::numeric_limits<double>::quiet_NaN()).second
                                : shared.first_visit(hash);
    if (!first) {
      shared.duplicates.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    auto record_value = [&](double value) {
      if (improver) own_patterns[hash] = value;
      else shared.set_value(hash, value);
    };
    const LinearModel model =
        pattern_lp(problem.network, problem.domain, problem.objective, pattern, &problem.interval);
    const LpSolution solution = lp.solve(model, deadline.remaining());
    shared.lps.fetch_add(1, std::memory_order_relaxed);
    if (solution.status != LpStatus::kOptimal) {
      if (solution.status != LpStatus::kTimeLimit) {
        shared.lp_failures.fetch_add(1, std::memory_order_relaxed);
        record_value(sample_value);
      }
      continue;
    }
    const Eigen::Map<const Eigen::VectorXd> lp_x(solution.values.data(), problem.network.input_dim());
    EvaluatedPoint optimum = evaluate_point(problem, lp_x);
    double value = optimum.value;
    offer(optimum);
    if (improver) {
      if (std::optional<EvaluatedPoint> better = improver->improve(optimum, thread_best, deadline)) {
        value = std::max(value, better->value);
        offer(std::move(*better));
      }
    }
    record_value(value);
  }
  // Values of patterns another thread may still be solving are looked up after every thread has finished.
  std::lock_guard<std::mutex> lock(shared.records_mutex);
  for (const auto& [index, hash] : records) {
    if (improver) shared.sample_values.emplace_back(index, own_patterns.at(hash));
    else shared.pending_values.emplace_back(index, hash);
  }
  shared.finished.fetch_add(1);
}

}  // namespace

int resolve_threads(int threads) {
  if (threads > 0) return threads;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

SolveResult run_sampling(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                         const RunControl& control, const ImproverFactory& improver) {
  const long samples = options.sampling.samples;
  const int threads = static_cast<int>(std::clamp<long>(resolve_threads(options.threads), 1, std::max(1L, samples)));

  SharedState shared(deadline);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back(sampling_worker, std::cref(problem), std::cref(options), t, threads, std::cref(deadline),
                         std::cref(improver), std::ref(shared));
  double next_progress = control.progress_interval;
  while (shared.finished.load() < threads) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (control.on_progress && deadline.elapsed() >= next_progress) {
      next_progress = deadline.elapsed() + control.progress_interval;
      Progress progress;
      progress.seconds = deadline.elapsed();
      progress.samples = shared.samples.load();
      progress.lps = shared.lps.load();
      if (auto best = shared.incumbent.best_value()) progress.incumbent = problem.objective.sign() * *best;
      control.on_progress(progress);
    }
  }
  for (std::thread& worker : workers) worker.join();

  SolveResult result;
  result.method = method_name(Method::kSampling);
  result.samples = shared.samples.load();
  result.lps = shared.lps.load();
  result.duplicate_patterns = shared.duplicates.load();
  result.lp_failures = shared.lp_failures.load();
  result.seed = options.seed;
  result.threads = threads;
  result.seconds = deadline.elapsed();
  result.stopped_by = deadline.interrupted()            ? StopReason::kInterrupted
                      : result.samples < samples ? StopReason::kTimeLimit
                                                          : StopReason::kCompleted;
  shared.incumbent.fill(problem, result);
  // X_i of the paper's Appendix: the value reached from each sample's region, in sample order. A region whose
  // LP the deadline cut short has no value.
  for (const auto& [index, hash] : shared.pending_values)
    shared.sample_values.emplace_back(index, shared.solved_patterns.at(hash));
  std::sort(shared.sample_values.begin(), shared.sample_values.end());
  for (const auto& [index, value] : shared.sample_values)
    if (!std::isnan(value)) result.sample_values.emplace_back(index, problem.objective.sign() * value);
  // With no unstable neuron the network is affine on all of P, so one LP solved the whole problem.
  if (result.status == SolveStatus::kFeasible && problem.interval.num_unstable() == 0 && result.lps > 0 &&
      result.lp_failures == 0) {
    result.status = SolveStatus::kOptimal;
    result.bound = result.objective;
  }
  return result;
}

}  // namespace reluopt
