// validate_options: every number of SolveOptions checked for range and finiteness, in one line naming the
// field, its flag and the value.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <regex>
#include <set>
#include <string>
#include <type_traits>

#include "reluopt/error.h"
#include "reluopt/options.h"

namespace reluopt {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The message validate_options gives after `change` is applied to the defaults ("" when it accepts them).
std::string refusal(const std::function<void(SolveOptions&)>& change, double time_limit = kInf) {
  SolveOptions options;
  change(options);
  try {
    validate_options(options, time_limit);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Options, DefaultsAndBoundaryValuesAreAccepted) {
  EXPECT_EQ(refusal([](SolveOptions&) {}), "");
  EXPECT_EQ(refusal([](SolveOptions&) {}, 0.0), "");
  EXPECT_EQ(refusal([](SolveOptions& o) {
              o.threads = kMaxThreads;
              o.enhanced.mip_share = 0.0;
              o.enhanced.first_proof = 0.0;
              o.enhanced.gap = 0.0;
              o.mip.cut_frequency = -1;
              o.sampling.samples = 1;
              o.method = Method::kSampling;
              o.sampling.stop_rule = StopRuleOptions{.eps = 1e-3};
            }),
            "");
}

// 0 threads is all cores, as the range message and the README say; any time limit >= 0 is one (beyond a century,
// none: reluopt/run_control.h).
TEST(Options, ZeroThreadsAndHugeTimeLimitsAreAccepted) {
  EXPECT_EQ(refusal([](SolveOptions& o) {
              o.threads = 0;
              o.mip.bounds.threads = 0;
            }),
            "");
  for (double seconds : {1e10, 1e300, std::numeric_limits<double>::max()})
    EXPECT_EQ(refusal([](SolveOptions&) {}, seconds), "") << seconds;
  const std::string message = refusal([](SolveOptions& o) { o.threads = -1; });
  EXPECT_NE(message.find("0: all cores"), std::string::npos) << message;
}

TEST(Options, EachBadNumberNamesFieldFlagAndValue) {
  struct Case {
    std::function<void(SolveOptions&)> change;
    std::string field, flag, value;
  };
  const std::vector<Case> cases = {
      {[](SolveOptions& o) { o.threads = -1; }, "threads", "--threads", "-1"},
      {[](SolveOptions& o) { o.threads = 100000; }, "threads", "--threads", "100000"},
      {[](SolveOptions& o) { o.sampling.samples = 0; }, "sampling.samples", "--samples", "0"},
      {[](SolveOptions& o) { o.sampling.hit_and_run_thinning = -1; }, "hit_and_run_thinning", "--hit-and-run-thinning", "-1"},
      {[](SolveOptions& o) { o.enhanced.gap = kNan; }, "enhanced.gap", "--gap", "nan"},
      {[](SolveOptions& o) { o.enhanced.gap = kInf; }, "enhanced.gap", "--gap", "inf"},
      {[](SolveOptions& o) { o.enhanced.eps = -1e-3; }, "enhanced.eps", "--eps", "-0.001"},
      {[](SolveOptions& o) { o.enhanced.max_free = -2; }, "enhanced.max_free", "--max-free", "-2"},
      {[](SolveOptions& o) { o.enhanced.node_limit = -5; }, "enhanced.node_limit", "--node-limit", "-5"},
      {[](SolveOptions& o) { o.enhanced.mip_share = 1.0; }, "enhanced.mip_share", "--mip-share", "1"},
      {[](SolveOptions& o) { o.enhanced.mip_share = kNan; }, "enhanced.mip_share", "--mip-share", "nan"},
      {[](SolveOptions& o) { o.enhanced.first_proof = 1.0; }, "enhanced.first_proof", "--first-proof", "1"},
      {[](SolveOptions& o) { o.enhanced.first_proof = -0.5; }, "enhanced.first_proof", "--first-proof", "-0.5"},
      {[](SolveOptions& o) { o.enhanced.first_proof = kNan; }, "enhanced.first_proof", "--first-proof", "nan"},
      {[](SolveOptions& o) { o.mip.partitions = 0; }, "mip.partitions", "--partitions", "0"},
      {[](SolveOptions& o) { o.mip.bounds.threads = -3; }, "mip.bounds.threads", "--threads", "-3"},
      {[](SolveOptions& o) { o.mip.warm_start_samples = 0; }, "warm_start_samples", "--warm-start-samples", "0"},
      {[](SolveOptions& o) { o.mip.cut_frequency = 0; }, "mip.cut_frequency", "--cut-frequency", "0"},
      {[](SolveOptions& o) { o.bab.node_limit = -1; }, "bab.node_limit", "--node-limit", "-1"},
      {[](SolveOptions& o) { o.bab.input_split_dims = -1; }, "bab.input_split_dims", "--input-split-dims", "-1"},
      {[](SolveOptions& o) { o.bab.relu_split_below = -9; }, "bab.relu_split_below", "--relu-split-below", "-9"},
      {[](SolveOptions& o) { o.bab.memory_mb = -1; }, "bab.memory_mb", "--bab-memory", "-1"},
  };
  for (const Case& c : cases) {
    const std::string message = refusal(c.change);
    for (const std::string& word : {c.field, c.flag, "not " + c.value})
      EXPECT_NE(message.find(word), std::string::npos) << "'" << message << "' lacks '" << word << "'";
  }
}

TEST(Options, TimeLimitMustBeANumberOfSeconds) {
  EXPECT_NE(refusal([](SolveOptions&) {}, -1.0).find("--time-limit"), std::string::npos);
  EXPECT_NE(refusal([](SolveOptions&) {}, kNan).find("not nan"), std::string::npos);
}

TEST(Options, StopRuleIsCheckedAndGoesWithSampling) {
  const auto with_rule = [](StopRuleOptions rule, Method method = Method::kEnhanced) {
    return refusal([=](SolveOptions& o) {
      o.method = method;
      o.sampling.stop_rule = rule;
    });
  };
  EXPECT_NE(with_rule({.eps = 0.0}).find("stop_rule.eps"), std::string::npos);
  EXPECT_NE(with_rule({.eps = kInf}).find("not inf"), std::string::npos);
  EXPECT_NE(with_rule({.eps = 0.1, .delta = 1.0}).find("stop_rule.delta"), std::string::npos);
  EXPECT_NE(with_rule({.eps = 0.1, .first_check = 0}).find("first_check"), std::string::npos);
  EXPECT_NE(with_rule({.eps = 0.1, .growth = 1.0}).find("growth"), std::string::npos);
  EXPECT_NE(with_rule({.eps = 0.1}, Method::kMip).find("sampling and enhanced"), std::string::npos);
}

// -1 is the public value for "cuts at the root only" (CBC's own -99 stays inside its adapter).
TEST(Options, CutFrequencyTakesMinusOneOrAPositiveCount) {
  EXPECT_EQ(refusal([](SolveOptions& o) { o.mip.cut_frequency = -1; }), "");
  EXPECT_EQ(refusal([](SolveOptions& o) { o.mip.cut_frequency = 1; }), "");
  for (int bad : {-99, -2, 0})
    EXPECT_EQ(refusal([=](SolveOptions& o) { o.mip.cut_frequency = bad; }),
              "mip.cut_frequency (--cut-frequency) must be >= 1 (-1: root only), not " + std::to_string(bad));
}

TEST(OptionTable, NamesFlagsAndFieldsAreUnique) {
  std::set<std::string> names, paths;
  for (const OptionSpec& option : option_table()) {
    EXPECT_TRUE(names.insert(option.name).second) << option.name;
    EXPECT_EQ(option.flag(), "--" + std::regex_replace(option.name, std::regex("_"), "-"));
    EXPECT_EQ(find_option(option.name), &option);
    EXPECT_EQ(find_option(option.flag()), &option);
    EXPECT_FALSE(option.help.empty()) << option.name;
    EXPECT_EQ(option.metavar.empty(), option.type() == OptionType::kBool) << option.name;
    EXPECT_EQ(option.choices.empty(), option.type() != OptionType::kChoice) << option.name;
    for (const OptionAccess& field : option.fields) {
      const std::string path = std::visit([](const auto& f) { return f.path; }, field);
      EXPECT_TRUE(paths.insert(path).second) << path;
      EXPECT_EQ(field.index(), option.fields.front().index()) << path;
    }
  }
  EXPECT_EQ(find_option("--no-such-flag"), nullptr);
}

// Each choice's name is accepted and read back; the default is one of the choices.
TEST(OptionTable, ChoicesRoundTrip) {
  for (const OptionSpec& option : option_table()) {
    if (option.type() != OptionType::kChoice) continue;
    bool default_listed = false;
    for (const OptionChoice& choice : option.choices) {
      default_listed = default_listed || choice.name == option_default(option);
      SolveOptions options;
      for (const OptionAccess& field : option.fields) std::get<OptionField<std::string>>(field).set(options, choice.name);
      EXPECT_EQ(std::get<OptionField<std::string>>(option.fields.front()).get(options), choice.name);
    }
    EXPECT_TRUE(default_listed) << option.name;
    SolveOptions options;
    EXPECT_THROW(std::get<OptionField<std::string>>(option.fields.front()).set(options, "no-such-choice"), Error)
        << option.name;
  }
}

// Below its lower end, a number of every option is refused in validate_options' one-line form, naming its field
// and its flag.
TEST(OptionTable, ValidateChecksEveryRangeOfTheTable) {
  for (const OptionSpec& option : option_table()) {
    if (!option.range.low) continue;
    double below = *option.range.low - (option.range.low_open ? 0.0 : 1.0);
    while (!special_meaning(option, below).empty()) below -= 1.0;  // threads 0 is all cores
    for (const OptionAccess& access : option.fields) {
      const std::string message = refusal([&](SolveOptions& o) {
        std::visit(
            [&](const auto& field) {
              using T = typename std::remove_cvref_t<decltype(field)>::value_type;
              if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) field.set(o, static_cast<T>(below));
            },
            access);
      });
      const std::string path = std::visit([](const auto& f) { return f.path; }, access);
      EXPECT_EQ(message.rfind(path + " (" + option.flag() + ") must be " + option_rule(option) + ", not ", 0), 0u)
          << option.name << ": '" << message << "'";
    }
  }
}

TEST(MethodTable, FollowsTheEnumAndNamesEveryMethodOnce) {
  ASSERT_EQ(method_table().size(), 8u);
  for (std::size_t i = 0; i < method_table().size(); ++i) {
    const MethodSpec& m = method_table()[i];
    EXPECT_EQ(static_cast<std::size_t>(m.method), i) << m.name;
    EXPECT_EQ(parse_method(m.name), m.method);
    EXPECT_EQ(method_name(m.method), m.name);
    EXPECT_FALSE(m.summary.empty()) << m.name;
  }
  EXPECT_EQ(method_list(&MethodSpec::relaxable, "or"), "mip, mip-cuts or partition");
  EXPECT_EQ(method_list(&MethodSpec::stop_rule, "and"), "sampling and enhanced");
  EXPECT_THROW(parse_method("simplex"), Error);
}

}  // namespace
}  // namespace reluopt
