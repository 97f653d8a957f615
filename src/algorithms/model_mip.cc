#include "algorithms/model_mip.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "algorithms/enhanced.h"
#include "algorithms/mip.h"
#include "algorithms/proof_check.h"
#include "algorithms/root_tightening.h"
#include "algorithms/sampling.h"
#include "core/worker_threads.h"
#include "formulation/anderson_cuts.h"
#include "solver/mip_solver.h"

namespace reluopt {

namespace {

// Share of the time that bound tightening may take (as for the MIP methods on one network), and of what is left
// after it, the share of the tightening with the rows.
constexpr double kModelBoundsTimeShare = 0.5;
constexpr double kModelTighteningShare = 0.2;

// Samples whose best point starts the second run: CBC's heuristics alone find no point on the larger models.
// Their region problems (each an LP with the rows, or a small MIP with integers) within kSampleTimeShare of the
// time left, then the enhanced search from the same samples within kStartTimeShare of the time left after them.
constexpr long kStartSamples = 16;
constexpr double kSampleTimeShare = 0.05;
constexpr double kStartTimeShare = 0.1;

// A formulation with at most this many binaries (besides the model's integers) is small: CBC's nodes take a few
// milliseconds, and a first run of kFirstRunNodes nodes over the propagated bounds costs less than the tightening
// (process_s3, 51 binaries: proven in 106 nodes, 0.35 s at load 4, where the tightening alone took 0.28-0.44 s
// and the formulation it gave 140 nodes).
constexpr int kSmallMipBinaries = 64;
// The share of the time left that a first run may take.
constexpr double kFirstRunTimeShare = 0.1;

// Strong branchings per binary before CBC trusts its pseudo-costs. CBC's default (10) spent most of a model
// MIP's time strong branching: with 1, CPU time per run (median of 5, interleaved, load 6-8) fell on pricing_s2
// from 46 to 29 ms, design_s2 68 -> 48 ms, process_s2 20 -> 15 ms, process_s3 0.70 -> 0.45 s (bound tightening
// included). No strong branching at all (CBC's numberStrong 0) took process_s3 from 345 to 3780 nodes.
constexpr int kModelReliability = 1;

// CBC's own node selection for the first 1000 nodes, best-first after them (MipParameters::best_bound_after).
// Past the small models' trees the default's dives leave the bound near the root's: at equal node counts (1 thread,
// bench/results/models_peers.md), design_s3's bound after 12000 nodes 1.52 by default, 2.66 switching at 1000,
// 2.95 best-first throughout; pricing_s3's after 4000 nodes 287.7, 260.8 and 261.2. Best-first throughout took
// process_s3's proof from 110 to 207 nodes (design_s2 146 -> 190, pricing_s2 39 -> 65); the trees that close
// within 1000 nodes keep their order.
constexpr long kBestBoundAfterNodes = 1000;

// The integer neighbourhood search (search_neighbourhoods): how far each integer coordinate may move from the
// incumbent's, the share of the time left it may take, and how many recentred rounds.
constexpr double kNeighbourhoodRadius = 1.0;
// A round's node limit is far above the 440 nodes that close pricing_s3's neighbourhood; a neighbourhood pays
// only when it is small (neighbourhood_pays): at most this share of the integer grid and a formulation of at most
// kNeighbourhoodBinaries binaries.
constexpr double kNeighbourhoodTimeShare = 0.2;
constexpr int kNeighbourhoodRounds = 3;
constexpr long kNeighbourhoodNodes = 1000;
constexpr double kNeighbourhoodGridShare = 0.01;
constexpr int kNeighbourhoodBinaries = 128;

// The composite's outputs differ from the networks' own forward passes by the rounding of the carried shift,
// about eps (|v| + |L|) (docs/PROBLEM.md §2), which a bound over the composite does not see: the bound is
// widened by 5e-10 relative, far above that rounding and far below the 1e-6 gap that counts as optimal.
double composite_margin(double bound) { return 5e-10 * std::max(1.0, std::abs(bound)); }

// The best point of the model found so far, by its re-evaluated objective; CBC offers points from its thread.
class ModelIncumbent {
 public:
  ModelIncumbent(const Model& model, const ReducedModel& reduced, const Deadline& clock)
      : model_(model), reduced_(reduced), clock_(clock), tolerance_(model_tolerance(model)),
        sign_(model.sense == Sense::kMaximize ? 1.0 : -1.0) {}

  // u from the solver: clipped to the box of u and rounded on the integer coordinates, mapped to v, evaluated.
  void offer(Eigen::VectorXd u) {
    const Domain& domain = reduced_.domain;
    u = u.cwiseMax(domain.lower).cwiseMin(domain.upper);
    for (Eigen::Index i = 0; i < u.size(); ++i)
      if (!reduced_.integer.empty() && reduced_.integer[static_cast<std::size_t>(i)]) u[i] = std::round(u[i]);
    ModelPoint point = evaluate(model_, reduced_.variables(u));
    if (!(point.max_violation <= tolerance_)) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (best_ && sign_ * point.objective <= sign_ * best_->objective) return;
    trajectory_.emplace_back(clock_.elapsed(), point.objective);
    best_ = std::move(point);
    best_u_ = std::move(u);
  }

  // The composite's input at the best point (empty when there is none).
  Eigen::VectorXd best_u() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return best_u_;
  }

  double sign() const { return sign_; }
  // Seconds since the run started.
  double elapsed() const { return clock_.elapsed(); }

  std::optional<ModelPoint> best() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return best_;
  }
  std::vector<std::pair<double, double>> trajectory() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return trajectory_;
  }

 private:
  const Model& model_;
  const ReducedModel& reduced_;
  const Deadline& clock_;
  double tolerance_;
  double sign_;
  mutable std::mutex mutex_;
  std::optional<ModelPoint> best_;
  Eigen::VectorXd best_u_;
  std::vector<std::pair<double, double>> trajectory_;
};

// The composite's problem with the model's rows and integers: what the tightening and the samples see.
Problem model_problem(const ReducedModel& reduced) {
  ModelRows rows{reduced.output_rows, reduced.output_rhs,
                 reduced.has_integers() ? reduced.integer : std::vector<bool>{}};
  return make_problem(*reduced.composite, reduced.domain, reduced.objective, std::move(rows));
}

// The objective cutoff sign (w^T y + c) >= level = sign * best - slack over the composite's outputs y, for the
// incumbent's value best (user's sense): every point better than the incumbent meets it, so neuron bounds tightened
// with it as one more output row (-sign w^T y <= sign c - level) hold at every point the search still has to
// find, and the incumbent bounds the others: the search reports the larger of its bound and the incumbent
// (model_bound). On design_s3 (the samples' point 4.08 as the cutoff) CBC's bound after 5000 nodes rose from 2.47
// to 2.85 (bench/results/models_peers_modelspeed4.md). The slack keeps the incumbent inside the tightened box and
// bounds despite the composite's rounding (composite_margin) and the LPs' tolerances.
struct Cutoff {
  Eigen::RowVectorXd row;
  double rhs = 0.0;
  double level = 0.0;
};

Cutoff objective_cutoff(const ReducedModel& reduced, double best) {
  const double sign = reduced.objective.sign();
  const double level = sign * best - 1e-7 * std::max(1.0, std::abs(best));
  return {-sign * reduced.objective.weights.transpose(), sign * reduced.objective.constant - level, level};
}

// model_problem with the cutoff below its rows: what the tightening sees once there is an incumbent.
Problem cut_problem(const ReducedModel& reduced, const Cutoff& cutoff) {
  const Eigen::Index m = reduced.output_rows.rows();
  ModelRows rows{Eigen::MatrixXd(m + 1, reduced.composite->output_dim()), Eigen::VectorXd(m + 1),
                 reduced.has_integers() ? reduced.integer : std::vector<bool>{}};
  rows.output_rows.topRows(m) = reduced.output_rows;
  rows.output_rhs.head(m) = reduced.output_rhs;
  rows.output_rows.row(m) = cutoff.row;
  rows.output_rhs[m] = cutoff.rhs;
  return make_problem(*reduced.composite, reduced.domain, reduced.objective, std::move(rows));
}

// The box of u and the neuron bounds a formulation is built over. Both hold at every point of the domain that
// meets the rows, so the formulation keeps every feasible point.
struct ModelBounds {
  Domain domain;
  NeuronBounds bounds;
};

// options.mip.bounds over the domain, within kModelBoundsTimeShare of the time left.
ModelBounds propagated_bounds(const Problem& problem, const SolveOptions& options, const Deadline& deadline) {
  return {problem.domain,
          mip_bounds(problem.network, problem.domain, options, deadline.share(kModelBoundsTimeShare))};
}

// `given` tightened with the output rows and integrality (algorithms/root_tightening.h), within
// kModelTighteningShare of the time left; `given` itself when there are neither or the tightening finds the
// relaxation empty (the search then proves what it can).
ModelBounds tightened_bounds(const Problem& problem, const ModelBounds& given, const Deadline& deadline) {
  if (problem.rows.empty() || deadline.expired()) return given;
  RootBounds root = tighten_root(problem, deadline, kModelTighteningShare, &given.bounds);
  if (root.prop.empty || !(root.lo.array() <= root.hi.array()).all()) return given;
  ModelBounds out{given.domain, std::move(root.prop.bounds)};
  out.domain.lower = std::move(root.lo);
  out.domain.upper = std::move(root.hi);
  return out;
}

// The formulation of options.method over the composite with the model's rows and integers. With output rows, a
// concave neuron keeps its binary unless raising its post-activation can only raise every row's left side
// (problem.concave, algorithms/problem.h): y >= max(h, 0) alone is exact for the objective, and a row on the
// outputs could otherwise be met by a post-activation above max(h, 0). Where it can only raise them, a point of
// the formulation with y above max(h, 0) keeps its rows and its value, or a better one, at y = max(h, 0).
MipFormulation formulate(const Problem& problem, const ReducedModel& reduced, const SolveOptions& options,
                         const ModelBounds& bounds) {
  MipFormulation f = build_formulation(*reduced.composite, bounds.domain, reduced.objective, options, bounds.bounds,
                                       nullptr, reduced.has_output_rows() ? &problem.concave : nullptr);
  add_output_rows(f, *reduced.composite, reduced.output_rows, reduced.output_rhs);
  set_integer_inputs(f, reduced.integer);
  return f;
}

// The solver's bound (or the interval bound when it gave none) widened by the composite's margin, in the
// maximized sense; +inf when there is none. A bound below a point evaluated in the same run is withdrawn.
double model_bound(double solver_bound, const ReducedModel& reduced, const NeuronBounds& bounds,
                   std::optional<double> best, SolveResult& result) {
  const double fallback =
      bounds.upper.empty() ? kInfinity : interval_objective_bound(*reduced.composite, reduced.objective, bounds);
  double bound = std::min(solver_bound, fallback);
  if (!std::isfinite(bound)) return kInfinity;
  bound += composite_margin(bound);
  if (best && bound < *best - contradiction_tolerance(*best)) {
    result.solver_failure = "CBC's bound " + std::to_string(bound) + " lies on the wrong side of the value " +
                            std::to_string(*best) + " of a point found in the same run (maximized sense)";
    return kInfinity;
  }
  return best ? std::max(bound, *best) : bound;
}

bool completed(const MipResult& solution) {
  return solution.status == MipStatus::kOptimal || solution.status == MipStatus::kInfeasible;
}

double solver_bound(const MipResult& solution) {
  return solution.status == MipStatus::kError ? kInfinity : solution.bound;
}

// One CBC run on `formulation` within `deadline` (node_limit 0: none), started from the incumbent's best point
// when there is one; every point CBC finds goes to the incumbent. With `root_cuts`, mip separates Anderson et
// al.'s cuts at the root, as mip-cuts does: on the deeper models they paid for themselves (process_s3 proven in
// 5.7 s instead of 8.1 s on a loaded machine; at 20 s the bound of process_s4 116.5 instead of 138.6, of
// design_s3 1.40 instead of 0, of pricing_s3 291.4 instead of 315.7), where the one-layer models end without them.
MipResult run_cbc(const MipFormulation& formulation, const Network& network, const SolveOptions& options,
                  const Deadline& deadline, const RunControl& control, ModelIncumbent& incumbent, long node_limit,
                  long nodes_before, bool cuts_at_root) {
  std::unique_ptr<AndersonSeparator> separator;
  const bool root_cuts = cuts_at_root && options.method == Method::kMip;
  if (options.method == Method::kMipCuts || root_cuts)
    separator = std::make_unique<AndersonSeparator>(formulation, network);
  MipParameters mip;
  mip.threads = affordable_threads(resolve_threads(options.threads));
  mip.verbose = options.mip.verbose;
  mip.separator = separator.get();
  mip.cut_frequency = root_cuts ? kRootOnly : options.mip.cut_frequency;
  mip.primal_heuristics = true;
  mip.reliability = kModelReliability;
  mip.best_bound_after = kBestBoundAfterNodes;
  mip.node_limit = node_limit;
  std::vector<double> start;
  if (const Eigen::VectorXd u = incumbent.best_u(); u.size() > 0) {
    start = warm_start(formulation, network, u);
    mip.start = &start;
  }
  if (control.on_progress) {
    mip.on_progress = [&, nodes_before](std::optional<double> best, double bound, long nodes) {
      Progress progress;
      progress.seconds = incumbent.elapsed();
      progress.nodes = nodes_before + nodes;
      if (best) progress.incumbent = incumbent.sign() * *best;
      if (std::isfinite(bound)) progress.bound = incumbent.sign() * bound;
      control.on_progress(progress);
    };
  }
  const auto offer_columns = [&](const double* values) {
    Eigen::VectorXd u(static_cast<Eigen::Index>(formulation.input.size()));
    for (std::size_t i = 0; i < formulation.input.size(); ++i)
      u[static_cast<Eigen::Index>(i)] = values[formulation.input[i]];
    incumbent.offer(std::move(u));
  };
  mip.on_solution = offer_columns;
  MipResult solution = make_mip_solver()->solve(formulation.model, deadline, mip);
  if (!solution.values.empty()) offer_columns(solution.values.data());
  return solution;
}

void offer_found(const SolveResult& found, ModelIncumbent& incumbent) {
  if (found.status != SolveStatus::kNoSolution && found.status != SolveStatus::kInfeasible) incumbent.offer(found.x);
}

// The best points of kStartSamples samples to the incumbent: first their own region problems (the sampling
// method), then Algorithm 2 from the same samples (the enhanced search: gradient ascent, region problems with
// the rows, local search). Neither is ahead everywhere (value, 16 samples, 1 thread): Algorithm 2 gives design_s3
// 3.69 where the regions of the samples give 4.07, pricing_s3 237.8 where they give 237.0, design_s4 5.62 where
// they give 5.88; on pricing_s4 the ascent leaves the good regions (459.6 from 4 samples, 564.4 from 16 in 13 s)
// where the fourth sample's own region gives 629.2 within 1.8 s. Each within its share of the time; the cutoff of
// the tightening is as strong as the best point.
long offer_search(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                  const RunControl& control, ModelIncumbent& incumbent) {
  SolveOptions search = options;
  search.method = Method::kSampling;
  search.sampling.samples = kStartSamples;
  search.sampling.stop_rule.reset();
  const SolveResult regions = run_sampling(problem, search, deadline.share(kSampleTimeShare), RunContext(control));
  offer_found(regions, incumbent);
  search.method = Method::kEnhanced;
  search.enhanced.mip_share = 0.0;
  search.enhanced.first_proof = 0.0;
  const SolveResult ascended = run_enhanced(problem, search, deadline.share(kStartTimeShare), RunContext(control));
  offer_found(ascended, incumbent);
  return regions.run.lps + ascended.run.lps;
}

// The box of u where each integer coordinate lies within kNeighbourhoodRadius of u's own, the continuous ones
// keep theirs.
Domain integer_neighbourhood(const ReducedModel& reduced, const Eigen::VectorXd& u) {
  Domain box = reduced.domain;
  for (Eigen::Index i = 0; i < u.size(); ++i) {
    if (!reduced.integer[static_cast<std::size_t>(i)]) continue;
    box.lower[i] = std::max(box.lower[i], u[i] - kNeighbourhoodRadius);
    box.upper[i] = std::min(box.upper[i], u[i] + kNeighbourhoodRadius);
  }
  return box;
}

// The model MIP over the integer neighbourhood of the incumbent, its neuron bounds propagated over that box (far
// tighter than over the whole box), started from the incumbent; again around each better point it finds, at most
// kNeighbourhoodRounds times, each within kNeighbourhoodNodes nodes and all within `deadline`. Each is a
// restriction of the model, so its points are the model's and its bounds are not: they go to the incumbent only.
// Returns the nodes.
long search_neighbourhoods(const ReducedModel& reduced, const SolveOptions& options, const Deadline& deadline,
                           const RunControl& control, ModelIncumbent& incumbent, long nodes_before) {
  long nodes = 0;
  for (int round = 0; round < kNeighbourhoodRounds && !deadline.expired(); ++round) {
    const Eigen::VectorXd u = incumbent.best_u();
    if (u.size() == 0) break;
    const double before = incumbent.sign() * incumbent.best()->objective;
    ReducedModel local = reduced;
    local.domain = integer_neighbourhood(reduced, u);
    const Problem problem = model_problem(local);
    const MipFormulation formulation = formulate(problem, local, options, propagated_bounds(problem, options, deadline));
    nodes += run_cbc(formulation, *reduced.composite, options, deadline, control, incumbent, kNeighbourhoodNodes,
                     nodes_before + nodes, true).nodes;
    if (incumbent.sign() * incumbent.best()->objective <= before) break;
  }
  return nodes;
}

// Binaries of unstable neurons: the integer inputs are the model's own variables.
int binaries(const MipFormulation& formulation, const ReducedModel& reduced) {
  const auto integer_inputs = std::count(reduced.integer.begin(), reduced.integer.end(), true);
  return formulation.model.num_integer() - static_cast<int>(integer_inputs);
}

// Whether the integer neighbourhood is a small problem: its grid of integer points is at most
// kNeighbourhoodGridShare of the model's, and the model's formulation is small. Measured (60 s, 1 thread,
// bench/results/models_peers_modelspeed6.md): on pricing_s3 (8 prices of 9 levels, the neighbourhood 3^8 of 9^8
// points, 113 binaries) it finds the optimum 242.788 within 8 s where CBC's tree ends at 238.27; where it
// restricts little (design_s3's binaries, process's one stage count) or the formulation is large (pricing_s4,
// 223 binaries) its time was the tree's loss.
bool neighbourhood_pays(const ReducedModel& reduced, const MipFormulation& formulation) {
  if (binaries(formulation, reduced) > kNeighbourhoodBinaries) return false;
  double shrink = 0.0;  // log of the model's grid over the neighbourhood's
  for (Eigen::Index i = 0; i < reduced.domain.dim(); ++i) {
    if (!reduced.integer[static_cast<std::size_t>(i)]) continue;
    const double width = reduced.domain.upper[i] - reduced.domain.lower[i];
    shrink += std::log((width + 1.0) / (std::min(width, 2.0 * kNeighbourhoodRadius) + 1.0));
  }
  return shrink >= -std::log(kNeighbourhoodGridShare);
}

}  // namespace

std::optional<ModelPoint> search_integer_neighbourhoods(const Model& model, const ReducedModel& reduced,
                                                         const SolveOptions& options, const Deadline& deadline,
                                                         const Eigen::VectorXd& start) {
  ModelIncumbent incumbent(model, reduced, deadline);
  incumbent.offer(start);
  if (reduced.has_integers()) search_neighbourhoods(reduced, options, deadline, RunControl{}, incumbent, 0);
  return incumbent.best();
}

MipFormulation model_formulation(const ReducedModel& reduced, const SolveOptions& options, const Deadline& deadline) {
  const Problem problem = model_problem(reduced);
  return formulate(problem, reduced, options,
                   tightened_bounds(problem, propagated_bounds(problem, options, deadline), deadline));
}


// Whether the first run is worth its time. With one hidden layer the propagated bounds of the composite are LP
// bounds over the box already, the rows tighten them little, and the small models of examples/models/ end within
// the first run, before the tightening would cost more than their whole search (on pricing_s2 a second run took
// 0.25 s, the first alone 0.056 s). Deeper, the tightening narrows the later layers' triangles, which the first
// run lacks, and a first run pays only on a small formulation (kSmallMipBinaries), with Anderson et al.'s cuts at
// its root as the second run has them.
bool first_run_pays(const Problem& problem) {
  return problem.rows.empty() || problem.network.num_hidden_layers() <= 1;
}

// The first run: none with neither rows nor integers' tightening to follow it (two_runs false: one run, no node
// limit); see first_run_pays and kSmallMipBinaries.
MipResult first_run(const Problem& problem, const ReducedModel& reduced, const MipFormulation& formulation,
                    const SolveOptions& options, const Deadline& deadline, const RunControl& control,
                    ModelIncumbent& incumbent, long first_run_nodes) {
  const Network& network = *reduced.composite;
  const bool two_runs = !problem.rows.empty();
  if (first_run_pays(problem))
    return run_cbc(formulation, network, options, deadline, control, incumbent, two_runs ? first_run_nodes : 0, 0,
                   false);
  if (binaries(formulation, reduced) <= kSmallMipBinaries)
    return run_cbc(formulation, network, options, deadline.share(kFirstRunTimeShare), control, incumbent,
                   first_run_nodes, 0, true);
  return {};
}

// The first run's node limit: see first_run_pays.
ModelResult run_model_mip(const Model& model, const ReducedModel& reduced, const SolveOptions& options,
                          const Deadline& deadline, const RunControl& control, long first_run_nodes) {
  const Network& network = *reduced.composite;
  const double sign = reduced.objective.sign();
  const Problem problem = model_problem(reduced);
  ModelIncumbent incumbent(model, reduced, deadline);
  const ModelBounds propagated = propagated_bounds(problem, options, deadline);
  MipFormulation formulation = formulate(problem, reduced, options, propagated);
  const bool two_runs = !problem.rows.empty();
  MipResult solution = first_run(problem, reduced, formulation, options, deadline, control, incumbent, first_run_nodes);
  long nodes = solution.nodes;
  long lps = 0;
  double bound = solver_bound(solution);
  NeuronBounds bounds = propagated.bounds;
  if (two_runs && !completed(solution) && !deadline.expired()) {
    lps = offer_search(problem, options, deadline, control, incumbent);
    if (reduced.has_integers() && neighbourhood_pays(reduced, formulation))
      nodes += search_neighbourhoods(reduced, options, deadline.share(kNeighbourhoodTimeShare), control, incumbent,
                                     nodes);
    std::optional<Cutoff> cutoff;
    if (const std::optional<ModelPoint> best = incumbent.best()) cutoff = objective_cutoff(reduced, best->objective);
    ModelBounds tightened = tightened_bounds(cutoff ? cut_problem(reduced, *cutoff) : problem, propagated, deadline);
    formulation = formulate(problem, reduced, options, tightened);
    solution = run_cbc(formulation, network, options, deadline, control, incumbent, 0, nodes, true);
    nodes += solution.nodes;
    // No point in the tightened box and bounds: none better than the incumbent by more than the slack.
    bound = std::min(bound, cutoff && solution.status == MipStatus::kInfeasible ? cutoff->level : solver_bound(solution));
    bounds = std::move(tightened.bounds);
  }

  ModelResult out;
  SolveResult& result = out.result;
  result.method = method_name(options.method);
  result.run.seed = options.seed;
  result.run.threads = affordable_threads(resolve_threads(options.threads));
  result.run.nodes = nodes;
  result.run.lps = lps;
  result.mip.bound_method = bound_method_name(options.mip.bounds.method);
  // Binaries of unstable neurons, as for one network: the integer inputs are the model's own variables.
  result.mip.binaries = binaries(formulation, reduced);
  result.run.concave_neurons = formulation.concave;
  result.mip.partitions = options.method == Method::kPartition ? formulation.partitions : 0;
  result.stopped_by = deadline.interrupted() ? StopReason::kInterrupted
                      : completed(solution)  ? StopReason::kCompleted
                                             : StopReason::kTimeLimit;
  out.point = incumbent.best();
  result.trajectory = incumbent.trajectory();
  if (!out.point) {
    result.status = solution.status == MipStatus::kInfeasible ? SolveStatus::kInfeasible : SolveStatus::kNoSolution;
  } else {
    result.status = SolveStatus::kFeasible;
    result.objective = out.point->objective;
    result.x = out.point->v;
    result.domain_violation = out.point->max_violation;
  }
  if (result.status == SolveStatus::kInfeasible) return out;
  const std::optional<double> best = out.point ? std::optional(sign * out.point->objective) : std::nullopt;
  if (const double reported = model_bound(bound, reduced, bounds, best, result); std::isfinite(reported))
    result.bound = sign * reported;
  close_gap(result);
  result.run.seconds = deadline.elapsed();
  return out;
}

}  // namespace reluopt
