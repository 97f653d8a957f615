// Branch and bound over input boxes and ReLU splits (docs/MATH.md §11; Bunel et al., "Branch and bound for
// piecewise linear neural network verification", JMLR 2020; beta-CROWN: Wang et al., NeurIPS 2021).
// We maximize f(x) = sign * g(x) over P = {lo <= x <= hi, A x <= b}. A node is a sub-box B of P's box and a set
// of splits (h_kj >= 0 or h_kj <= 0); its feasible set is {x in P ∩ B satisfying the splits}. Its bound is
//     U(node) = min( propagate(B, splits).upper,                              bound propagation, §10
//                    max { c^T y : triangle relaxation on B, splits, A x <= b, Anderson cuts } )   node LP
// (the LP's bound safe from its duals; while many neurons are free on a plain box, the optimized bound of
// optimized_bounds.h over the node's slopes and split multipliers takes the LP's place, and that node's children
// are bounded the same way as they are made, in one batch over its neuron bounds, without a propagation; every
// node's prior holds the root's optimized neuron bounds; the first layer's bounds tightened by LPs over the split
// half-spaces, split_bounds.h; the LP starts with the cuts tight at its parent's and from its parent's optimal basis) and
// every forward pass at a point of P is a lower bound. Nodes with U <= incumbent + tol are
// pruned (their bound is kept in the frontier's global bound), the rest are split in two:
//   - on an input coordinate, chosen by strong branching (split_input; the widest coordinate while strong
//     branching gains little), while d is small, many neurons are unstable and the network has more than one
//     hidden layer: the children's boxes shrink and every neuron's bounds with them;
//   - else on the unstable ReLU whose upper line adds the most to the propagated bound (max(Lambda_j, 0) t_j).
// Once every unstable neuron that is not concave is split, the node LP is the fixed-pattern LP of §2 (the
// concave neurons are exact as y >= h, y >= 0), so its optimum's forward value meets its bound and the node
// closes: the search is complete. The global bound is the largest bound of an open, running or pruned node (over
// several processes, or one sent to another process and not yet confirmed there: bab_share.h).
// A reduced model's rows (ModelRows) enter every node LP as C W_L x_L <= e - C b_L, loosened by their rounding;
// a node whose LP the solver calls infeasible is dropped when a phase-one LP's safe bound proves it empty
// (proven_empty), and only then. Integer coordinates keep integral bounds (input splits cut them into [lo, m] and
// [m + 1, hi]); a node with every neuron fixed whose LP optimum is fractional on one is split there at its floor,
// so that the search still ends with exact nodes. A search of many ReLU splits that has not ended after a tenth
// of its time starts again from root bounds refined by LPs with Anderson cuts (run_bab; MATH.md §11, Root
// refinement).
#include "algorithms/bab.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <unordered_map>
#include <unordered_set>

#include "algorithms/bab_share.h"
#include "algorithms/enhanced.h"
#include "algorithms/incumbent.h"
#include "algorithms/mip.h"
#include "algorithms/proof_check.h"
#include "algorithms/root_tightening.h"
#include "algorithms/sampling.h"
#include "bounds/optimized_bounds.h"
#include "bounds/split_bounds.h"
#include "bounds/symbolic_bounds.h"
#include "core/peers.h"
#include "core/worker_threads.h"
#include "formulation/anderson_cuts.h"
#include "formulation/mip_formulation.h"
#include "formulation/pattern_lp.h"
#include "reluopt/error.h"
#include "reluopt/solve.h"
#include "solver/carry_basis.h"
#include "solver/lp_solver.h"

namespace reluopt {

namespace {

// Nodes within this of the incumbent are closed: a gap of 1e-7 relative (5e-10 absolute) counts as optimal in
// result.h's terms (1e-6, 1e-9).
double prune_tolerance(double incumbent) { return std::max(1e-7 * std::abs(incumbent), 5e-10); }

// Forward passes at this many samples of P seed the incumbent: a point before the first node costs microseconds.
constexpr int kSeedPoints = 16;

// Strong branching on inputs tries the relatively widest coordinate and the kStrongInputCandidates that move the
// bound most, and takes the widest unless another takes more than kMinInputProgress of the node's gap off its
// bound. On the hardest boxes of the 5 -> 6x50 -> 5 network (three inputs over their whole range, 30 s): 3
// candidates beat 2 and 5; with a minimum progress of 0.2 boxes 02, 07 and 12 end optimal (gaps 1e-11), with 0.05
// at gaps 1.9e-6, 1.1e-4, 9.4e-4, with 0.5 at 0.11, 0.93, 0.19 (bench/results/bab_input_split.md).
constexpr int kStrongInputCandidates = 3;
constexpr double kMinInputProgress = 0.2;

// Strong branching pays where its pick's larger child bound is well below the widest coordinate's. Its advantage
// at a node is the share of its pick's bound reduction that halving the widest coordinate misses:
// (widest's larger child bound - pick's) / (node bound - pick's), a moving average of it (weight kAdvantageStep per
// strong branching) is kept, and below kMinAdvantage only one input split in kStrongProbeEvery branches strongly,
// to keep the average current. Measured (bench/results/bab_input_split.md): 0.26-0.65 on deep boxes 02, 07 and 12,
// where strong branching decides, and 0.10-0.17 throughout on the 10 -> 2x100 -> 1 grid network (seed 20787), where
// its propagations (two per candidate, eight per node) buy little: there resting it proves the network in 89 s
// (2 threads) against 172 s with strong branching on every node.
constexpr double kAdvantageStep = 0.02;
constexpr double kMinAdvantage = 0.2;
constexpr long kStrongProbeEvery = 64;

// Rounds of Anderson cuts (Anderson et al., Math. Prog. 2020; MATH.md §5) at each node LP: the LP is solved
// again with the cuts its optimum violates. The cuts tight at a node's last LP go to its children, whose LPs
// start with them (KeptCut). On the 20 -> 100 -> 1 grid network (seed 10797, bab, 15 s, 1 thread, load 3): bound
// 2.32 without rounds, 1.90-1.97 with 1 round, 2.00 with 2, 2.03 with 4; at 1000 nodes, keeping the tight cuts
// gives 2.024 against 2.089 without (in 13.7 s against 12.4 s).
constexpr int kCutRounds = 1;

// The incumbent's local search (Search::polish) takes at most kPolishShare of the time the search has run, each
// time at least kPolishLeast seconds of it: none in a search that ends within 0.2 s.
constexpr double kPolishShare = 0.05;
constexpr double kPolishLeast = 0.01;

// Above the memory budget (BabOptions::memory_mb; kCarriedShare of it holds the nodes that carry their parents'
// work, the Frontier strips the others) a worker searches the subtree of the node it pops depth first,
// for up to this many nodes before its unexplored ones go back to the queue (about a second of work on two
// layers of 100), so that the global bound, which holds the subtree's root bound meanwhile, keeps moving.
constexpr long kDiveNodes = 10000;

// A ReLU-split node with more than this many free neurons is bounded by optimized slopes and multipliers in place
// of its LP (BabOptions::slope_steps); below it the LP closes nodes.
constexpr int kOptimizeAbove = 16;

// A cut of an ancestor's node LP over the keys (solver/carry_basis.h) of its columns. It holds for every
// descendant, whose MIP points are the ancestor's that meet more splits on a smaller box, in the same columns
// with the same meaning; a descendant whose model lacks one of its columns (a neuron made stable loses its
// binary) drops it.
struct KeptCut {
  std::string name;
  std::vector<std::size_t> col_keys;
  std::vector<double> value;
  double lower = -kInfinity, upper = kInfinity;
};

struct Node {
  double bound = kInfinity;  // the parent's bound: valid for this node
  Eigen::VectorXd lo, hi;
  SplitState splits;
  std::shared_ptr<const NeuronBounds> prior;  // the parent's neuron bounds, valid on this node (may be null)
  std::shared_ptr<const KeyedBasis> basis;    // the parent's last node-LP basis (may be null)
  std::shared_ptr<const std::vector<KeptCut>> cuts;  // the cuts tight at it (may be null)
  std::shared_ptr<const FirstLayerBases> first_layer;  // the bases of an ancestor's first-layer LPs (may be null)
  std::shared_ptr<const Multipliers> multipliers;      // the parent's optimized slopes and multipliers (may be null)
  // Non-empty when the node was propagated as it was made: `prior` holds its own neuron bounds, and its upper
  // function lambda^T x + constant (f <= it on the node) has these slopes and the maximum `upper` over its box.
  Eigen::VectorXd lambda;
  double upper = kInfinity;
  // Non-null when the node was bounded by optimized slopes and multipliers as it was made (split_optimized): its
  // bound is that bound, `prior` holds neuron bounds valid on it (its splits not applied), `multipliers` its own
  // parameters, and this the intercept each upper line adds to the bound (the branching score).
  std::shared_ptr<const std::vector<Eigen::VectorXd>> share;
};

// A node LP's safe bound (+infinity when it gives none), with its last optimal basis and the cuts tight there,
// for the children (null when no LP was optimal).
struct NodeLp {
  double bound = kInfinity;  // -infinity: the LP has no point, proven (proven_empty)
  Eigen::VectorXd x;         // the inputs at the last optimal LP (empty when none was optimal)
  // With rows on the outputs, per hidden layer, how far the last optimal LP's post-activation lies above the
  // ReLU of its pre-activation there, y - max(h, 0) (the triangle's slack at the LP's point; empty when none).
  std::vector<Eigen::VectorXd> relu_gap;
  std::shared_ptr<const KeyedBasis> basis;
  std::shared_ptr<const std::vector<KeptCut>> cuts;
};

// Strong branching's look at one input coordinate: both halves propagated, their bounds (-infinity when empty), the
// larger one and their sum.
struct InputTrial {
  Eigen::Index i;
  std::array<Propagation, 2> child;
  std::array<double, 2> bound;
  double high, sum;
};

struct ByBound {
  bool operator()(const Node& a, const Node& b) const { return a.bound < b.bound; }
};

// What a node keeps of its parent's work: neuron bounds, upper function, bases, cuts, slopes and multipliers.
bool carries_work(const Node& node) {
  return node.prior || node.lambda.size() > 0 || node.basis || node.cuts || node.first_layer || node.multipliers ||
         node.share;
}

// The node reduced to its bound, box and splits (all a node from another process has): valid as it was, its work
// done again when it is popped.
void strip(Node& node) {
  node.prior.reset();
  node.basis.reset();
  node.cuts.reset();
  node.first_layer.reset();
  node.multipliers.reset();
  node.share.reset();
  node.lambda.resize(0);
  node.upper = kInfinity;
}

// Everything the workers share, under one mutex. The open nodes are a heap by bound (best first).
class Frontier {
 public:
  // At most `carried` open nodes keep their parents' work (carries_work); past it, those of the lower half of
  // the bounds are stripped, so that a search within its memory stays best first (the dives of Search::work are
  // for the memory of the stripped ones).
  explicit Frontier(long carried = std::numeric_limits<long>::max()) : carried_budget_(carried) {}

  void push(Node node) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (carries_work(node)) ++carried_;
    open_.push_back(std::move(node));
    std::push_heap(open_.begin(), open_.end(), ByBound{});
    if (carried_ > carried_budget_) strip_lower_half();
    ready_.notify_one();
  }
  // Waits for a node; false when none is left and no worker can make more (or the search stops).
  bool pop(Node& node, const std::function<bool()>& stop) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (stop() || closed_) return false;
      if (!open_.empty()) break;
      if (running_.empty() && !hold_) return false;
      ready_.wait_for(lock, std::chrono::milliseconds(20));
    }
    std::pop_heap(open_.begin(), open_.end(), ByBound{});
    node = std::move(open_.back());
    open_.pop_back();
    if (carries_work(node)) --carried_;
    running_.insert(node.bound);
    return true;
  }
  void done(double running_bound) {
    std::lock_guard<std::mutex> lock(mutex_);
    running_.erase(running_.find(running_bound));
    ready_.notify_all();
  }
  void pruned(double bound) {
    std::lock_guard<std::mutex> lock(mutex_);
    pruned_ = std::max(pruned_, bound);
  }
  // The largest bound of any node not closed (-infinity when none).
  double bound() const {
    std::lock_guard<std::mutex> lock(mutex_);
    double b = pruned_;
    if (!open_.empty()) b = std::max(b, open_.front().bound);
    if (!running_.empty()) b = std::max(b, *running_.rbegin());
    for (const auto& [id, sent] : sent_) b = std::max(b, sent);
    return b;
  }
  bool finished() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return open_.empty() && running_.empty() && sent_.empty();
  }
  long open() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<long>(open_.size());
  }

  // Over several processes the queue refills from the others: while held, pop() waits on an empty frontier.
  void hold() {
    std::lock_guard<std::mutex> lock(mutex_);
    hold_ = true;
  }
  // The driver's end of the search (over every process, the lead's word): pop() returns no more nodes.
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    ready_.notify_all();
  }
  // After close(): the open nodes, moved out (the frontier's bound no longer counts them).
  std::vector<Node> release_open() {
    std::lock_guard<std::mutex> lock(mutex_);
    carried_ = 0;
    return std::exchange(open_, {});
  }
  // Up to `count` open nodes out of the queue as batch `id` for another process: every other one of the 2 count
  // best, so that both processes keep some of the best (best first, approximately, over the processes). Their
  // largest bound stays in bound() until delivered(id).
  std::vector<Node> give(long count, long id) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Node> top, given, kept;
    while (static_cast<long>(top.size()) < 2 * count && !open_.empty()) {
      std::pop_heap(open_.begin(), open_.end(), ByBound{});
      top.push_back(std::move(open_.back()));
      open_.pop_back();
    }
    for (std::size_t i = 0; i < top.size(); ++i) (i % 2 == 1 ? given : kept).push_back(std::move(top[i]));
    for (const Node& node : given)
      if (carries_work(node)) --carried_;
    for (Node& node : kept) {
      open_.push_back(std::move(node));
      std::push_heap(open_.begin(), open_.end(), ByBound{});
    }
    double bound = -kInfinity;
    for (const Node& node : given) bound = std::max(bound, node.bound);
    if (!given.empty()) sent_[id] = bound;
    return given;
  }
  void delivered(long id) {
    std::lock_guard<std::mutex> lock(mutex_);
    sent_.erase(id);
    ready_.notify_all();
  }

 private:
  // Strips the open nodes that carry work, but for the carried_budget_ / 2 of them with the largest bounds. The
  // bounds stay as they are, and so does the heap.
  void strip_lower_half() {
    std::vector<double> bounds;
    for (const Node& node : open_)
      if (carries_work(node)) bounds.push_back(node.bound);
    const std::size_t keep = static_cast<std::size_t>(carried_budget_ / 2);
    if (bounds.size() <= keep) return;
    std::nth_element(bounds.begin(), bounds.begin() + static_cast<std::ptrdiff_t>(keep), bounds.end(),
                     std::greater<double>());
    const double threshold = bounds[keep];  // the largest bound stripped
    std::size_t kept = 0;
    for (Node& node : open_) {
      if (!carries_work(node)) continue;
      if (node.bound > threshold && kept < keep) {
        ++kept;
        continue;
      }
      strip(node);
    }
    carried_ = static_cast<long>(kept);
  }

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<Node> open_;  // a heap by ByBound
  const long carried_budget_;
  long carried_ = 0;  // open nodes that carry their parents' work
  std::multiset<double> running_;
  double pruned_ = -kInfinity;
  bool hold_ = false;
  bool closed_ = false;
  std::map<long, double> sent_;  // batches given to another process and not yet confirmed: their largest bound
};

// An open node's size in memory, estimated: the struct, its box and slopes (3 d doubles), its neuron bounds (2 per
// hidden neuron, its own or its parent's) or, where nodes are bounded as they are made (`optimized`, sharing
// their ancestor's bounds), its slopes, multipliers and branching scores (3 per hidden neuron), a split per hidden
// neuron once it has one, and the allocations' overhead. (Counting the second kind on every search made the
// 10 -> 2x100 -> 1 grid network dive for memory at half the nodes, its bound after 20 s 0.966 instead of 0.903.)
std::size_t node_bytes(const Network& network, bool optimized) {
  const auto hidden = static_cast<std::size_t>(network.num_hidden_neurons());
  const auto d = static_cast<std::size_t>(network.input_dim());
  const auto layers = static_cast<std::size_t>(network.num_hidden_layers());
  return sizeof(Node) + 3 * (8 * d + 32) + (optimized ? 24 : 16) * hidden + 64 * layers + hidden + 128;
}

// A stripped node's size (strip): the struct (twice, for the heap's spare room), its box, its splits.
std::size_t stripped_node_bytes(const Network& network) {
  const auto hidden = static_cast<std::size_t>(network.num_hidden_neurons());
  const auto d = static_cast<std::size_t>(network.input_dim());
  const auto layers = static_cast<std::size_t>(network.num_hidden_layers());
  return 2 * sizeof(Node) + 2 * (8 * d + 32) + 64 * layers + hidden + 64;
}

// How many open nodes fit in `memory_mb` megabytes (0: no limit): kCarriedShare of it for nodes that carry their
// parents' work (Frontier), the rest for stripped ones.
constexpr double kCarriedShare = 0.75;
struct NodeBudget {
  long carried = std::numeric_limits<long>::max();
  long open = std::numeric_limits<long>::max();
};
NodeBudget node_budget(const Problem& problem, const BabOptions& options) {
  const double memory_mb = options.memory_mb;
  if (!(memory_mb > 0.0)) return {};
  const Network& network = problem.network;
  const bool optimized = options.slope_steps > 0 && network.num_hidden_layers() > 1 && problem.rows.empty() &&
                         !problem.domain.has_rows() && network.input_dim() > options.input_split_dims;
  const double bytes = memory_mb * 1048576.0;
  const double carried = kCarriedShare * bytes / static_cast<double>(node_bytes(network, optimized));
  const double open = carried + (1.0 - kCarriedShare) * bytes / static_cast<double>(stripped_node_bytes(network));
  auto count = [](double nodes) {
    return nodes >= 9e18 ? std::numeric_limits<long>::max() : std::max<long>(2, static_cast<long>(nodes));
  };
  return {count(carried), count(open)};
}

// A node as a row of doubles for another process: its bound, box, and split neurons (each one's index over all
// hidden layers plus one, negative on the inactive side). The parent's neuron bounds stay behind: the receiver
// propagates without a prior.
void append_node(const Node& node, std::vector<double>& out) {
  out.push_back(node.bound);
  out.insert(out.end(), node.lo.data(), node.lo.data() + node.lo.size());
  out.insert(out.end(), node.hi.data(), node.hi.data() + node.hi.size());
  std::vector<double> splits;
  double index = 0.0;
  for (const std::vector<Split>& layer : node.splits)
    for (Split split : layer) {
      index += 1.0;
      if (split != Split::kFree) splits.push_back(split == Split::kActive ? index : -index);
    }
  out.push_back(static_cast<double>(splits.size()));
  out.insert(out.end(), splits.begin(), splits.end());
}

// The nodes of a row written by append_node (a malformed tail is dropped).
std::vector<Node> read_nodes(const Network& network, const double* data, std::size_t size) {
  const std::size_t d = static_cast<std::size_t>(network.input_dim());
  std::vector<Node> nodes;
  for (std::size_t at = 0; at + 2 * d + 2 <= size;) {
    Node node;
    node.bound = data[at++];
    node.lo = Eigen::Map<const Eigen::VectorXd>(data + at, static_cast<Eigen::Index>(d));
    node.hi = Eigen::Map<const Eigen::VectorXd>(data + at + d, static_cast<Eigen::Index>(d));
    at += 2 * d;
    const std::size_t count = static_cast<std::size_t>(data[at++]);
    if (at + count > size) break;
    if (count > 0)
      for (int k = 0; k < network.num_hidden_layers(); ++k)
        node.splits.emplace_back(static_cast<std::size_t>(network.hidden_width(k)), Split::kFree);
    for (std::size_t i = 0; i < count; ++i) {
      const double entry = data[at++];
      long index = static_cast<long>(std::abs(entry)) - 1;
      for (std::vector<Split>& layer : node.splits) {
        if (index < static_cast<long>(layer.size())) {
          layer[static_cast<std::size_t>(index)] = entry > 0 ? Split::kActive : Split::kInactive;
          break;
        }
        index -= static_cast<long>(layer.size());
      }
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

// `model` with every row r relaxed to lo_r <= a_r^T v + p_r - n_r <= up_r, p_r and n_r in [0, reach], each with
// the objective coefficient -penalty; the model's own objective is kept when `keep_objective`. Every point of
// `model` is a point of it (p = n = 0) with the same objective value.
LinearModel elastic_model(const LinearModel& model, double reach, double penalty, bool keep_objective) {
  LinearModel elastic;
  for (int c = 0; c < model.num_cols(); ++c)
    elastic.add_column(model.col_lower()[c], model.col_upper()[c], keep_objective ? model.objective()[c] : 0.0);
  if (keep_objective) elastic.set_objective_constant(model.objective_constant());
  for (int r = 0; r < model.num_rows(); ++r) {
    const int p = elastic.add_column(0.0, reach, -penalty), n = elastic.add_column(0.0, reach, -penalty);
    std::vector<int> index(model.row_index().begin() + model.row_start()[r],
                           model.row_index().begin() + model.row_start()[r + 1]);
    std::vector<double> value(model.row_value().begin() + model.row_start()[r],
                              model.row_value().begin() + model.row_start()[r + 1]);
    index.insert(index.end(), {p, n});
    value.insert(value.end(), {1.0, -1.0});
    elastic.add_row(index, value, model.row_lower()[r], model.row_upper()[r]);
  }
  return elastic;
}

// A bound for an LP the solver called infeasible: the safe bound of the model with every row loosened by up to 1
// at a penalty of kElasticPenalty per unit (times the objective's scale). That is a relaxation of the model, so
// its bound holds for the model's points, and the penalty pushes it down by about kElasticPenalty times the
// model's infeasibility: a node whose set is a sliver (its rows barely compatible) gets a bound near its LP
// value, an empty one a bound far below (the LP solution of "max -sum(p + n)" proves emptiness the same way).
constexpr double kElasticPenalty = 1e4;
double infeasible_lp_bound(const LinearModel& model, LpSolver& lp, double seconds) {
  double scale = 1.0;
  for (double c : model.objective()) scale = std::max(scale, std::abs(c));
  const LpSolution relaxed = lp.solve(elastic_model(model, 1.0, kElasticPenalty * scale, true), seconds);
  return relaxed.status == LpStatus::kOptimal ? relaxed.bound : kInfinity;
}

// The most that a row of `model` can miss its sides by over the columns' bounds (+infinity when a bound is).
double largest_row_miss(const LinearModel& model) {
  double miss = 0.0;
  for (int r = 0; r < model.num_rows(); ++r) {
    double least = 0.0, most = 0.0;
    for (int e = model.row_start()[r]; e < model.row_start()[r + 1]; ++e) {
      const double a = model.row_value()[e];
      const int c = model.row_index()[e];
      least += std::min(a * model.col_lower()[c], a * model.col_upper()[c]);
      most += std::max(a * model.col_lower()[c], a * model.col_upper()[c]);
    }
    miss = std::max({miss, model.row_lower()[r] - least, most - model.row_upper()[r]});
  }
  return std::isnan(miss) ? kInfinity : miss;
}

// Whether the LP `model` has no point, proven: the elastic model with every row loosened by p_r - n_r (each in
// [0, reach], reach covering the most any row can miss, so that it has points) and the objective
// max -sum_r (p_r + n_r) has a safe bound (weak duality from the solver's duals with an allowance for their
// rounding, LpSolution::bound) below zero. Every point of `model` is one of it with p = n = 0 and value 0, so
// there is none. The proof rests on that bound alone, not on the solver's word "infeasible".
bool proven_empty(const LinearModel& model, LpSolver& lp, double seconds) {
  const double reach = 2.0 * largest_row_miss(model) + 1.0;
  if (!std::isfinite(reach)) return false;
  const LpSolution phase_one = lp.solve(elastic_model(model, reach, 1.0, false), seconds);
  return phase_one.status == LpStatus::kOptimal && phase_one.bound < 0.0;
}

class Search {
 public:
  Search(const Problem& problem, const SolveOptions& options, const Deadline& deadline, Incumbent& incumbent,
         Frontier& frontier, std::shared_ptr<const NeuronBounds> root_bounds)
      : problem_(problem), options_(options), deadline_(deadline), incumbent_(incumbent), frontier_(frontier),
        root_bounds_(std::move(root_bounds)),
        output_weights_(problem.objective.sign() * problem.objective.weights),
        constant_(problem.objective.sign() * problem.objective.constant),
        node_budget_(node_budget(problem, options.bab).open) {}

  // One worker: nodes until none is left, the deadline, or the node limit.
  void work(std::atomic<long>& nodes) {
    const std::unique_ptr<LpSolver> lp = make_lp_solver();
    lp->set_stop_request(deadline_.stop_request());
    Node node;
    const auto stop = [&] {
      return deadline_.expired() || abandoned_.load(std::memory_order_relaxed) ||
             (options_.bab.node_limit > 0 && nodes.load() >= options_.bab.node_limit);
    };
    std::vector<Node> children;
    while (frontier_.pop(node, stop)) {
      ++nodes;
      const double running = node.bound;
      polish(*lp);
      process(std::move(node), *lp, children);
      // Above the memory budget, the node's subtree is searched depth first (its bound, still among the running
      // ones, covers every node of it) for up to kDiveNodes nodes, so the queue stops growing.
      for (long dived = 0; frontier_.open() > node_budget_ && !children.empty() && dived < kDiveNodes && !stop();
           ++dived) {
        Node next = std::move(children.back());
        children.pop_back();
        ++nodes;
        process(std::move(next), *lp, children);
      }
      for (Node& child : children) frontier_.push(std::move(child));
      children.clear();
      frontier_.done(running);
    }
  }

  long lps() const { return lps_.load(); }
  // Set when a worker throws (WorkerThreads::run): the other workers take no further node.
  std::atomic<bool>* abandon_flag() { return &abandoned_; }

 private:
  double incumbent_value() const { return incumbent_.best_value().value_or(-kInfinity); }

  // The optimum of the LP over x's linear region (pattern_lp, the concave neurons free), evaluated.
  std::optional<EvaluatedPoint> region_optimum(const Eigen::VectorXd& x, LpSolver& lp, const Deadline& budget) const {
    const FreeMask* concave = options_.relax_concave ? &problem_.concave : nullptr;
    const std::optional<LinearModel> model =
        pattern_lp_within(problem_.network, problem_.domain, problem_.objective,
                          problem_.network.activation_pattern(x), &problem_.interval, concave, budget);
    if (!model) return std::nullopt;
    const LpSolution s = lp.solve(*model, std::max(budget.remaining(), 0.0));
    if (s.status != LpStatus::kOptimal) return std::nullopt;
    return evaluate_point(problem_, Eigen::Map<const Eigen::VectorXd>(s.values.data(), x.size()));
  }

  // Algorithm 2's local search (local_search_from) from the optimum of a point's linear region, by one worker at a
  // time within kPolishShare of the search's time: from the incumbent whenever it has improved, else from the point
  // offered last (a node's best vertex or LP optimum), each region once. bab's own points are box vertices and LP
  // optima, often a few flips from a better region: on the paper's grid networks bab alone then ends with the best
  // points the default's sampling finds, or better (bench/results/crown_bench5.md).
  void polish(LpSolver& lp) {
    if (!problem_.rows.empty()) return;  // the local search knows nothing of a model's rows
    const std::unique_lock<std::mutex> lock(polish_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    const double start = deadline_.elapsed();
    const double allowance = kPolishShare * start - polish_seconds_;
    if (allowance < kPolishLeast) return;
    const std::optional<EvaluatedPoint> best = incumbent_.best();
    Eigen::VectorXd x;
    if (best && best->value > polished_) {
      polished_ = best->value;
      x = best->x;
    } else {
      const std::lock_guard<std::mutex> latest(latest_mutex_);
      if (latest_.size() == 0) return;
      x = std::move(latest_);
      latest_.resize(0);
    }
    if (!polished_regions_.insert(problem_.network.activation_pattern(x).hash()).second) return;
    const Deadline budget = deadline_.limited(allowance);
    if (std::optional<EvaluatedPoint> optimum = region_optimum(x, lp, budget)) {
      offer(optimum->x);
      if (std::optional<EvaluatedPoint> found = local_search_from(problem_, options_, *optimum, budget))
        offer(found->x);
    }
    polish_seconds_ += deadline_.elapsed() - start;
  }

  bool closes(double bound) const {
    const double best = incumbent_value();
    return std::isfinite(best) && bound <= best + prune_tolerance(best);
  }

  // With ModelRows only points that meet them, with integral integer coordinates, become incumbents.
  void offer(const Eigen::VectorXd& x) {
    {
      const std::lock_guard<std::mutex> lock(latest_mutex_);
      latest_ = x;
    }
    if (std::optional<EvaluatedPoint> point = feasible_point(problem_, x)) incumbent_.offer(std::move(*point));
  }

  // Bound propagation of the objective over a box under splits (`prior` valid there, may be null).
  Propagation propagate_box(const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, const SplitState& splits,
                            const NeuronBounds* prior) const {
    return propagate(problem_.network, lo, hi, output_weights_, constant_, splits, prior, &deadline_,
                     options_.relax_concave);
  }

  // Bounds the node, and splits it into `children` (appended) unless it closes.
  void process(Node node, LpSolver& lp, std::vector<Node>& children) {
    if (close_or_keep(node.bound)) return;
    if (!node.prior) node.prior = root_bounds_;  // a node from another process: the root's bounds hold on it
    if (node.share && split_bounded(node, children)) return;
    Propagation prop;
    if (node.lambda.size() > 0) {
      prop.bounds = *node.prior;
      prop.objective.upper = node.upper;
      prop.objective.lambda = std::move(node.lambda);
    } else {
      NeuronBounds tightened;
      const NeuronBounds* prior = first_layer_prior(node, lp, tightened);
      prop = propagate_box(node.lo, node.hi, node.splits, prior);
      if (prop.empty) return;  // a split contradicts valid bounds: no point of P is in the node
      offer(best_vertex(prop.objective.lambda, node.lo, node.hi));
    }
    double bound = std::min(node.bound, prop.objective.upper);
    if (close_or_keep(bound)) return;
    if (rows_exclude(node, prop.bounds)) return;
    const FreeMask concave = concave_neurons(problem_.network, problem_.objective, prop.bounds);
    const std::vector<std::pair<int, int>> free = branchable(node, prop.bounds, concave);
    // While the input is small and many neurons are unstable, splitting the box tightens every neuron and the
    // propagated bound is the cheap one; the node LP (about 100x the propagation's time on a 6x50 network)
    // runs once few neurons are left, where it closes nodes. A network of one hidden layer splits ReLUs only:
    // its neurons' bounds under the splits are exact LPs (first_layer_prior), and with them and the Anderson
    // cuts the 10 -> 100 -> 1 grid network (seed 10787, bab, 2 threads, load 8.5) is proven in 10 s and 1325
    // nodes, against 31 s and 49559 nodes splitting inputs first.
    // With rows on the outputs every node gets its LP: only the LP sees the rows, which prune nodes and make
    // its optimum a point that may meet them.
    const bool input_split = problem_.network.num_hidden_layers() > 1 &&
                             static_cast<int>(node.lo.size()) <= options_.bab.input_split_dims &&
                             static_cast<int>(free.size()) > options_.bab.relu_split_below;
    NodeLp relaxation;
    const bool optimized_node = optimizes(free, input_split);
    if (optimized_node) {
      const OptimizedBound optimized = optimize(node, prop.bounds);
      bound = std::min(bound, optimized.upper);
      if (optimized.upper == -kInfinity || close_or_keep(bound)) return;
      offer(optimized.vertex);
      node.bound = bound;
      node.multipliers = std::make_shared<const Multipliers>(optimized.multipliers);
      prop.objective.relaxation_share = optimized.relaxation_share;
      if (any_share(prop.objective.relaxation_share, free)) {
        node.prior = std::make_shared<const NeuronBounds>(std::move(prop.bounds));
        return split_optimized(std::move(node), optimized.relaxation_share, free, children);
      }
      // No split has a positive score: the node LP below scores them at its point.
    }
    if (optimized_node || !input_split || problem_.rows.has_output_rows()) {
      if (!input_split && prop.objective.relaxation_share.empty()) {  // made by an input split: the score needs it
        const NeuronBounds own = prop.bounds;
        prop = propagate_box(node.lo, node.hi, node.splits, &own);
        if (prop.empty) return;
      }
      relaxation = node_lp(node, prop.bounds, lp);
      if (relaxation.bound == -kInfinity) return;  // no point of P in the node meets the rows
      bound = std::min(bound, relaxation.bound);
      if (close_or_keep(bound)) return;
      if (relaxation.basis) {
        node.basis = std::move(relaxation.basis);
        node.cuts = std::move(relaxation.cuts);
      }
    }
    node.bound = bound;
    // Every neuron fixed: the LP is exact but for the integer coordinates, which are branched on where its
    // optimum is fractional (an integral optimum is a point whose value meets the bound: the node closed).
    if (free.empty()) {
      if (const std::optional<Eigen::Index> i = fractional_integer(node, relaxation.x))
        return split_integer(std::move(node), prop, *i, relaxation.x[*i], children);
    }
    if (free.empty() || input_split) return split_input(std::move(node), prop, children);
    split_relu(std::move(node), prop, free, relaxation.relu_gap, children);
  }

  // Whether some free neuron's upper line adds to the bound (a positive relaxation share). Where none does (the
  // objective reaches the free neurons only through their lower lines, as behind max pooling), the splits'
  // scores come from the node LP's point instead: splitting by width alone made the maxpool model of
  // bench/pwl_verify.py branch on neurons that leave the bound unchanged.
  static bool any_share(const std::vector<Eigen::VectorXd>& share, const std::vector<std::pair<int, int>>& free) {
    if (share.empty()) return false;
    return std::any_of(free.begin(), free.end(), [&](const auto& n) { return share[n.first][n.second] > 0.0; });
  }

  // Whether the node is bounded by optimized slopes and multipliers instead of its LP: with more than
  // kOptimizeAbove neurons free, where the LP (about 100x a propagation) would mostly leave the node open, on a plain
  // box without output rows or integers (which only the LP sees), in a network of more than one hidden layer (with
  // one, the first-layer LPs under splits make the node LP exact on the splits).
  bool optimizes(const std::vector<std::pair<int, int>>& free, bool input_split) const {
    return options_.bab.slope_steps > 0 && !input_split && problem_.network.num_hidden_layers() > 1 &&
           !problem_.domain.has_rows() && problem_.rows.empty() && static_cast<int>(free.size()) > kOptimizeAbove;
  }

  // The node's optimized bound (optimized_bounds.h), from its parent's parameters, stopping once it closes the node.
  OptimizedBound optimize(const Node& node, const NeuronBounds& bounds) const {
    const OptimizedNode one{&node.lo, &node.hi, &bounds, &node.splits, node.multipliers.get()};
    const double best = incumbent_value();
    const OptimizeSettings settings{.iterations = options_.bab.slope_steps,
                                    .stop_below = std::isfinite(best) ? best : -kInfinity};
    return std::move(optimized_bounds(problem_.network, output_weights_, constant_, {one}, settings, &deadline_)
                         .front());
  }

  // Whether bound propagation proves that no point of the node meets a row C_r y <= e_r on the outputs: its upper
  // bound of -C_r y (round-off margins included, the node's neuron bounds as the prior) is below -e_r. A
  // propagation per row, about a hundredth of the node LP that would otherwise prove it.
  bool rows_exclude(const Node& node, const NeuronBounds& bounds) const {
    const Eigen::MatrixXd& C = problem_.rows.output_rows;
    for (Eigen::Index r = 0; r < C.rows(); ++r) {
      const Propagation row = propagate(problem_.network, node.lo, node.hi, -C.row(r).transpose(), 0.0, node.splits,
                                        &bounds, &deadline_);
      if (row.empty || row.objective.upper < -problem_.rows.output_rhs[r]) return true;
    }
    return false;
  }

  // The integer coordinate of the node's box whose LP value is farthest from an integer (beyond 1e-6), if any.
  std::optional<Eigen::Index> fractional_integer(const Node& node, const Eigen::VectorXd& x) const {
    if (!problem_.rows.has_integers() || x.size() == 0) return std::nullopt;
    std::optional<Eigen::Index> pick;
    double farthest = 1e-6;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      if (!problem_.rows.integer[static_cast<std::size_t>(i)] || !(node.lo[i] < node.hi[i])) continue;
      const double away = std::abs(x[i] - std::round(x[i]));
      if (away > farthest) {
        farthest = away;
        pick = i;
      }
    }
    return pick;
  }

  // The node's integer coordinate i at the LP's fractional value: x_i <= floor(value) and x_i >= floor(value) + 1,
  // both boxes with integral bounds, each propagated when popped (the node's neuron bounds as their prior).
  void split_integer(Node node, const Propagation& prop, Eigen::Index i, double value, std::vector<Node>& children) {
    const double cut = std::clamp(std::floor(value), node.lo[i], node.hi[i] - 1.0);
    node.prior = std::make_shared<const NeuronBounds>(prop.bounds);
    node.lambda.resize(0);
    Node high = node;
    node.hi[i] = cut;
    high.lo[i] = cut + 1.0;
    children.push_back(std::move(node));
    children.push_back(std::move(high));
  }

  // The node's prior with the first layer tightened by LPs over its split half-spaces (split_bounds.h) where
  // the node has first-layer splits; the concave neurons are left out (the node LP is exact on them whatever
  // their bounds). Returns the prior to propagate with: `tightened` or the parent's.
  const NeuronBounds* first_layer_prior(Node& node, LpSolver& lp, NeuronBounds& tightened) {
    // A node whose parent was optimized keeps its split multipliers in place of these LPs.
    if (!node.prior || first_layer_splits(node.splits) == 0 || node.multipliers) return node.prior.get();
    tightened = *node.prior;
    const FreeMask concave = concave_neurons(problem_.network, problem_.objective, tightened);
    long solved = 0;
    auto bases = std::make_shared<FirstLayerBases>();
    tighten_first_layer(problem_.network, problem_.domain, node.lo, node.hi, node.splits,
                        options_.relax_concave ? &concave[0] : nullptr, tightened, lp, deadline_, &solved,
                        node.first_layer.get(), bases.get());
    node.first_layer = std::move(bases);  // for the children's LPs
    lps_ += solved;
    return &tightened;
  }

  // Prunes a node whose bound the incumbent meets; true when it did.
  bool close_or_keep(double bound) {
    if (!closes(bound)) return false;
    frontier_.pruned(bound);
    return true;
  }

  // The node's LP relaxation with the cuts its parent kept, strengthened by up to kCutRounds rounds of Anderson
  // cuts. Each LP starts from the previous one's optimal basis (the parent's for the first round, the previous
  // round's with the new cuts' slacks basic for the others).
  NodeLp node_lp(const Node& node, const NeuronBounds& bounds, LpSolver& lp) {
    Domain box = problem_.domain;
    box.lower = node.lo;
    box.upper = node.hi;
    MipFormulation f = big_m_formulation(problem_.network, box, problem_.objective, bounds, options_.relax_concave);
    add_inactive_split_rows(f, node.splits);
    add_model_rows(problem_, f);
    if (node.cuts) add_kept_cuts(f.model, *node.cuts);
    LpBasis start = node.basis ? carry_basis(*node.basis, f.model) : LpBasis{};
    NodeLp result;
    for (int round = 0;; ++round) {
      ++lps_;
      const double seconds = std::max(deadline_.remaining(), 0.0);
      LpSolution s = start.empty() ? lp.solve(f.model, seconds) : lp.solve_from(f.model, start, seconds);
      if (s.status == LpStatus::kInfeasible) {
        if (proven_empty(f.model, lp, std::max(deadline_.remaining(), 0.0))) {
          result.bound = -kInfinity;
          return result;
        }
        result.bound = std::min(result.bound, infeasible_lp_bound(f.model, lp, std::max(deadline_.remaining(), 0.0)));
        return result;
      }
      if (s.status != LpStatus::kOptimal) return result;
      Eigen::VectorXd x(static_cast<Eigen::Index>(f.input.size()));
      for (std::size_t i = 0; i < f.input.size(); ++i) x[static_cast<Eigen::Index>(i)] = s.values[f.input[i]];
      offer(x);
      result.x = std::move(x);
      result.relu_gap = relu_gaps(f, s.values);
      result.bound = std::min(result.bound, s.bound);
      const bool more = round < kCutRounds && !closes(result.bound) && add_anderson_cuts(f, s.values);
      if (!more) {
        result.basis = std::make_shared<const KeyedBasis>(keyed_basis(f.model, std::move(s.basis)));
        result.cuts = tight_cuts(f.model, *result.basis);
        return result;
      }
      start = std::move(s.basis);
      start.rows.resize(static_cast<std::size_t>(f.model.num_rows()), BasisStatus::kBasic);
    }
  }

  // y - max(h, 0) at the LP point `values` for every hidden neuron, h from the LP's values of the layer before.
  std::vector<Eigen::VectorXd> relu_gaps(const MipFormulation& f, const std::vector<double>& values) const {
    std::vector<Eigen::VectorXd> gaps;
    Eigen::VectorXd previous(static_cast<Eigen::Index>(f.input.size()));
    for (std::size_t i = 0; i < f.input.size(); ++i) previous[static_cast<Eigen::Index>(i)] = values[f.input[i]];
    for (int k = 0; k < problem_.network.num_hidden_layers(); ++k) {
      const DenseLayer& layer = problem_.network.hidden_layer(k);
      const Eigen::VectorXd h = layer.weights * previous + layer.bias;
      Eigen::VectorXd y(h.size());
      for (Eigen::Index j = 0; j < h.size(); ++j) y[j] = values[f.post_activation[k][static_cast<std::size_t>(j)]];
      gaps.push_back((y - h.cwiseMax(0.0)).cwiseMax(0.0));
      previous = std::move(y);
    }
    return gaps;
  }

  static bool is_cut(const LinearModel& model, int row) { return model.row_name(row).compare(0, 3, "cut") == 0; }

  // The cut rows of `model` that are tight (slack nonbasic) in `at`, over their columns' keys.
  static std::shared_ptr<const std::vector<KeptCut>> tight_cuts(const LinearModel& model, const KeyedBasis& at) {
    auto cuts = std::make_shared<std::vector<KeptCut>>();
    for (int r = 0; r < model.num_rows(); ++r) {
      if (at.basis.rows[r] == BasisStatus::kBasic || !is_cut(model, r)) continue;
      KeptCut cut{model.row_name(r), {}, {}, model.row_lower()[r], model.row_upper()[r]};
      for (int e = model.row_start()[r]; e < model.row_start()[r + 1]; ++e) {
        cut.col_keys.push_back(at.col_keys[model.row_index()[e]]);
        cut.value.push_back(model.row_value()[e]);
      }
      cuts->push_back(std::move(cut));
    }
    return cuts;
  }

  // Adds the kept cuts whose columns `model` has.
  static void add_kept_cuts(LinearModel& model, const std::vector<KeptCut>& cuts) {
    const std::vector<std::size_t> keys = col_keys(model);
    std::unordered_map<std::size_t, int> column;
    for (std::size_t c = 0; c < keys.size(); ++c) column.emplace(keys[c], static_cast<int>(c));
    for (const KeptCut& cut : cuts) {
      std::vector<int> index;
      for (std::size_t key : cut.col_keys) {
        const auto it = column.find(key);
        if (it == column.end()) break;
        index.push_back(it->second);
      }
      if (index.size() == cut.col_keys.size()) model.add_row(index, cut.value, cut.lower, cut.upper, cut.name);
    }
  }

  // Adds the Anderson cuts the point violates (cut_id_ names them apart); false when there is none.
  bool add_anderson_cuts(MipFormulation& f, const std::vector<double>& point) {
    return reluopt::add_anderson_cuts(f, problem_.network, point.data(), cut_id_);
  }

  // h_kj <= 0 for every neuron split inactive: the formulation sees u <= 0 and fixes relu(h) = 0 without it.
  void add_inactive_split_rows(MipFormulation& f, const SplitState& splits) const {
    for (std::size_t k = 0; k < splits.size(); ++k) {
      const DenseLayer& layer = problem_.network.hidden_layer(static_cast<int>(k));
      const std::vector<int>& inputs = k == 0 ? f.input : f.post_activation[k - 1];
      for (std::size_t j = 0; j < splits[k].size(); ++j) {
        if (splits[k][j] != Split::kInactive) continue;
        std::vector<double> w(inputs.size());
        for (std::size_t i = 0; i < inputs.size(); ++i)
          w[i] = layer.weights(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(i));
        f.model.add_row(inputs, w, -kInfinity, -layer.bias[static_cast<Eigen::Index>(j)],
                        "split" + std::to_string(k) + "_" + std::to_string(j));
      }
    }
  }

  // Unstable neurons that a split would change: not split, not concave.
  std::vector<std::pair<int, int>> branchable(const Node& node, const NeuronBounds& bounds,
                                              const FreeMask& concave) const {
    std::vector<std::pair<int, int>> result;
    for (int k = 0; k < static_cast<int>(bounds.lower.size()); ++k)
      for (int j = 0; j < static_cast<int>(bounds.lower[k].size()); ++j) {
        if (bounds.is_stable(k, j) || (options_.relax_concave && concave[k][j])) continue;
        if (!node.splits.empty() && node.splits[k][j] != Split::kFree) continue;
        result.emplace_back(k, j);
      }
    return result;
  }

  // Halves the box on one coordinate.
  // The coordinates strong branching tries: the widest one relative to P's box first (which wins ties, so that
  // a box whose splits all leave the bound as it is still shrinks where it is widest), then the
  // kStrongInputCandidates whose range moves the propagated bound most (|lambda_i| times the width).
  std::vector<Eigen::Index> input_candidates(const Node& node, const Propagation& prop) const {
    const Eigen::Index d = node.lo.size();
    std::vector<Eigen::Index> splittable;
    const bool strong = advantage_.load() >= kMinAdvantage || input_splits_++ % kStrongProbeEvery == 0;
    for (Eigen::Index i = 0; i < d; ++i) {
      const double mid = 0.5 * (node.lo[i] + node.hi[i]);
      if (is_integer(i) ? node.lo[i] < node.hi[i] : mid > node.lo[i] && mid < node.hi[i]) splittable.push_back(i);
    }
    if (splittable.empty()) return splittable;
    const Eigen::VectorXd relative =
        (node.hi - node.lo).cwiseQuotient((problem_.domain.upper - problem_.domain.lower).cwiseMax(1e-300));
    const Eigen::VectorXd smear = prop.objective.lambda.cwiseAbs().cwiseProduct(node.hi - node.lo);
    // The widest relative to P's box; among equally wide ones (halving makes many ties) the one whose range moves
    // the node's upper function most.
    const Eigen::Index widest = *std::max_element(
        splittable.begin(), splittable.end(), [&](Eigen::Index a, Eigen::Index b) {
          return relative[a] < relative[b] || (relative[a] == relative[b] && smear[a] < smear[b]);
        });
    std::stable_sort(splittable.begin(), splittable.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return smear[a] > smear[b]; });
    std::vector<Eigen::Index> candidates{widest};
    if (!strong) return candidates;
    for (Eigen::Index i : splittable)
      if (i != widest && static_cast<int>(candidates.size()) <= kStrongInputCandidates) candidates.push_back(i);
    return candidates;
  }

  // Halves the box on the candidate coordinate whose halves have the lowest bounds (the larger of the two, then
  // their sum): strong branching, at two propagations per candidate; with a single candidate (the widest), on it.
  // Without first-layer splits the halves enter `children` with their own propagation (propagate_child, adopt),
  // or not at all when it closes them; otherwise they keep this node's bound and neuron bounds as their prior
  // and are propagated, after their first-layer LPs, when popped.
  void split_input(Node node, const Propagation& prop, std::vector<Node>& children) {
    const std::vector<Eigen::Index> candidates = input_candidates(node, prop);
    if (candidates.empty()) {
      frontier_.pruned(node.bound);  // nothing left to split: the bound stays in the global bound, honestly
      stuck_ = true;
      return;
    }
    node.prior = std::make_shared<const NeuronBounds>(prop.bounds);
    // A child made here is propagated now, unless its LPs over first-layer splits would tighten it when popped.
    const bool fresh = first_layer_splits(node.splits) == 0;
    if (candidates.size() == 1) {
      for (int side = 0; side < 2; ++side) {
        Node child = halve(node, candidates.front(), side);
        if (fresh) {
          child.bound = std::min(child.bound, halved_upper(prop.objective, node, child, candidates.front(), side));
          if (close_or_keep(child.bound) || !propagate_child(child)) continue;
        }
        children.push_back(std::move(child));
      }
      return;
    }
    std::vector<InputTrial> trials;
    for (Eigen::Index i : candidates) trials.push_back(try_input_split(node, i));
    std::size_t best = 0;
    for (std::size_t t = 1; t < trials.size(); ++t)
      if (trials[t].high < trials[best].high || (trials[t].high == trials[best].high && trials[t].sum < trials[best].sum))
        best = t;
    const InputTrial& widest = trials.front();
    const double reduction = node.bound - trials[best].high;
    record_advantage(reduction > 0.0 ? (widest.high - trials[best].high) / reduction : 0.0);
    // A split that takes less than kMinInputProgress of the node's gap to the incumbent off its bound is no better
    // than the widest coordinate's: halving the widest keeps every coordinate shrinking (otherwise the search can
    // halve one coordinate down to round-off, gaining a little each time).
    const double gap = node.bound - incumbent_value();
    if (std::isfinite(gap) && reduction < kMinInputProgress * gap) best = 0;
    InputTrial& pick = trials[best];
    for (int side = 0; side < 2; ++side) {
      if (pick.bound[side] == -kInfinity || close_or_keep(pick.bound[side])) continue;
      Node child = halve(node, pick.i, side);
      child.bound = pick.bound[side];
      if (fresh) adopt(child, std::move(pick.child[side]));
      children.push_back(std::move(child));
    }
  }

  // The maximum over a half of the node of the node's upper function lambda^T x + constant (valid on the half): on
  // the half without the maximizing vertex's coordinate i it is lower by |lambda_i| times the half's width. A
  // margin covers the rounding of the constant, and the drop is taken slightly short for its own.
  static double halved_upper(const PropagatedObjective& objective, const Node& node, const Node& half, Eigen::Index i,
                             int side) {
    const double l = objective.lambda[i];
    if (l == 0.0 || (l > 0.0) == (side == 1) || !std::isfinite(objective.upper)) return objective.upper;
    double reach = std::abs(objective.upper);
    for (Eigen::Index j = 0; j < node.lo.size(); ++j)
      reach += std::abs(objective.lambda[j]) * std::max(std::abs(node.lo[j]), std::abs(node.hi[j]));
    const double cut = side == 0 ? node.hi[i] - half.hi[i] : half.lo[i] - node.lo[i];  // how far from the vertex
    return objective.upper - std::abs(l) * cut * (1.0 - 1e-12) + 1e-12 * reach;
  }

  bool is_integer(Eigen::Index i) const {
    return problem_.rows.has_integers() && problem_.rows.integer[static_cast<std::size_t>(i)];
  }

  // The node's lower (side 0) or upper half on coordinate i, with its bound: cut at the midpoint, or for an integer
  // coordinate into [lo, m] and [m + 1, hi] with m = floor of the midpoint, so that both keep integral bounds.
  Node halve(const Node& node, Eigen::Index i, int side) const {
    Node child = node;
    child.lambda.resize(0);  // not propagated yet
    const double mid = 0.5 * (node.lo[i] + node.hi[i]);
    if (!is_integer(i))
      (side == 0 ? child.hi : child.lo)[i] = mid;
    else
      (side == 0 ? child.hi[i] : child.lo[i]) = std::floor(mid) + (side == 0 ? 0.0 : 1.0);
    return child;
  }

  // Both halves of the node on coordinate i, propagated (its neuron bounds as their prior).
  InputTrial try_input_split(const Node& node, Eigen::Index i) const {
    InputTrial trial{i, {}, {}, 0.0, 0.0};
    for (int side = 0; side < 2; ++side) {
      const Node half = halve(node, i, side);
      trial.child[side] = propagate_box(half.lo, half.hi, node.splits, node.prior.get());
      trial.bound[side] = trial.child[side].empty ? -kInfinity : std::min(node.bound, trial.child[side].objective.upper);
    }
    trial.high = std::max(trial.bound[0], trial.bound[1]);
    trial.sum = trial.bound[0] + trial.bound[1];
    return trial;
  }

  // Propagates a child as it is made (its parent's bounds as the prior), so that it enters the queue with its
  // own bound, or not at all when that closes it; false when it is closed.
  bool propagate_child(Node& child) {
    Propagation prop = propagate_box(child.lo, child.hi, child.splits, child.prior.get());
    if (prop.empty) return false;
    child.bound = std::min(child.bound, prop.objective.upper);
    if (close_or_keep(child.bound)) return false;  // its vertex is worth at most the incumbent: not evaluated
    adopt(child, std::move(prop));
    return true;
  }

  // An open child takes its own propagation (bounds, upper function) and offers the vertex it points to.
  void adopt(Node& child, Propagation&& prop) {
    offer(best_vertex(prop.objective.lambda, child.lo, child.hi));
    child.prior = std::make_shared<const NeuronBounds>(std::move(prop.bounds));
    child.lambda = std::move(prop.objective.lambda);
    child.upper = prop.objective.upper;
  }

  void record_advantage(double advantage) {
    double average = advantage_.load();
    while (!advantage_.compare_exchange_weak(average, (1.0 - kAdvantageStep) * average + kAdvantageStep * advantage)) {
    }
  }

  // The free neuron to split: the one whose upper line adds the most to the bound (`share`); where no line adds
  // any, the neuron whose triangle the node LP's point uses most (with rows: the split cuts that point off), then
  // the narrower side of [l, u].
  static std::pair<int, int> pick_relu(const std::vector<Eigen::VectorXd>& share, const NeuronBounds& bounds,
                                       const std::vector<std::pair<int, int>>& free,
                                       const std::vector<Eigen::VectorXd>& relu_gap) {
    std::pair<int, int> pick = free.front();
    std::array<double, 3> best{-1.0, -1.0, -1.0};
    for (const auto& [k, j] : free) {
      const double gap = relu_gap.empty() ? 0.0 : relu_gap[k][j];
      const double width = std::min(bounds.upper[k][j], -bounds.lower[k][j]);
      const std::array<double, 3> key{std::max(share[k][j], 0.0), gap, width};
      if (key > best) {
        best = key;
        pick = {k, j};
      }
    }
    return pick;
  }

  void add_free_splits(Node& node) const {
    if (node.splits.empty())
      for (int k = 0; k < problem_.network.num_hidden_layers(); ++k)
        node.splits.emplace_back(static_cast<std::size_t>(problem_.network.hidden_width(k)), Split::kFree);
  }

  // A node bounded as it was made, split by split_optimized with its own neuron bounds and parameters (no
  // propagation); false, doing nothing, when too few neurons are left free for the optimized bound or no split has
  // a positive score (the node then goes the propagated way, to its LP).
  bool split_bounded(Node& node, std::vector<Node>& children) {
    const FreeMask concave = concave_neurons(problem_.network, problem_.objective, *node.prior);
    const std::vector<std::pair<int, int>> free = branchable(node, *node.prior, concave);
    if (!optimizes(free, false) || !any_share(*node.share, free)) return false;
    const std::shared_ptr<const std::vector<Eigen::VectorXd>> share = std::move(node.share);
    split_optimized(std::move(node), *share, free, children);
    return true;
  }

  // Splits the node on a ReLU and bounds both children at once, by optimized slopes and multipliers (one batch,
  // from the node's parameters) over the node's neuron bounds, which stay valid under the new split: beta-CROWN's
  // search, where the multipliers carry the splits and the intermediate bounds are not recomputed. A child enters
  // `children` with its bound, parameters and branching score, or not at all when its bound closes it.
  void split_optimized(Node node, const std::vector<Eigen::VectorXd>& share,
                       const std::vector<std::pair<int, int>>& free, std::vector<Node>& children) {
    const std::pair<int, int> pick = pick_relu(share, *node.prior, free, {});
    add_free_splits(node);
    node.share.reset();
    std::array<Node, 2> child{node, std::move(node)};
    child[0].splits[pick.first][pick.second] = Split::kActive;
    child[1].splits[pick.first][pick.second] = Split::kInactive;
    std::vector<OptimizedNode> rows;
    for (const Node& c : child) rows.push_back({&c.lo, &c.hi, c.prior.get(), &c.splits, c.multipliers.get()});
    const double best = incumbent_value();
    const OptimizeSettings settings{.iterations = options_.bab.slope_steps,
                                    .stop_below = std::isfinite(best) ? best : -kInfinity};
    std::vector<OptimizedBound> bounds =
        optimized_bounds(problem_.network, output_weights_, constant_, rows, settings, &deadline_);
    for (std::size_t side = 0; side < 2; ++side) {
      OptimizedBound& b = bounds[side];
      if (b.upper == -kInfinity) continue;  // the split contradicts the neuron bounds: no point
      child[side].bound = std::min(child[side].bound, b.upper);
      if (close_or_keep(child[side].bound)) continue;
      offer(b.vertex);
      child[side].multipliers = std::make_shared<const Multipliers>(std::move(b.multipliers));
      child[side].share = std::make_shared<const std::vector<Eigen::VectorXd>>(std::move(b.relaxation_share));
      children.push_back(std::move(child[side]));
    }
  }

  void split_relu(Node node, const Propagation& prop, const std::vector<std::pair<int, int>>& free,
                  const std::vector<Eigen::VectorXd>& relu_gap, std::vector<Node>& children) {
    const std::pair<int, int> pick = pick_relu(prop.objective.relaxation_share, prop.bounds, free, relu_gap);
    add_free_splits(node);
    node.prior = std::make_shared<const NeuronBounds>(prop.bounds);
    Node inactive = node;
    node.splits[pick.first][pick.second] = Split::kActive;
    inactive.splits[pick.first][pick.second] = Split::kInactive;
    children.push_back(std::move(node));
    children.push_back(std::move(inactive));
  }

 public:
  bool stuck() const { return stuck_; }

 private:
  const Problem& problem_;
  const SolveOptions& options_;
  const Deadline& deadline_;
  Incumbent& incumbent_;
  Frontier& frontier_;
  const std::shared_ptr<const NeuronBounds> root_bounds_;  // valid on every node (may be null)
  const Eigen::VectorXd output_weights_;
  const double constant_;
  const long node_budget_;  // open nodes within the memory budget
  std::atomic<long> lps_{0};
  std::atomic<long> cut_id_{0};  // names the cuts apart, so that a child's basis finds its parent's
  std::atomic<bool> stuck_{false};
  std::atomic<bool> abandoned_{false};
  std::mutex polish_mutex_;  // held by the worker that polishes
  double polished_ = -kInfinity;  // the last incumbent value polished (under polish_mutex_)
  double polish_seconds_ = 0.0;   // time spent polishing (under polish_mutex_)
  std::unordered_set<std::size_t> polished_regions_;  // the patterns' hashes (under polish_mutex_)
  std::mutex latest_mutex_;
  Eigen::VectorXd latest_;  // the point offered last (under latest_mutex_; empty once polished)
  std::atomic<double> advantage_{1.0};  // moving average of strong branching's advantage over the widest
  mutable std::atomic<long> input_splits_{0};  // counts the input splits made while strong branching rests
};

// The first incumbent: the given start, else forward passes at the interior point and a few samples of P.
void seed_incumbent(const Problem& problem, const SolveOptions& options, const std::optional<EvaluatedPoint>& start,
                    Incumbent& incumbent, const Deadline& deadline) {
  if (start) {
    if (std::optional<EvaluatedPoint> point = feasible_point(problem, start->x)) incumbent.offer(std::move(*point));
    if (problem.rows.empty()) return;
  }
  // Samples of P seldom meet a model's rows or integers: the interior point, then the best of kSeedPoints
  // region problems with the rows (within a tenth of the time; the node LPs' optima alone left pricing_s3 and
  // pricing_s4 of examples/models without a point in 60 s).
  if (!problem.rows.empty()) {
    if (std::optional<EvaluatedPoint> point = feasible_point(problem, problem.interior_point))
      incumbent.offer(std::move(*point));
    SolveOptions sampling = options;
    sampling.method = Method::kSampling;
    sampling.sampling.samples = kSeedPoints;
    const SolveResult found = run_sampling(problem, sampling, deadline.share(0.1), RunContext{});
    if (found.status == SolveStatus::kFeasible || found.status == SolveStatus::kOptimal)
      if (std::optional<EvaluatedPoint> point = feasible_point(problem, found.x)) incumbent.offer(std::move(*point));
    return;
  }
  offer_forward_passes(problem, options, kSeedPoints, incumbent, deadline);
}

// The hooks through which the work sharing moves this process's nodes (bab_share.h).
WorkSharing::Hooks sharing_hooks(const Problem& problem, Frontier& frontier, const Search& search,
                                 const std::atomic<long>& nodes) {
  WorkSharing::Hooks hooks;
  hooks.state = [&] {
    FrontierState state;
    state.bound = frontier.bound();
    state.open = frontier.open();
    state.idle = frontier.finished();  // read after the bound: idle then, nothing is missing from it
    state.stuck = search.stuck();
    state.nodes = nodes.load();
    state.lps = search.lps();
    return state;
  };
  hooks.give = [&](long count, long id) {
    std::vector<double> row;
    for (const Node& node : frontier.give(count, id)) append_node(node, row);
    return row;
  };
  hooks.take = [&problem, &frontier](const double* data, std::size_t size) {
    for (Node& node : read_nodes(problem.network, data, size)) frontier.push(std::move(node));
  };
  hooks.delivered = [&frontier](long id) { frontier.delivered(id); };
  return hooks;
}

// The end over several processes: every process sends its tally (its final bound, counts and best point) to the
// lead, whose work sharing then holds each process's final state, or its last posted one for a process lost.
// Returns whether the search over all of them completed.
bool gather(const Problem& problem, Peers& peers, WorkSharing& sharing, const FrontierState& local,
            const Deadline& deadline, Incumbent& incumbent, SolveResult& result) {
  RunTally tally;
  tally.nodes = local.nodes;
  tally.lps = local.lps;
  tally.values.emplace_back(peers.rank(), local.bound);
  if (const std::optional<EvaluatedPoint> best = incumbent.best()) tally.best_points.push_back(best->x);
  const RunTally all = peers.finish(tally, deadline);
  result.distributed.ranks = peers.size();
  result.distributed.ranks_finished = peers.finished();
  result.distributed.communication_seconds = peers.communication_seconds();
  result.run.nodes = all.nodes;
  result.run.lps = all.lps;
  if (!peers.lead()) return false;
  for (const Eigen::VectorXd& x : all.best_points)
    if (std::optional<EvaluatedPoint> point = feasible_point(problem, x)) incumbent.offer(std::move(*point));
  for (const auto& [rank, bound] : all.values) sharing.final_bound(static_cast<int>(rank), bound);
  return sharing.complete() && !sharing.stuck() && result.distributed.ranks_finished == peers.size();
}

// The progress line's numbers, in the user's sense.
Progress progress(const Deadline& deadline, long lps, long nodes, const Incumbent& incumbent, double sign, double bound) {
  Progress progress;
  progress.seconds = deadline.elapsed();
  progress.lps = lps;
  progress.nodes = nodes;
  if (const std::optional<double> best = incumbent.best_value()) progress.incumbent = sign * *best;
  if (std::isfinite(bound)) progress.bound = sign * bound;
  return progress;
}

// The neuron bounds over P's box with every layer's optimized (optimize_neuron_bounds): valid on every node, the
// prior of the root and of a node that comes from another process without its parent's (each process computes
// them, the same). Null with one hidden layer (interval arithmetic is exact there) or --slope-steps 0.
// CROWN's adaptive slopes are close to the best already (on a 784 -> 4x256 -> 10 network, radius 0.03, its
// second layer's bounds lie within 0.1% of the triangle LP's), so the steps are few (a quarter of
// --slope-steps), take at most kRootBoundsShare of the time, and are left out where they would cost more than
// kRootBoundsWork multiply-adds: on that network 20 steps took 3-4 s (radius 0.02-0.05) and narrowed the layers
// by 0.1-2%, and 5 steps made balls decided in 0.4 s take 1.2-1.7 s; on the 20 -> 2x100 -> 1 grid network they take
// milliseconds and bring its bound after 15 s from 4.1-4.2 to 3.9.
constexpr double kRootBoundsShare = 0.05;
constexpr double kRootBoundsWork = 2e8;

// Multiply-adds of `steps` steps with every neuron of layers >= 1 unstable (at most): per step and neuron, two
// rows through the weights of the layers below, back and forth.
double root_bounds_work(const Network& network, int steps) {
  double work = 0.0, below = static_cast<double>(network.hidden_layer(0).weights.stored());
  for (int k = 1; k < network.num_hidden_layers(); ++k) {
    work += 4.0 * network.hidden_width(k) * below * steps;
    below += static_cast<double>(network.hidden_layer(k).weights.stored());
  }
  return work;
}
std::shared_ptr<const NeuronBounds> optimized_root_bounds(const Problem& problem, const SolveOptions& options,
                                                          const Deadline& deadline) {
  const Network& network = problem.network;
  // Where inputs are split the boxes shrink and their own propagation soon beats the root's bounds; as a prior
  // those left the 10 -> 2x100 -> 1 grid network at 0.59x the nodes and bound 0.918 instead of 0.854 after 20 s.
  if (options.bab.slope_steps <= 0 || network.num_hidden_layers() < 2 ||
      network.input_dim() <= options.bab.input_split_dims)
    return nullptr;
  const Eigen::VectorXd& lo = problem.domain.lower;
  const Eigen::VectorXd& hi = problem.domain.upper;
  const int steps = std::max(1, options.bab.slope_steps / 4);
  if (root_bounds_work(network, steps) > kRootBoundsWork) return nullptr;
  auto bounds = std::make_shared<NeuronBounds>(symbolic_bounds(network, lo, hi, &deadline));
  const SplitState none;
  const OptimizedNode root{&lo, &hi, nullptr, &none, nullptr};
  const Deadline share = deadline.share(kRootBoundsShare);
  if (optimize_neuron_bounds(network, root, *bounds, {.iterations = steps}, &share))
    return nullptr;  // contradictory bounds over a box: cannot be, and the plain search would show it
  return bounds;
}

Node root_node(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
               const std::shared_ptr<const NeuronBounds>& prior) {
  Node root;
  root.lo = problem.domain.lower;
  root.hi = problem.domain.upper;
  if (!problem.rows.empty()) {
    RootBounds tightened = tighten_root(problem, deadline, kRootTighteningShare, prior.get());
    root.lo = std::move(tightened.lo);
    root.hi = std::move(tightened.hi);
    root.bound = tightened.prop.objective.upper;
    root.prior = std::make_shared<const NeuronBounds>(std::move(tightened.prop.bounds));
    return root;
  }
  // The root's propagated bound before any worker starts: a run stopped at once still reports a bound.
  root.bound = propagate(problem.network, root.lo, root.hi, problem.objective.sign() * problem.objective.weights,
                         problem.objective.sign() * problem.objective.constant, SplitState{}, prior.get(), &deadline,
                         options.relax_concave)
                   .objective.upper;
  root.prior = prior;
  return root;
}

// Freeing the open nodes left at a time limit goes one allocation at a time and grows faster than their number
// (a 10 -> 2x100 -> 1 grid network at load 5 ended 0.05 s past its limit with 23,000 open nodes, 0.8 s past it with
// 162,000, nearly all of it in free()), so more than a few thousand are freed by a thread of their own and the run
// still ends on time (15.04 s of wall time at a 15 s limit with 112,000).
void free_open_nodes(std::vector<Node> open) {
  constexpr std::size_t kFreeHere = 4096;
  if (open.size() <= kFreeHere) return;
  try {
    std::thread([nodes = std::move(open)] {}).detach();
  } catch (const std::system_error&) {
    // No thread to spare: the nodes, moved into the thread's function, are freed here.
  }
}

// One branch-and-bound search (run_bab) from a root whose neuron bounds are `refined` (valid over P's box; null:
// optimized_root_bounds').
SolveResult search_once(const Problem& problem, const SolveOptions& given, const Deadline& deadline,
                        const RunContext& control, const std::optional<EvaluatedPoint>& start,
                        std::shared_ptr<const NeuronBounds> refined) {
  // A row on the outputs can be met by a post-activation above max(h, 0): concave neurons are exact as
  // y >= h, y >= 0 only for the objective, so with rows they are split like any other.
  SolveOptions options = given;
  if (problem.rows.has_output_rows()) options.relax_concave = false;
  Incumbent incumbent(&deadline);
  seed_incumbent(problem, options, start, incumbent, deadline);
  Frontier frontier(node_budget(problem, options.bab).carried);
  Peers* const peers = control.peers;
  const std::shared_ptr<const NeuronBounds> root_bounds =
      refined ? std::move(refined) : optimized_root_bounds(problem, options, deadline);
  if (peers == nullptr || peers->lead()) frontier.push(root_node(problem, options, deadline, root_bounds));
  Search search(problem, options, deadline, incumbent, frontier, root_bounds);
  std::atomic<long> nodes{0};
  // Over several processes the frontier waits for nodes from the others until the lead sees the search over.
  std::optional<WorkSharing> sharing;
  if (peers != nullptr) {
    frontier.hold();
    sharing.emplace(*peers, sharing_hooks(problem, frontier, search, nodes));
    sharing->round();
  }
  const bool global = sharing && peers->lead();
  WorkerThreads workers(resolve_threads(options.threads));
  const int threads = std::max(1, workers.started());
  // A worker that throws takes its node with it: the frontier would never finish, so the others and this loop end
  // and join() rethrows.
  workers.run([&](int) { search.work(nodes); }, search.abandon_flag());
  // With no thread of its own, the search runs here; over several processes it needs this thread to trade nodes.
  if (workers.started() == 0) {
    if (sharing) throw Error("bab cannot start a worker thread");
    search.work(nodes);
  }

  SolveResult result;
  const double sign = problem.objective.sign();
  double last_bound = kInfinity;
  // The bound trajectory keeps at most ten improvements a second, each of more than 1e-6 relative (the bound
  // moves at every node), and the final bound always.
  double last_time = -kInfinity;
  auto record_bound = [&](bool last) {
    const double bound = std::max(global ? sharing->bound() : frontier.bound(), incumbent.best_value().value_or(-kInfinity));
    const double now = deadline.elapsed();
    const bool worth = bound < last_bound - 1e-6 * std::max(1.0, std::abs(bound)) && now >= last_time + 0.1;
    if (last ? bound < last_bound : worth) {
      last_bound = bound;
      last_time = now;
      result.bound_trajectory.emplace_back(now, sign * bound);
    }
    return bound;
  };
  auto next_progress = std::chrono::steady_clock::now();
  // Over several processes the node limit counts every process's nodes; the lead ends the search at it.
  const auto node_limit = [&] {
    return options.bab.node_limit > 0 && (global ? sharing->nodes() : nodes.load()) >= options.bab.node_limit;
  };
  while (!(sharing ? sharing->over() : frontier.finished()) && !deadline.expired() && !workers.failed() &&
         (sharing || !node_limit())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(sharing ? 5 : 10));
    if (peers != nullptr) {
      trade_points(problem, *peers, incumbent);
      sharing->round();
      if (global && node_limit()) sharing->end();
    }
    const double bound = record_bound(false);
    if (control.on_progress && std::chrono::steady_clock::now() >= next_progress) {
      next_progress += std::chrono::milliseconds(static_cast<long>(1000 * control.progress_interval));
      control.on_progress(progress(deadline, global ? sharing->lps() : search.lps(),
                                   global ? sharing->nodes() : nodes.load(), incumbent, sign, bound));
    }
  }
  // The lead's end (its time limit, a stop, or its caller's stop as in verify) ends every process's search.
  if (global && !sharing->over()) sharing->end();
  frontier.close();
  workers.join();

  result.run.nodes = nodes.load();
  result.run.lps = search.lps();
  bool complete = frontier.finished() && !search.stuck();
  if (sharing) complete = gather(problem, *peers, *sharing, sharing_hooks(problem, frontier, search, nodes).state(),
                                 deadline, incumbent, result);
  const double bound = record_bound(true);
  result.method = method_name(Method::kBab);
  result.run.seed = options.seed;
  result.run.threads = threads;
  result.prover = "bab";
  incumbent.fill(problem, result);
  result.stopped_by = deadline.interrupted() ? StopReason::kInterrupted
                      : complete            ? StopReason::kCompleted
                                            : StopReason::kTimeLimit;
  // With every node closed and none open, the bound is the incumbent itself (up to the pruning tolerance).
  if (std::isfinite(bound)) result.bound = sign * bound;
  // Without a point, no node is pruned by a bound: a search completed with no bound left has proven every node
  // empty (its LP by proven_empty, or its splits by the propagation).
  if (complete && !problem.rows.empty() && !incumbent.best() && bound == -kInfinity)
    result.status = SolveStatus::kInfeasible;
  close_gap(result);
  free_open_nodes(frontier.release_open());
  result.run.seconds = deadline.elapsed();
  return result;
}

// The first search's share of the time left, at most kFirstSearchSeconds: an instance that bound propagation and
// a short search prove is proven as fast as without what follows. Past it, where the search has many neurons to
// split (no rows, more than one hidden layer, inputs not split), the root's hidden layers are refined by LPs with
// Anderson cuts (refine_hidden_layers) within kRefineShare of the time left, and the search starts again from
// them with the first one's best point. Deep networks lose their bounds in the early layers: on a
// 784 -> 4x256 -> 10 network (an L-inf ball of radius 0.025) one second-layer neuron's LP with one round of cuts
// narrows its interval to about 0.77x (CROWN's, and the plain LP's, are within 0.5% of each other) in 0.3 s, and
// the second layer so refined moves the propagated bound on the margin from 13.2 to 5.4, where a search of 60 s
// ends at 4.8-6.0 (bench/results/crown_bench.md, Fourth pass).
constexpr double kFirstSearchShare = 0.1;
constexpr double kFirstSearchSeconds = 10.0;
constexpr double kRefineShare = 0.5;
constexpr int kRefineCutRounds = 1;

bool refines_root(const Problem& problem, const SolveOptions& options, const RunContext& control) {
  const Network& network = problem.network;
  return control.peers == nullptr && problem.rows.empty() && !problem.domain.has_rows() &&
         network.num_hidden_layers() >= 2 && network.input_dim() > options.bab.input_split_dims &&
         options.bab.node_limit == 0;
}

// The neuron bounds of P's box refined from the propagation's (or optimized_root_bounds') within `budget`.
std::shared_ptr<const NeuronBounds> refined_root_bounds(const Problem& problem, const SolveOptions& options,
                                                        const Deadline& budget) {
  const Eigen::VectorXd w = problem.objective.sign() * problem.objective.weights;
  const double c = problem.objective.sign() * problem.objective.constant;
  const std::shared_ptr<const NeuronBounds> optimized = optimized_root_bounds(problem, options, budget);
  NeuronBounds bounds = propagate(problem.network, problem.domain.lower, problem.domain.upper, w, c, SplitState{},
                                  optimized.get(), &budget, false)
                            .bounds;
  refine_hidden_layers(problem.network, problem.domain, w, c, problem.network.num_hidden_layers() - 1,
                       kRefineCutRounds, bounds, budget);
  return std::make_shared<const NeuronBounds>(std::move(bounds));
}

// The second search's result with the first one's counts, its bound if tighter and its bound trajectory before.
SolveResult merged(const Problem& problem, SolveResult first, SolveResult second) {
  const double sign = problem.objective.sign();
  second.run.nodes += first.run.nodes;
  second.run.lps += first.run.lps;
  if (first.bound && (!second.bound || sign * *first.bound < sign * *second.bound)) second.bound = first.bound;
  std::vector<std::pair<double, double>> trajectory = std::move(first.bound_trajectory);
  for (const auto& point : second.bound_trajectory)
    if (trajectory.empty() || sign * point.second < sign * trajectory.back().second) trajectory.push_back(point);
  if (second.bound && (trajectory.empty() || trajectory.back().second != *second.bound))
    trajectory.emplace_back(second.run.seconds, *second.bound);
  second.bound_trajectory = std::move(trajectory);
  close_gap(second);
  return second;
}

}  // namespace

SolveResult run_bab(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                    const RunContext& control, const std::optional<EvaluatedPoint>& start) {
  if (!refines_root(problem, options, control)) return search_once(problem, options, deadline, control, start, nullptr);
  const Deadline first_clock = deadline.limited(std::min(kFirstSearchSeconds, kFirstSearchShare * deadline.remaining()));
  SolveResult first = search_once(problem, options, first_clock, control, start, nullptr);
  if (first.stopped_by != StopReason::kTimeLimit || deadline.expired()) return first;
  std::shared_ptr<const NeuronBounds> refined = refined_root_bounds(problem, options, deadline.share(kRefineShare));
  std::optional<EvaluatedPoint> best = start;
  if (first.status != SolveStatus::kNoSolution && first.x.size() > 0) best = evaluate_point(problem, first.x);
  SolveResult second = search_once(problem, options, deadline, control, best, std::move(refined));
  return merged(problem, std::move(first), std::move(second));
}

}  // namespace reluopt
