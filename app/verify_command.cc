// reluopt verify: a VNN-LIB property of a network, answered as VNN-COMP expects (docs/VERIFY.md).
#include "verify_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <variant>

#include <nlohmann/json.hpp>

#include "algorithms/solve_in_context.h"
#include "backstop.h"
#include "cli_options.h"
#include "core/number_text.h"
#include "core/peers.h"
#include "io/json_numbers.h"
#include "io/output_file.h"
#include "read_within_limit.h"
#include "report.h"
#include "reluopt/error.h"
#include "reluopt/model_io.h"
#include "reluopt/verify.h"
#include "reluopt/vnnlib.h"
#include "stop_signals.h"

namespace reluopt::cli {

namespace {

struct VerifyCommandOptions {
  std::string model;
  std::string property;
  double time_limit = std::numeric_limits<double>::infinity();
  std::optional<std::string> result_file;
  std::optional<std::string> json_file;
  VerifyOptions verify;
  bool quiet = false;
  bool help = false;
};

void take_flag(const std::string& flag, FlagReader& reader, VerifyCommandOptions& options) {
  auto value = [&] { return reader.value(); };
  if (flag == "--time-limit") {
    options.time_limit = parse_time_limit(flag, value());
  } else if (flag == "--result-file") {
    options.result_file = value();
  } else if (flag == "--json") {
    options.json_file = value();
  } else if (flag == "--threads") {
    options.verify.threads = parse_number<int>(flag, value());
    if (options.verify.threads < 0 || options.verify.threads > kMaxThreads)
      throw UsageError("--threads must be a whole number from 0 (all cores) to 1024");
  } else if (flag == "--seed") {
    options.verify.seed = parse_number<std::uint64_t>(flag, value());
  } else if (flag == "--quiet" || flag == "-q") {
    if (reader.has_inline_value()) throw UsageError(flag + " takes no value");
    options.quiet = true;
  } else {
    throw UsageError("unknown option '" + flag + "' for verify (try 'reluopt verify --help')");
  }
}

VerifyCommandOptions parse_verify_arguments(const std::vector<std::string>& args) {
  VerifyCommandOptions options;
  for (FlagReader reader(args, 0); reader.next();) {
    const std::string& flag = reader.flag();
    if (flag == "--help" || flag == "-h") {
      options.help = true;
      return options;
    }
    if (flag.rfind("-", 0) == 0 && flag.size() > 1) take_flag(flag, reader, options);
    else if (options.model.empty()) options.model = flag;
    else if (options.property.empty()) options.property = flag;
    else throw UsageError("unexpected argument '" + flag + "' (verify takes MODEL and PROPERTY.vnnlib)");
  }
  if (options.property.empty()) throw UsageError("verify needs MODEL and PROPERTY.vnnlib (try 'reluopt verify --help')");
  return options;
}

// The VNN-COMP result: the status line, and for sat every X_i then every Y_j.
std::string result_text(const VerifyResult& result) {
  std::string text = verify_status_name(result.status) + "\n";
  if (result.status != VerifyStatus::kSat) return text;
  std::string items;
  for (Eigen::Index i = 0; i < result.x.size(); ++i)
    items += "(X_" + std::to_string(i) + " " + round_trip_text(result.x[i]) + ")\n";
  for (Eigen::Index j = 0; j < result.y.size(); ++j)
    items += "(Y_" + std::to_string(j) + " " + round_trip_text(result.y[j]) + ")\n";
  items.pop_back();
  return text + "(" + items + ")\n";
}

std::string result_json(const VerifyResult& result, const VerifyCommandOptions& options) {
  nlohmann::json cases = nlohmann::json::array();
  for (const VerifyCaseReport& report : result.cases)
    cases.push_back({{"best_margin", finite_or_null(report.best_margin)},
                     {"bound", report.bound ? finite_or_null(*report.bound) : nlohmann::json()},
                     {"decided", report.decided},
                     {"seconds", report.seconds},
                     {"folded", {{"disjuncts_read", report.disjuncts_read},
                                 {"constraints_read", report.constraints_read},
                                 {"disjuncts", report.disjuncts},
                                 {"constraints", report.constraints},
                                 {"runs", report.runs},
                                 {"constraints_left_out", report.constraints_left_out}}}});
  nlohmann::json doc = {{"status", verify_status_name(result.status)},
                        {"model", options.model},
                        {"property", options.property},
                        {"seconds", result.seconds},
                        {"unsat_margin", kUnsatMargin},
                        {"cases", cases},
                        {"version", RELUOPT_VERSION}};
  if (result.status == VerifyStatus::kSat)
    doc["counterexample"] = {{"x", std::vector<double>(result.x.begin(), result.x.end())},
                             {"y", std::vector<double>(result.y.begin(), result.y.end())}};
  return doc.dump(2) + "\n";
}

void print_cases(const VerifyResult& result) {
  for (std::size_t k = 0; k < result.cases.size(); ++k) {
    const VerifyCaseReport& report = result.cases[k];
    // Folding (docs/VERIFY.md) is mentioned when it left out constraints or split the disjuncts.
    const std::string folded =
        report.constraints == report.constraints_read && report.runs <= 1 && report.constraints_left_out == 0 ? "" :
        " (folded: " + std::to_string(report.constraints) + " of " + std::to_string(report.constraints_read) +
        " output constraints left, " + std::to_string(report.runs) + (report.runs == 1 ? " run" : " runs") +
        (report.constraints_left_out == 0 ? ")" :
             ", " + std::to_string(report.constraints_left_out) + " of the least binding left out of the runs)");
    std::fprintf(stderr, "box %zu: best margin %s, proven bound %s, %.3f s%s\n", k,
                 std::isfinite(report.best_margin) ? round_trip_text(report.best_margin).c_str() : "none",
                 report.bound ? round_trip_text(*report.bound).c_str() : "none", report.seconds, folded.c_str());
  }
  std::fprintf(stderr, "%s in %.3f s\n", verify_status_name(result.status).c_str(), result.seconds);
}

// Prints the answer (stdout, the result file, the JSON) from the lead alone.
void report_verify(const VerifyResult& result, const VerifyCommandOptions& options) {
  const std::string text = result_text(result);
  std::cout << text << std::flush;
  if (!options.quiet) print_cases(result);
  if (options.result_file) write_output_file(*options.result_file, text, "the result file");
  if (options.json_file) write_output_file(*options.json_file, result_json(result, options), "the JSON result");
}

// An answer without the run's: `timeout` when the time ran out, `unknown` when a stop was asked for
// (docs/VERIFY.md), with `why` on stderr. The run (or the model's reader) may still be going, so the command ends
// here by std::_Exit.
[[noreturn]] void report_undecided(VerifyStatus status, const VerifyCommandOptions& options, double seconds,
                                   const std::string& why) {
  output_begins();
  if (!options.quiet) std::cerr << "reluopt: " << why << "\n";
  VerifyResult result;
  result.status = status;
  result.seconds = seconds;
  int code = 0;
  try {
    report_verify(result, options);
  } catch (const Error& e) {
    std::cerr << "reluopt: error: " << e.what() << "\n";
    code = 1;
  }
  code = check_stdout(code);
  std::cerr << std::flush;
  std::_Exit(code);
}

// How long after its limit verify's Backstop answers `timeout` for a run that is still going.
constexpr double kBackstopSeconds = 0.3;

// Armed once the model and the property are read (both readers answer at the limit themselves), for the run:
// kBackstopSeconds after the limit, and never sooner than that from now, so that a run that starts late still
// answers by itself when it can. Over several processes every one takes part in the run to its end: no backstop
// there, nor without a limit.
std::unique_ptr<Backstop> make_backstop(const VerifyCommandOptions& options, Backstop::Clock::time_point start,
                                        const std::function<double()>& seconds_since_start, const Peers* peers) {
  if (peers != nullptr || options.time_limit > kLongestTimeLimit) return nullptr;
  const auto seconds = [](double s) {
    return std::chrono::duration_cast<Backstop::Clock::duration>(std::chrono::duration<double>(s));
  };
  const auto when = std::max(start + seconds(options.time_limit + kBackstopSeconds),
                             Backstop::Clock::now() + seconds(kBackstopSeconds));
  return std::make_unique<Backstop>(when, [&options, seconds_since_start] {
    char why[100];
    std::snprintf(why, sizeof why, "the run had not ended %g s after the time limit: stopped there", kBackstopSeconds);
    report_undecided(VerifyStatus::kTimeout, options, seconds_since_start(), why);
  });
}

}  // namespace

std::string verify_help_text() {
  return R"(Usage: reluopt verify MODEL PROPERTY.vnnlib [options]

Decides a VNN-LIB property of a ReLU network (docs/VERIFY.md): sat (an input in the unsafe set, re-checked by a
forward pass), unsat (proven: the margin's bound is below -1e-4 on every input box), unknown, or timeout.
Prints the answer in the VNN-COMP format: the status line, and for sat ((X_0 v) ... (Y_0 v) ...).

  --time-limit S       wall-clock limit in seconds from the command's start      [none]
  --result-file F      write the answer to F as well
  --json F             status, per input box the best margin and proven bound, and the time
  --threads T          worker threads, shared by the search and the prover (0: all cores)   [all cores]
  --seed K             random seed                                               [0]
  --quiet              no per-box summary on stderr

Exit codes: 0 for any answer, 1 bad input, 2 bad command line.
)";
}

int run_verify_command(const std::vector<std::string>& args, std::chrono::steady_clock::time_point start,
                       const std::atomic<bool>* stop, Peers* peers) {
  const VerifyCommandOptions options = parse_verify_arguments(args);
  if (options.help) {
    if (peers == nullptr || peers->lead()) std::cout << verify_help_text();
    return 0;
  }
  refuse_clashing_paths({{"the model", options.model}, {"the property", options.property}},
                        {{"--result-file", options.result_file}, {"--json", options.json_file}});
  const std::function<double()> seconds_since_start = [start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::unique_ptr<Backstop> backstop;
  // Over several processes each reads the whole model and property, so that all of them verify the same one.
  std::optional<LoadedModel> model;
  if (peers == nullptr && stop != nullptr) {
    auto read = read_within_limit([path = options.model] { return read_model(path); },
                                  [&] { return std::max(0.0, options.time_limit - seconds_since_start()); }, *stop);
    if (const StopReason* reason = std::get_if<StopReason>(&read)) {
      const bool interrupted = *reason == StopReason::kInterrupted;
      report_undecided(interrupted ? VerifyStatus::kUnknown : VerifyStatus::kTimeout, options, seconds_since_start(),
                       "the model '" + options.model + "' was not read: " +
                           (interrupted ? "interrupted" : "the time limit ran out"));
    }
    model = std::move(std::get<LoadedModel>(read));
  } else {
    model = read_model(options.model);
  }
  const Deadline reading =
      peers == nullptr ? Deadline(options.time_limit - seconds_since_start(), stop) : Deadline();
  VerifyResult result;
  try {
    const VnnlibProperty property = read_vnnlib(options.property, reading);
    VerifyOptions verify_options = options.verify;
    verify_options.property_file = options.property;
    RunContext control;
    control.stop = stop;
    control.time_limit = std::max(0.0, options.time_limit - seconds_since_start());
    control.peers = peers;
    backstop = make_backstop(options, start, seconds_since_start, peers);
    result = verify(model->network, property, verify_options, control);
  } catch (const ReadStopped& stopped) {
    // A property too big to read in time is undecided, and reported as such: `timeout` when the time ran out,
    // `unknown` when a stop was asked for (docs/VERIFY.md).
    if (!options.quiet) std::cerr << "reluopt: " << stopped.what() << "\n";
    result.status = reading.interrupted() ? VerifyStatus::kUnknown : VerifyStatus::kTimeout;
  }
  result.seconds = seconds_since_start();
  output_begins();
  if (peers != nullptr && !peers->lead()) return 0;
  if (backstop) backstop->claim();
  report_verify(result, options);
  return 0;
}

}  // namespace reluopt::cli
