// The relaxing walk (docs/MATH.md §15; Tong, Cai & Serra, "Optimization over trained neural networks: taking a
// relaxing walk", CPAIOR 2024). Where we differ from the paper:
// - the big-M model's neuron bounds are linear bound propagation (no LP per neuron), so the relaxation costs one
//   LP; concave neurons have no binary (formulation/pattern_lp.h);
// - the region LP is our input-space pattern LP (MATH.md §2), solved by the sampling path's dense simplex;
// - a diversification round fixes first-layer neurons, walks, then adds second-layer fixings and walks again;
//   each neuron is flipped away from the best point's state with probability |state - z|, z its value in the
//   unfixed relaxation, and at least the neuron with the largest |state - z| is flipped.
#include "algorithms/walk.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <unordered_set>

#include "algorithms/incumbent.h"
#include "algorithms/mip.h"  // close_gap
#include "algorithms/model_region.h"
#include "algorithms/sampling.h"
#include "bounds/bounds.h"
#include "core/domain_sampler.h"
#include "core/peers.h"
#include "core/worker_threads.h"
#include "formulation/mip_formulation.h"
#include "formulation/pattern_lp.h"
#include "solver/dense_first_lp.h"
#include "solver/lp_solver.h"

namespace reluopt {

namespace {

// The root relaxation gets at most this share of the time. On 100 -> 3x500 -> 1 CLP needs 26 s of CPU for it
// (65 s wall at load 9); when it does not finish, the walks start from uniform samples of P instead, at most
// SamplingOptions::samples of them (capped by kMaxSampledWalks).
constexpr double kRootShare = 0.5;
constexpr long kMaxSampledWalks = 1L << 30;
// Steps of the descent on a model's row violation from a walk's sampled start (model_region.h).
constexpr int kRowDescentSteps = 50;

// Binary columns fixed to 0 or 1: (column, value).
using Fixings = std::vector<std::pair<int, double>>;

struct WalkShared {
  explicit WalkShared(const Deadline& deadline) : incumbent(&deadline) {}
  Incumbent incumbent;
  std::mutex visited_mutex;
  std::unordered_set<std::size_t> visited;  // pattern hashes whose region LP was solved
  std::atomic<long> walks{0};
  std::atomic<long> lps{0};
  std::atomic<int> finished{0};
  std::atomic<bool> abandoned{false};  // a worker threw (WorkerThreads::run): the others and the driver end

  bool first_visit(std::size_t hash) {
    std::lock_guard<std::mutex> lock(visited_mutex);
    return visited.insert(hash).second;
  }
};

// What every walker reads: the model, its root relaxation's binaries and the problem.
struct WalkContext {
  const Problem& problem;
  const WalkOptions& options;
  const MipFormulation& formulation;
  std::vector<double> root_values;  // the unfixed relaxation's optimum
  const FreeMask* concave;
};

enum class RelaxationOutcome { kSolved, kInfeasible, kStopped };

// The relaxation with `fixings`; its optimum (every column) in `values` when solved. No LP once the deadline
// has passed.
RelaxationOutcome solve_relaxation(const WalkContext& context, const Fixings& fixings, LpSolver& lp,
                                   const Deadline& deadline, WalkShared& shared, std::vector<double>& values) {
  if (deadline.expired()) return RelaxationOutcome::kStopped;
  LinearModel model = context.formulation.model;
  for (const auto& [col, value] : fixings) model.set_col_bounds(col, value, value);
  const LpSolution solution = lp.solve(model, deadline.remaining());
  shared.lps.fetch_add(1, std::memory_order_relaxed);
  if (solution.status == LpStatus::kInfeasible) return RelaxationOutcome::kInfeasible;
  if (solution.status != LpStatus::kOptimal) return RelaxationOutcome::kStopped;
  values = solution.values;
  return RelaxationOutcome::kSolved;
}

Eigen::VectorXd input_of(const WalkContext& context, const std::vector<double>& values) {
  Eigen::VectorXd x(context.formulation.input.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = values[context.formulation.input[i]];
  return x;
}

// From x: the region's LP, a step of delta times the move past its optimum, again while the value improves
// and the pattern is new.
void walk(const WalkContext& context, const Eigen::VectorXd& x, RegionSolver& regions, const Deadline& deadline,
          WalkShared& shared) {
  const Problem& problem = context.problem;
  shared.walks.fetch_add(1, std::memory_order_relaxed);
  EvaluatedPoint from = evaluate_point(problem, x);
  double walk_best = from.feasible ? from.value : -kInfinity;
  bool first = true;
  shared.incumbent.offer(from);
  while (!deadline.expired()) {
    const ActivationPattern pattern = pattern_key(problem.network.activation_pattern(from.x), context.concave);
    if (!shared.first_visit(pattern.hash())) return;
    RegionOutcome region = regions.solve(pattern, deadline);
    if (region.status == RegionStatus::kStopped) return;  // the deadline expired, or its LP cannot be set up in time
    shared.lps.fetch_add(1, std::memory_order_relaxed);
    // A region that a model's rows cut off (or whose optimum misses one) ends the walk.
    if (region.status != RegionStatus::kSolved || !region.optimum.feasible) return;
    EvaluatedPoint& optimum = region.optimum;
    shared.incumbent.offer(optimum);
    // The first region's optimum is at least the start's value (the start lies in the region), so only
    // later regions must improve.
    if (optimum.value <= walk_best && !first) return;
    first = false;
    walk_best = std::max(walk_best, optimum.value);
    const Eigen::VectorXd move = optimum.x - from.x;
    if (move.norm() == 0.0) return;
    from = evaluate_point(problem, optimum.x + context.options.delta * move);
  }
}

// Fixings of `layer`'s binaries for one diversification step, in random order: each neuron away from the best
// point's state with probability |state - z|, and at least the one where they differ most.
Fixings diversify(const WalkContext& context, int layer, const ActivationPattern& best, std::mt19937_64& rng) {
  const std::vector<int>& binaries = context.formulation.binary[layer];
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Fixings fixings;
  int widest = -1;
  double widest_gap = -1.0;
  for (std::size_t j = 0; j < binaries.size(); ++j) {
    if (binaries[j] < 0) continue;
    const double state = best.active[layer][j];
    const double gap = std::abs(state - context.root_values[binaries[j]]);
    if (unit(rng) < gap) fixings.emplace_back(binaries[j], 1.0 - state);
    if (gap > widest_gap) {
      widest_gap = gap;
      widest = static_cast<int>(j);
    }
  }
  if (fixings.empty() && widest >= 0)
    fixings.emplace_back(binaries[widest], 1.0 - best.active[layer][widest]);
  std::shuffle(fixings.begin(), fixings.end(), rng);
  return fixings;
}

// One diversification round: first-layer fixings, a walk, then second-layer fixings added, a walk. A relaxation
// that the fixings make infeasible is re-solved with the first half of them, options.infeasible_per_iteration
// times at most (all at once, the flips of one layer often cut every point off: on 20 -> 100 -> 1, 2800
// infeasible relaxations and 2 walks in 10 s).
void diversification_round(const WalkContext& context, std::uint64_t seed, LpSolver& relaxation_lp,
                           RegionSolver& region_lp, const Deadline& deadline, WalkShared& shared) {
  std::mt19937_64 rng(seed);
  Fixings fixed;
  const int layers = std::min(2, context.problem.network.num_hidden_layers());
  for (int layer = 0; layer < layers; ++layer) {
    const std::optional<EvaluatedPoint> best = shared.incumbent.best();
    if (!best) return;
    const ActivationPattern pattern = context.problem.network.activation_pattern(best->x);
    Fixings added = diversify(context, layer, pattern, rng);
    for (int attempt = 0;; ++attempt) {
      if (attempt == context.options.infeasible_per_iteration || added.empty() || deadline.expired()) return;
      Fixings candidate = fixed;
      candidate.insert(candidate.end(), added.begin(), added.end());
      std::vector<double> values;
      const RelaxationOutcome outcome = solve_relaxation(context, candidate, relaxation_lp, deadline, shared, values);
      if (outcome == RelaxationOutcome::kStopped) return;
      if (outcome == RelaxationOutcome::kInfeasible) {
        if (added.size() == 1) return;
        added.resize(added.size() / 2);
        continue;
      }
      fixed = std::move(candidate);
      walk(context, input_of(context, values), region_lp, deadline, shared);
      break;
    }
  }
}

// Rounds thread, thread + threads, ...: diversification rounds after a solved relaxation, else walks from
// uniform samples of P (sample i from stream i of the seed).
void walk_worker(const WalkContext& context, std::uint64_t seed, int thread, int threads, int rounds,
                 bool diversify, const Deadline& deadline, WalkShared& shared) {
  const std::unique_ptr<LpSolver> relaxation_lp = make_lp_solver();
  relaxation_lp->set_stop_request(deadline.stop_request());
  RegionSolver region_lp(context.problem, context.concave, deadline);
  const Problem& problem = context.problem;
  for (int round = thread; round < rounds && !deadline.expired() && !shared.abandoned.load(); round += threads) {
    // A model's rows may leave the walks without a point to diversify from: sampled walks look for one.
    if (diversify && shared.incumbent.best_value()) {
      diversification_round(context, stream_seed(seed, round), *relaxation_lp, region_lp, deadline, shared);
    } else {
      DomainSampler sampler(problem.domain, problem.interior_point, stream_seed(seed, round));
      walk(context, descend_row_violation(problem, sampler.next(), kRowDescentSteps, deadline), region_lp, deadline,
           shared);
    }
  }
  shared.finished.fetch_add(1);
}

// The progress line and, over several processes, points to and from the others every 20 ms (on the lead, the
// line counts their LPs too).
void report_progress(const Problem& problem, const RunContext& control, const Deadline& deadline,
                     WalkShared& shared, int threads) {
  double next_progress = control.progress_interval;
  while (shared.finished.load() < threads && !shared.abandoned.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (control.peers != nullptr) trade_points(problem, *control.peers, shared.incumbent);
    if (control.exchange != nullptr) trade_points(problem, *control.exchange, shared.incumbent);
    if (deadline.elapsed() < next_progress) continue;
    next_progress = deadline.elapsed() + control.progress_interval;
    RunTally mine, others;
    mine.lps = shared.lps.load();
    if (control.peers != nullptr) others = control.peers->exchange_counts(mine);
    if (!control.on_progress) continue;
    Progress progress;
    progress.seconds = deadline.elapsed();
    progress.lps = mine.lps + others.lps;
    if (auto best = shared.incumbent.best_value()) progress.incumbent = problem.objective.sign() * *best;
    control.on_progress(progress);
  }
}

// The end over several processes: the lead sums the walks and LPs and takes every process's best point.
void gather(const Problem& problem, Peers& peers, const Deadline& deadline, WalkShared& shared, SolveResult& result) {
  RunTally tally;
  tally.lps = result.run.lps;
  if (const std::optional<EvaluatedPoint> best = shared.incumbent.best()) tally.best_points.push_back(best->x);
  const RunTally all = peers.finish(tally, deadline);
  result.walk.walks = peers.sum({result.walk.walks}, deadline)[0];
  result.run.lps = all.lps;
  for (const Eigen::VectorXd& x : all.best_points) shared.incumbent.offer(evaluate_point(problem, x));
  result.distributed.ranks = peers.size();
  result.distributed.ranks_finished = peers.finished();
  result.distributed.communication_seconds = peers.communication_seconds();
}

}  // namespace

SolveResult run_walk(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                     const RunContext& control) {
  WalkShared shared(deadline);
  // A point before any LP, so that a run the deadline cuts short still reports one.
  shared.incumbent.offer(evaluate_point(problem, problem.interior_point));
  BoundOptions bound_options;
  bound_options.method = BoundMethod::kSymbolic;
  bound_options.threads = options.threads;
  const NeuronBounds bounds = compute_bounds(problem.network, problem.domain, bound_options, deadline);
  // With output rows the relaxation keeps every unstable neuron's binary (as the model MIP does) and the rows.
  // The model and its relaxation share the root's time: a large network's model alone may not fit in it.
  const Deadline root = deadline.share(kRootShare);
  const bool output_rows = problem.rows.has_output_rows();
  MipFormulation formulation = big_m_formulation(problem.network, problem.domain, problem.objective, bounds,
                                                 options.relax_concave && !output_rows, &root);
  if (formulation.complete)
    add_output_rows(formulation, problem.network, problem.rows.output_rows, problem.rows.output_rhs);
  WalkContext context{problem, options.walk, formulation, {}, options.relax_concave ? &problem.concave : nullptr};
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  lp->set_stop_request(deadline.stop_request());
  const bool root_solved = formulation.complete && solve_relaxation(context, {}, *lp, root, shared,
                                                                    context.root_values) == RelaxationOutcome::kSolved;
  const int rounds = root_solved ? options.walk.iterations : static_cast<int>(std::min<long>(
                                                                 options.sampling.samples, kMaxSampledWalks));
  WorkerThreads workers(std::clamp(resolve_threads(options.threads), 1, std::max(1, rounds)));
  const int threads = std::max(1, workers.started());
  // Over several processes round i goes to thread i mod K T of the global numbering (core/peers.h), and the
  // root's walk is the lead's.
  Peers* const peers = control.peers;
  const int first = peers != nullptr ? peers->rank() * threads : 0;
  const int all = peers != nullptr ? peers->size() * threads : threads;
  if (root_solved && (peers == nullptr || peers->lead())) {
    RegionSolver region_lp(problem, context.concave, deadline);
    walk(context, input_of(context, context.root_values), region_lp, deadline, shared);
  }
  const auto work = [&](int t) {
    walk_worker(context, options.seed, first + t, all, rounds, root_solved, deadline, shared);
  };
  workers.run(work, &shared.abandoned);
  if (workers.started() == 0) work(0);
  report_progress(problem, control, deadline, shared, threads);
  workers.join();
  SolveResult result;
  result.method = method_name(Method::kWalk);
  result.walk.walks = shared.walks.load();
  result.run.lps = shared.lps.load();
  if (peers != nullptr) gather(problem, *peers, deadline, shared, result);
  result.run.concave_neurons = options.relax_concave ? count_neurons(problem.concave) : 0;
  result.run.seed = options.seed;
  result.run.threads = threads;
  result.run.seconds = deadline.elapsed();
  result.stopped_by = deadline.interrupted() ? StopReason::kInterrupted
                      : deadline.expired()   ? StopReason::kTimeLimit
                                             : StopReason::kCompleted;
  // A model's rows that no walk met: the model MIP looks for a first point, or proves there is none, in the time
  // left (docs/PROBLEM.md).
  std::optional<SolveResult> rescue;
  if (!problem.rows.empty() && !shared.incumbent.best_value() && !deadline.expired()) {
    rescue = run_rows_mip(problem, options, deadline, RunContext{});
    if (rescue->status != SolveStatus::kNoSolution && rescue->status != SolveStatus::kInfeasible)
      shared.incumbent.offer(evaluate_point(problem, rescue->x));
    result.run.nodes = rescue->run.nodes;
  }
  shared.incumbent.fill(problem, result);
  if (rescue) {
    if (rescue->status == SolveStatus::kInfeasible) result.status = SolveStatus::kInfeasible;
    result.bound = rescue->bound;
    close_gap(result);
  }
  return result;
}

}  // namespace reluopt
