#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "algorithms/incumbent.h"  // RunContext
#include "algorithms/problem.h"
#include "core/worker_threads.h"  // resolve_threads
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

// Algorithm 1 of Perakis & Tsiourvas (the sampling algorithm): sample x in P, fix its activation pattern,
// solve the pattern's LP in input space, keep the best, re-evaluated by a forward pass.
//
// Threads: thread t draws samples t, t + T, t + 2T, ... from its own seeded stream and owns one LP object.
// A pattern already solved (by any thread) skips its LP and counts as a duplicate; since the LP of a pattern
// always gives the same point, the set of candidates, and so the answer, depends only on the seed and T when
// the run ends on its sample count.
// What the enhanced algorithm adds after a sampled region's LP: a local search from its optimum.
// One object per thread.
class RegionImprover {
 public:
  virtual ~RegionImprover() = default;
  // `start` is the forward-evaluated LP optimum of a sampled region and `thread_best` the best value this
  // thread has seen (maximized sense, start included). Returns a better point, or nothing.
  virtual std::optional<EvaluatedPoint> improve(const EvaluatedPoint& start, double thread_best,
                                                const Deadline& deadline) = 0;
};
using ImproverFactory = std::function<std::unique_ptr<RegionImprover>()>;

// What the gradient method adds before a sample's region LP: it moves the sample to a better point of P, whose
// region then gets the LP. One object per thread; the factory gets the thread's index over all
// processes.
class SampleMover {
 public:
  virtual ~SampleMover() = default;
  // `sample` lies in P. Returns a forward-evaluated point of P at least as good as the sample.
  virtual EvaluatedPoint move(const Eigen::VectorXd& sample, const Deadline& deadline) = 0;
  // Whether the region of the moved point deserves its LP, given the thread's best value (maximized sense);
  // a region without its LP keeps the moved point's value. By default every region gets it.
  virtual bool wants_region_lp(const EvaluatedPoint& /*moved*/, double /*thread_best*/) { return true; }
  // The LP optimum of the moved point's region, when one was solved.
  virtual void region_solved(const EvaluatedPoint& /*moved*/, const EvaluatedPoint& /*optimum*/) {}
};
using MoverFactory = std::function<std::unique_ptr<SampleMover>(int thread)>;

// Uses options.sampling, options.threads and options.seed; stops at the sample count, the deadline, its
// stop request or, with options.sampling.stop_rule, when the rule's check at a checkpoint passes (the decision
// at checkpoint n sees X_i of samples 0..n-1 in index order; no sample >= n starts before it is known). With an improver (Algorithm 2), each thread skips only the patterns it solved itself and
// tests the local-search condition against its own best, so that the answer still depends only on the seed
// and the thread count.
// With a mover, each sample is moved before its pattern is taken (the gradient method).
SolveResult run_sampling(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                         const RunContext& control, const ImproverFactory& improver = {},
                         const MoverFactory& mover = {});


}  // namespace reluopt
