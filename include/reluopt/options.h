#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace reluopt {

// How bounds for the MIP formulations are computed (MATH.md §4).
//   kInterval    interval arithmetic only
//   kLp          two LPs (max and min of h_kj) for every neuron over the LP relaxation of the big-M model of
//                layers < k and P, layer by layer with the LP bounds of earlier layers (Fischetti & Jo 2018)
//   kProgressive per layer: interval bounds from the tightened earlier layers, intersected with the symbolic
//                bounds, then LPs only for the neurons that are still unstable
//   kSymbolic    linear bound propagation (DeepPoly / CROWN, docs/MATH.md §10) over the domain's box: no LP
enum class BoundMethod { kInterval, kLp, kProgressive, kSymbolic };

BoundMethod parse_bound_method(const std::string& name);  // throws reluopt::Error naming the method
std::string bound_method_name(BoundMethod method);

struct BoundOptions {
  BoundMethod method = BoundMethod::kProgressive;
  int threads = 0;  // 0: all cores
};

enum class Method {
  kSampling,   // Algorithm 1: sampled activation patterns, one LP each
  kMip,        // big-M MIP (Fischetti & Jo) on CBC
  kMipCuts,    // big-M plus Anderson et al. cuts
  kPartition,  // Tsay et al. partition formulation with N sets
  kEnhanced,   // Algorithm 2: sampling plus local search around each LP optimum
  kBab,        // our branch-and-bound prover: bound propagation and node LPs over input and ReLU splits
  kGradient,   // projected gradient ascent with perturbations from samples of P, then each region's LP
  kWalk,       // the relaxing walk (Tong, Cai & Serra 2024): LP relaxation, then walks through regions
};

// "sampling", "mip", "mip-cuts", "partition", "enhanced", "bab", "gradient", "walk"; throws reluopt::Error naming an unknown method.
Method parse_method(const std::string& name);
std::string method_name(Method method);

// A statistical stopping rule for the sampling methods (reluopt::stopping_rule, MATH.md section 8): at the
// checkpoints first_check, then each time the number of samples has grown by the factor `growth`, fit the
// values X_i of the samples so far and stop when the fitted probability that the best of them is more than eps
// below the true maximum is at most delta. The decision at checkpoint n sees exactly samples 0..n-1 (no sample
// >= n starts before it is known), so the same seed and thread count still give the same answer.
struct StopRuleOptions {
  double eps = 0.0;               // > 0, in the objective's units
  double delta = 0.05;            // in (0, 1)
  long first_check = 100;         // >= 1; the rule needs 100 values for a decision
  double growth = 1.2;            // > 1: checkpoints at max(n + 1, ceil(growth n))
};

struct SamplingOptions {
  long samples = 1000;            // the paper's warm-start setting; with a stop rule, a cap
  int hit_and_run_thinning = 0;   // 0: max(10, d) steps between samples (polyhedral domains only)
  bool record_values = false;     // keep X_i of every sample in SolveResult::sampling.values (16 bytes a sample)
  std::optional<StopRuleOptions> stop_rule;  // sampling and enhanced only; keeps X_i (16 bytes a sample)
};

// How Algorithm 2 searches the regions around an LP optimum x*.
//   kPaper           the paper's local search: a MIP (CBC) over the binaries of the tight neurons
//                    (|h| <= eps at x*), repeated from each improved point, started when
//                    |(max - lp) / max| < gap exactly as written
//   kBranchAndBound  the same MIP by a small depth-first branch-and-bound over warm-started CLP
//   kFlip            hill climbing over single flips of tight neurons (warm-started LPs), with the exact
//                    branch-and-bound when no flip improves and at most 12 neurons are tight
//   kFlipMip         kFlip, and when no flip improves and more than 12 neurons are tight, the paper's MIP by
//                    CBC from the point, within node_limit nodes (kFlipMipNodes when 0)
// All but kPaper start on the gap test made safe near zero: |max - lp| <= gap * max(|max|, |lp|).
enum class LocalSearch { kPaper, kBranchAndBound, kFlip, kFlipMip };
inline constexpr long kFlipMipNodes = 500;

LocalSearch parse_local_search(const std::string& name);
std::string local_search_name(LocalSearch kind);

// What proves the bound at the end of a timed enhanced run.
//   kBab  our branch-and-bound (Method::kBab); bench/results/acceptance_bounds.md
//   kMip  the big-M MIP on CBC with progressive bounds (Method::kMip)
// kBoth: bab and the big-M MIP at once, each on half of the threads; the first proof stops the other.
enum class Prover { kBab, kMip, kBoth };
Prover parse_prover(const std::string& name);  // "bab", "mip", "both"; throws reluopt::Error naming the prover
std::string prover_name(Prover prover);

struct EnhancedOptions {
  double gap = 2.0 / 3.0;       // the paper's exploration/exploitation parameter
  double eps = 1e-6;            // a neuron is tight at x* when |h| <= eps
  LocalSearch local_search = LocalSearch::kFlipMip;
  int max_free = 0;             // cap on free binaries per local MIP (the tightest kept); 0: no cap
  long node_limit = 0;          // kBranchAndBound: cap on node LPs per neighbourhood; kFlipMip: CBC nodes; 0: default
  // With a time limit (and no stop rule), the run ends with a prover started from the best point Algorithm 2
  // found: Algorithm 2 gets at most the first 1 - mip_share of the time and the prover the rest of it, until the
  // limit or a proof, so one run reports a point and a certified gap. 0: Algorithm 2 alone. 0.25 by
  // measurement: with the big-M MIP as the prover, 1x100 d=750, 60 s, seed 777, the run reaches 13.31 against
  // 12.97 without it.
  double mip_share = 0.25;
  Prover prover = Prover::kBab;
  // With a time limit and mip_share > 0, on one process, the prover first runs alone for at most this share of
  // the run (the model MIP when the problem has a model's rows or integers): a proof there ends the run, so what
  // bab or the MIP proves in a fraction of a second the default proves in about that time; otherwise Algorithm 2
  // and the prover follow as above, the prover from the better point of both. 0: no first proof.
  double first_proof = 0.25;
};

struct MipMethodOptions {
  int partitions = 2;             // N for Method::kPartition
  BoundOptions bounds;            // how the big-M / partition bounds are computed
  bool warm_start = false;        // run Algorithm 1 first and give its best point to CBC as a MIP start
  long warm_start_samples = 1000; // the paper's setting
  // Anderson cuts: -1 at the root only, k > 0 every k nodes (then on one CBC thread). Every 100 nodes by
  // measurement (bench/results/cut_frequency.md: geometric mean 0.81 s over 14 instances; root only 1.30 s).
  int cut_frequency = 100;
  bool verbose = false;           // CBC's log on stdout
};

// The branch-and-bound prover (Method::kBab, and the proving share of a timed enhanced run).
struct BabOptions {
  long node_limit = 0;        // stop after this many nodes; 0: no limit
  // A node of a network with more than one hidden layer is split on an input coordinate while the input has at
  // most `input_split_dims` coordinates and more than `relu_split_below` of its neurons are unstable; otherwise,
  // and always with one hidden layer, on a ReLU (docs/MATH.md §11).
  int input_split_dims = 10;
  int relu_split_below = 16;
  // A ReLU-split node of a network with more than one hidden layer over a plain box, with more than 16 neurons
  // free, is bounded by this many projected gradient steps on its slopes and split multipliers (alpha/beta-CROWN,
  // docs/MATH.md §10) instead of its LP; 0: always the LP.
  int slope_steps = 20;
  // Memory the open nodes may take (estimated from their size); above it each worker searches the subtree of the
  // node it takes depth first, so the queue stops growing. 0: no limit. 256 by measurement (docs/MATH.md §11,
  // Memory: the dives' locality also makes a proof faster).
  double memory_mb = 256;
};

// Projected gradient ascent (Method::kGradient, docs/MATH.md §14): from each sample of P, up to ascent_steps
// steps (a forward and a backward pass each) with backtracking, projected onto P; when a step finds no
// improvement, a restart from a random point within perturbation_radius (relative to each box width) of the
// best point, at most `perturbations` times; then the LP of the best point's region.
struct GradientOptions {
  long ascent_steps = 100;
  int perturbations = 3;
  double perturbation_radius = 0.05;
};

// The relaxing walk (Method::kWalk, docs/MATH.md §15): `iterations` rounds of diversification, each forcing
// first-layer, then second-layer neurons away from the best pattern and walking from the relaxation's optimum;
// a layer whose relaxation its fixings make infeasible retries with half of them, infeasible_per_iteration times
// at most. A walk steps `delta` (relative to its last move) past each region's optimum.
struct WalkOptions {
  int iterations = 10;
  int infeasible_per_iteration = 5;
  double delta = 0.1;
};

struct SolveOptions {
  Method method = Method::kEnhanced;
  int threads = 0;                // worker threads for every method; 0: all cores
  std::uint64_t seed = 0;         // every random choice derives from it
  // The concave neurons (formulation/pattern_lp.h) keep no fixed state and get no binary: every LP
  // of the sampling methods optimizes over all their states at once, and the MIP formulations model them by
  // y >= h, y >= 0 alone. Exact, never worse. false: the paper's models, every unstable neuron fixed or binary.
  bool relax_concave = true;
  SamplingOptions sampling;
  EnhancedOptions enhanced;
  MipMethodOptions mip;
  BabOptions bab;
  GradientOptions gradient;
  WalkOptions walk;
  // Cross-check a proven bound before reporting it (docs/MATH.md §12): Algorithm 2's local search from the
  // claimed point and a short run of Algorithm 2 from another seed, each in its share of the time. A point
  // above the bound withdraws it (SolveResult::solver_failure).
  bool check_proof = false;
};

// Upper limit on SolveOptions::threads (and BoundOptions::threads): more threads than any machine has cores
// would only allocate stacks.
inline constexpr int kMaxThreads = 1024;

// Checks every number of `options` and the time limit for range and finiteness (NaN, infinities, negative
// counts, shares outside [0, 1), ...; the ranges of option_table()), and that the stop rule goes with a method
// that samples (method_table()). Throws
// reluopt::Error in one line naming the field, its command-line flag and the value, e.g.
// "sampling.samples (--samples) must be >= 1, not 0". solve(), relax() and the command line call it; the
// time limit is in seconds (infinite: none).
void validate_options(const SolveOptions& options, double time_limit);

// ---- The method table and the option table (src/core/option_table.cc) ----
// Each method and each option is declared once, there. The command line's parser and --help, validate_options,
// the Python keyword names and their conversion, and the tables of docs/CLI.md and docs/PYTHON.md come from
// them (`reluopt options --markdown`; tests/python/test_option_table.py checks flags, names, stubs and docs).
// A new option is a field of SolveOptions, one entry in option_table.cc, its keyword in
// python/reluopt/__init__.pyi, and the docs' tables rewritten by `tests/python/test_option_table.py --write`.

struct MethodSpec {
  Method method;
  std::string name;     // --method NAME, method=NAME, SolveResult::method
  std::string summary;  // one line: what it finds or proves
  bool relaxable;       // relax() takes it: the root LP relaxation of its MIP formulation
  bool stop_rule;       // it samples P, so the statistical stop rule applies
  bool shared;          // under mpirun every process takes part (else rank 0 runs it alone)
};

// In the order of Method's enumerators.
const std::vector<MethodSpec>& method_table();
const MethodSpec& method_spec(Method method);
std::vector<std::string> method_names();
// The names of the methods for which `has` holds, joined as "a, b and c" (`conjunction` "and") or "a, b or c".
std::string method_list(bool MethodSpec::*has, const std::string& conjunction);

// One field an option sets, named as validate_options' messages name it ("sampling.samples").
template <typename T>
struct OptionField {
  using value_type = T;
  std::string path;
  std::function<T(const SolveOptions&)> get;
  std::function<void(SolveOptions&, const T&)> set;  // a choice's set throws reluopt::Error naming a bad name
};
using RealPair = std::optional<std::pair<double, double>>;  // --stop-rule EPS,DELTA; none: no rule
using OptionAccess = std::variant<OptionField<bool>, OptionField<int>, OptionField<long>, OptionField<std::uint64_t>,
                                  OptionField<double>, OptionField<std::string>, OptionField<RealPair>>;

enum class OptionType { kInteger, kReal, kBool, kChoice, kRealPair };
std::string option_type_name(OptionType type);  // "integer", "real", "bool", "choice", "real pair"

// The numbers an integer or real option takes: those between its ends (either may be open or absent), and its
// special values, each with a meaning of its own ({0, "all cores"}), wherever they lie. A real must be finite
// unless infinity_ok.
struct OptionRange {
  std::optional<double> low{}, high{};
  bool low_open = false, high_open = false;
  bool infinity_ok = false;
  std::vector<std::pair<double, std::string>> special{};
};

struct OptionChoice {
  std::string name;
  std::string help;  // one line, or empty
};

struct OptionSpec {
  std::string name;     // the Python keyword: "samples"; the flag is flag()
  std::string metavar;  // "N" in --samples N; empty for a flag without a value (a bool)
  std::string help;     // one line
  std::vector<Method> methods;  // the methods it applies to; empty: every method
  std::vector<OptionChoice> choices;
  OptionRange range;
  // Setting the option sets every field to the same value; its value is the first field's. All have one type.
  std::vector<OptionAccess> fields;

  std::string flag() const;  // "--" and the name with '-' for '_': "--warm-start-samples"
  OptionType type() const;
};

const std::vector<OptionSpec>& option_table();
// The option of a Python name or a flag; nullptr when there is none.
const OptionSpec* find_option(const std::string& name_or_flag);
// A default SolveOptions' value of the option, as text ("1000", "0.05", "progressive", "none", "false").
std::string option_default(const OptionSpec& option);
// The numbers it takes, as validate_options states them: ">= 1", "in [0, 1)", "between 1 and 1024 (0: all cores)".
std::string option_rule(const OptionSpec& option);
// A special value's meaning ("all cores" for threads 0), or "".
std::string special_meaning(const OptionSpec& option, double value);

}  // namespace reluopt
