// reluopt command-line tool: parse flags -> options -> library -> report (text and JSON).
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli_options.h"
#include "reluopt/error.h"
#include "reluopt/json_io.h"
#include "reluopt/model_io.h"
#include "reluopt/solve.h"
#include "report.h"

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) {
  g_stop.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills the process at once
}

int run_solve(const reluopt::cli::CliOptions& options) {
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

  RunControl control;
  if (options.time_limit >= 0.0) control.time_limit = options.time_limit;
  control.stop = &g_stop;
  const bool show_progress = !options.quiet && isatty(STDERR_FILENO);
  if (show_progress) {
    control.on_progress = [](const Progress& progress) {
      std::fprintf(stderr, "\r%s\033[K", cli::progress_line(progress).c_str());
      std::fflush(stderr);
    };
  }
  std::signal(SIGINT, on_interrupt);
  const SolveResult result = solve(network, domain, objective, options.solve, control);
  std::signal(SIGINT, SIG_DFL);
  if (show_progress) std::fprintf(stderr, "\r\033[K");

  const RunInfo info{options.model, domain.description, objective.description};
  std::cout << cli::summary_text(result, info, model.format + ", " + network.describe()) << std::flush;
  if (options.json_file) {
    std::ofstream out(*options.json_file);
    if (!out) throw Error("cannot write the JSON result to '" + *options.json_file + "'");
    out << result_to_json(result, info);
    if (!out) throw Error("cannot write the JSON result to '" + *options.json_file + "'");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace reluopt;
  try {
    const cli::CliOptions options = cli::parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
    switch (options.command) {
      case cli::Command::kHelp: std::cout << cli::help_text(); return 0;
      case cli::Command::kVersion: std::cout << "reluopt " << RELUOPT_VERSION << "\n"; return 0;
      case cli::Command::kSolve: return run_solve(options);
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
