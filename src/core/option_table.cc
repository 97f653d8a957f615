// The method table and the option table: each method and each option of SolveOptions declared once, with its
// name, flag, range, help line and the methods it applies to (reluopt/options.h says what comes from them).
#include <sstream>
#include <type_traits>

#include "reluopt/error.h"
#include "reluopt/options.h"

namespace reluopt {

namespace {

// A field of SolveOptions by its path, written once: as code for get and set, and as the text by which
// validate_options' messages name it.
#define RELUOPT_FIELD(path)                                                                                  \
  OptionField<std::remove_cvref_t<decltype(SolveOptions{}.path)>> {                                          \
    #path, [](const SolveOptions& o) { return o.path; }, [](SolveOptions& o, const auto& v) { o.path = v; } \
  }

std::string number_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

std::vector<MethodSpec> make_method_table() {
  // clang-format off
  return {
      {Method::kSampling, "sampling",
       "Algorithm 1 of Perakis & Tsiourvas: one LP per sampled region; a point", false, true, true},
      {Method::kMip, "mip", "big-M MIP (Fischetti & Jo) on CBC: a point and a proven bound", true, false, false},
      {Method::kMipCuts, "mip-cuts", "big-M plus Anderson et al. cuts on CBC: a point and a proven bound",
       true, false, false},
      {Method::kPartition, "partition",
       "Tsay et al. partition formulation (--partitions N) on CBC: a point and a proven bound", true, false, false},
      {Method::kEnhanced, "enhanced",
       "the default portfolio: gradient ascent from each sample, then Algorithm 2 (its region's LP, local search); "
       "with --time-limit a prover ends the run with a proven bound", false, true, true},
      {Method::kBab, "bab",
       "our branch-and-bound prover (bound propagation, node LPs, input and ReLU splits): a point and a proven "
       "bound at any time", false, false, true},
      {Method::kGradient, "gradient",
       "projected gradient ascent with perturbations from each sample, then the LP of the best point's region; "
       "a point", false, false, true},
      {Method::kWalk, "walk",
       "the relaxing walk (Tong, Cai & Serra): the big-M LP relaxation, walks through regions, diversified by "
       "fixing first- and second-layer neurons; a point", false, false, true},
  };
  // clang-format on
}

std::vector<OptionChoice> method_choices() {
  std::vector<OptionChoice> choices;
  for (const MethodSpec& m : method_table()) choices.push_back({m.name, m.summary});
  return choices;
}

std::vector<Method> methods_with(bool MethodSpec::*has) {
  std::vector<Method> out;
  for (const MethodSpec& m : method_table())
    if (m.*has) out.push_back(m.method);
  return out;
}

// The methods that end with a proven bound: the MIP methods, bab, and enhanced with a time limit.
const std::vector<Method> kProving = {Method::kMip, Method::kMipCuts, Method::kPartition, Method::kBab,
                                      Method::kEnhanced};
const std::vector<Method> kMipMethods = {Method::kMip, Method::kMipCuts, Method::kPartition};
const std::vector<Method> kSamplingMethods = {Method::kSampling, Method::kEnhanced, Method::kGradient, Method::kWalk};

OptionRange at_least(double low, std::vector<std::pair<double, std::string>> special = {}) {
  return OptionRange{.low = low, .special = std::move(special)};
}

OptionField<std::string> method_field() {
  return {"method", [](const SolveOptions& o) { return method_name(o.method); },
          [](SolveOptions& o, const std::string& v) { o.method = parse_method(v); }};
}

// The concave neurons' mode: free (relax_concave) or fixed (the paper's models).
OptionField<std::string> concave_field() {
  return {"relax_concave", [](const SolveOptions& o) { return std::string(o.relax_concave ? "free" : "fixed"); },
          [](SolveOptions& o, const std::string& v) {
            if (v != "free" && v != "fixed")
              throw Error("relax_concave (--concave-neurons) must be free or fixed, not '" + v + "'");
            o.relax_concave = v == "free";
          }};
}

OptionField<std::string> warm_start_field() {
  return {"mip.warm_start", [](const SolveOptions& o) { return std::string(o.mip.warm_start ? "sampling" : "none"); },
          [](SolveOptions& o, const std::string& v) {
            if (v != "none" && v != "sampling")
              throw Error("unknown warm start '" + v + "' for --warm-start (available: none, sampling)");
            o.mip.warm_start = v == "sampling";
          }};
}

OptionField<RealPair> stop_rule_field() {
  return {"sampling.stop_rule",
          [](const SolveOptions& o) -> RealPair {
            if (!o.sampling.stop_rule) return std::nullopt;
            return std::pair(o.sampling.stop_rule->eps, o.sampling.stop_rule->delta);
          },
          [](SolveOptions& o, const RealPair& v) {
            o.sampling.stop_rule = v ? std::optional(StopRuleOptions{.eps = v->first, .delta = v->second})
                                     : std::nullopt;
          }};
}

std::vector<OptionSpec> run_options() {
  return {
      {"method", "NAME", "the method: what it finds or proves", {}, method_choices(), {}, {method_field()}},
      {"samples", "N", "number of samples; with --stop-rule a cap, unlimited unless given", kSamplingMethods, {},
       at_least(1), {RELUOPT_FIELD(sampling.samples)}},
      {"stop_rule", "EPS,DELTA",
       "stop once the best value is within EPS of the fitted maximum with probability >= 1 - DELTA (checked at "
       "100 samples, then each time the samples grew by 20%)",
       methods_with(&MethodSpec::stop_rule), {}, {}, {stop_rule_field()}},
      {"threads", "T", "worker threads", {}, {}, OptionRange{.low = 1, .high = 1024, .special = {{0, "all cores"}}},
       {RELUOPT_FIELD(threads)}},
      {"seed", "K", "random seed; the same seed and thread count give the same answer", {}, {}, {},
       {RELUOPT_FIELD(seed)}},
      {"hit_and_run_thinning", "N", "hit-and-run steps between two samples of a domain with rows A x <= b",
       kSamplingMethods, {}, at_least(0, {{0, "max(10, d)"}}), {RELUOPT_FIELD(sampling.hit_and_run_thinning)}},
      {"concave_neurons", "MODE", "unstable neurons whose weight in the objective is <= 0",
       {},
       {{"free", "no fixed state in the LPs, no binary in the MIPs: y >= h, y >= 0 is exact for them"},
        {"fixed", "the paper's LPs and MIPs: every unstable neuron fixed or binary"}},
       {},
       {concave_field()}},
  };
}

std::vector<OptionSpec> enhanced_options() {
  const std::vector<Method> enhanced = {Method::kEnhanced};
  return {
      {"local_search", "KIND", "the local search around each region's LP optimum", enhanced,
       {{local_search_name(LocalSearch::kFlipMip),
         "flips, then the exact check: ours when <= 12 tight, else the paper's local MIP on CBC"},
        {local_search_name(LocalSearch::kFlip),
         "single flips of tight neurons by warm-started LPs, the exact check when <= 12 tight"},
        {local_search_name(LocalSearch::kBranchAndBound), "the exact local MIP by our branch-and-bound on CLP"},
        {local_search_name(LocalSearch::kPaper), "the paper's local MIP on CBC and its gap test, as written"}},
       {},
       {OptionField<std::string>{"enhanced.local_search",
                                 [](const SolveOptions& o) { return local_search_name(o.enhanced.local_search); },
                                 [](SolveOptions& o, const std::string& v) {
                                   o.enhanced.local_search = parse_local_search(v);
                                 }}}},
      {"gap", "G", "local search when |best - lp| <= G max(|best|, |lp|)", enhanced, {}, at_least(0),
       {RELUOPT_FIELD(enhanced.gap)}},
      {"eps", "E", "a neuron is tight when |pre-activation| <= E", enhanced, {}, at_least(0),
       {RELUOPT_FIELD(enhanced.eps)}},
      {"max_free", "K", "at most K tight neurons per local search", enhanced, {}, at_least(0, {{0, "all"}}),
       {RELUOPT_FIELD(enhanced.max_free)}},
      {"node_limit", "N", "the node LPs of bnb and the CBC nodes of flip-mip per local MIP (enhanced), the nodes of the search (bab)",
       {Method::kEnhanced, Method::kBab}, {}, at_least(0, {{0, "no limit; flip-mip: 500"}}),
       {RELUOPT_FIELD(enhanced.node_limit), RELUOPT_FIELD(bab.node_limit)}},
      {"mip_share", "F",
       "with --time-limit, Algorithm 2 gets at most the first 1 - F of the run and the prover the rest",
       enhanced, {}, OptionRange{.low = 0, .high = 1, .high_open = true, .special = {{0, "Algorithm 2 alone"}}},
       {RELUOPT_FIELD(enhanced.mip_share)}},
      {"prover", "P", "with --time-limit, what proves the bound at the end of the run", enhanced,
       {{prover_name(Prover::kBab), "our branch-and-bound"},
        {prover_name(Prover::kMip), "the big-M MIP on CBC"},
        {prover_name(Prover::kBoth), "both at once, each on half of the threads; the first proof ends both"}},
       {},
       {OptionField<std::string>{"enhanced.prover", [](const SolveOptions& o) { return prover_name(o.enhanced.prover); },
                                 [](SolveOptions& o, const std::string& v) { o.enhanced.prover = parse_prover(v); }}}},
      {"first_proof", "F",
       "with --time-limit, the prover first runs alone for at most F of the run; a proof there ends the run",
       enhanced, {}, OptionRange{.low = 0, .high = 1, .high_open = true, .special = {{0, "no first proof"}}},
       {RELUOPT_FIELD(enhanced.first_proof)}},
      {"ascent_steps", "N", "gradient steps (a forward and a backward pass) per sample; enhanced with 0: "
       "Algorithm 2 as the paper writes it", {Method::kGradient, Method::kEnhanced}, {}, at_least(0),
       {RELUOPT_FIELD(gradient.ascent_steps)}},
      {"perturbations", "N", "restarts near the best point when an ascent is stuck",
       {Method::kGradient, Method::kEnhanced}, {}, at_least(0), {RELUOPT_FIELD(gradient.perturbations)}},
      {"perturbation_radius", "R", "their radius, relative to each box width", {Method::kGradient, Method::kEnhanced},
       {}, OptionRange{.low = 0, .high = 1, .low_open = true}, {RELUOPT_FIELD(gradient.perturbation_radius)}},
  };
}

std::vector<OptionSpec> prover_options() {
  const std::vector<Method> bab = {Method::kBab, Method::kEnhanced};
  return {
      {"check_proof", "",
       "before reporting a bound, search beyond it (Algorithm 2's local search from the point, 100 samples from "
       "seed + 1); a point found there withdraws the bound",
       kProving, {}, {}, {RELUOPT_FIELD(check_proof)}},
      {"input_split_dims", "D", "with 2+ hidden layers, split input coordinates only when d <= D", bab, {},
       at_least(0), {RELUOPT_FIELD(bab.input_split_dims)}},
      {"relu_split_below", "U", "... and while more than U neurons are unstable", bab, {}, at_least(0),
       {RELUOPT_FIELD(bab.relu_split_below)}},
      {"bab_memory", "MB", "memory for the open nodes; beyond it, depth-first dives", bab, {},
       OptionRange{.low = 0, .infinity_ok = true, .special = {{0, "no limit"}}}, {RELUOPT_FIELD(bab.memory_mb)}},
      {"walk_iterations", "N", "diversification rounds", {Method::kWalk}, {}, at_least(0),
       {RELUOPT_FIELD(walk.iterations)}},
      {"partitions", "N", "sets per neuron", {Method::kPartition}, {}, at_least(1), {RELUOPT_FIELD(mip.partitions)}},
      {"bounds", "KIND", "the neuron bounds of the MIP formulations (and of relax)", kMipMethods,
       {{bound_method_name(BoundMethod::kInterval), "interval arithmetic"},
        {bound_method_name(BoundMethod::kLp), "two LPs per neuron over the earlier layers' relaxation"},
        {bound_method_name(BoundMethod::kProgressive),
         "interval and symbolic, then LPs for the neurons still unstable"},
        {bound_method_name(BoundMethod::kSymbolic), "linear bound propagation, no LP"}},
       {},
       {OptionField<std::string>{"mip.bounds.method",
                                 [](const SolveOptions& o) { return bound_method_name(o.mip.bounds.method); },
                                 [](SolveOptions& o, const std::string& v) {
                                   o.mip.bounds.method = parse_bound_method(v);
                                 }}}},
      {"warm_start", "KIND", "a MIP start", kMipMethods,
       {{"none", "no MIP start"}, {"sampling", "run Algorithm 1 first and give its best point to CBC"}}, {},
       {warm_start_field()}},
      {"warm_start_samples", "N", "samples of that warm start (inside the same time limit)", kMipMethods, {},
       at_least(1), {RELUOPT_FIELD(mip.warm_start_samples)}},
      {"cut_frequency", "K", "separate Anderson cuts every K nodes (then CBC runs on one thread)",
       {Method::kMipCuts}, {}, at_least(1, {{-1, "root only"}}), {RELUOPT_FIELD(mip.cut_frequency)}},
      {"verbose", "", "show CBC's log", kMipMethods, {}, {}, {RELUOPT_FIELD(mip.verbose)}},
  };
}

std::vector<OptionSpec> make_option_table() {
  std::vector<OptionSpec> table = run_options();
  for (auto part : {enhanced_options(), prover_options()})
    for (OptionSpec& option : part) table.push_back(std::move(option));
  return table;
}

#undef RELUOPT_FIELD

}  // namespace

const std::vector<MethodSpec>& method_table() {
  static const std::vector<MethodSpec> table = make_method_table();
  return table;
}

const MethodSpec& method_spec(Method method) {
  for (const MethodSpec& m : method_table())
    if (m.method == method) return m;
  throw Error("method " + std::to_string(static_cast<int>(method)) + " is not in the method table");
}

std::vector<std::string> method_names() {
  std::vector<std::string> names;
  for (const MethodSpec& m : method_table()) names.push_back(m.name);
  return names;
}

std::string method_list(bool MethodSpec::*has, const std::string& conjunction) {
  std::vector<std::string> names;
  for (const MethodSpec& m : method_table())
    if (m.*has) names.push_back(m.name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " " + conjunction + " " : ", ") + names[i];
  return out;
}

Method parse_method(const std::string& name) {
  for (const MethodSpec& m : method_table())
    if (m.name == name) return m.method;
  std::string available;
  for (const std::string& known : method_names()) available += (available.empty() ? "" : ", ") + known;
  throw Error("unknown method '" + name + "' (available: " + available + ")");
}

std::string method_name(Method method) { return method_spec(method).name; }

LocalSearch parse_local_search(const std::string& name) {
  for (LocalSearch kind : {LocalSearch::kFlip, LocalSearch::kFlipMip, LocalSearch::kBranchAndBound, LocalSearch::kPaper})
    if (name == local_search_name(kind)) return kind;
  throw Error("unknown local search '" + name + "' (available: flip, flip-mip, bnb, paper)");
}

std::string local_search_name(LocalSearch kind) {
  switch (kind) {
    case LocalSearch::kPaper: return "paper";
    case LocalSearch::kBranchAndBound: return "bnb";
    case LocalSearch::kFlip: return "flip";
    case LocalSearch::kFlipMip: return "flip-mip";
  }
  return "unknown";
}

Prover parse_prover(const std::string& name) {
  for (Prover prover : {Prover::kBab, Prover::kMip, Prover::kBoth})
    if (name == prover_name(prover)) return prover;
  throw Error("unknown prover '" + name + "' (available: bab, mip, both)");
}

std::string prover_name(Prover prover) {
  switch (prover) {
    case Prover::kBab: return "bab";
    case Prover::kMip: return "mip";
    case Prover::kBoth: return "both";
  }
  return "unknown";
}

std::string option_type_name(OptionType type) {
  switch (type) {
    case OptionType::kInteger: return "integer";
    case OptionType::kReal: return "real";
    case OptionType::kBool: return "bool";
    case OptionType::kChoice: return "choice";
    case OptionType::kRealPair: return "real pair";
  }
  return "unknown";
}

std::string OptionSpec::flag() const {
  std::string flag = "--" + name;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

OptionType OptionSpec::type() const {
  return std::visit(
      [](const auto& field) {
        using T = typename std::remove_cvref_t<decltype(field)>::value_type;
        if constexpr (std::is_same_v<T, bool>) return OptionType::kBool;
        else if constexpr (std::is_integral_v<T>) return OptionType::kInteger;
        else if constexpr (std::is_floating_point_v<T>) return OptionType::kReal;
        else if constexpr (std::is_same_v<T, std::string>) return OptionType::kChoice;
        else return OptionType::kRealPair;
      },
      fields.front());
}

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = make_option_table();
  return table;
}

const OptionSpec* find_option(const std::string& name_or_flag) {
  for (const OptionSpec& option : option_table())
    if (option.name == name_or_flag || option.flag() == name_or_flag) return &option;
  return nullptr;
}

std::string option_default(const OptionSpec& option) {
  const SolveOptions defaults;
  return std::visit(
      [&](const auto& field) -> std::string {
        const auto value = field.get(defaults);
        using T = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::is_same_v<T, bool>) return value ? "true" : "false";
        else if constexpr (std::is_integral_v<T>) return std::to_string(value);
        else if constexpr (std::is_floating_point_v<T>) return number_text(value);
        else if constexpr (std::is_same_v<T, std::string>) return value;
        else return value ? number_text(value->first) + "," + number_text(value->second) : "none";
      },
      option.fields.front());
}

std::string option_rule(const OptionSpec& option) {
  const OptionRange& r = option.range;
  const bool real = option.type() == OptionType::kReal;
  std::string rule;
  if (r.low && r.high && real) {
    rule = std::string("in ") + (r.low_open ? "(" : "[") + number_text(*r.low) + ", " + number_text(*r.high) +
           (r.high_open ? ")" : "]");
  } else if (r.low && r.high) {
    rule = "between " + number_text(*r.low) + " and " + number_text(*r.high);
  } else if (r.low || r.high) {
    const std::string sign = r.low ? (r.low_open ? "> " : ">= ") : (r.high_open ? "< " : "<= ");
    rule = (real && !r.infinity_ok ? "a finite number " : "") + sign + number_text(r.low ? *r.low : *r.high);
  } else {
    rule = real ? "a finite number" : "any";
  }
  std::string meanings;
  for (const auto& [value, meaning] : r.special)
    meanings += (meanings.empty() ? " (" : "; ") + number_text(value) + ": " + meaning;
  return rule + (meanings.empty() ? "" : meanings + ")");
}

std::string special_meaning(const OptionSpec& option, double value) {
  for (const auto& [special, meaning] : option.range.special)
    if (special == value) return meaning;
  return "";
}

}  // namespace reluopt
