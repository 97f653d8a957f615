#include "problem_command.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "algorithms/model_mip.h"
#include "algorithms/model_objective.h"
#include "core/model_reduction.h"
#include "core/number_text.h"
#include "formulation/model_file.h"
#include "io/output_file.h"
#include "reluopt/error.h"
#include "reluopt/json_io.h"
#include "reluopt/solve.h"
#include "report.h"
#include "stop_signals.h"

namespace reluopt::cli {

namespace {

std::string array(const Eigen::VectorXd& values) {
  std::string out = "[";
  for (Eigen::Index i = 0; i < values.size(); ++i) out += (i ? ", " : "") + round_trip_text(values[i]);
  return out + "]";
}

// {"name": [values], ...} (names are letters, digits, '_', '.', '-': nothing to escape).
template <typename Entries>
std::string named_values(const Entries& entries, const std::vector<Eigen::VectorXd>& values) {
  std::string out = "{";
  for (std::size_t k = 0; k < values.size(); ++k)
    out += (k ? ", \"" : "\"") + entries[k].name + "\": " + array(values[k]);
  return out + "}";
}

std::string shape(const Model& model) {
  return std::to_string(model.num_variables()) + " variables, " + std::to_string(model.networks.size()) +
         " networks, " + std::to_string(model.constraints.size()) + " constraints";
}

// The model's run; an error names the problem file.
ModelResult solve_in_file(const CliOptions& options, const Model& model, const RunControl& control) {
  try {
    return solve(model, options.solve, control);
  } catch (const Error& e) {
    throw Error("problem file '" + *options.problem_file + "': " + e.what());
  }
}

}  // namespace

int run_problem_solve(const CliOptions& options, const Model& model, double time_limit, double load_seconds,
                      std::atomic<bool>* stop) {
  RunControl control;
  control.time_limit = time_limit;
  control.stop = stop;
  const bool show_progress = !options.quiet && isatty(STDERR_FILENO);
  if (show_progress) {
    control.on_progress = [](const Progress& progress) {
      std::fprintf(stderr, "\r%s\033[K", progress_line(progress).c_str());
      std::fflush(stderr);
    };
  }
  const ModelResult run = solve_in_file(options, model, control);
  output_begins();
  if (show_progress) std::fprintf(stderr, "\r\033[K");
  RunInfo info{*options.problem_file, "the problem file's variables and constraints", "the problem file's objective",
               {}, load_seconds};
  std::vector<Eigen::VectorXd> variables, outputs;
  if (run.point) {
    variables = run.point->variables;
    outputs = run.point->outputs;
  }
  info.sections.emplace_back("variables", named_values(model.variables, variables));
  info.sections.emplace_back("networks", named_values(model.networks, outputs));
  std::cout << summary_text(run.result, info, shape(model));
  for (std::size_t b = 0; b < variables.size(); ++b)
    std::cout << "  " << model.variables[b].name << " = " << array(variables[b]) << "\n";
  for (std::size_t k = 0; k < outputs.size(); ++k)
    std::cout << "  " << model.networks[k].name << " = " << array(outputs[k]) << "\n";
  std::cout << std::flush;
  if (options.json_file) write_output_file(*options.json_file, result_to_json(run.result, info), "the JSON result");
  return 0;
}

int run_formulate(const CliOptions& options, const Model& model, double time_limit, std::atomic<bool>* stop) {
  const std::string& path = *options.problem_file;
  const ReducedModel reduced = [&] {
    try {
      return with_linear_objective(reduce(model));
    } catch (const Error& e) {
      throw Error("problem file '" + path + "': " + e.what());
    }
  }();
  // The paper's big-M model, every unstable neuron with its binary: a user may add rows of their own.
  SolveOptions solve = options.solve;
  solve.method = Method::kMip;
  solve.relax_concave = false;
  const Deadline deadline(time_limit, stop);
  const MipFormulation f = model_formulation(reduced, solve, deadline);
  const std::string& out = *options.out_file;
  const bool lp = out.size() > 3 && out.compare(out.size() - 3, 3, ".lp") == 0;
  const std::string text = lp ? to_lp_format(f.model, model.sense) : to_free_mps(f.model, model.sense);
  write_output_file(out, text, "the formulation");
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", deadline.elapsed());
  output_begins();
  int integer_inputs = 0;
  for (bool integer : reduced.integer) integer_inputs += integer ? 1 : 0;
  std::cout << "reluopt " << RELUOPT_VERSION << ", big-M formulation of " << path << " (" << shape(model) << ")\n"
            << "  written     " << out << (lp ? " (CPLEX LP)" : " (free MPS)") << "\n"
            << "  size        " << f.model.num_cols() << " columns (" << f.model.num_integer() - integer_inputs
            << " binaries, " << integer_inputs << " integer inputs), " << f.model.num_rows() << " rows\n"
            << "  bounds      " << bound_method_name(solve.mip.bounds.method) << " (" << seconds << " s)\n"
            << "  inputs      columns x0.. are u, the variables left after equalities (docs/PROBLEM.md §2)\n";
  return 0;
}

}  // namespace reluopt::cli
