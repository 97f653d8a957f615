// The default's search phase (docs/MATH.md §17): the ascended Algorithm 2 beside the relaxing walk on wide
// inputs, and a time budget for the local search.
#include "algorithms/portfolio.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <thread>

#include "algorithms/enhanced.h"
#include "algorithms/incumbent.h"
#include "algorithms/walk.h"
#include "core/worker_threads.h"

namespace reluopt {

namespace {

// The walk gets this share of the search phase; its best point's local search gets the rest.
constexpr double kWalkShare = 0.85;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class BudgetedImprover final : public RegionImprover {
 public:
  BudgetedImprover(std::unique_ptr<RegionImprover> inner, double share, double run_seconds)
      : inner_(std::move(inner)), share_(share), run_seconds_(run_seconds), start_(Clock::now()) {}

  std::optional<EvaluatedPoint> improve(const EvaluatedPoint& start, double thread_best,
                                        const Deadline& deadline) override {
    // The thread's best point gets its search whole: its neighbourhood is the most likely to hold a better
    // point, and a search that keeps improving it is worth more than fresh samples (100 -> 3x500: from 0.981
    // to 1.020 in 7 s of moves). Other starts wait while the ascents and region LPs catch up.
    const bool best = start.value >= thread_best;
    if (!best && spent_ > share_ * seconds_since(start_)) return std::nullopt;
    const double left = share_ * run_seconds_ - spent_;
    if (!best && left <= 0.0) return std::nullopt;
    const Clock::time_point begin = Clock::now();
    std::optional<EvaluatedPoint> better = inner_->improve(start, thread_best, best ? deadline : deadline.limited(left));
    spent_ += seconds_since(begin);
    return better;
  }

 private:
  std::unique_ptr<RegionImprover> inner_;
  double share_;
  double run_seconds_;
  Clock::time_point start_;
  double spent_ = 0.0;
};

// Skips the region LP of a moved point that cannot reach the thread's best region optimum by the largest gain a region LP has
// shown over its moved point on this thread so far (times kGainSlack); the first kLearnLps regions all get
// theirs. Where a region LP costs ten ascents (100 -> 1x500: 25 ms against 3 ms), most ascents end far below
// the best and the thread climbs from several times as many samples.
class HopefulRegionsMover final : public SampleMover {
 public:
  static constexpr long kLearnLps = 10;
  static constexpr double kGainSlack = 2.0;

  explicit HopefulRegionsMover(std::unique_ptr<SampleMover> inner) : inner_(std::move(inner)) {}

  EvaluatedPoint move(const Eigen::VectorXd& sample, const Deadline& deadline) override {
    return inner_->move(sample, deadline);
  }
  // The reference is the best region optimum, not the thread's best: local searches lift the latter above
  // what any one region gives, and would starve the region LPs that feed them.
  bool wants_region_lp(const EvaluatedPoint& moved, double /*thread_best*/) override {
    // A moved point that misses a model's row has no value to judge its region by: its region may meet the rows.
    return !moved.feasible || solved_ < kLearnLps || moved.value + kGainSlack * max_gain_ >= best_optimum_;
  }
  void region_solved(const EvaluatedPoint& moved, const EvaluatedPoint& optimum) override {
    ++solved_;
    max_gain_ = std::max(max_gain_, optimum.value - moved.value);
    best_optimum_ = std::max(best_optimum_, optimum.value);
  }

 private:
  std::unique_ptr<SampleMover> inner_;
  long solved_ = 0;
  double max_gain_ = 0.0;
  double best_optimum_ = -kInfinity;
};

// What the walk's thread hands back: the walk's result and, when its local search improved the walk's best
// point, that point with the time it was found (on the search phase's clock).
struct WalkOutcome {
  SolveResult walk;
  std::optional<EvaluatedPoint> improved;
  double improved_at = 0.0;
};

// `phase` runs on the search phase's clock from `offset` seconds and stops when the search does. The walk trades
// best points through `seat` as it goes: its points reach Algorithm 2's incumbent, and it diversifies around
// the better of both.
void walk_beside(const Problem& problem, const SolveOptions& options, const Deadline& phase, double offset,
                 int threads, const ExchangeSeat& seat, WalkOutcome& out) {
  SolveOptions walk_options = options;
  walk_options.threads = threads;
  walk_options.walk.iterations = INT_MAX;  // diversify until the walk's share ends
  RunContext control;
  control.exchange = &seat;
  out.walk = run_walk(problem, walk_options, phase.share(kWalkShare), control);
  for (auto& point : out.walk.trajectory) point.first += offset;
  if (out.walk.status == SolveStatus::kNoSolution || phase.expired()) return;
  const EvaluatedPoint best = evaluate_point(problem, out.walk.x);
  out.improved = local_search_from(problem, options, best, phase);
  out.improved_at = offset + phase.elapsed();
}

// `point` (maximized sense) into the result when it is better, and its time into the anytime profile.
void adopt(const Problem& problem, const EvaluatedPoint& point, SolveResult& result) {
  const double sign = problem.objective.sign();
  if (result.status != SolveStatus::kNoSolution && point.value <= sign * result.objective) return;
  result.status = SolveStatus::kFeasible;
  result.x = point.x;
  result.outputs = point.outputs;
  result.objective = problem.objective.value(point.outputs);
  result.domain_violation = problem.domain.max_violation(point.x);
}

// Both anytime profiles (user sense) on one clock, keeping the strict improvements.
std::vector<std::pair<double, double>> merged_profile(const Problem& problem,
                                                      std::vector<std::pair<double, double>> a,
                                                      const std::vector<std::pair<double, double>>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::stable_sort(a.begin(), a.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
  const double sign = problem.objective.sign();
  std::vector<std::pair<double, double>> merged;
  for (const auto& point : a)
    if (merged.empty() || sign * point.second > sign * merged.back().second) merged.push_back(point);
  return merged;
}

}  // namespace

PortfolioSplit portfolio_split(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                               const RunContext& control) {
  const int threads = resolve_threads(options.threads);
  PortfolioSplit split{0, threads};
  const bool timed = std::isfinite(deadline.remaining());
  if (timed && control.peers == nullptr && threads >= 2 && problem.network.input_dim() >= kPortfolioWalkInputs)
    split = PortfolioSplit{1, threads - 1};
  return split;
}

ImproverFactory budgeted_improvers(ImproverFactory inner, double share, const Deadline& deadline) {
  const double run_seconds = deadline.remaining();
  return [inner = std::move(inner), share, run_seconds]() -> std::unique_ptr<RegionImprover> {
    return std::make_unique<BudgetedImprover>(inner(), share, run_seconds);
  };
}

MoverFactory hopeful_regions(MoverFactory inner) {
  return [inner = std::move(inner)](int thread) -> std::unique_ptr<SampleMover> {
    return std::make_unique<HopefulRegionsMover>(inner(thread));
  };
}

SolveResult run_portfolio_search(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                                 const RunContext& control, const ImproverFactory& improver,
                                 const MoverFactory& movers) {
  const bool timed = std::isfinite(deadline.remaining());
  const ImproverFactory searcher = timed ? budgeted_improvers(improver, kLocalSearchShare, deadline) : improver;
  const MoverFactory climbers = timed ? hopeful_regions(movers) : movers;
  const PortfolioSplit split = portfolio_split(problem, options, deadline, control);
  if (split.walk_threads == 0) return run_sampling(problem, options, deadline, control, searcher, climbers);
  // The walk stops with Algorithm 2: at the deadline, at the caller's stop request, or when the samples run out.
  std::atomic<bool> stop{false};
  const Deadline phase(deadline.remaining(), &stop);
  PointExchange exchange;
  const ExchangeSeat walk_seat{&exchange, 1}, search_seat{&exchange, 0};
  WalkOutcome walk;
  WorkerThreads beside(1);
  if (beside.started() == 0) return run_sampling(problem, options, deadline, control, searcher, climbers);
  beside.run([&, started = deadline.elapsed()](int) {
    walk_beside(problem, options, phase, started, split.walk_threads, walk_seat, walk);
  });
  SolveOptions search_options = options;
  search_options.threads = split.search_threads;
  RunContext search_control = control;
  search_control.exchange = &search_seat;
  SolveResult result;
  try {
    result = run_sampling(problem, search_options, deadline, search_control, searcher, climbers);
  } catch (...) {
    stop.store(true);  // the walk ends before `beside` joins it
    throw;
  }
  stop.store(true);
  beside.join();
  result.run.threads += walk.walk.run.threads;  // each as many as started
  result.walk.walks = walk.walk.walk.walks;
  result.run.lps += walk.walk.run.lps;
  std::vector<std::pair<double, double>> walk_profile = walk.walk.trajectory;
  if (walk.walk.status != SolveStatus::kNoSolution) adopt(problem, evaluate_point(problem, walk.walk.x), result);
  if (walk.improved) {
    adopt(problem, *walk.improved, result);
    walk_profile.emplace_back(walk.improved_at, problem.objective.value(walk.improved->outputs));
  }
  result.trajectory = merged_profile(problem, std::move(result.trajectory), walk_profile);
  return result;
}

}  // namespace reluopt
