// reluopt command-line tool: parse flags -> options -> library -> report (text and JSON).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <variant>

#include "algorithms/solve_in_context.h"
#include "cli_options.h"
#include "core/peers.h"
#include "core/worker_threads.h"
#include "evt_command.h"
#include "io/output_file.h"
#include "problem_command.h"
#include "read_within_limit.h"
#include "reluopt/error.h"
#include "reluopt/json_io.h"
#include "reluopt/model_io.h"
#include "reluopt/solve.h"
#include "report.h"
#include "solve_evt.h"
#include "stop_signals.h"
#include "verify_command.h"
#ifdef RELUOPT_WITH_MPI
#include "distributed/mpi_peers.h"
#endif

namespace {

// The stop request of Ctrl-C and SIGTERM (stop_signals.h), for the whole command.
std::atomic<bool>& g_stop = reluopt::cli::stop_request();

// --time-limit counts from the command's start: what loading the model and the domain took is not given to
// the search again. Reading a 48 MB ONNX model takes 6 s, 17 s on a loaded machine
// (bench/results/time_limit_loading.md).
struct CommandClock {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  // What is left of `limit` seconds (infinite: none), never negative.
  double remaining(double limit) const { return std::max(0.0, limit - elapsed()); }
};

// The model, domain and objective a command line names, with the defaults it leaves out.
struct CliProblem {
  reluopt::LoadedModel model;
  reluopt::Domain domain;
  reluopt::Objective objective;
};

// The checks solve() makes of the domain and objective, made here too so that an error names its file.
void validate_naming_files(const reluopt::cli::CliOptions& options, const reluopt::LoadedModel& model,
                           const reluopt::Domain& domain, const reluopt::Objective& objective) {
  const auto in_file = [](const std::optional<std::string>& file, const std::function<void()>& validate) {
    try {
      validate();
    } catch (const reluopt::Error& e) {
      if (!file) throw;
      throw reluopt::Error("'" + *file + "': " + e.what());
    }
  };
  const std::optional<std::string> domain_file =
      options.domain_file ? options.domain_file : model.input_bounds ? std::optional(options.model) : std::nullopt;
  in_file(domain_file, [&] { domain.validate(model.network.input_dim()); });
  in_file(options.objective_file, [&] { objective.validate(model.network.output_dim()); });
}

CliProblem load_problem(const reluopt::cli::CliOptions& options) {
  using namespace reluopt;
  LoadedModel model = read_model(options.model);
  const Network& network = model.network;

  Domain domain;
  if (options.domain_file) {
    domain = read_domain_json(*options.domain_file);
  } else if (model.input_bounds) {
    domain = *model.input_bounds;
    domain.description = "the NNet file's input bounds (default: no --domain given)";
  } else {
    domain = Domain::unit_box(network.input_dim());
    domain.description += " (default: no --domain given)";
  }
  Objective objective;
  if (options.objective_file) {
    objective = read_objective_json(*options.objective_file);
    objective.description = std::string(objective.sense == Sense::kMaximize ? "maximize" : "minimize") +
                            (objective.is_linear() ? " the weighted outputs of " : " the max-min objective of ") +
                            *options.objective_file;
  } else {
    objective = Objective::output(network.output_dim(), 0);
    objective.description += " (default: no --objective given)";
  }
  validate_naming_files(options, model, domain, objective);
  return CliProblem{std::move(model), std::move(domain), std::move(objective)};
}

// The model, or the problem file and its networks, are read on a thread of their own while the command watches
// the limit and the stop request (read_within_limit.h).
template <class Read>
auto read_within_limit(Read read, double time_limit, const CommandClock& clock) {
  return reluopt::cli::read_within_limit(read, [&] { return clock.remaining(time_limit); }, g_stop);
}

std::variant<CliProblem, reluopt::StopReason> load_within_limit(const reluopt::cli::CliOptions& options,
                                                                const CommandClock& clock) {
  return read_within_limit([options] { return load_problem(options); }, options.time_limit, clock);
}

// The problem file of solve --problem and formulate, and the models it names.
std::variant<reluopt::Model, reluopt::StopReason> read_problem_within_limit(const reluopt::cli::CliOptions& options,
                                                                            const CommandClock& clock) {
  return read_within_limit([path = *options.problem_file] { return reluopt::read_problem_json(path); },
                           options.time_limit, clock);
}

std::string not_read_text(const reluopt::cli::CliOptions& options, reluopt::StopReason reason) {
  const std::string what = options.problem_file ? "the problem file" : "the model";
  return reason == reluopt::StopReason::kInterrupted ? "not read: interrupted while reading " + what
                                                     : "not read: the time limit ran out while reading " + what;
}

const std::string& source_file(const reluopt::cli::CliOptions& options) {
  return options.problem_file ? *options.problem_file : options.model;
}

// solve's report when the model was not read in time: no point, the reason, the JSON and values files (from the
// lead alone, once every process has stopped).
[[noreturn]] void report_unread(const reluopt::cli::CliOptions& options, reluopt::StopReason reason,
                                const CommandClock& clock, reluopt::Peers* peers) {
  using namespace reluopt;
  if (peers != nullptr && !peers->lead()) {
    peers->end();
    std::_Exit(0);
  }
  cli::output_begins();
  SolveResult result;
  result.method = method_name(options.solve.method);
  result.stopped_by = reason;
  result.run.seed = options.solve.seed;
  result.run.threads = reluopt::resolve_threads(options.solve.threads);
  const RunInfo info{source_file(options), "not read", "not read", {}, clock.elapsed()};
  std::cout << cli::summary_text(result, info, not_read_text(options, reason)) << std::flush;
  int code = 0;
  try {
    if (options.json_file) write_output_file(*options.json_file, result_to_json(result, info), "the JSON result");
    if (options.values_file) write_values_csv(result, *options.values_file);
  } catch (const Error& e) {
    std::cerr << "reluopt: error: " << e.what() << "\n";
    code = 1;
  }
  code = cli::check_stdout(code);
  std::cerr << std::flush;
  if (peers != nullptr) peers->end();
  std::_Exit(code);
}

int run_relax(const reluopt::cli::CliOptions& options, const CommandClock& clock) {
  using namespace reluopt;
  std::variant<CliProblem, StopReason> loaded = load_within_limit(options, clock);
  if (const StopReason* reason = std::get_if<StopReason>(&loaded)) {
    std::cerr << "reluopt: error: '" << options.model << "' " << not_read_text(options, *reason) << "\n" << std::flush;
    std::_Exit(1);
  }
  const CliProblem& problem = std::get<CliProblem>(loaded);
  RunControl control;
  control.time_limit = clock.remaining(options.time_limit);
  control.stop = &g_stop;
  const RelaxationReport report = relax(problem.model.network, problem.domain, problem.objective, options.solve, control);
  cli::output_begins();
  std::printf("reluopt %s, LP relaxation of the %s formulation\n", RELUOPT_VERSION, report.formulation.c_str());
  std::printf("  model       %s (%s)\n", options.model.c_str(), problem.model.network.describe().c_str());
  std::printf("  domain      %s\n  objective   %s\n", problem.domain.description.c_str(),
              problem.objective.description.c_str());
  std::printf("  bound       %.10g  (root LP relaxation, %s bounds, %d binaries)\n", report.bound,
              report.bound_method.c_str(), report.binaries);
  std::printf("  time        %.3f s for bounds, %.3f s for the LP\n", report.bounds_seconds, report.lp_seconds);
  if (options.json_file) write_output_file(*options.json_file, relaxation_to_json(report), "the JSON result");
  return 0;
}

int run_solve(const reluopt::cli::CliOptions& options, const CommandClock& clock, reluopt::Peers* peers) {
  using namespace reluopt;
  const bool lead = peers == nullptr || peers->lead();
  Peers* sharing = method_spec(options.solve.method).shared ? peers : nullptr;
  if (peers != nullptr && sharing == nullptr) {
    if (!lead) return 0;
    std::cerr << "reluopt: note: --method " << method_name(options.solve.method) << " runs on rank 0 alone; the "
              << peers->size() - 1 << " other ranks wait\n";
  }
  if (options.problem_file) {
    if (!lead) return 0;
    std::variant<Model, StopReason> read = read_problem_within_limit(options, clock);
    if (const StopReason* reason = std::get_if<StopReason>(&read)) report_unread(options, *reason, clock, nullptr);
    return cli::run_problem_solve(options, std::get<Model>(read), clock.remaining(options.time_limit), clock.elapsed(),
                                  &g_stop);
  }
  std::variant<CliProblem, StopReason> loaded = load_within_limit(options, clock);
  if (const StopReason* reason = std::get_if<StopReason>(&loaded)) report_unread(options, *reason, clock, peers);
  const CliProblem& problem = std::get<CliProblem>(loaded);
  const Network& network = problem.model.network;
  const Domain& domain = problem.domain;
  const Objective& objective = problem.objective;

  RunContext control;
  const double load_seconds = clock.elapsed();
  control.time_limit = cli::solve_time_limit(clock.remaining(options.time_limit), options.evt);
  control.stop = &g_stop;
  control.peers = sharing;
  const bool show_progress = lead && !options.quiet && isatty(STDERR_FILENO);
  if (show_progress) {
    control.on_progress = [](const Progress& progress) {
      std::fprintf(stderr, "\r%s\033[K", cli::progress_line(progress).c_str());
      std::fflush(stderr);
    };
  }
  SolveOptions solve_options = options.solve;
  solve_options.sampling.record_values = options.values_file.has_value() || options.evt;
#ifdef RELUOPT_WITH_MPI
  if (sharing != nullptr) solve_options.threads = agreed_threads(*sharing, solve_options.threads);
#endif
  // Ctrl-C and SIGTERM stop the run and the extreme-value analysis after it.
  const SolveResult result = solve(network, domain, objective, solve_options, control);
  cli::output_begins();
  if (show_progress) std::fprintf(stderr, "\r\033[K");
  if (!lead) return 0;

  RunInfo info{options.model, domain.description, objective.description, {}, load_seconds};
  std::cout << cli::summary_text(result, info, problem.model.format + ", " + network.describe());
  cli::SolveEvt evt;
  if (options.evt) {
    evt = cli::analyse_solve_values(result, objective.sense, options.solve, options.evt_plot_file,
                                    cli::evt_deadline(clock.remaining(options.time_limit), 0.0, &g_stop));
    info.sections.emplace_back("evt", evt.json);
    std::cout << evt.summary;
  }
  std::cout << std::flush;
  if (options.json_file) write_output_file(*options.json_file, result_to_json(result, info), "the JSON result");
  if (options.values_file) write_values_csv(result, *options.values_file);
  if (!evt.plot.empty()) cli::draw_evt_plot(evt.plot, *options.evt_plot_file);
  return 0;
}

int run_formulate(const reluopt::cli::CliOptions& options, const CommandClock& clock) {
  using namespace reluopt;
  std::variant<Model, StopReason> read = read_problem_within_limit(options, clock);
  if (const StopReason* reason = std::get_if<StopReason>(&read)) {
    std::cerr << "reluopt: error: '" << *options.problem_file << "' " << not_read_text(options, *reason) << "\n"
              << std::flush;
    std::_Exit(1);
  }
  return cli::run_formulate(options, std::get<Model>(read), clock.remaining(options.time_limit), &g_stop);
}

}  // namespace

// Over several processes (peers not null) only the lead prints; every process gets the same error.
int run_command(int argc, char** argv, const CommandClock& clock, reluopt::Peers* peers) {
  using namespace reluopt;
  std::ostream silent(nullptr);
  const bool lead = peers == nullptr || peers->lead();
  std::ostream& err = lead ? std::cerr : silent;
  try {
    // Under mpirun, commands other than solve and verify run on the lead alone.
    if (!lead && (argc < 2 || (std::string(argv[1]) != "solve" && std::string(argv[1]) != "verify"))) return 0;
    // evt has its own flags (see app/evt_command.cc).
    if (argc >= 2 && std::string(argv[1]) == "evt")
      return cli::run_evt_command(std::vector<std::string>(argv + 2, argv + argc));
    if (argc >= 2 && std::string(argv[1]) == "verify")
      return cli::run_verify_command(std::vector<std::string>(argv + 2, argv + argc), clock.start, &g_stop, peers);
    const cli::CliOptions options = cli::parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
    cli::refuse_clashing_paths(options);
    switch (options.command) {
      case cli::Command::kHelp: std::cout << cli::help_text(); return 0;
      case cli::Command::kVersion: std::cout << "reluopt " << RELUOPT_VERSION << "\n"; return 0;
      case cli::Command::kOptions: std::cout << cli::options_text(options.markdown); return 0;
      case cli::Command::kSolve: return run_solve(options, clock, peers);
      case cli::Command::kRelax: return run_relax(options, clock);
      case cli::Command::kFormulate: return run_formulate(options, clock);
    }
  } catch (const cli::UsageError& e) {
    err << "reluopt: " << e.what() << "\n";
    return 2;
  } catch (const Error& e) {
    err << "reluopt: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    err << "reluopt: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    err << "reluopt: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

// Under mpirun or srun with more than one process, the processes share the run (src/distributed/).
std::unique_ptr<reluopt::Peers> start_peers() {
#ifdef RELUOPT_WITH_MPI
  return reluopt::start_mpi_peers(g_stop);
#else
  return nullptr;
#endif
}

int main(int argc, char** argv) {
  const CommandClock clock;
  std::unique_ptr<reluopt::Peers> peers;
  try {
    peers = start_peers();
  } catch (const reluopt::Error& e) {
    std::cerr << "reluopt: error: " << e.what() << "\n";
    return 1;
  }
  // Only now: a signal during MPI's start-up ends the process at once, as its default does, since a stop request
  // cannot reach a process blocked there (mpirun sends SIGTERM to the others when one rank dies).
  reluopt::cli::catch_stop_signals();
  const int code = reluopt::cli::check_stdout(run_command(argc, argv, clock, peers.get()));
  // A process that failed (its model unreadable on its machine, say) stops the others, whose lead would otherwise
  // wait for its tally.
  if (code != 0) g_stop.store(true);
  peers.reset();  // waits for the other processes
  // A MIP solver thread left behind at the time limit may still run: no static destructor may run under it.
  if (reluopt::abandoned_solver_threads() > 0) {
    std::cout.flush();
    std::fflush(nullptr);
    std::quick_exit(code);
  }
  return code;
}
