#include "algorithms/sampling.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "algorithms/incumbent.h"
#include "reluopt/domain_sampler.h"
#include "reluopt/pattern_lp.h"
#include "solver/clp_lp.h"

namespace reluopt {

namespace {

// State shared by the sampling threads.
struct SharedState {
  std::mutex patterns_mutex;
  std::unordered_set<std::size_t> solved_patterns;  // 64-bit pattern hashes
  std::atomic<long> samples{0};
  std::atomic<long> lps{0};
  std::atomic<long> duplicates{0};
  std::atomic<long> lp_failures{0};
  std::atomic<int> finished{0};
  Incumbent incumbent;

  bool first_visit(const ActivationPattern& pattern) {
    std::lock_guard<std::mutex> lock(patterns_mutex);
    return solved_patterns.insert(pattern.hash()).second;
  }
};

void sampling_worker(const Problem& problem, const SolveOptions& options, int thread, int threads,
                     const Deadline& deadline, const ImproverFactory& make_improver, SharedState& shared) {
  ClpLp lp;
  DomainSampler sampler(problem.domain, problem.interior_point, stream_seed(options.seed, thread),
                        options.sampling.hit_and_run_thinning);
  const std::unique_ptr<RegionImprover> improver = make_improver ? make_improver() : nullptr;
  std::unordered_set<std::size_t> own_patterns;  // with an improver: this thread's solved patterns
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
    // The sample itself is feasible: keep it, so an LP failure never leaves us without a point.
    offer(evaluate_point(problem, sample));
    const bool first = improver ? own_patterns.insert(pattern.hash()).second : shared.first_visit(pattern);
    if (!first) {
      shared.duplicates.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const LinearModel model =
        pattern_lp(problem.network, problem.domain, problem.objective, pattern, &problem.interval);
    const LpSolution solution = lp.solve(model, deadline.remaining());
    shared.lps.fetch_add(1, std::memory_order_relaxed);
    if (solution.status != LpStatus::kOptimal) {
      if (solution.status != LpStatus::kTimeLimit) shared.lp_failures.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const Eigen::Map<const Eigen::VectorXd> lp_x(solution.values.data(), problem.network.input_dim());
    EvaluatedPoint optimum = evaluate_point(problem, lp_x);
    offer(optimum);
    if (improver) {
      if (std::optional<EvaluatedPoint> better = improver->improve(optimum, thread_best, deadline))
        offer(std::move(*better));
    }
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

  SharedState shared;
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
  // With no unstable neuron the network is affine on all of P, so one LP solved the whole problem.
  if (result.status == SolveStatus::kFeasible && problem.interval.num_unstable() == 0 && result.lps > 0 &&
      result.lp_failures == 0) {
    result.status = SolveStatus::kOptimal;
    result.bound = result.objective;
  }
  return result;
}

}  // namespace reluopt
