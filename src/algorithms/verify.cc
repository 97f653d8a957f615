// reluopt::verify (include/reluopt/verify.h, docs/VERIFY.md): a VNN-LIB property decided by maximizing its margin
// over each input box, with the search and the prover running at once.
#include "reluopt/verify.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "algorithms/solve_in_context.h"
#include "bounds/symbolic_bounds.h"
#include "core/magnitude.h"
#include "core/max_min_network.h"
#include "core/network_specialize.h"
#include "core/peers.h"
#include "core/worker_threads.h"
#include "reluopt/error.h"

namespace reluopt {

namespace {

// The search stops once it holds a point of at least this margin (a smaller one keeps it looking for a larger
// margin, which survives a forward pass in lower precision; the point is reported at the end either way).
constexpr double kSatStopMargin = 1e-6;
// Samples of a timed search: it runs until the time limit, a counterexample or a proof.
constexpr long kTimedSamples = 1000000000;
// The share of a case's time that symbolic bounds on its outputs may take when it is folded.
constexpr double kBoundsShare = 0.1;

// Whether x lies in the case's domain: its box and its rows A x <= b, evaluated in double precision.
bool inside(const Domain& box, const Eigen::VectorXd& x) {
  return x.size() == box.dim() && (x.array() >= box.lower.array()).all() && (x.array() <= box.upper.array()).all() &&
         (!box.has_rows() || (box.A * x - box.b).maxCoeff() <= 0.0);
}

// Whether the forward pass y satisfies every constraint of one conjunction of the case, as written.
bool violates(const VnnlibCase& property_case, const Eigen::VectorXd& y) {
  for (const std::vector<OutputConstraint>& conjunction : property_case.unsafe)
    if (std::all_of(conjunction.begin(), conjunction.end(), [&](const OutputConstraint& c) { return c.holds(y); }))
      return true;
  return false;
}

// x rounded to the nearest floats inside the box (a float32 checker reads it unchanged), or x itself when the box
// is too thin for a float.
Eigen::VectorXd float_point(const Domain& box, const Eigen::VectorXd& x) {
  Eigen::VectorXd rounded(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    float f = static_cast<float>(x[i]);
    if (f < box.lower[i]) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    if (f > box.upper[i]) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    rounded[i] = f;
  }
  return inside(box, rounded) ? rounded : x;
}

// ---- Folding (fold_case) ----

// Conjunctions of several constraints are compared pairwise (quadratic) only up to this many.
constexpr std::size_t kMaxPairwise = 2000;

using Conjunction = std::vector<OutputConstraint>;

// c scaled by the power of two that brings its largest |weight| into [1, 2): the same constraint exactly. A
// scaling that would lose a bit (to underflow or overflow) is not made.
OutputConstraint normalized(const OutputConstraint& c) {
  const double largest = c.weights.size() > 0 ? c.weights.cwiseAbs().maxCoeff() : 0.0;
  if (largest == 0.0) return c;
  const int e = std::ilogb(largest);
  OutputConstraint n = c;
  n.weights = c.weights.unaryExpr([e](double w) { return std::ldexp(w, -e); });
  n.constant = std::ldexp(c.constant, -e);
  const Eigen::VectorXd back = n.weights.unaryExpr([e](double w) { return std::ldexp(w, e); });
  const bool exact = std::ldexp(n.constant, e) == c.constant && (back.array() == c.weights.array()).all();
  return exact ? n : c;
}

// Directions ordered as their coefficient vectors, lexicographically.
struct DirectionLess {
  bool operator()(const Eigen::VectorXd& a, const Eigen::VectorXd& b) const {
    return std::lexicographical_compare(a.data(), a.data() + a.size(), b.data(), b.data() + b.size());
  }
};

// For p and q of the same direction d: whether p (d^T y + e_p <= 0, or < 0) implies q.
bool implies(const OutputConstraint& p, const OutputConstraint& q) {
  return p.constant > q.constant || (p.constant == q.constant && (p.strict || !q.strict));
}

// Valid bounds on g(y) = c.weights^T y + c.constant over the output range.
std::pair<double, double> constraint_range(const OutputConstraint& c, const OutputRange& y) {
  const DenseLayer row{c.weights.transpose(), Eigen::VectorXd::Constant(1, c.constant)};
  Eigen::VectorXd lower, upper, reach;
  interval_layer(row, y.lower, y.upper, lower, upper, reach);
  return {lower[0], upper[0]};
}

struct FoldedConjunction {
  Conjunction constraints;      // normalized, one per direction, in DirectionLess order
  std::optional<double> never;  // with a constraint that never holds: a bound on the conjunction's margin
};

// The constraints of a conjunction that can fail on the box, each the tightest of its direction.
FoldedConjunction fold_conjunction(const Conjunction& conjunction, const OutputRange& y) {
  std::map<Eigen::VectorXd, OutputConstraint, DirectionLess> tightest;
  FoldedConjunction out;
  for (const OutputConstraint& original : conjunction) {
    OutputConstraint c = normalized(original);
    const auto [lower, upper] = constraint_range(c, y);
    if (c.strict ? upper < 0.0 : upper <= 0.0) continue;
    // The conjunction's margin min_l (-g_l) is at most -lower.
    if (lower > kUnsatMargin) out.never = std::min(out.never.value_or(kInfinity), -lower);
    if (out.never) continue;
    const auto [it, added] = tightest.try_emplace(c.weights, c);
    if (!added && implies(c, it->second)) it->second = std::move(c);
  }
  if (!out.never)
    for (auto& entry : tightest) out.constraints.push_back(std::move(entry.second));
  return out;
}

// Whether every constraint of b is implied by a constraint of a of the same direction, so that a's unsafe set
// lies in b's (both in DirectionLess order, one constraint per direction).
bool contains(const Conjunction& a, const Conjunction& b) {
  const DirectionLess less;
  auto p = a.begin();
  for (const OutputConstraint& q : b) {
    while (p != a.end() && less(p->weights, q.weights)) ++p;
    if (p == a.end() || less(q.weights, p->weights) || !implies(*p, q)) return false;
  }
  return true;
}

// The conjunctions that no other one's unsafe set contains; of several with the same set, the first. A
// conjunction of one constraint is compared through a map of the loosest one of each direction, larger ones
// pairwise up to kMaxPairwise of them.
std::vector<Conjunction> drop_implied(std::vector<Conjunction> kept) {
  std::map<Eigen::VectorXd, std::size_t, DirectionLess> loosest;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (kept[i].size() != 1) continue;
    const auto [it, added] = loosest.try_emplace(kept[i][0].weights, i);
    const OutputConstraint& held = kept[it->second][0];
    if (!added && implies(held, kept[i][0]) && !implies(kept[i][0], held)) it->second = i;
  }
  std::vector<bool> dropped(kept.size(), false);
  std::vector<std::size_t> larger;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (kept[i].size() == 1) {
      dropped[i] = loosest.at(kept[i][0].weights) != i;
      continue;
    }
    for (const OutputConstraint& c : kept[i]) {
      const auto it = loosest.find(c.weights);
      if (it != loosest.end() && implies(c, kept[it->second][0])) dropped[i] = true;
    }
    if (!dropped[i]) larger.push_back(i);
  }
  // Containment with ties broken by position is a strict order: its maximal conjunctions are never dropped,
  // and each dropped one lies in one of them.
  if (larger.size() <= kMaxPairwise)
    for (const std::size_t a : larger)
      for (const std::size_t b : larger)
        if (a != b && !dropped[b] && contains(kept[a], kept[b]) && (b < a || !contains(kept[b], kept[a]))) {
          dropped[a] = true;
          break;
        }
  std::vector<Conjunction> out;
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (!dropped[i]) out.push_back(std::move(kept[i]));
  return out;
}

// ---- Deciding ----

struct CaseRun {
  SolveResult search;
  SolveResult prover;
};

// A control that stops both runs at a counterexample, at a proof, or at the caller's stop request. Over several
// processes only the lead's prover sees the global bound; the others' prover stops when the lead's ends it. The
// caller's progress hook sees both runs' snapshots (margins: the best found and the proven bound).
RunControl case_control(double seconds, std::atomic<bool>& stop, const RunControl& outer, bool lead) {
  RunControl control;
  control.time_limit = seconds;
  control.stop = &stop;
  control.progress_interval = 0.05;
  control.on_progress = [&stop, &outer, lead](const Progress& progress) {
    const bool found = progress.incumbent && *progress.incumbent >= kSatStopMargin;
    const bool proved = lead && progress.bound && *progress.bound < -kUnsatMargin;
    if (found || proved || (outer.stop != nullptr && outer.stop->load())) stop.store(true);
    if (outer.on_progress) outer.on_progress(progress);
  };
  return control;
}

// Over several processes (`peers`), the search and the prover of run k each run over all of them, on channels
// 2k + 1 and 2k + 2.
CaseRun run_case(const detail::MaxMinNetwork& compiled, const Domain& box, const VerifyOptions& options,
                 double seconds, const RunContext& outer, int k) {
  Peers* peers = outer.peers;
  const int threads = resolve_threads(options.threads);
  SolveOptions search;
  search.method = Method::kEnhanced;
  search.enhanced.mip_share = 0.0;
  search.sampling.samples = std::isfinite(seconds) ? kTimedSamples : search.sampling.samples;
  search.threads = std::max(1, threads / 2);
  search.seed = options.seed;
  SolveOptions prover;
  prover.method = Method::kBab;
  prover.threads = std::max(1, threads - threads / 2);
  prover.seed = options.seed;
  std::atomic<bool> stop{false};
  const RunControl control = case_control(seconds, stop, outer, peers == nullptr || peers->lead());
  RunContext search_control = control, prover_control = control;
  if (peers != nullptr) {
    search_control.peers = &peers->channel(2 * k + 1);
    prover_control.peers = &peers->channel(2 * k + 2);
  }
  // The search runs beside the prover; with no thread to spare, the prover decides alone.
  std::promise<SolveResult> search_result;
  std::future<SolveResult> searched = search_result.get_future();
  WorkerThreads beside(1);
  beside.run([&](int) {
    try {
      search_result.set_value(solve(compiled.network, box, compiled.objective, search, search_control));
    } catch (...) {
      search_result.set_exception(std::current_exception());
    }
  });
  if (beside.started() == 0) search_result.set_value(SolveResult{});
  CaseRun run;
  try {
    run.prover = solve(compiled.network, box, compiled.objective, prover, prover_control);
  } catch (...) {
    stop.store(true);
    searched.wait();
    throw;
  }
  // A finished prover has the optimum: the search has nothing left to find.
  stop.store(true);
  run.search = searched.get();
  return run;
}

// Records a run's point in `report` and, when it is a re-checked counterexample, in `result`: its float-rounded
// neighbour (float_point) when that is a counterexample too, else the point itself.
void take_point(const Network& network, const VnnlibCase& property_case, const Objective& margin,
                const SolveResult& run, VerifyCaseReport& report, VerifyResult& result) {
  if (run.status == SolveStatus::kNoSolution || run.x.size() == 0) return;
  for (const Eigen::VectorXd& x : {float_point(property_case.box, run.x), run.x}) {
    const Eigen::VectorXd y = network.forward(x);
    report.best_margin = std::max(report.best_margin, margin.value(y));
    if (result.status != VerifyStatus::kSat && inside(property_case.box, x) && violates(property_case, y)) {
      result.status = VerifyStatus::kSat;
      result.x = x;
      result.y = y;
      report.decided = true;
    }
  }
}

// The property as errors name it.
std::string source_of(const VerifyOptions& options) {
  return options.property_file.empty() ? "the property" : "VNN-LIB file '" + options.property_file + "'";
}

void check_property(const Network& network, const VnnlibProperty& property) {
  if (property.num_inputs != network.input_dim() || property.num_outputs != network.output_dim())
    throw Error("the property declares " + std::to_string(property.num_inputs) + " inputs and " +
                std::to_string(property.num_outputs) + " outputs but the network has " +
                std::to_string(network.input_dim()) + " and " + std::to_string(network.output_dim()) +
                " (dimension mismatch)");
}

std::size_t count_constraints(const std::vector<Conjunction>& disjuncts) {
  std::size_t count = 0;
  for (const Conjunction& conjunction : disjuncts) count += conjunction.size();
  return count;
}

// The bytes of the max-min layers that disjuncts [begin, end) compile to (none for a linear objective).
double compiled_bytes(const Network& network, const std::vector<Conjunction>& disjuncts, std::size_t begin,
                      std::size_t end) {
  std::vector<std::size_t> terms;
  for (std::size_t i = begin; i < end; ++i) terms.push_back(std::max<std::size_t>(1, disjuncts[i].size()));
  if (terms.size() == 1 && terms[0] == 1) return 0.0;
  return detail::max_min_bytes(network.output_layer().weights.cols(), terms);
}

// The largest n for which fits(n) holds, with fits(1) true and fits monotone: doubling, then bisection.
std::size_t largest_fitting(std::size_t most, const std::function<bool(std::size_t)>& fits) {
  std::size_t good = 1, bad = most + 1;  // `good` fit, `bad` do not (or are more than `most`)
  while (good < most) {
    const std::size_t next = std::min(most, 2 * good);
    if (!fits(next)) {
      bad = next;
      break;
    }
    good = next;
  }
  while (bad - good > 1) {
    const std::size_t middle = good + (bad - good) / 2;
    (fits(middle) ? good : bad) = middle;
  }
  return good;
}

// Conjunctions are held in DirectionLess order of their constraints (contains() relies on it).
bool direction_less(const OutputConstraint& a, const OutputConstraint& b) {
  return DirectionLess()(a.weights, b.weights);
}

// Of a conjunction too big to compile, the kMostBindingConstraints (at most, within kMaxMinBudgetBytes) nearest
// to failing everywhere on the box (the largest lower bounds of g over the output bounds y). Their unsafe set
// contains the conjunction's and their margin is at least its margin, so a proof or a bound on them holds for
// the whole conjunction; a point counts as sat only when it satisfies the case as read (take_point), so the
// constraints left out cannot make an answer wrong, only leave it undecided.
Conjunction most_binding(const Network& network, const Conjunction& conjunction, const OutputRange& y) {
  const Eigen::Index width = network.output_layer().weights.cols();
  const std::size_t most = std::min(conjunction.size(), kMostBindingConstraints);
  const std::size_t count = largest_fitting(
      most, [&](std::size_t n) { return n == 1 || detail::max_min_bytes(width, {n}) <= kMaxMinBudgetBytes; });
  std::vector<std::pair<double, std::size_t>> order;  // (-lower bound of g, index)
  for (std::size_t i = 0; i < conjunction.size(); ++i)
    order.emplace_back(-constraint_range(conjunction[i], y).first, i);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end());
  Conjunction kept;
  for (std::size_t i = 0; i < count; ++i) kept.push_back(conjunction[order[i].second]);
  std::sort(kept.begin(), kept.end(), direction_less);
  return kept;
}

// The folded case's disjuncts in runs of consecutive ones, each as many as fit kMaxMinBudgetBytes. A conjunction
// that does not fit alone runs on its most binding constraints (most_binding), alone.
std::vector<VnnlibCase> split_runs(const Network& network, VnnlibCase folded, const OutputRange& y,
                                   std::size_t& relaxed, std::vector<Conjunction>& whole) {
  std::vector<Conjunction>& d = folded.unsafe;
  const auto fits = [&](std::size_t begin, std::size_t count) {
    return compiled_bytes(network, d, begin, begin + count) <= kMaxMinBudgetBytes;
  };
  std::vector<VnnlibCase> runs;
  for (std::size_t begin = 0; begin < d.size();) {
    if (!fits(begin, 1)) {
      runs.push_back(VnnlibCase{folded.box, {most_binding(network, d[begin], y)}});
      relaxed += d[begin].size() - runs.back().unsafe[0].size();
      whole.resize(runs.size());
      whole.back() = std::move(d[begin]);
      ++begin;
      continue;
    }
    const std::size_t good = largest_fitting(d.size() - begin, [&](std::size_t n) { return fits(begin, n); });
    VnnlibCase run{folded.box, {}};
    for (std::size_t i = begin; i < begin + good; ++i) run.unsafe.push_back(std::move(d[i]));
    runs.push_back(std::move(run));
    begin += good;
  }
  whole.resize(runs.size());
  return runs;
}

// A constraint left after folding binds on the box; its numbers (normalized) go into LPs, which cannot use
// numbers beyond kMaxMagnitude (docs/NUMERICS.md).
void check_magnitudes(const VnnlibCase& folded, const std::string& source, std::size_t k) {
  for (const Conjunction& conjunction : folded.unsafe)
    for (const OutputConstraint& c : conjunction) {
      const double largest = std::max(std::abs(c.constant), c.weights.cwiseAbs().maxCoeff());
      if (largest <= kMaxMagnitude) continue;
      const bool constant = std::abs(c.constant) == largest;
      throw Error(source + " line " + std::to_string(c.line) + ": a constraint on the outputs of box " +
                  std::to_string(k) + " has " + (constant ? "the constant " : "a coefficient ") +
                  magnitude_text(largest) +
                  (constant ? " (relative to its largest coefficient)" : "") + ", beyond " +
                  magnitude_text(kMaxMagnitude) +
                  ", and the outputs' bounds over the box do not decide it: no double-precision LP can use it "
                  "(docs/NUMERICS.md)");
    }
}

// One case ready to run: its counts, and its folded disjuncts in runs.
struct CasePlan {
  VerifyCaseReport counts;
  std::vector<VnnlibCase> runs;
  std::vector<Conjunction> whole;  // per run: the whole conjunction a run on its most binding ones stands for
  std::optional<double> dropped_bound;
  OutputRange range;  // of the outputs over the case's box
  // When the case's disjuncts run together in one run: each alone, easiest first (separate_disjuncts).
  std::vector<VnnlibCase> separate;
  bool complete = true;
};

// A disjunction of a few conjunctions is bounded one disjunct at a time when the run on all of them together
// leaves it undecided: the max of the disjuncts' margins compiles to ReLUs max(a, b) = b + relu(a - b) whose
// relaxation adds to the bound of each pair, while a disjunct alone is a linear objective (or a min of its
// constraints), and the case's bound is the largest of theirs. alpha-beta-CROWN bounds the rows of a VNN-COMP
// robustness property one by one too. Over this many disjuncts the runs' fixed costs would add up.
constexpr std::size_t kMaxSeparateDisjuncts = 64;

// The disjuncts of `joint`, one case each, ordered by their margin at the box's centre, smallest first: the
// disjunct closest to failing there, usually the hardest to prove, comes last and inherits the time the others
// leave.
std::vector<VnnlibCase> separate_disjuncts(const Network& network, const VnnlibCase& joint) {
  std::vector<VnnlibCase> separate;
  const std::size_t n = joint.unsafe.size();
  if (n < 2 || n > kMaxSeparateDisjuncts) return separate;
  const Eigen::VectorXd y = network.forward(0.5 * (joint.box.lower + joint.box.upper));
  std::vector<std::pair<double, std::size_t>> order;  // (the conjunction's margin min_l -g_l(y), its index)
  for (std::size_t i = 0; i < n; ++i) {
    double margin = kInfinity;
    for (const OutputConstraint& c : joint.unsafe[i]) margin = std::min(margin, -c.value(y));
    order.emplace_back(margin, i);
  }
  std::stable_sort(order.begin(), order.end());
  for (const auto& [value, i] : order) separate.push_back(VnnlibCase{joint.box, {joint.unsafe[i]}});
  return separate;
}

CasePlan plan_case(const Network& network, const VnnlibCase& property_case, const Deadline& deadline,
                   double bounds_seconds, const std::string& source, std::size_t k) {
  CasePlan plan;
  plan.counts.disjuncts_read = property_case.unsafe.size();
  plan.counts.constraints_read = count_constraints(property_case.unsafe);
  FoldedCase fold = fold_case(network, property_case, &deadline, bounds_seconds);
  plan.complete = fold.complete;
  plan.dropped_bound = fold.dropped_bound;
  if (!fold.complete) return plan;
  plan.counts.disjuncts = fold.folded.unsafe.size();
  plan.counts.constraints = count_constraints(fold.folded.unsafe);
  check_magnitudes(fold.folded, source, k);
  plan.range = OutputRange{fold.output_lower, fold.output_upper};
  plan.runs = split_runs(network, std::move(fold.folded), plan.range,
                         plan.counts.constraints_left_out, plan.whole);
  plan.counts.runs = plan.runs.size();
  if (plan.runs.size() == 1 && plan.whole[0].empty())
    plan.separate = separate_disjuncts(network, plan.runs[0]);
  return plan;
}

// One run of the search and the prover on `group` (compiled within kMaxMinBudgetBytes), for at most `seconds`;
// its points go to take_point, their margins measured on the whole conjunction when the group holds some of its
// constraints only (`whole` not empty). nullopt when the deadline passed while compiling.
std::optional<CaseRun> run_group(const Network& network, const VnnlibProperty& property, std::size_t k,
                                 const VnnlibCase& group, const Conjunction& whole, const OutputRange& range,
                                 const VerifyOptions& options,
                                 const Deadline& case_clock, const RunContext& control, std::size_t channel,
                                 double seconds, VerifyCaseReport& report, VerifyResult& result) {
  const Objective margin = margin_objective(group, property.num_outputs);
  margin.validate(property.num_outputs);
  const std::optional<detail::MaxMinNetwork> compiled =
      detail::compile_max_min(network, margin, case_clock, detail::term_lower_bounds(margin, range.lower, range.upper));
  if (!compiled) return std::nullopt;
  CaseRun run;
  try {
    run = run_case(*compiled, group.box, options, std::max(0.0, seconds), control, static_cast<int>(channel));
  } catch (const Error& e) {
    // A polyhedron the solvers refuse (empty, or flat: no interior to sample) is named by its file and lines.
    if (!group.box.has_rows()) throw;
    throw Error(source_of(options) + ", " + group.box.description + ": " + e.what());
  }
  const Objective measured =
      whole.empty() ? margin : margin_objective(VnnlibCase{group.box, {whole}}, property.num_outputs);
  take_point(network, property.cases[k], measured, run.search, report, result);
  take_point(network, property.cases[k], measured, run.prover, report, result);
  return run;
}

// Adds to `subset` the constraints of `whole` that the points (inputs; empty ones skipped) violate most, up to
// kMostBindingConstraints more and within kMaxMinBudgetBytes, kept in DirectionLess order. False when none is
// added: the points violate none outside the subset, or the budget is full.
bool add_violated(const Network& network, const Conjunction& whole, const std::vector<Eigen::VectorXd>& points,
                  Conjunction& subset) {
  const auto in_subset = [&](const OutputConstraint& c) {
    const auto it = std::lower_bound(subset.begin(), subset.end(), c, direction_less);
    return it != subset.end() && !direction_less(c, *it);
  };
  std::vector<std::pair<double, std::size_t>> violated;  // (-violation, index in whole)
  for (const Eigen::VectorXd& x : points) {
    if (x.size() == 0) continue;
    const Eigen::VectorXd y = network.forward(x);
    for (std::size_t i = 0; i < whole.size(); ++i)
      if (whole[i].value(y) > 0.0 && !in_subset(whole[i])) violated.emplace_back(-whole[i].value(y), i);
  }
  std::sort(violated.begin(), violated.end());
  const Eigen::Index width = network.output_layer().weights.cols();
  const std::size_t before = subset.size();
  for (const auto& [minus_violation, i] : violated) {
    if (subset.size() - before >= kMostBindingConstraints ||
        detail::max_min_bytes(width, {subset.size() + 1}) > kMaxMinBudgetBytes)
      break;
    if (in_subset(whole[i])) continue;  // violated at two points
    subset.insert(std::lower_bound(subset.begin(), subset.end(), whole[i], direction_less), whole[i]);
  }
  return subset.size() > before;
}

// The disjuncts of plan.separate in turn, each with an equal share of the case's time left: the largest of their
// provers' bounds, none when some run has none or the time ran out first.
std::optional<double> run_separately(const Network& network, const VnnlibProperty& property, std::size_t k,
                                     const CasePlan& plan, const VerifyOptions& options, const Deadline& case_clock,
                                     const RunContext& control, std::size_t channel, VerifyCaseReport& report,
                                     VerifyResult& result) {
  double bound = -kInfinity;
  for (std::size_t i = 0; i < plan.separate.size(); ++i) {
    if (result.status == VerifyStatus::kSat || case_clock.expired()) return std::nullopt;
    const std::optional<CaseRun> run =
        run_group(network, property, k, plan.separate[i], {}, plan.range, options, case_clock, control, channel,
                  case_clock.remaining() / static_cast<double>(plan.separate.size() - i), report, result);
    if (!run || !run->prover.bound) return std::nullopt;
    bound = std::max(bound, *run->prover.bound);
  }
  return bound;
}

// Runs the plan's runs in turn on case k, each with an equal share of the case's time left (plan.separate's
// disjuncts counted as runs to come), channels channel + r over several processes. The case's bound is the
// largest of the runs' bounds and the dropped conjunctions' bound, or the separate runs' bound where it is
// tighter; none when some run has none. The separate runs are made by one process only (their channels are not
// fixed in advance).
void run_plan(const Network& network, const VnnlibProperty& property, std::size_t k, const CasePlan& plan,
              const VerifyOptions& options, const Deadline& case_clock, const RunContext& control,
              std::size_t channel, VerifyCaseReport& report, VerifyResult& result) {
  std::optional<double> bound = plan.dropped_bound;
  bool bounded = true;
  const std::size_t later = control.peers == nullptr ? plan.separate.size() : 0;
  for (std::size_t r = 0; r < plan.runs.size(); ++r) {
    if ((result.status == VerifyStatus::kSat && control.peers == nullptr) || case_clock.expired()) {
      bounded = false;
      break;
    }
    VnnlibCase group = plan.runs[r];
    // A run on a conjunction's most binding constraints goes on, while it is undecided, with the constraints its
    // points violate added (one process: the runs' channels over several are fixed in advance).
    const bool lazy = !plan.whole[r].empty() && control.peers == nullptr;
    std::optional<double> run_bound;
    for (;;) {
      const std::optional<CaseRun> run =
          run_group(network, property, k, group, plan.whole[r], plan.range, options, case_clock, control, channel + r,
                    case_clock.remaining() / static_cast<double>(plan.runs.size() - r + later), report, result);
      if (!run) break;
      // Each run's bound holds for the whole conjunction: the tightest is kept.
      if (run->prover.bound) run_bound = std::min(run_bound.value_or(kInfinity), *run->prover.bound);
      const bool decided = result.status == VerifyStatus::kSat || (run_bound && *run_bound < -kUnsatMargin);
      if (!lazy || decided || case_clock.expired() ||
          !add_violated(network, plan.whole[r], {run->search.x, run->prover.x}, group.unsafe[0]))
        break;
    }
    if (run_bound) bound = std::max(bound.value_or(-kInfinity), *run_bound);
    bounded = bounded && run_bound.has_value();
  }
  const bool decided = result.status == VerifyStatus::kSat || (bounded && bound && *bound < -kUnsatMargin);
  if (later > 0 && !decided) {
    const std::optional<double> separate =
        run_separately(network, property, k, plan, options, case_clock, control, channel, report, result);
    if (separate) {
      const double joint = bounded && bound ? *bound : kInfinity;
      bound = std::max(plan.dropped_bound.value_or(-kInfinity), std::min(joint, *separate));
      bounded = true;
    }
  }
  if (bounded) report.bound = bound;
}

// The inputs that every case's box fixes (lower == upper, the same values) folded into the first layer
// (detail::fix_inputs), when the first layer is an implicit convolution and no case has rows: none otherwise.
std::optional<detail::FixedInputs> fixed_inputs_of(const Network& network, const VnnlibProperty& property) {
  if (property.cases.empty() || !network.layers().front().weights.is_conv()) return std::nullopt;
  const Domain& first = property.cases[0].box;
  for (const VnnlibCase& c : property.cases) {
    if (c.box.has_rows()) return std::nullopt;
    for (Eigen::Index i = 0; i < first.dim(); ++i)
      if ((first.lower[i] == first.upper[i]) != (c.box.lower[i] == c.box.upper[i]) ||
          (first.lower[i] == first.upper[i] && c.box.lower[i] != first.lower[i]))
        return std::nullopt;
  }
  return detail::fix_inputs(network, first.lower, first.upper);
}

// The property over the folded network's inputs: each box restricted to the free inputs.
VnnlibProperty restricted(const VnnlibProperty& property, const std::vector<Eigen::Index>& free) {
  VnnlibProperty out = property;
  out.num_inputs = static_cast<int>(free.size());
  for (VnnlibCase& c : out.cases) {
    Domain box = Domain::box(c.box.lower(free), c.box.upper(free));
    box.description = c.box.description;
    c.box = std::move(box);
  }
  return out;
}

}  // namespace

std::string verify_status_name(VerifyStatus status) {
  switch (status) {
    case VerifyStatus::kSat: return "sat";
    case VerifyStatus::kUnsat: return "unsat";
    case VerifyStatus::kUnknown: return "unknown";
    case VerifyStatus::kTimeout: return "timeout";
  }
  return "unknown";
}

Objective margin_objective(const VnnlibCase& property_case, int num_outputs) {
  std::vector<std::vector<ObjectiveTerm>> disjuncts;
  for (const std::vector<OutputConstraint>& conjunction : property_case.unsafe) {
    disjuncts.emplace_back();
    for (const OutputConstraint& c : conjunction) disjuncts.back().push_back(ObjectiveTerm{-c.weights, -c.constant});
    // An empty conjunction holds everywhere: margin 0.
    if (conjunction.empty()) disjuncts.back().push_back(ObjectiveTerm{Eigen::VectorXd::Zero(num_outputs), 0.0});
  }
  Objective objective = Objective::max_min(std::move(disjuncts), Sense::kMaximize);
  objective.description = "the margin of the property";
  return objective;
}

FoldedCase fold_case(const Network& network, const VnnlibCase& property_case, const Deadline* deadline,
                     double bounds_seconds) {
  if (network.has_linear_neurons())
    return fold_case(detail::specialize_linear_neurons(network, property_case.box.lower, property_case.box.upper),
                     property_case, deadline, bounds_seconds);
  FoldedCase out;
  out.folded.box = property_case.box;
  if (deadline && deadline->expired()) {
    out.complete = false;
    return out;
  }
  const Deadline bounds_deadline = deadline ? deadline->limited(bounds_seconds) : Deadline(bounds_seconds, nullptr);
  const OutputRange y = output_range(network, property_case.box.lower, property_case.box.upper, &bounds_deadline);
  out.output_lower = y.lower;
  out.output_upper = y.upper;
  std::vector<Conjunction> kept;
  for (const Conjunction& conjunction : property_case.unsafe) {
    if (deadline && deadline->expired()) {
      out.complete = false;
      return out;
    }
    FoldedConjunction folded = fold_conjunction(conjunction, y);
    if (folded.never) {
      out.dropped_bound = std::max(out.dropped_bound.value_or(-kInfinity), *folded.never);
    } else if (folded.constraints.empty()) {
      // Its unsafe set is the whole box, which contains every other conjunction's.
      out.folded.unsafe = {{}};
      out.dropped_bound.reset();
      return out;
    } else {
      kept.push_back(std::move(folded.constraints));
    }
  }
  out.folded.unsafe = drop_implied(std::move(kept));
  return out;
}

VerifyResult verify(const Network& network, const VnnlibProperty& property, const VerifyOptions& options,
                    const RunContext& control) {
  check_property(network, property);
  // An image property that perturbs a few pixels runs on the network of the free ones; its counterexample is
  // expanded and checked again by a forward pass of the whole network.
  const Deadline fold_clock(control.time_limit, control.stop);
  if (const std::optional<detail::FixedInputs> fixed = fixed_inputs_of(network, property)) {
    VerifyResult result =
        verify(fixed->network, restricted(property, fixed->free), options, remaining_after(control, fold_clock));
    result.seconds = fold_clock.elapsed();
    if (result.status != VerifyStatus::kSat) return result;
    result.x = fixed->expand(result.x);
    result.y = network.forward(result.x);
    const bool holds = std::any_of(property.cases.begin(), property.cases.end(), [&](const VnnlibCase& c) {
      return inside(c.box, result.x) && violates(c, result.y);
    });
    if (!holds) {
      result.status = VerifyStatus::kUnknown;
      result.x.resize(0);
      result.y.resize(0);
    }
    return result;
  }
  // The methods take ReLU networks: linear neurons become stably active ReLUs over the hull of the cases' boxes.
  if (network.has_linear_neurons() && !property.cases.empty()) {
    const Deadline clock(control.time_limit, control.stop);  // the rewrite's time counts against the limit
    Eigen::VectorXd lower = property.cases[0].box.lower, upper = property.cases[0].box.upper;
    for (const VnnlibCase& c : property.cases) {
      lower = lower.cwiseMin(c.box.lower);
      upper = upper.cwiseMax(c.box.upper);
    }
    return verify(detail::specialize_linear_neurons(network, lower, upper), property, options,
                  remaining_after(control, clock));
  }
  const Deadline deadline(control.time_limit, control.stop);
  const std::string source = source_of(options);
  const std::size_t n = property.cases.size();
  // Every case is folded and split before any run, so that a constraint an LP cannot take is refused first.
  // Over several processes the bounds are interval ones, which every process computes alike.
  std::vector<CasePlan> plans;
  for (std::size_t k = 0; k < n; ++k) {
    const double left = static_cast<double>(n - k);
    const double bounds_seconds = control.peers ? 0.0 : kBoundsShare * deadline.remaining() / left;
    plans.push_back(plan_case(network, property.cases[k], deadline, bounds_seconds, source, k));
  }
  VerifyResult result;
  bool proven = true;
  bool limit_hit = false;  // some case ended undecided at its share of the time limit
  std::size_t channel = 0;
  // Over several processes every one follows the lead's decide() after each case.
  for (std::size_t k = 0; k < n && (result.status != VerifyStatus::kSat || control.peers); ++k) {
    const CasePlan& plan = plans[k];
    const double share = deadline.remaining() / static_cast<double>(n - k);
    const Deadline case_clock(std::max(0.0, share), control.stop);
    VerifyCaseReport report = plan.counts;
    // run_plan looks at the case's deadline before each run: a case that folding decided needs none.
    if (plan.complete)
      run_plan(network, property, k, plan, options, case_clock, control, channel, report, result);
    channel += plan.runs.size();
    limit_hit = limit_hit || ((case_clock.elapsed() >= share || !plan.complete) && !deadline.interrupted());
    if (report.bound && *report.bound < -kUnsatMargin) report.decided = true;
    proven = proven && report.bound && *report.bound < -kUnsatMargin;
    report.seconds = case_clock.elapsed();
    result.cases.push_back(report);
    // Over several processes the lead's answer (from everyone's points and the global bound) is the one: the
    // others go on to the next case only when it does.
    if (control.peers != nullptr && !control.peers->decide(static_cast<long>(k), result.status != VerifyStatus::kSat, deadline))
      break;
  }
  if (result.status != VerifyStatus::kSat)
    result.status = proven ? VerifyStatus::kUnsat : limit_hit ? VerifyStatus::kTimeout : VerifyStatus::kUnknown;
  result.seconds = deadline.elapsed();
  return result;
}

VerifyResult verify(const Network& network, const VnnlibProperty& property, const VerifyOptions& options,
                    const RunControl& control) {
  return verify(network, property, options, RunContext(control));
}

}  // namespace reluopt
