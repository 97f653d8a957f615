#pragma once

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reluopt/options.h"

namespace reluopt::cli {

// A command-line usage error: reported in one line with exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Walks command-line arguments from index `first`: each is a flag ("--flag value" or "--flag=value") or a
// positional argument; value() takes the flag's value and throws UsageError when it is missing.
class FlagReader {
 public:
  FlagReader(const std::vector<std::string>& args, std::size_t first) : args_(args), next_(first) {}
  bool next();
  const std::string& flag() const { return flag_; }
  bool has_inline_value() const { return inline_value_.has_value(); }
  std::string value();

 private:
  const std::vector<std::string>& args_;
  std::size_t next_;
  std::string flag_;
  std::optional<std::string> inline_value_;
};

// The whole of `text` as a number of type T; anything else is a UsageError naming the flag.
template <typename T>
T parse_number(const std::string& flag, const std::string& text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) throw UsageError("invalid value '" + text + "' for " + flag);
  return value;
}

// A --time-limit value of a subcommand: finite seconds >= 0.
inline double parse_time_limit(const std::string& flag, const std::string& text) {
  const double seconds = parse_number<double>(flag, text);
  if (!(seconds >= 0.0) || !std::isfinite(seconds)) throw UsageError(flag + " must be a finite number of seconds >= 0");
  return seconds;
}

enum class Command { kHelp, kVersion, kSolve, kRelax, kOptions, kFormulate };

struct CliOptions {
  Command command = Command::kHelp;
  std::string model;
  std::optional<std::string> domain_file;
  std::optional<std::string> objective_file;
  std::optional<std::string> problem_file;  // solve --problem, formulate's PROBLEM: a model (docs/PROBLEM.md)
  std::optional<std::string> out_file;      // formulate --out: .mps or .lp
  std::optional<std::string> json_file;
  std::optional<std::string> values_file;
  bool evt = false;                         // --evt (or --evt-plot): analyse the run's own X_i
  std::optional<std::string> evt_plot_file;
  double time_limit = std::numeric_limits<double>::infinity();  // seconds from the command's start
  bool quiet = false;
  bool markdown = false;                    // reluopt options --markdown
  SolveOptions solve;
};

// A flag of solve that sets no SolveOptions field (the files, the time limit, the outputs): the command line's
// alone, beside the option table's flags, which Python takes as keywords too.
struct RunFlag {
  std::string flag;
  std::string metavar;  // empty: a flag without a value
  std::string help;     // one line
};
const std::vector<RunFlag>& run_flags();

// Throws UsageError on unknown flags, missing or malformed values, and values validate_options refuses.
CliOptions parse_command_line(const std::vector<std::string>& args);

// A file a command line names, and what it is there ("the model", "--json").
struct NamedPath {
  std::string role;
  std::optional<std::string> path;  // not given: nothing to compare
};

// Throws UsageError, before anything runs, when an output would replace an input or another output: the same
// existing file (std::filesystem::equivalent: hard links and symbolic links too), or the same path once made
// absolute and normal. Devices, FIFOs and the like (/dev/null, /dev/stdout) may be named more than once.
void refuse_clashing_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

// solve's and relax's files, through refuse_clashing_paths.
void refuse_clashing_paths(const CliOptions& options);

std::string help_text();

// `reluopt options`: the option table and the method table as --help shows them, or with `markdown` as the
// tables of docs/CLI.md and docs/PYTHON.md, each between the comment lines that name it.
std::string options_text(bool markdown);

}  // namespace reluopt::cli
