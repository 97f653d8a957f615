// The one check of SolveOptions' numbers, shared by solve(), relax(), the command line and Python: the ranges
// of the option table (option_table.cc) and the checks of the fields no option sets.
#include <cmath>
#include <sstream>
#include <type_traits>

#include "reluopt/error.h"
#include "reluopt/options.h"

namespace reluopt {

namespace {

// "FIELD (FLAG) must be RULE, not VALUE", the value printed as given (17 digits for a double).
template <typename T>
void require(bool holds, const char* field, const char* flag, const char* rule, T value) {
  if (holds) return;
  std::ostringstream message;
  message.precision(17);
  message << field << " (" << flag << ") must be " << rule << ", not " << value;
  throw Error(message.str());
}

// Whether `value` is one of the option's special values or lies in its range.
bool in_range(const OptionSpec& option, double value) {
  const OptionRange& r = option.range;
  if (!special_meaning(option, value).empty()) return true;
  if (std::isnan(value) || (std::isinf(value) && !(r.infinity_ok && value > 0))) return false;
  if (r.low && (r.low_open ? value <= *r.low : value < *r.low)) return false;
  return !r.high || (r.high_open ? value < *r.high : value <= *r.high);
}

// Every number of the option table within its range, named by its field and flag.
void validate_table(const SolveOptions& options) {
  for (const OptionSpec& option : option_table()) {
    const std::string flag = option.flag(), rule = option_rule(option);
    for (const OptionAccess& access : option.fields)
      std::visit(
          [&](const auto& field) {
            const auto value = field.get(options);
            using T = std::remove_cvref_t<decltype(value)>;
            if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
              require(in_range(option, static_cast<double>(value)), field.path.c_str(), flag.c_str(), rule.c_str(),
                      value);
          },
          access);
  }
}

void validate_stop_rule(const StopRuleOptions& rule, Method method) {
  if (!method_spec(method).stop_rule)
    throw Error("sampling.stop_rule (--stop-rule) applies to the " + method_list(&MethodSpec::stop_rule, "and") +
                " methods only, not " + method_name(method));
  require(std::isfinite(rule.eps) && rule.eps > 0.0, "sampling.stop_rule.eps", "--stop-rule EPS,DELTA",
          "a finite number > 0", rule.eps);
  require(rule.delta > 0.0 && rule.delta < 1.0, "sampling.stop_rule.delta", "--stop-rule EPS,DELTA",
          "strictly between 0 and 1", rule.delta);
  require(rule.first_check >= 1, "sampling.stop_rule.first_check", "no flag", ">= 1", rule.first_check);
  require(std::isfinite(rule.growth) && rule.growth > 1.0, "sampling.stop_rule.growth", "no flag",
          "a finite number > 1", rule.growth);
}

}  // namespace

void validate_options(const SolveOptions& options, double time_limit) {
  require(time_limit >= 0.0, "time_limit", "--time-limit", "a number of seconds >= 0 (infinite: none)", time_limit);
  validate_table(options);
  if (options.sampling.stop_rule) validate_stop_rule(*options.sampling.stop_rule, options.method);
  // The fields of SolveOptions that no option sets.
  require(options.mip.bounds.threads >= 0 && options.mip.bounds.threads <= kMaxThreads, "mip.bounds.threads",
          "--threads", "between 1 and 1024 (0: all cores)", options.mip.bounds.threads);
  const WalkOptions& walk = options.walk;
  require(walk.infeasible_per_iteration >= 1, "walk.infeasible_per_iteration", "no flag", ">= 1",
          walk.infeasible_per_iteration);
  require(std::isfinite(walk.delta) && walk.delta >= 0.0, "walk.delta", "no flag", "a finite number >= 0",
          walk.delta);
}

}  // namespace reluopt
