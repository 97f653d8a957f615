#include "algorithms/enhanced.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <thread>

#include "algorithms/bab.h"
#include "algorithms/first_proof.h"
#include "algorithms/gradient.h"
#include "algorithms/mip.h"
#include "algorithms/model_region.h"
#include "algorithms/portfolio.h"
#include "algorithms/sampling.h"
#include "core/peers.h"
#include "core/worker_threads.h"
#include "formulation/neighbourhood_mip.h"
#include "reluopt/error.h"
#include "solver/lp_solver.h"
#include "solver/mip_solver.h"

namespace reluopt {

namespace {

struct LocalSearchCounters {
  std::atomic<long> searches{0};
  std::atomic<long> mips{0};
  std::atomic<long> lps{0};
  std::atomic<long> improvements{0};
};

// Neurons whose pre-activation at x is within eps of zero (and that the bounds do not prove stable): the
// corner of the region where neighbouring regions meet. With a cap, the tightest ones are kept.
// Concave neurons are never among them: the LPs leave them free already.
FreeMask tight_neurons(const Problem& problem, const NeuronBounds& bounds, const FreeMask* concave,
                       const Eigen::VectorXd& x, double eps, int max_free, int& count) {
  const ForwardTrace trace = problem.network.trace(x);
  FreeMask free(trace.pre_activation.size());
  std::vector<std::pair<double, std::pair<int, int>>> tight;
  for (std::size_t k = 0; k < trace.pre_activation.size(); ++k) {
    free[k].assign(trace.pre_activation[k].size(), 0);
    for (Eigen::Index j = 0; j < trace.pre_activation[k].size(); ++j) {
      const double h = std::abs(trace.pre_activation[k][j]);
      if (concave != nullptr && (*concave)[k][j]) continue;
      if (h <= eps && !bounds.is_stable(static_cast<int>(k), static_cast<int>(j)))
        tight.push_back({h, {static_cast<int>(k), static_cast<int>(j)}});
    }
  }
  if (max_free > 0 && static_cast<int>(tight.size()) > max_free) {
    std::nth_element(tight.begin(), tight.begin() + max_free, tight.end());
    tight.resize(max_free);
  }
  for (const auto& [h, at] : tight) free[at.first][at.second] = 1;
  count = static_cast<int>(tight.size());
  return free;
}

// The outer loop of Algorithm 2's local search (lines 11-24): when the gap test passes, search the regions
// around the current point, move to a better point, and repeat until the search no longer improves.
class LocalSearchLoop : public RegionImprover {
 public:
  LocalSearchLoop(const Problem& problem, const NeuronBounds& bounds, const FreeMask* concave,
                  const EnhancedOptions& options, LocalSearchCounters& counters)
      : problem_(problem), bounds_(bounds), concave_(concave), options_(options), counters_(counters) {}

  std::optional<EvaluatedPoint> improve(const EvaluatedPoint& start, double thread_best,
                                        const Deadline& deadline) override {
    const bool search = options_.local_search == LocalSearch::kPaper
                            ? paper_gap_test(thread_best, start.value, options_.gap)
                            : gap_test(thread_best, start.value, options_.gap);
    if (!search) return std::nullopt;
    counters_.searches.fetch_add(1, std::memory_order_relaxed);
    EvaluatedPoint current = start;
    bool improved = false;
    while (!deadline.expired()) {
      int free_count = 0;
      const FreeMask free =
          tight_neurons(problem_, bounds_, concave_, current.x, options_.eps, options_.max_free, free_count);
      if (free_count == 0) break;
      const ActivationPattern pattern = problem_.network.activation_pattern(current.x);
      std::optional<NeighbourhoodMip> mip = neighbourhood_mip(problem_.network, problem_.domain, problem_.objective,
                                                              pattern, free, bounds_, concave_, &deadline);
      if (!mip || !add_model_rows(pattern, *mip, deadline)) break;
      std::optional<EvaluatedPoint> candidate = search_neighbourhood(*mip, current, deadline);
      // The neighbourhood's LPs do not carry a model's rows: a candidate that misses one ends the search.
      if (!candidate || !candidate->feasible || candidate->value <= current.value + improvement_tolerance(current.value))
        break;
      current = std::move(*candidate);
      improved = true;
      counters_.improvements.fetch_add(1, std::memory_order_relaxed);
    }
    if (!improved) return std::nullopt;
    return current;
  }

 protected:
  // The best point of the union of regions the MIP describes, if it found one.
  virtual std::optional<EvaluatedPoint> search_neighbourhood(const NeighbourhoodMip& mip,
                                                             const EvaluatedPoint& current,
                                                             const Deadline& deadline) = 0;

  static double improvement_tolerance(double value) { return 1e-9 * (1.0 + std::abs(value)); }

  // A model's output rows in the neighbourhood MIP (model_region.h), over its columns x and the post-activations
  // of its free and concave neurons, in layer order as neighbourhood_mip numbers them; the neurons the bounds
  // prove stable take the state the bounds give, as there. False when the deadline expired.
  bool add_model_rows(ActivationPattern pattern, NeighbourhoodMip& mip, const Deadline& deadline) const {
    if (!problem_.rows.has_output_rows()) return true;
    const Network& network = problem_.network;
    FreeMask with_column(network.num_hidden_layers());
    for (int k = 0; k < network.num_hidden_layers(); ++k) {
      with_column[k].assign(network.hidden_width(k), 0);
      for (int j = 0; j < network.hidden_width(k); ++j)
        if (bounds_.is_stable(k, j)) pattern.active[k][j] = bounds_.lower[k][j] >= 0.0 ? 1 : 0;
    }
    for (const auto* neurons : {&mip.free, &mip.concave})
      for (const NeighbourhoodMip::FreeNeuron& n : *neurons) with_column[n.layer][n.neuron] = 1;
    return add_output_rows_on_region(problem_, pattern, &with_column, deadline, mip.model);
  }

  EvaluatedPoint evaluate_columns(const std::vector<double>& values) const {
    return evaluate_point(problem_, Eigen::Map<const Eigen::VectorXd>(values.data(), problem_.network.input_dim()));
  }

  const Problem& problem_;
  const NeuronBounds& bounds_;
  const FreeMask* concave_;  // left free in every LP (nullptr: the paper's LPs)
  const EnhancedOptions& options_;
  LocalSearchCounters& counters_;
};

// The paper's local search: the MIP over the tight neurons' binaries, solved by the MIP solver (CBC) from the
// current point.
class MipLocalSearch : public LocalSearchLoop {
 public:
  using LocalSearchLoop::LocalSearchLoop;

 protected:
  std::optional<EvaluatedPoint> search_neighbourhood(const NeighbourhoodMip& mip, const EvaluatedPoint& current,
                                                     const Deadline& deadline) override {
    const std::vector<double> mip_start = neighbourhood_start(mip, problem_.network, current.x);
    MipParameters parameters;
    parameters.start = &mip_start;
    const MipResult solution = make_mip_solver()->solve(mip.model, deadline, parameters);
    counters_.mips.fetch_add(1, std::memory_order_relaxed);
    if (solution.values.empty()) return std::nullopt;
    return evaluate_columns(solution.values);
  }
};

// The same MIP by a small depth-first branch-and-bound of our own: one LP kept loaded (WarmLpSolver), binaries fixed
// by bound changes and every node re-solved by the dual simplex from the previous basis. It skips what makes
// CBC slow on these tiny MIPs (preprocessing, cut rounds, heuristics). When the tree is exhausted the point
// is optimal over the neighbourhood: a local optimum in the paper's sense.
class BranchAndBoundLocalSearch : public LocalSearchLoop {
 public:
  using LocalSearchLoop::LocalSearchLoop;

 protected:
  std::optional<EvaluatedPoint> search_neighbourhood(const NeighbourhoodMip& mip, const EvaluatedPoint& current,
                                                     const Deadline& deadline) override {
    const std::unique_ptr<WarmLpSolver> lp = make_warm_lp_solver(mip.model);
    Search search{*lp, mip, deadline, current, std::nullopt, 0};
    dive(search);
    counters_.mips.fetch_add(1, std::memory_order_relaxed);
    counters_.lps.fetch_add(search.nodes, std::memory_order_relaxed);
    return search.best_found;
  }

  struct Search {
    WarmLpSolver& lp;
    const NeighbourhoodMip& mip;
    const Deadline& deadline;
    EvaluatedPoint best;                     // the incumbent of this search (starts at the current point)
    std::optional<EvaluatedPoint> best_found;
    long nodes;
  };

  void dive(Search& s) {
    if (s.deadline.expired() || (options_.node_limit > 0 && s.nodes >= options_.node_limit)) return;
    const LpSolution node = s.lp.solve(s.deadline.remaining());
    ++s.nodes;
    if (node.status != LpStatus::kOptimal) return;  // infeasible combination of states, or a failure
    if (node.objective <= s.best.value + improvement_tolerance(s.best.value)) return;  // cannot improve
    // Branch on the most fractional binary; explore the side it leans to first.
    int branch = -1;
    double fractionality = 1e-6;
    for (const NeighbourhoodMip::FreeNeuron& neuron : s.mip.free) {
      const double z = node.values[neuron.z_col];
      const double f = std::min(z, 1.0 - z);
      if (f > fractionality) {
        fractionality = f;
        branch = neuron.z_col;
      }
    }
    if (branch < 0) {
      EvaluatedPoint point = evaluate_columns(node.values);
      if (point.feasible && point.value > s.best.value + improvement_tolerance(s.best.value)) {
        s.best = point;
        s.best_found = std::move(point);
      }
      return;
    }
    const double first = node.values[branch] >= 0.5 ? 1.0 : 0.0;
    for (double side : {first, 1.0 - first}) {
      s.lp.set_col_bounds(branch, side, side);
      dive(s);
    }
    s.lp.set_col_bounds(branch, 0.0, 1.0);
  }
};

// The default, chosen by measurement (bench/results/local_search.md, bench/results/flip_order.md): hill
// climbing over the regions that share the current point. Each neighbour flips one tight neuron; its LP is the
// neighbourhood model with every binary fixed, re-solved by the dual simplex from the optimal basis of the
// current region (not from the previous neighbour's, which lies farther away: half the iterations). The first
// improving flip wins and the search moves on from its point; a point no flip improves has had every flip
// tried. When no single flip improves and at most kExactLimit neurons are tight, the exact branch-and-bound
// above certifies the point (or finds a multi-flip improvement), so small neighbourhoods end at a local
// optimum in the paper's sense; larger ones end at a point no single flip improves.
class FlipLocalSearch : public BranchAndBoundLocalSearch {
 public:
  using BranchAndBoundLocalSearch::BranchAndBoundLocalSearch;
  static constexpr int kExactLimit = 12;

 protected:
  std::optional<EvaluatedPoint> search_neighbourhood(const NeighbourhoodMip& mip, const EvaluatedPoint& current,
                                                     const Deadline& deadline) override {
    const std::unique_ptr<WarmLpSolver> lp = make_warm_lp_solver(mip.model);
    Search search{*lp, mip, deadline, current, std::nullopt, 0};
    const ForwardTrace trace = problem_.network.trace(current.x);
    std::vector<double> state;
    for (const NeighbourhoodMip::FreeNeuron& neuron : mip.free) {
      state.push_back(trace.pre_activation[neuron.layer][neuron.neuron] > 0.0 ? 1.0 : 0.0);
      lp->set_col_bounds(neuron.z_col, state.back(), state.back());
    }
    // The region of the current point's own pattern first: it may already beat the sampled region.
    consider(search, lp->solve(deadline.remaining()));
    lp->save_basis();
    for (std::size_t t = 0; t < mip.free.size() && !search.best_found && !deadline.expired(); ++t) {
      const int z = mip.free[t].z_col;
      lp->set_col_bounds(z, 1.0 - state[t], 1.0 - state[t]);
      lp->restore_basis();
      consider(search, lp->solve(deadline.remaining()));
      lp->set_col_bounds(z, state[t], state[t]);
    }
    if (!search.best_found && static_cast<int>(mip.free.size()) <= kExactLimit && !deadline.expired()) {
      for (const NeighbourhoodMip::FreeNeuron& neuron : mip.free) lp->set_col_bounds(neuron.z_col, 0.0, 1.0);
      dive(search);
    } else if (!search.best_found && options_.local_search == LocalSearch::kFlipMip && !deadline.expired()) {
      // Many tight neurons and no single flip helps: the paper's MIP, by CBC within a node limit (a count, not
      // a time, so that runs stay deterministic).
      const std::vector<double> mip_start = neighbourhood_start(mip, problem_.network, current.x);
      MipParameters parameters;
      parameters.start = &mip_start;
      parameters.node_limit = options_.node_limit > 0 ? options_.node_limit : kFlipMipNodes;
      const MipResult solution = make_mip_solver()->solve(mip.model, deadline, parameters);
      if (!solution.values.empty()) {
        EvaluatedPoint point = evaluate_columns(solution.values);
        if (point.feasible && point.value > current.value + improvement_tolerance(current.value))
          search.best_found = std::move(point);
      }
    }
    counters_.mips.fetch_add(1, std::memory_order_relaxed);
    counters_.lps.fetch_add(search.nodes, std::memory_order_relaxed);
    return search.best_found;
  }

 private:
  void consider(Search& s, const LpSolution& node) {
    ++s.nodes;
    if (node.status != LpStatus::kOptimal) return;
    if (node.objective <= s.best.value + improvement_tolerance(s.best.value)) return;
    EvaluatedPoint point = evaluate_columns(node.values);
    if (!point.feasible || point.value <= s.best.value + improvement_tolerance(s.best.value)) return;
    s.best = point;
    s.best_found = std::move(point);
  }
};

// The end of a timed run: the prover from Algorithm 2's best point, for all the time left (until a proof).
void prove(const Problem& problem, const SolveOptions& options, const Deadline& deadline, const RunContext& control,
           SolveResult& result) {
  const double sampling_seconds = deadline.elapsed();
  const bool sampling_timed_out = result.stopped_by == StopReason::kTimeLimit;
  const Deadline prover_deadline = deadline.limited(deadline.remaining());
  SolveOptions prover_options = options;
  prover_options.mip.warm_start = false;
  // A process of a run over several may join the proof with no point of its own.
  std::optional<EvaluatedPoint> start;
  if (result.status == SolveStatus::kFeasible || result.status == SolveStatus::kOptimal)
    start = evaluate_point(problem, result.x);
  const Prover prover = prover_for(problem, options);
  const SolveResult proof = run_prover(problem, prover_options, prover_deadline, control, start);
  if (!proof.mip.bound_method.empty()) {
    result.mip.binaries = proof.mip.binaries;
    result.mip.bound_method = proof.mip.bound_method;
  }
  const double sign = problem.objective.sign();
  if (proof.status == SolveStatus::kInfeasible && result.status == SolveStatus::kNoSolution) {
    result.status = SolveStatus::kInfeasible;
  } else if (proof.status != SolveStatus::kNoSolution && proof.status != SolveStatus::kInfeasible &&
             (result.status == SolveStatus::kNoSolution || sign * proof.objective > sign * result.objective)) {
    result.status = SolveStatus::kFeasible;
    result.x = proof.x;
    result.outputs = proof.outputs;
    result.objective = proof.objective;
    result.domain_violation = proof.domain_violation;
  }
  // The anytime profiles go on with the prover's, on the run's clock.
  for (const auto& [seconds, value] : proof.trajectory)
    if (result.trajectory.empty() || sign * value > sign * result.trajectory.back().second)
      result.trajectory.emplace_back(sampling_seconds + seconds, value);
  for (const auto& [seconds, value] : proof.bound_trajectory)
    result.bound_trajectory.emplace_back(sampling_seconds + seconds, value);
  result.bound = proof.bound;
  result.run.nodes = proof.run.nodes;
  result.prover = prover_name(prover);
  result.mip.warm_started = true;
  result.stopped_by = deadline.interrupted()                       ? StopReason::kInterrupted
                      : proof.stopped_by == StopReason::kCompleted ? StopReason::kCompleted
                      : sampling_timed_out                         ? StopReason::kTimeLimit
                                                                   : proof.stopped_by;
  close_gap(result);
}

}  // namespace

bool paper_gap_test(double best, double lp, double gap) { return std::abs((best - lp) / best) < gap; }

bool gap_test(double best, double lp, double gap) {
  return std::abs(best - lp) <= gap * std::max(std::abs(best), std::abs(lp));
}

namespace {

std::unique_ptr<RegionImprover> make_improver(const Problem& problem, const NeuronBounds& bounds, const FreeMask* concave,
                                              const EnhancedOptions& enhanced, LocalSearchCounters& counters) {
  switch (enhanced.local_search) {
    case LocalSearch::kPaper: return std::make_unique<MipLocalSearch>(problem, bounds, concave, enhanced, counters);
    case LocalSearch::kBranchAndBound:
      return std::make_unique<BranchAndBoundLocalSearch>(problem, bounds, concave, enhanced, counters);
    case LocalSearch::kFlip:
    case LocalSearch::kFlipMip:
      return std::make_unique<FlipLocalSearch>(problem, bounds, concave, enhanced, counters);
  }
  throw Error("unknown local search");
}

// The channel of the default's prover over several processes: a solve is the only run on them, and verify's
// searches (channels 2k+1) never prove at the end.
constexpr int kProverChannel = 1;

// Over several processes bab proves over all of them (the lead decides whether there is a proof to run, so that
// every process joins or none does; each starts from its own best point and the incumbents are shared), and the
// other provers (CBC) run on the lead alone, from everyone's best point.
void prove_at_the_end(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                      const RunContext& control, bool prove_at_end, SolveResult& result) {
  // With a model's rows the prover also runs without a point: it may find one, or prove there is none.
  bool go = prove_at_end && result.status != SolveStatus::kInfeasible &&
            (result.status != SolveStatus::kNoSolution || !problem.rows.empty()) && !deadline.expired();
  if (control.peers == nullptr) {
    if (go) prove(problem, options, deadline, control, result);
    return;
  }
  if (options.enhanced.prover == Prover::kBab) {
    Peers& provers = control.peers->channel(kProverChannel);
    if (!provers.decide(0, go, deadline)) return;
    RunContext over_all = control;
    over_all.peers = &provers;
    prove(problem, options, deadline, over_all, result);
  } else if (go && control.peers->lead()) {
    RunContext lead_alone = control;
    lead_alone.peers = nullptr;
    prove(problem, options, deadline, lead_alone, result);
  }
}

}  // namespace

std::optional<EvaluatedPoint> local_search_from(const Problem& problem, const SolveOptions& options,
                                                const EvaluatedPoint& start, const Deadline& deadline) {
  LocalSearchCounters counters;
  const FreeMask* concave = options.relax_concave ? &problem.concave : nullptr;
  return make_improver(problem, problem.interval, concave, options.enhanced, counters)->improve(start, start.value, deadline);
}

SolveResult run_enhanced(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                         const RunContext& control) {
  // The local MIPs need bounds only for the big-M rows of their few free neurons; interval bounds cost nothing
  // and leave the whole time budget to sampling.
  const NeuronBounds& bounds = problem.interval;
  const FreeMask* concave = options.relax_concave ? &problem.concave : nullptr;
  LocalSearchCounters counters;
  const ImproverFactory factory = [&]() { return make_improver(problem, bounds, concave, options.enhanced, counters); };
  // The portfolio (docs/MATH.md §16): each sample first climbs by the gradient ascent, so that every region LP
  // and local search starts from an ascended point. Without steps, Algorithm 2 as the paper writes it; so too
  // under the stopping rule, whose tail model needs the region values of uniform samples, not of ascended ones.
  GradientCounters ascent;
  const bool ascend = options.gradient.ascent_steps > 0 && !options.sampling.stop_rule;
  const MoverFactory movers = ascend ? gradient_movers(problem, options, ascent) : MoverFactory{};
  const double share = options.enhanced.mip_share;
  const bool prove_at_end = share > 0.0 && share < 1.0 && std::isfinite(deadline.remaining()) && !options.sampling.stop_rule;
  // The first proof (over several processes the search and bab share their work as before).
  std::optional<SolveResult> first;
  if (prove_at_end && options.enhanced.first_proof > 0.0 && control.peers == nullptr) {
    first = run_first_proof(problem, options, deadline.share(options.enhanced.first_proof), control);
    if (proven(*first) || deadline.expired()) return first_proof_result(std::move(*first), deadline);
  }
  const double search_start = deadline.elapsed();
  const Deadline search = prove_at_end ? deadline.share(1.0 - share) : deadline;
  SolveResult result = ascend ? run_portfolio_search(problem, options, search, control, factory, movers)
                              : run_sampling(problem, options, search, control, factory, movers);
  result.method = method_name(Method::kEnhanced);
  if (first) join_first_proof(problem, *first, search_start, result);
  std::vector<long> counts = {counters.searches.load(), counters.mips.load(), counters.lps.load(),
                              ascent.steps.load(), ascent.perturbations.load()};
  if (control.peers != nullptr) {
    counts = control.peers->sum(counts, deadline);
    result.distributed.communication_seconds = control.peers->communication_seconds();
  }
  result.enhanced.local_searches = counts[0];
  result.enhanced.local_mips = counts[1];
  result.run.lps += counts[2];
  result.gradient.steps = counts[3];
  result.gradient.perturbations = counts[4];
  // The search may have met the first proof's bound.
  prove_at_the_end(problem, options, deadline, control, prove_at_end && result.status != SolveStatus::kOptimal, result);
  if (first) keep_first_bound(problem, *first, result);
  result.run.seconds = deadline.elapsed();
  return result;
}

}  // namespace reluopt
