#include "cli_options.h"

#include <filesystem>
#include <limits>

#include "reluopt/error.h"

namespace reluopt::cli {

namespace {

// "EPS,DELTA"; their ranges are checked by validate_options.
StopRuleOptions parse_stop_rule(const std::string& flag, const std::string& text) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
    throw UsageError(flag + " takes EPS,DELTA (e.g. 0.01,0.05), not '" + text + "'");
  StopRuleOptions rule;
  rule.eps = parse_number<double>(flag, text.substr(0, comma));
  rule.delta = parse_number<double>(flag, text.substr(comma + 1));
  return rule;
}

// Whether two paths name the same file: the same existing regular file, or the same path not yet made.
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status_a = fs::status(a, error), status_b = fs::status(b, error);
  if (fs::exists(status_a) && fs::exists(status_b))
    return fs::is_regular_file(status_a) && fs::equivalent(a, b, error) && !error;
  if (fs::exists(status_a) || fs::exists(status_b)) return false;
  const fs::path normal_a = fs::weakly_canonical(fs::absolute(a, error), error);
  const fs::path normal_b = fs::weakly_canonical(fs::absolute(b, error), error);
  return !error && normal_a == normal_b;
}

}  // namespace

void refuse_clashing_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (!out.path) continue;
    for (const NamedPath& in : inputs)
      if (in.path && same_file(*out.path, *in.path))
        throw UsageError(out.role + " '" + *out.path + "' is " + in.role + " '" + *in.path +
                         "': an output may not replace an input");
    for (std::size_t j = 0; j < i; ++j)
      if (outputs[j].path && same_file(*out.path, *outputs[j].path))
        throw UsageError(outputs[j].role + " and " + out.role + " name the same file '" + *out.path +
                         "': one result would replace the other");
  }
}

void refuse_clashing_paths(const CliOptions& options) {
  refuse_clashing_paths({{"the model", options.model}, {"--domain", options.domain_file},
                         {"--objective", options.objective_file}},
                        {{"--json", options.json_file}, {"--values-out", options.values_file},
                         {"--evt-plot", options.evt_plot_file}});
}

bool FlagReader::next() {
  if (next_ >= args_.size()) return false;
  flag_ = args_[next_++];
  inline_value_.reset();
  if (flag_.rfind("--", 0) == 0 && flag_.find('=') != std::string::npos) {
    inline_value_ = flag_.substr(flag_.find('=') + 1);
    flag_ = flag_.substr(0, flag_.find('='));
  }
  return true;
}

std::string FlagReader::value() {
  if (inline_value_) return *inline_value_;
  if (next_ >= args_.size()) throw UsageError(flag_ + " needs a value");
  return args_[next_++];
}

std::string help_text() {
  return R"(reluopt: optimize a linear function of a trained ReLU network's outputs over a polyhedron.

Usage:
  reluopt solve MODEL [options]     MODEL is an ONNX file (.onnx) or an NNet file (.nnet)
  reluopt relax MODEL [options]     the root LP relaxation bound of a MIP formulation (--method, --bounds,
                                    --partitions), without branching
  reluopt evt VALUES.csv [options]  extreme-value analysis of solve --values-out (right tail; see 'reluopt evt --help')
  reluopt verify MODEL PROP.vnnlib [options]  decide a VNN-LIB property: sat / unsat / unknown / timeout (see 'reluopt verify --help')
  reluopt --help | --version

Options of solve:
  --domain FILE        JSON {"lower": [...], "upper": [...], "A": [[...]], "b": [...]} (A x <= b optional);
                       default [0,1]^d (for NNet files: the file's input bounds)
  --objective FILE     JSON {"sense": "max"|"min", "weights": [one per output], "constant": c};
                       default: maximize output 0
  --method NAME        enhanced   the default portfolio: each sample climbs by the gradient ascent, then
                                  Algorithm 2 of Perakis & Tsiourvas (its region's LP, local search), one
                                  incumbent; with --time-limit the prover ends the run   [enhanced]
                                  (--ascent-steps 0: Algorithm 2 as the paper writes it)
                       sampling   Algorithm 1: one LP per sampled region
                       mip        big-M MIP (Fischetti & Jo) on CBC, with a proven bound
                       mip-cuts   big-M plus Anderson et al. cuts
                       partition  Tsay et al. partition formulation (--partitions N)
                       bab        our branch-and-bound prover: bound propagation and node LPs, splitting
                                  inputs (small d) and ReLUs; a point and a proven bound at any time
                       gradient   projected gradient ascent with perturbations from each sample, then
                                  the LP of the best point's region
                       walk       the relaxing walk (Tong, Cai & Serra): big-M LP relaxation, walks
                                  through regions, diversified by fixing first/second-layer neurons
  --samples N          number of samples (enhanced, sampling, gradient)        [1000]
  --concave-neurons M  every method: free | fixed                              [free]
                       free   unstable last-layer neurons whose weight in the objective is <= 0 keep no
                              fixed state in the LPs and get no binary in the MIPs: y >= h, y >= 0 is
                              exact for them, so one LP covers all their states
                       fixed  the paper's LPs and MIPs: every unstable neuron fixed or binary
  --local-search KIND  enhanced: flip | flip-mip | bnb | paper                  [flip-mip]
                       flip-mip  flips, then the exact check: ours when <= 12 tight, else the paper's
                              local MIP on CBC (--node-limit nodes, 500 by default)
                       flip   single flips of tight neurons by warm-started LPs, exact check when <= 12 tight
                       bnb    exact local MIP by our branch-and-bound on warm-started CLP
                       paper  the paper's local MIP on CBC and its gap test, as written
  --gap G              enhanced: local search when |best - lp| <= G max(|best|, |lp|)   [0.6667]
  --eps E              enhanced: a neuron is tight when |pre-activation| <= E   [1e-6]
  --max-free K         enhanced: at most K tight neurons per local search (0: all)   [0]
  --mip-share F        enhanced, with --time-limit: Algorithm 2 gets at most the first 1 - F of the run, the
                       prover the rest, from the best point (until the limit or a proof); 0: Algorithm 2
                       alone                                                   [0.25]
  --prover P           enhanced, with --time-limit: bab | mip (the big-M MIP on CBC) | both (bab and the
                       MIP at once, each on half of the threads; the first proof ends both)   [bab]
  --check-proof        before reporting a bound, search for a point beyond it: Algorithm 2's local search
                       from the reported point and 100 samples from seed + 1 (with --time-limit, in the
                       last 10% of it); a point found beyond the bound withdraws it (solver_failure)
  --node-limit N       enhanced: bnb node LPs, flip-mip CBC nodes per local MIP (0: no limit / 500);
                       bab: nodes of the search (0: no limit)                  [0]
  --input-split-dims D bab, 2+ hidden layers: split input coordinates only when d <= D   [10]
  --relu-split-below U bab: ... and while more than U neurons are unstable      [16]
  --bab-memory MB      bab: memory for its open nodes; beyond it, depth-first dives (0: no limit)   [256]
  --ascent-steps N     gradient, enhanced: steps (forward and backward passes) per sample   [100]
  --perturbations N    gradient, enhanced: restarts near the best point when an ascent is stuck   [3]
  --perturbation-radius R  gradient, enhanced: their radius, relative to each box width   [0.05]
  --walk-iterations N  walk: diversification rounds                            [10]
  --time-limit S       wall-clock limit in seconds from the command's start (loading the model counts);
                       whichever of N and S comes first ends the run
  --stop-rule EPS,DELTA  enhanced, sampling: stop once the best value is within EPS of the fitted maximum
                       with probability >= 1 - DELTA (checked at 100 samples, then each time the samples grew
                       by 20%); --samples becomes a cap, unlimited unless given
  --threads T          worker threads (0: all cores)                           [all cores]
  --seed K             random seed; the same seed and thread count give the same answer   [0]
  --partitions N       sets per neuron for --method partition                  [2]
  --bounds KIND        neuron bounds for the MIP methods and relax: interval | lp | progressive | symbolic
                       (symbolic: linear bound propagation, no LP; progressive: interval and symbolic,
                       then LPs for the neurons still unstable)                  [progressive]
  --warm-start sampling  run Algorithm 1 first and give its best point to the MIP as a start
  --warm-start-samples N samples of that warm start (inside the same time limit)   [1000]
  --cut-frequency K    mip-cuts: separate Anderson cuts at the root only (-1) or every K nodes
                       (then CBC runs on one thread)                                   [100]
  --verbose            show the MIP solver's log
  --json FILE          write the result as JSON (a temporary file renamed into place: complete or absent)
  --values-out FILE    enhanced, sampling: write X_i, the value reached from each sample, as CSV
  --evt                enhanced, sampling: extreme-value analysis of the run's X_i, in the summary and under
                       "evt" in the JSON (for a minimization, of -g; the optimum estimate in the user's sense);
                       eps and delta of N(eps, delta) from --stop-rule, else 1% of the range and 0.05
  --evt-plot FILE      --evt, and draw its histogram with the top three fits as a PNG (needs gnuplot)
  --quiet              no progress line on stderr

Exit codes: 0 the run finished (whatever it found: see status), 1 bad input, 2 bad command line.
Ctrl-C or SIGTERM stops the run and still reports and writes the best point found. Signals within a second of
the first are the same request (GNU timeout sends two at once); a later one ends the process, unless its result
is being written.
)";
}

CliOptions parse_command_line(const std::vector<std::string>& args) {
  CliOptions options;
  if (args.empty()) throw UsageError("no command given (try 'reluopt --help')");
  const std::string& command = args[0];
  if (command == "--help" || command == "-h" || command == "help") return options;
  if (command == "--version" || command == "-V") {
    options.command = Command::kVersion;
    return options;
  }
  if (command == "solve") {
    options.command = Command::kSolve;
  } else if (command == "relax") {
    options.command = Command::kRelax;
    options.solve.method = Method::kMip;
  } else {
    throw UsageError("unknown command '" + command + "' (try 'reluopt --help')");
  }

  bool samples_given = false;
  for (FlagReader reader(args, 1); reader.next();) {
    const std::string& flag = reader.flag();
    auto value = [&] { return reader.value(); };
    const bool inline_value = reader.has_inline_value();
    if (flag == "--help" || flag == "-h") {
      options.command = Command::kHelp;
      return options;
    } else if (flag == "--domain") {
      options.domain_file = value();
    } else if (flag == "--objective") {
      options.objective_file = value();
    } else if (flag == "--method") {
      try {
        options.solve.method = parse_method(value());
      } catch (const Error& e) {
        throw UsageError(e.what());
      }
    } else if (flag == "--samples") {
      options.solve.sampling.samples = parse_number<long>(flag, value());
      samples_given = true;
    } else if (flag == "--stop-rule") {
      options.solve.sampling.stop_rule = parse_stop_rule(flag, value());
    } else if (flag == "--evt") {
      if (inline_value) throw UsageError("--evt takes no value");
      options.evt = true;
    } else if (flag == "--evt-plot") {
      options.evt_plot_file = value();
      options.evt = true;
    } else if (flag == "--time-limit") {
      options.time_limit = parse_number<double>(flag, value());
    } else if (flag == "--threads") {
      options.solve.threads = parse_number<int>(flag, value());  // 0: all cores, checked by validate_options
    } else if (flag == "--seed") {
      options.solve.seed = parse_number<std::uint64_t>(flag, value());
    } else if (flag == "--local-search") {
      try {
        options.solve.enhanced.local_search = parse_local_search(value());
      } catch (const Error& e) {
        throw UsageError(e.what());
      }
    } else if (flag == "--concave-neurons") {
      const std::string mode = value();
      if (mode != "free" && mode != "fixed")
        throw UsageError("--concave-neurons must be free or fixed, not '" + mode + "'");
      options.solve.relax_concave = mode == "free";
    } else if (flag == "--gap") {
      options.solve.enhanced.gap = parse_number<double>(flag, value());
    } else if (flag == "--eps") {
      options.solve.enhanced.eps = parse_number<double>(flag, value());
    } else if (flag == "--mip-share") {
      options.solve.enhanced.mip_share = parse_number<double>(flag, value());
    } else if (flag == "--prover") {
      try {
        options.solve.enhanced.prover = parse_prover(value());
      } catch (const Error& e) {
        throw UsageError(e.what());
      }
    } else if (flag == "--max-free") {
      options.solve.enhanced.max_free = parse_number<int>(flag, value());
    } else if (flag == "--node-limit") {
      options.solve.enhanced.node_limit = parse_number<long>(flag, value());
      options.solve.bab.node_limit = options.solve.enhanced.node_limit;
    } else if (flag == "--input-split-dims") {
      options.solve.bab.input_split_dims = parse_number<int>(flag, value());
    } else if (flag == "--relu-split-below") {
      options.solve.bab.relu_split_below = parse_number<int>(flag, value());
    } else if (flag == "--bab-memory") {
      options.solve.bab.memory_mb = parse_number<double>(flag, value());
    } else if (flag == "--ascent-steps") {
      options.solve.gradient.ascent_steps = parse_number<long>(flag, value());
    } else if (flag == "--perturbations") {
      options.solve.gradient.perturbations = parse_number<int>(flag, value());
    } else if (flag == "--perturbation-radius") {
      options.solve.gradient.perturbation_radius = parse_number<double>(flag, value());
    } else if (flag == "--walk-iterations") {
      options.solve.walk.iterations = parse_number<int>(flag, value());
    } else if (flag == "--partitions") {
      options.solve.mip.partitions = parse_number<int>(flag, value());
    } else if (flag == "--bounds") {
      try {
        options.solve.mip.bounds.method = parse_bound_method(value());
      } catch (const Error& e) {
        throw UsageError(e.what());
      }
    } else if (flag == "--warm-start") {
      const std::string kind = value();
      if (kind != "sampling") throw UsageError("unknown warm start '" + kind + "' for --warm-start (available: sampling)");
      options.solve.mip.warm_start = true;
    } else if (flag == "--warm-start-samples") {
      options.solve.mip.warm_start_samples = parse_number<long>(flag, value());
    } else if (flag == "--cut-frequency") {
      options.solve.mip.cut_frequency = parse_number<int>(flag, value());
      if (options.solve.mip.cut_frequency == -1) options.solve.mip.cut_frequency = -99;
    } else if (flag == "--verbose") {
      if (inline_value) throw UsageError("--verbose takes no value");
      options.solve.mip.verbose = true;
    } else if (flag == "--values-out") {
      options.values_file = value();
    } else if (flag == "--json") {
      options.json_file = value();
    } else if (flag == "--check-proof") {
      options.solve.check_proof = true;
    } else if (flag == "--quiet" || flag == "-q") {
      if (inline_value) throw UsageError("--quiet takes no value");
      options.quiet = true;
    } else if (flag.rfind("-", 0) == 0 && flag.size() > 1) {
      throw UsageError("unknown option '" + flag + "' (try 'reluopt --help')");
    } else if (options.model.empty()) {
      options.model = flag;
    } else {
      throw UsageError("unexpected argument '" + flag + "' (only one MODEL is accepted)");
    }
  }
  if (options.model.empty()) throw UsageError(command + " needs a MODEL file (try 'reluopt --help')");
  if (options.command == Command::kRelax &&
      (options.solve.method == Method::kSampling || options.solve.method == Method::kEnhanced ||
       options.solve.method == Method::kBab || options.solve.method == Method::kGradient ||
       options.solve.method == Method::kWalk))
    throw UsageError("relax needs a MIP method: --method mip, mip-cuts or partition");
  if (options.evt && options.command != Command::kSolve) throw UsageError("--evt and --evt-plot apply to solve");
  if (options.solve.sampling.stop_rule) {
    if (options.command != Command::kSolve ||
        (options.solve.method != Method::kSampling && options.solve.method != Method::kEnhanced))
      throw UsageError("--stop-rule applies to solve with --method enhanced or sampling");
    if (!samples_given) options.solve.sampling.samples = std::numeric_limits<long>::max();
  }
  try {
    validate_options(options.solve, options.time_limit);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  return options;
}

}  // namespace reluopt::cli
