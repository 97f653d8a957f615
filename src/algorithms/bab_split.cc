// The branch-and-bound over several processes: a static split of P's box into one slab per process.
#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/bab.h"
#include "algorithms/incumbent.h"
#include "algorithms/mip.h"
#include "algorithms/sampling.h"
#include "reluopt/error.h"
#include "reluopt/peers.h"

namespace reluopt {

namespace {

// Slab `part` of `parts` of the box along its widest coordinate. Neighbours compute their shared cut by the
// same expression, so the slabs cover the box exactly.
Domain slab(const Domain& domain, int part, int parts) {
  Domain piece = domain;
  Eigen::Index widest = 0;
  (domain.upper - domain.lower).maxCoeff(&widest);
  const double low = domain.lower[widest];
  const double width = domain.upper[widest] - low;
  const auto cut = [&](int k) { return k == parts ? domain.upper[widest] : low + width * k / parts; };
  piece.lower[widest] = cut(part);
  piece.upper[widest] = cut(part + 1);
  return piece;
}

// This process's part: its slab's search, with the best points of every slab as incumbents (a slab's bound is
// then the larger of its nodes' and the best value anywhere: still a bound over the slab), reported as a tally (its bound in `values`: -inf for a slab the
// search closed without a point, NaN for one it left without a bound).
RunTally search_slab(const Problem& problem, const SolveOptions& options, const Deadline& deadline, Peers& peers) {
  const int rank = peers.rank();
  RunControl slab_control;  // no progress line: one slab's bound is not P's
  slab_control.stop = deadline.stop_request();
  slab_control.peers = &peers;
  RunTally tally;
  SolveResult part;
  try {
    const Problem piece = make_problem(problem.network, slab(problem.domain, rank, peers.size()), problem.objective);
    part = run_bab(piece, options, deadline, slab_control);
  } catch (const Error&) {
    // The slab misses P's rows A x <= b (the whole problem was validated): nothing to search.
    tally.completed = 1;
    tally.values.emplace_back(rank, -std::numeric_limits<double>::infinity());
    return tally;
  }
  const double sign = problem.objective.sign();
  tally.nodes = part.nodes;
  tally.lps = part.lps;
  tally.completed = part.stopped_by == StopReason::kCompleted ? 1 : 0;
  const double none = tally.completed ? -std::numeric_limits<double>::infinity() : std::nan("");
  tally.values.emplace_back(rank, part.bound ? sign * *part.bound : none);
  if (part.status != SolveStatus::kNoSolution) tally.best_points.push_back(part.x);
  return tally;
}

}  // namespace

SolveResult run_bab_split(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                          const RunControl& control) {
  Peers& peers = *control.peers;
  const RunTally all = peers.finish(search_slab(problem, options, deadline, peers), deadline);
  SolveResult result;
  result.method = method_name(Method::kBab);
  result.prover = "bab";
  result.seed = options.seed;
  result.threads = resolve_threads(options.threads);
  result.ranks = peers.size();
  result.ranks_finished = peers.finished();
  result.communication_seconds = peers.communication_seconds();
  result.nodes = all.nodes;
  result.lps = all.lps;
  Incumbent incumbent;
  for (const Eigen::VectorXd& x : all.best_points) incumbent.offer(evaluate_point(problem, x));
  incumbent.fill(problem, result);
  // The bound over P is the largest over the slabs, and exists only when every slab has one.
  const bool bounded = static_cast<int>(all.values.size()) == peers.size() &&
                       std::none_of(all.values.begin(), all.values.end(), [](const auto& v) { return std::isnan(v.second); });
  if (bounded) {
    double bound = -std::numeric_limits<double>::infinity();
    for (const auto& [rank, value] : all.values) bound = std::max(bound, value);
    if (std::isfinite(bound)) result.bound = problem.objective.sign() * bound;
  }
  result.stopped_by = all.completed == peers.size() ? StopReason::kCompleted
                      : deadline.interrupted()      ? StopReason::kInterrupted
                                                    : StopReason::kTimeLimit;
  close_gap(result);
  result.seconds = deadline.elapsed();
  return result;
}

}  // namespace reluopt
