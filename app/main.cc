// reluopt command-line tool: parse flags -> options -> library -> report (text and JSON).
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli_options.h"
#include "evt_command.h"
#include "reluopt/error.h"
#include "reluopt/json_io.h"
#include "reluopt/model_io.h"
#include "reluopt/solve.h"
#include "report.h"
#include "solve_evt.h"

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) {
  g_stop.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills the process at once
}

// The model, domain and objective a command line names, with the defaults it leaves out.
struct CliProblem {
  reluopt::LoadedModel model;
  reluopt::Domain domain;
  reluopt::Objective objective;
};

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
                            " the weighted outputs of " + *options.objective_file;
  } else {
    objective = Objective::output(network.output_dim(), 0);
    objective.description += " (default: no --objective given)";
  }
  return CliProblem{std::move(model), std::move(domain), std::move(objective)};
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out || !(out << text)) throw reluopt::Error("cannot write the JSON result to '" + path + "'");
}

int run_relax(const reluopt::cli::CliOptions& options) {
  using namespace reluopt;
  const CliProblem problem = load_problem(options);
  RunControl control;
  if (options.time_limit >= 0.0) control.time_limit = options.time_limit;
  control.stop = &g_stop;
  std::signal(SIGINT, on_interrupt);
  const RelaxationReport report = relax(problem.model.network, problem.domain, problem.objective, options.solve, control);
  std::signal(SIGINT, SIG_DFL);
  std::printf("reluopt %s, LP relaxation of the %s formulation\n", RELUOPT_VERSION, report.formulation.c_str());
  std::printf("  model       %s (%s)\n", options.model.c_str(), problem.model.network.describe().c_str());
  std::printf("  domain      %s\n  objective   %s\n", problem.domain.description.c_str(),
              problem.objective.description.c_str());
  std::printf("  bound       %.10g  (root LP relaxation, %s bounds, %d binaries)\n", report.bound,
              report.bound_method.c_str(), report.binaries);
  std::printf("  time        %.3f s for bounds, %.3f s for the LP\n", report.bounds_seconds, report.lp_seconds);
  if (options.json_file) write_file(*options.json_file, relaxation_to_json(report));
  return 0;
}

int run_solve(const reluopt::cli::CliOptions& options) {
  using namespace reluopt;
  const CliProblem problem = load_problem(options);
  const Network& network = problem.model.network;
  const Domain& domain = problem.domain;
  const Objective& objective = problem.objective;

  RunControl control;
  if (options.time_limit >= 0.0) control.time_limit = cli::solve_time_limit(options.time_limit, options.evt);
  control.stop = &g_stop;
  const bool show_progress = !options.quiet && isatty(STDERR_FILENO);
  if (show_progress) {
    control.on_progress = [](const Progress& progress) {
      std::fprintf(stderr, "\r%s\033[K", cli::progress_line(progress).c_str());
      std::fflush(stderr);
    };
  }
  std::signal(SIGINT, on_interrupt);
  SolveOptions solve_options = options.solve;
  solve_options.sampling.record_values = options.values_file.has_value() || options.evt;
  const SolveResult result = solve(network, domain, objective, solve_options, control);
  if (show_progress) std::fprintf(stderr, "\r\033[K");

  RunInfo info{options.model, domain.description, objective.description, {}};
  std::cout << cli::summary_text(result, info, problem.model.format + ", " + network.describe());
  cli::SolveEvt evt;
  if (options.evt) {
    evt = cli::analyse_solve_values(result, objective.sense, options.solve, options.evt_plot_file,
                                    cli::evt_deadline(options.time_limit, result.seconds, &g_stop));
    info.sections.emplace_back("evt", evt.json);
    std::cout << evt.summary;
  }
  std::signal(SIGINT, SIG_DFL);
  std::cout << std::flush;
  if (options.json_file) write_file(*options.json_file, result_to_json(result, info));
  if (options.values_file) write_values_csv(result, *options.values_file);
  if (!evt.plot.empty()) cli::draw_evt_plot(evt.plot, *options.evt_plot_file);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace reluopt;
  try {
    // evt has its own flags (see app/evt_command.cc).
    if (argc >= 2 && std::string(argv[1]) == "evt")
      return cli::run_evt_command(std::vector<std::string>(argv + 2, argv + argc));
    const cli::CliOptions options = cli::parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
    switch (options.command) {
      case cli::Command::kHelp: std::cout << cli::help_text(); return 0;
      case cli::Command::kVersion: std::cout << "reluopt " << RELUOPT_VERSION << "\n"; return 0;
      case cli::Command::kSolve: return run_solve(options);
      case cli::Command::kRelax: return run_relax(options);
    }
  } catch (const cli::UsageError& e) {
    std::cerr << "reluopt: " << e.what() << "\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "reluopt: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "reluopt: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "reluopt: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
