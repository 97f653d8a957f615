#include "cli_options.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <sstream>
#include <type_traits>

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

// The option table's option of a flag, or nullptr.
const OptionSpec* flag_option(const std::string& flag) {
  for (const OptionSpec& option : option_table())
    if (option.flag() == flag) return &option;
  return nullptr;
}

// The value of the reader's flag as a T: a bool flag takes none.
template <typename T>
T flag_value(FlagReader& reader) {
  const std::string& flag = reader.flag();
  if constexpr (std::is_same_v<T, bool>) {
    if (reader.has_inline_value()) throw UsageError(flag + " takes no value");
    return true;
  } else if constexpr (std::is_arithmetic_v<T>) {
    return parse_number<T>(flag, reader.value());
  } else if constexpr (std::is_same_v<T, std::string>) {
    return reader.value();
  } else {
    const StopRuleOptions rule = parse_stop_rule(flag, reader.value());
    return T(std::pair(rule.eps, rule.delta));
  }
}

void set_option(const OptionSpec& option, FlagReader& reader, SolveOptions& solve) {
  std::visit(
      [&](const auto& first) {
        using T = typename std::remove_cvref_t<decltype(first)>::value_type;
        const T value = flag_value<T>(reader);
        try {
          for (const OptionAccess& field : option.fields) std::get<OptionField<T>>(field).set(solve, value);
        } catch (const Error& e) {
          throw UsageError(e.what());
        }
      },
      option.fields.front());
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
                         {"--objective", options.objective_file}, {"the problem file", options.problem_file}},
                        {{"--json", options.json_file}, {"--values-out", options.values_file},
                         {"--evt-plot", options.evt_plot_file}, {"--out", options.out_file}});
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

namespace {

constexpr std::size_t kHelpColumn = 23;  // where the help of a flag starts
constexpr std::size_t kHelpWidth = 116;

// `text` from column `indent` of a line that already holds `used` characters, wrapped at kHelpWidth.
std::string wrapped(const std::string& text, std::size_t used, std::size_t indent) {
  std::string out(used < indent ? indent - used : 2, ' ');
  std::size_t column = used < indent ? indent : used + 2;
  std::istringstream words(text);
  bool first = true;
  for (std::string word; words >> word; first = false) {
    if (!first && column + 1 + word.size() > kHelpWidth) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out + "\n";
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// "enhanced, bab", or "every method".
std::string method_names_of(const OptionSpec& option) {
  std::vector<std::string> names;
  for (Method method : option.methods) names.push_back(method_name(method));
  return names.empty() ? "every method" : joined(names, ", ");
}

// The default as --help shows it: "1000", "0: all cores"; nothing for a flag without a value.
std::string shown_default(const OptionSpec& option) {
  const std::string value = option_default(option);
  const OptionType type = option.type();
  if (type == OptionType::kBool) return "";
  if (type != OptionType::kInteger && type != OptionType::kReal) return value;
  const std::string meaning = special_meaning(option, std::stod(value));
  return meaning.empty() ? value : value + ": " + meaning;
}

std::string flag_head(const std::string& flag, const std::string& metavar) {
  return "  " + flag + (metavar.empty() ? "" : " " + metavar);
}

std::string option_help(const OptionSpec& option) {
  const std::string head = flag_head(option.flag(), option.metavar);
  const std::string methods = option.methods.empty() ? "" : method_names_of(option) + ": ";
  const std::string fallback = shown_default(option);
  std::string out = head + wrapped(methods + option.help + (fallback.empty() ? "" : "   [" + fallback + "]"),
                                   head.size(), kHelpColumn);
  std::size_t width = 0;
  for (const OptionChoice& choice : option.choices) width = std::max(width, choice.name.size());
  for (const OptionChoice& choice : option.choices) {
    const std::string name = std::string(kHelpColumn, ' ') + choice.name;
    out += name + wrapped(choice.help, name.size(), kHelpColumn + width + 2);
  }
  return out;
}

// A markdown table cell: '|' escaped.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string markdown_block(const std::string& name, const std::string& table) {
  return "<!-- reluopt options --markdown: " + name + " -->\n" + table + "<!-- end -->\n";
}

std::string options_markdown() {
  std::string table = "| option | flag | type | default | accepts | methods | meaning |\n|---|---|---|---|---|---|---|\n";
  for (const OptionSpec& option : option_table()) {
    std::vector<std::string> names;
    for (const OptionChoice& choice : option.choices) names.push_back("`" + choice.name + "`");
    const OptionType type = option.type();
    const bool numeric = type == OptionType::kInteger || type == OptionType::kReal;
    table += "| `" + option.name + "` | `" + cell(flag_head(option.flag(), option.metavar).substr(2)) + "` | " +
             option_type_name(type) + " | `" + option_default(option) + "` | " +
             cell(numeric ? option_rule(option) : joined(names, ", ")) + " | " + method_names_of(option) + " | " +
             cell(option.help) + " |\n";
  }
  return markdown_block("options", table);
}

std::string methods_markdown() {
  std::string table = "| method | what it finds or proves | relax | stop rule | under mpirun |\n|---|---|---|---|---|\n";
  for (const MethodSpec& m : method_table())
    table += "| `" + m.name + "` | " + cell(m.summary) + " | " + (m.relaxable ? "yes" : "no") + " | " +
             (m.stop_rule ? "yes" : "no") + " | " + (m.shared ? "every process" : "rank 0 alone") + " |\n";
  return markdown_block("methods", table);
}

std::string run_flags_markdown() {
  std::string table = "| flag | meaning |\n|---|---|\n";
  for (const RunFlag& flag : run_flags())
    table += "| `" + flag_head(flag.flag, flag.metavar).substr(2) + "` | " + cell(flag.help) + " |\n";
  return markdown_block("run flags", table);
}

}  // namespace

std::string options_text(bool markdown) {
  if (markdown) return options_markdown() + "\n" + methods_markdown() + "\n" + run_flags_markdown();
  std::string out = "Options of solve (Python: reluopt.solve(..., name=value), the flag without -- and with _ for -):\n";
  for (const OptionSpec& option : option_table()) out += option_help(option);
  out += "\nRun options of solve (the command line's alone):\n";
  for (const RunFlag& flag : run_flags()) {
    const std::string head = flag_head(flag.flag, flag.metavar);
    out += head + wrapped(flag.help, head.size(), kHelpColumn);
  }
  return out;
}

const std::vector<RunFlag>& run_flags() {
  static const std::vector<RunFlag> flags = {
      {"--domain", "FILE",
       "JSON {\"lower\": [...], \"upper\": [...], \"A\": [[...]], \"b\": [...]} (A x <= b optional); default [0,1]^d "
       "(for NNet files: the file's input bounds)"},
      {"--objective", "FILE",
       "JSON {\"sense\": \"max\"|\"min\", \"weights\": [one per output], \"constant\": c}; default: maximize output 0"},
      {"--problem", "FILE",
       "a problem file (docs/PROBLEM.md): variables, networks, constraints and objective, in place of MODEL, "
       "--domain and --objective; every method takes it"},
      {"--time-limit", "S",
       "wall-clock limit in seconds from the command's start (loading the model counts); whichever of it and "
       "--samples comes first ends the run"},
      {"--json", "FILE", "write the result as JSON (a temporary file renamed into place: complete or absent)"},
      {"--values-out", "FILE", "enhanced, sampling: write X_i, the value reached from each sample, as CSV"},
      {"--evt", "",
       "enhanced, sampling: extreme-value analysis of the run's X_i, in the summary and under \"evt\" in the JSON; "
       "eps and delta of N(eps, delta) from --stop-rule, else 1% of the range and 0.05"},
      {"--evt-plot", "FILE", "--evt, and draw its histogram with the top three fits as a PNG (needs gnuplot)"},
      {"--quiet", "", "no progress line on stderr (also -q)"},
  };
  return flags;
}

std::string help_text() {
  return R"(reluopt: optimize a linear function of a trained ReLU network's outputs over a polyhedron.

Usage:
  reluopt solve MODEL [options]     MODEL is an ONNX file (.onnx) or an NNet file (.nnet)
  reluopt solve --problem P.json [options]  a model around networks: variables (some integer), networks,
                                    constraints, objective (docs/PROBLEM.md)
  reluopt formulate P.json --out F.mps|F.lp  the big-M MIP of a problem file with reluopt's neuron bounds
                                    (--bounds), for HiGHS, Gurobi, SCIP, CBC
  reluopt relax MODEL [options]     the root LP relaxation bound of a MIP formulation (--method, --bounds,
                                    --partitions), without branching
  reluopt evt VALUES.csv [options]  extreme-value analysis of solve --values-out (right tail; see 'reluopt evt --help')
  reluopt verify MODEL PROP.vnnlib [options]  decide a VNN-LIB property: sat / unsat / unknown / timeout (see 'reluopt verify --help')
  reluopt options [--markdown]      the options below (as markdown: the tables of docs/CLI.md and docs/PYTHON.md)
  reluopt --help | --version

)" + options_text(false) +
         R"(
Exit codes: 0 the run finished (whatever it found: see status), 1 bad input, 2 bad command line.
Ctrl-C or SIGTERM stops the run and still reports and writes the best point found. Signals within a second of
the first are the same request (GNU timeout sends two at once); a later one ends the process, unless its result
is being written.
)";
}

namespace {

// solve --problem P: the problem file names the networks, the variables and the objective.
void check_problem_options(const CliOptions& options) {
  if (options.command != Command::kSolve) throw UsageError("--problem applies to solve");
  if (!options.model.empty() || options.domain_file || options.objective_file)
    throw UsageError("--problem gives the networks, variables and objective: it takes no MODEL, --domain or "
                     "--objective");
  if (options.values_file || options.evt) throw UsageError("--values-out and --evt do not apply to --problem");
}

// formulate PROBLEM --out F.mps|F.lp: the positional argument is the problem file.
CliOptions formulate_options(CliOptions options) {
  if (options.model.empty()) throw UsageError("formulate needs a PROBLEM file (try 'reluopt --help')");
  if (options.problem_file || options.domain_file || options.objective_file || options.json_file ||
      options.values_file || options.evt)
    throw UsageError("formulate takes a PROBLEM file and --out, --bounds, --time-limit");
  if (!options.out_file) throw UsageError("formulate needs --out FILE (.mps or .lp)");
  const std::string& out = *options.out_file;
  const auto ends_with = [&out](const std::string& tail) {
    return out.size() > tail.size() && out.compare(out.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (!ends_with(".mps") && !ends_with(".lp"))
    throw UsageError("--out '" + out + "': the extension must be .mps (free MPS) or .lp (CPLEX LP)");
  options.problem_file = options.model;
  options.model.clear();
  return options;
}

}  // namespace

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
  } else if (command == "formulate") {
    options.command = Command::kFormulate;
  } else if (command == "relax") {
    options.command = Command::kRelax;
    options.solve.method = Method::kMip;
  } else if (command == "options") {
    options.command = Command::kOptions;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i] != "--markdown") throw UsageError("unknown option '" + args[i] + "' for options (try 'reluopt --help')");
      options.markdown = true;
    }
    return options;
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
    } else if (const OptionSpec* option = flag_option(flag)) {
      set_option(*option, reader, options.solve);
      samples_given = samples_given || option->name == "samples";
    } else if (flag == "--domain") {
      options.domain_file = value();
    } else if (flag == "--objective") {
      options.objective_file = value();
    } else if (flag == "--problem") {
      options.problem_file = value();
    } else if (flag == "--out") {
      options.out_file = value();
    } else if (flag == "--evt") {
      if (inline_value) throw UsageError("--evt takes no value");
      options.evt = true;
    } else if (flag == "--evt-plot") {
      options.evt_plot_file = value();
      options.evt = true;
    } else if (flag == "--time-limit") {
      options.time_limit = parse_number<double>(flag, value());
    } else if (flag == "--values-out") {
      options.values_file = value();
    } else if (flag == "--json") {
      options.json_file = value();
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
  if (options.command == Command::kFormulate) return formulate_options(std::move(options));
  if (options.problem_file) check_problem_options(options);
  if (options.out_file) throw UsageError("--out applies to formulate");
  if (options.model.empty() && !options.problem_file)
    throw UsageError(command + " needs a MODEL file (try 'reluopt --help')");
  if (options.command == Command::kRelax && !method_spec(options.solve.method).relaxable)
    throw UsageError("relax needs a MIP method: --method " + method_list(&MethodSpec::relaxable, "or"));
  if (options.evt && options.command != Command::kSolve) throw UsageError("--evt and --evt-plot apply to solve");
  if (options.solve.sampling.stop_rule) {
    if (options.command != Command::kSolve || !method_spec(options.solve.method).stop_rule)
      throw UsageError("--stop-rule applies to solve with --method " + method_list(&MethodSpec::stop_rule, "or"));
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
