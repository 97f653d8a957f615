// `reluopt evt`: the extreme-value analysis of the per-sample values of a sampling run (MATH.md section 8).
#include "evt_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "cli_options.h"
#include "reluopt/error.h"
#include "reluopt/evt.h"
#include "reluopt/evt_json.h"
#include "stop_signals.h"

namespace reluopt::cli {

namespace {

struct EvtCommandOptions {
  bool help = false;
  std::string values_file;
  std::optional<std::string> json_file;
  std::optional<std::string> plot_file;
  std::optional<double> eps;
  double delta = 0.05;
  int threads = 0;
  double time_limit = std::numeric_limits<double>::infinity();
  bool quiet = false;
};

// One progress line on stderr (a terminal only), rewritten at most every 0.5 s and when the stage changes.
class ProgressLine {
 public:
  explicit ProgressLine(bool shown) : shown_(shown) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void show(const std::string& stage, const std::string& detail = "") {
    const double now = clock_.elapsed();
    if (!shown_ || (stage == stage_ && now < next_)) return;
    stage_ = stage;
    next_ = now + 0.5;
    std::fprintf(stderr, "\r[%7.1fs] evt: %s%s\033[K", now, stage.c_str(), detail.c_str());
    std::fflush(stderr);
    written_ = true;
  }
  void clear() {
    if (written_) std::fprintf(stderr, "\r\033[K");
    written_ = false;
  }

 private:
  bool shown_;
  bool written_ = false;
  Deadline clock_;
  std::string stage_;
  double next_ = 0.0;
};

EvtCommandOptions parse_evt_arguments(const std::vector<std::string>& args) {
  EvtCommandOptions options;
  for (FlagReader reader(args, 0); reader.next();) {
    const std::string& flag = reader.flag();
    auto value = [&] { return reader.value(); };
    if (flag == "--help" || flag == "-h") {
      options.help = true;
      return options;
    } else if (flag == "--json") {
      options.json_file = value();
    } else if (flag == "--plot") {
      options.plot_file = value();
    } else if (flag == "--eps") {
      options.eps = parse_number<double>(flag, value());
      if (!(*options.eps > 0.0) || !std::isfinite(*options.eps)) throw UsageError("--eps must be a finite number > 0");
    } else if (flag == "--delta") {
      options.delta = parse_number<double>(flag, value());
      if (!(options.delta > 0.0 && options.delta < 1.0)) throw UsageError("--delta must lie strictly between 0 and 1");
    } else if (flag == "--time-limit") {
      options.time_limit = parse_time_limit(flag, value());
    } else if (flag == "--quiet" || flag == "-q") {
      if (reader.has_inline_value()) throw UsageError(flag + " takes no value");
      options.quiet = true;
    } else if (flag == "--threads") {
      const double threads = parse_number<double>(flag, value());
      if (!(threads >= 0.0 && threads <= kMaxThreads) || threads != std::floor(threads))
        throw UsageError("--threads must be a whole number from 0 (all cores) to 1024");
      options.threads = static_cast<int>(threads);
    } else if (flag.rfind("-", 0) == 0 && flag.size() > 1) {
      throw UsageError("unknown option '" + flag + "' for evt (try 'reluopt evt --help')");
    } else if (options.values_file.empty()) {
      options.values_file = flag;
    } else {
      throw UsageError("unexpected argument '" + flag + "' (evt takes one VALUES.csv)");
    }
  }
  if (options.values_file.empty()) throw UsageError("evt needs a VALUES.csv file (try 'reluopt evt --help')");
  return options;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

std::string format(const char* spec, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, value);
  return buffer;
}

std::string g(double value) { return format("%.6g", value); }

std::string optional_g(const std::optional<double>& value, const std::string& none) {
  return value && std::isfinite(*value) ? g(*value) : none;
}

std::string summary_text(const EvtReport& r, const std::string& path, bool eps_is_default) {
  std::ostringstream s;
  const int level = static_cast<int>(std::lround(100.0 * r.confidence));
  s << "reluopt " << RELUOPT_VERSION << ", extreme-value analysis of the right tail (maxima) of " << r.n
    << " values from " << path << "\n";
  s << "  values      [" << g(r.min) << ", " << g(r.max) << "]; histogram of " << r.histogram.density.size()
    << " bins of width " << g(r.histogram.width) << " (numpy 'auto' rule)\n";
  s << "  fits        maximum likelihood; ranked by RSS between histogram density and pdf at bin centres\n"
    << "              (fits closer in RSS than the histogram's noise: by AIC); top three:\n";
  for (std::size_t i = 0; i < r.fits.size() && i < 3; ++i) {
    const Fit& fit = r.fits[i];
    s << "    " << i + 1 << ". " << family_name(fit.distribution.family) << "  RSS " << g(fit.rss) << "  gamma "
      << g(extreme_value_index(fit.distribution)) << "  (";
    const auto params = named_parameters(fit.distribution);
    for (std::size_t j = 0; j < params.size(); ++j) s << (j ? ", " : "") << params[j].first << " " << g(params[j].second);
    s << ")\n";
  }
  s << "  gamma       " << g(r.gamma_best_fit) << " (closed form of the best fit, "
    << family_name(r.fits.front().distribution.family) << ")\n";
  s << "              " << optional_g(r.moment.gamma, "undefined (the top values tie)");
  if (r.moment.ci) s << " [" << g(r.moment.ci->first) << ", " << g(r.moment.ci->second) << "]";
  s << " (moment estimator on the top k = " << r.moment.k << "; " << level << "% bootstrap interval, "
    << r.bootstrap_resamples << " resamples)\n";
  if (r.endpoint) {
    s << "  endpoint M  " << g(r.endpoint->estimate) << " [" << g(r.endpoint->lo) << ", " << g(r.endpoint->hi)
      << "] (" << family_name(r.endpoint->family) << " fit; " << level
      << "% profile-likelihood interval, cut below at the largest value)\n";
  } else {
    s << "  endpoint M  none: the best fit has no finite right endpoint\n";
  }
  const SampleComplexity& sc = r.sample_complexity;
  s << "  N(eps, delta) for eps = " << g(sc.eps) << (eps_is_default ? " (default: 1% of the range)" : "")
    << ", delta = " << g(sc.delta) << "\n";
  s << "    n_tail        " << optional_g(sc.n_tail, "n/a (no finite endpoint)")
    << "  ln(1/delta) / (1 - F(M - eps)) with the best fit F and its endpoint M\n";
  s << "    n_closed_form " << optional_g(sc.n_closed_form, "n/a (gamma >= 0)")
    << "  ln(1/delta) / eps^(-1/gamma), the paper's Theorem 3.2 (no tail constant: depends on units)\n";
  if (sc.probability_now)
    s << "    P(best of these " << r.n << " values is more than eps below M) = " << g(*sc.probability_now)
      << " under the best fit\n";
  return s.str();
}

}  // namespace

namespace {

// The first non-blank line of a file (gnuplot's first message), or "".
std::string first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line.substr(line.find_first_not_of(" \t\r"));
  return "";
}

// A temporary file for gnuplot's messages, removed when it goes out of scope.
class TemporaryFile {
 public:
  TemporaryFile() {
    std::string pattern = (std::filesystem::temp_directory_path() / "reluopt-gnuplot-XXXXXX").string();
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw Error("cannot create a temporary file for gnuplot's messages");
    close(fd);
    path_ = pattern;
  }
  ~TemporaryFile() { std::remove(path_.c_str()); }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

void draw_evt_plot(const std::string& script, const std::string& png) {
  namespace fs = std::filesystem;
  const fs::path directory = fs::path(png).parent_path();
  std::error_code error;
  if (!directory.empty() && !fs::is_directory(directory, error))
    throw Error("cannot draw '" + png + "': the directory '" + directory.string() + "' does not exist");
  if (fs::exists(png, error) && !fs::is_regular_file(png, error))
    throw Error("cannot draw '" + png + "': it is not a regular file");
  if (!on_path("gnuplot"))
    throw Error("cannot draw '" + png + "': gnuplot is not installed (Debian: apt-get install gnuplot-nox)");
  // gnuplot reading a pipe carries on after an error: a PNG that cannot be opened would go to its stdout. Its
  // messages go to a file, so that a failure is one line of ours naming its first message.
  const TemporaryFile messages;
  FILE* pipe = popen(("gnuplot >/dev/null 2>'" + messages.path() + "'").c_str(), "w");
  if (!pipe) throw Error("cannot start gnuplot to draw '" + png + "'");
  // A gnuplot that exits early must not kill us with SIGPIPE; its exit status reports the failure.
  void (*previous)(int) = std::signal(SIGPIPE, SIG_IGN);
  std::fwrite(script.data(), 1, script.size(), pipe);
  const int status = pclose(pipe);
  std::signal(SIGPIPE, previous);
  const bool drawn = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
                     fs::is_regular_file(png, error) && fs::file_size(png, error) > 0 && !error;
  if (!drawn) {
    const std::string why = first_line_of(messages.path());
    throw Error("gnuplot failed to draw '" + png + "'" + (why.empty() ? "" : ": " + why));
  }
}

std::string evt_help_text() {
  return R"(reluopt evt: extreme-value analysis of the values X_i that sampling reached.

Usage:
  reluopt evt VALUES.csv [--json FILE] [--plot FILE.png] [--eps E] [--delta D] [--threads T]
                         [--time-limit S] [--quiet]

VALUES.csv is what 'reluopt solve ... --values-out VALUES.csv' writes (header "sample,value"), or a plain
column of numbers, one per line. The analysis is of the right tail (maxima): for a minimization, negate the
values first. Values of any finite magnitude are analysed in standard units (x - min) / (max - min).
  Fits exponential, Pareto, reversed Weibull, Student t, F, GEV, beta, gamma, lognormal, normal and uniform
  distributions by maximum likelihood and ranks them by RSS against the histogram; reports the top three,
  the extreme value index gamma (closed form of the best fit, and the moment estimator with a bootstrap
  interval), the right endpoint M with a profile-likelihood interval, and the samples N(eps, delta) so
  that the best value is within eps of M with probability >= 1 - delta.
  --json FILE     write the report as JSON
  --plot FILE     draw the histogram and the top three densities as a PNG (needs gnuplot)
  --eps E         distance to the maximum for N(eps, delta)         [1% of the range of the values]
  --delta D       failure probability for N(eps, delta)             [0.05]
  --threads T     fit the families on T threads, 0: all cores (the results do not depend on it)   [all cores]
  --time-limit S  stop with an error after S seconds (Ctrl-C stops it too)           [none]
  --quiet, -q     no progress line on stderr (shown only on a terminal)
)";
}

int run_evt_command(const std::vector<std::string>& args) {
  const EvtCommandOptions options = parse_evt_arguments(args);
  if (options.help) {
    std::cout << evt_help_text();
    return 0;
  }
  refuse_clashing_paths({{"the values file", options.values_file}},
                        {{"--json", options.json_file}, {"--plot", options.plot_file}});
  const Deadline deadline(options.time_limit, &stop_request());
  ProgressLine progress(!options.quiet && isatty(STDERR_FILENO));
  const std::string& path = options.values_file;
  const std::vector<double> values = read_values_csv(path, [&](std::size_t read) {
    if (deadline.expired())
      throw Error("'" + path + "': " + (deadline.interrupted() ? "interrupted" : "the time limit ended") +
                  " while reading the values");
    progress.show("reading values", ": " + std::to_string(read));
  });
  EvtOptions evt;
  evt.eps = options.eps;
  evt.delta = options.delta;
  evt.threads = options.threads;
  evt.on_stage = [&](const std::string& stage) { progress.show(stage); };
  EvtReport report;
  try {
    report = analyse_extremes(values, evt, deadline);
  } catch (const Error& e) {
    throw Error("'" + path + "': " + e.what());
  }
  progress.clear();
  output_begins();
  std::cout << summary_text(report, path, !options.eps) << std::flush;
  if (options.json_file) write_text_file(*options.json_file, evt_report_to_json(report));
  if (options.plot_file) draw_evt_plot(evt_plot_script(report, *options.plot_file), *options.plot_file);
  return 0;
}

}  // namespace reluopt::cli
