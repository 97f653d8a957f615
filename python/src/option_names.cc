#include "option_names.h"

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "reluopt/error.h"

namespace py = pybind11;

namespace reluopt::python {

namespace {

using Setter = std::function<void(py::handle, SolveOptions&)>;

// The value as T, or an Error naming the option: "option 'samples' takes an integer, not 1.5".
template <typename T>
T take(const std::string& name, py::handle value, const char* kind) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return integer_argument<T>("option '" + name + "'", value);
  } else {
    const bool is_bool = py::isinstance<py::bool_>(value);
    const bool is_number = py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value);
    const bool ok = std::is_same_v<T, bool>       ? is_bool
                    : std::is_floating_point_v<T> ? is_number && !is_bool
                                                  : py::isinstance<py::str>(value);
    if (!ok) throw Error("option '" + name + "' takes " + kind + ", not " + py::repr(value).cast<std::string>());
    try {
      return value.cast<T>();
    } catch (const py::cast_error&) {
      throw Error("option '" + name + "' takes " + kind + ", not " + py::repr(value).cast<std::string>());
    }
  }
}

template <typename T>
Setter field(const std::string& name, const char* kind, std::function<T&(SolveOptions&)> at) {
  return [name, kind, at](py::handle value, SolveOptions& options) { at(options) = take<T>(name, value, kind); };
}

StopRuleOptions stop_rule(py::handle value) {
  const auto bad = [&] {
    return Error("option 'stop_rule' takes a pair (eps, delta), not " + py::repr(value).cast<std::string>());
  };
  if (!py::isinstance<py::sequence>(value) || py::isinstance<py::str>(value) || py::len(value) != 2) throw bad();
  const py::sequence pair = py::reinterpret_borrow<py::sequence>(value);
  StopRuleOptions rule;
  rule.eps = take<double>("stop_rule", pair[0], "a pair (eps, delta)");
  rule.delta = take<double>("stop_rule", pair[1], "a pair (eps, delta)");
  return rule;
}

// Options whose value is not a plain field: names of enumerations, flags that set two fields, the command line's
// -1 for "root only".
std::map<std::string, Setter> special_setters() {
  std::map<std::string, Setter> s;
  s["local_search"] = [](py::handle v, SolveOptions& o) {
    o.enhanced.local_search = parse_local_search(take<std::string>("local_search", v, "a name"));
  };
  s["prover"] = [](py::handle v, SolveOptions& o) { o.enhanced.prover = parse_prover(take<std::string>("prover", v, "a name")); };
  s["bounds"] = [](py::handle v, SolveOptions& o) {
    o.mip.bounds.method = parse_bound_method(take<std::string>("bounds", v, "a name"));
  };
  s["node_limit"] = [](py::handle v, SolveOptions& o) {
    o.enhanced.node_limit = take<long>("node_limit", v, "an integer");
    o.bab.node_limit = o.enhanced.node_limit;
  };
  s["cut_frequency"] = [](py::handle v, SolveOptions& o) {
    const int k = take<int>("cut_frequency", v, "an integer");
    o.mip.cut_frequency = k == -1 ? -99 : k;
  };
  s["concave_neurons"] = [](py::handle v, SolveOptions& o) {
    const std::string mode = take<std::string>("concave_neurons", v, "'free' or 'fixed'");
    if (mode != "free" && mode != "fixed") throw Error("option 'concave_neurons' must be 'free' or 'fixed', not '" + mode + "'");
    o.relax_concave = mode == "free";
  };
  s["stop_rule"] = [](py::handle v, SolveOptions& o) {
    o.sampling.stop_rule = v.is_none() ? std::nullopt : std::optional(stop_rule(v));
  };
  return s;
}

std::map<std::string, Setter> setters() {
  std::map<std::string, Setter> s = special_setters();
  s["samples"] = field<long>("samples", "an integer", [](SolveOptions& o) -> long& { return o.sampling.samples; });
  s["hit_and_run_thinning"] = field<int>("hit_and_run_thinning", "an integer",
                                         [](SolveOptions& o) -> int& { return o.sampling.hit_and_run_thinning; });
  s["gap"] = field<double>("gap", "a number", [](SolveOptions& o) -> double& { return o.enhanced.gap; });
  s["eps"] = field<double>("eps", "a number", [](SolveOptions& o) -> double& { return o.enhanced.eps; });
  s["max_free"] = field<int>("max_free", "an integer", [](SolveOptions& o) -> int& { return o.enhanced.max_free; });
  s["mip_share"] = field<double>("mip_share", "a number", [](SolveOptions& o) -> double& { return o.enhanced.mip_share; });
  s["partitions"] = field<int>("partitions", "an integer", [](SolveOptions& o) -> int& { return o.mip.partitions; });
  s["warm_start"] = field<bool>("warm_start", "True or False", [](SolveOptions& o) -> bool& { return o.mip.warm_start; });
  s["warm_start_samples"] = field<long>("warm_start_samples", "an integer",
                                        [](SolveOptions& o) -> long& { return o.mip.warm_start_samples; });
  s["verbose"] = field<bool>("verbose", "True or False", [](SolveOptions& o) -> bool& { return o.mip.verbose; });
  s["input_split_dims"] = field<int>("input_split_dims", "an integer",
                                     [](SolveOptions& o) -> int& { return o.bab.input_split_dims; });
  s["relu_split_below"] = field<int>("relu_split_below", "an integer",
                                     [](SolveOptions& o) -> int& { return o.bab.relu_split_below; });
  s["bab_memory_mb"] = field<double>("bab_memory_mb", "a number",
                                     [](SolveOptions& o) -> double& { return o.bab.memory_mb; });
  s["check_proof"] = field<bool>("check_proof", "True or False", [](SolveOptions& o) -> bool& { return o.check_proof; });
  return s;
}

const std::map<std::string, Setter>& all_setters() {
  static const std::map<std::string, Setter> table = setters();
  return table;
}

}  // namespace

std::vector<std::string> option_names() {
  std::vector<std::string> names;
  for (const auto& [name, setter] : all_setters()) names.push_back(name);
  return names;
}

void apply_options(const py::dict& names, SolveOptions& options) {
  std::string unknown;
  for (const auto& [key, value] : names) {
    const std::string name = py::str(key);
    if (!all_setters().count(name)) unknown += (unknown.empty() ? "'" : ", '") + name + "'";
  }
  if (!unknown.empty()) throw Error("unknown option " + unknown + " (known: see reluopt.option_names())");
  const bool samples_given = names.contains("samples");
  for (const auto& [key, value] : names) all_setters().at(py::str(key))(value, options);
  // As on the command line, a stop rule makes the sample count a cap that is unlimited unless given.
  if (options.sampling.stop_rule && !samples_given) options.sampling.samples = std::numeric_limits<long>::max();
}

}  // namespace reluopt::python
