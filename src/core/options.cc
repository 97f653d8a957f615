// The one check of SolveOptions' numbers, shared by solve(), relax() and the command line.
#include <cmath>
#include <sstream>

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

bool finite_at_least(double value, double low) { return std::isfinite(value) && value >= low; }

void validate_stop_rule(const StopRuleOptions& rule, Method method) {
  if (method != Method::kSampling && method != Method::kEnhanced)
    throw Error("sampling.stop_rule (--stop-rule) applies to the sampling and enhanced methods only, not " +
                method_name(method));
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
  require(options.threads >= 0 && options.threads <= kMaxThreads, "threads", "--threads",
          "between 1 and 1024 (0: all cores)", options.threads);
  require(options.sampling.samples >= 1, "sampling.samples", "--samples", ">= 1", options.sampling.samples);
  require(options.sampling.hit_and_run_thinning >= 0, "sampling.hit_and_run_thinning", "no flag",
          ">= 0 (0: max(10, d))", options.sampling.hit_and_run_thinning);
  if (options.sampling.stop_rule) validate_stop_rule(*options.sampling.stop_rule, options.method);

  const EnhancedOptions& enhanced = options.enhanced;
  require(finite_at_least(enhanced.gap, 0.0), "enhanced.gap", "--gap", "a finite number >= 0", enhanced.gap);
  require(finite_at_least(enhanced.eps, 0.0), "enhanced.eps", "--eps", "a finite number >= 0", enhanced.eps);
  require(enhanced.max_free >= 0, "enhanced.max_free", "--max-free", ">= 0 (0: no cap)", enhanced.max_free);
  require(enhanced.node_limit >= 0, "enhanced.node_limit", "--node-limit", ">= 0 (0: the default)",
          enhanced.node_limit);
  require(enhanced.mip_share >= 0.0 && enhanced.mip_share < 1.0, "enhanced.mip_share", "--mip-share",
          "in [0, 1)", enhanced.mip_share);

  const MipMethodOptions& mip = options.mip;
  require(mip.partitions >= 1, "mip.partitions", "--partitions", ">= 1", mip.partitions);
  require(mip.bounds.threads >= 0 && mip.bounds.threads <= kMaxThreads, "mip.bounds.threads", "--threads",
          "between 1 and 1024 (0: all cores)", mip.bounds.threads);
  require(mip.warm_start_samples >= 1, "mip.warm_start_samples", "--warm-start-samples", ">= 1",
          mip.warm_start_samples);
  require(mip.cut_frequency == -99 || mip.cut_frequency >= 1, "mip.cut_frequency", "--cut-frequency",
          "-99 (root only; -1 on the command line) or a number of nodes >= 1", mip.cut_frequency);

  const GradientOptions& gradient = options.gradient;
  require(gradient.ascent_steps >= 0, "gradient.ascent_steps", "--ascent-steps", ">= 0", gradient.ascent_steps);
  require(gradient.perturbations >= 0, "gradient.perturbations", "--perturbations", ">= 0", gradient.perturbations);
  require(std::isfinite(gradient.perturbation_radius) && gradient.perturbation_radius > 0.0 &&
              gradient.perturbation_radius <= 1.0,
          "gradient.perturbation_radius", "--perturbation-radius", "in (0, 1]", gradient.perturbation_radius);
  const WalkOptions& walk = options.walk;
  require(walk.iterations >= 0, "walk.iterations", "--walk-iterations", ">= 0", walk.iterations);
  require(walk.infeasible_per_iteration >= 1, "walk.infeasible_per_iteration", "no flag", ">= 1",
          walk.infeasible_per_iteration);
  require(std::isfinite(walk.delta) && walk.delta >= 0.0, "walk.delta", "no flag", "a finite number >= 0",
          walk.delta);

  require(options.bab.node_limit >= 0, "bab.node_limit", "--node-limit", ">= 0 (0: no limit)", options.bab.node_limit);
  require(options.bab.input_split_dims >= 0, "bab.input_split_dims", "--input-split-dims", ">= 0",
          options.bab.input_split_dims);
  require(options.bab.relu_split_below >= 0, "bab.relu_split_below", "--relu-split-below", ">= 0",
          options.bab.relu_split_below);
  require(options.bab.memory_mb >= 0, "bab.memory_mb", "--bab-memory", ">= 0 (0: no limit)", options.bab.memory_mb);
}

}  // namespace reluopt
