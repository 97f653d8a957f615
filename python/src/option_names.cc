#include "option_names.h"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "reluopt/error.h"

namespace py = pybind11;

namespace reluopt::python {

namespace {

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

RealPair real_pair(const std::string& name, py::handle value) {
  if (value.is_none()) return std::nullopt;
  if (!py::isinstance<py::sequence>(value) || py::isinstance<py::str>(value) || py::len(value) != 2)
    throw Error("option '" + name + "' takes a pair (eps, delta), not " + py::repr(value).cast<std::string>());
  const py::sequence pair = py::reinterpret_borrow<py::sequence>(value);
  return std::pair(take<double>(name, pair[0], "a pair (eps, delta)"), take<double>(name, pair[1], "a pair (eps, delta)"));
}

// A choice's name; a choice between "none" and one other also takes False and True for them.
std::string choice(const OptionSpec& option, py::handle value) {
  if (py::isinstance<py::bool_>(value) && option.choices.size() == 2 && option.choices[0].name == "none")
    return option.choices[value.cast<bool>() ? 1 : 0].name;
  return take<std::string>(option.name, value, "a name");
}

// The Python value as the option's type T.
template <typename T>
T python_value(const OptionSpec& option, py::handle value) {
  if constexpr (std::is_same_v<T, bool>) return take<bool>(option.name, value, "True or False");
  else if constexpr (std::is_integral_v<T>) return take<T>(option.name, value, "an integer");
  else if constexpr (std::is_floating_point_v<T>) return take<T>(option.name, value, "a number");
  else if constexpr (std::is_same_v<T, std::string>) return choice(option, value);
  else return real_pair(option.name, value);
}

void apply_option(const OptionSpec& option, py::handle value, SolveOptions& options) {
  std::visit(
      [&](const auto& first) {
        using T = typename std::remove_cvref_t<decltype(first)>::value_type;
        const T converted = python_value<T>(option, value);
        for (const OptionAccess& field : option.fields) std::get<OptionField<T>>(field).set(options, converted);
      },
      option.fields.front());
}

// The option of a Python name (not of a flag), or nullptr.
const OptionSpec* named_option(const std::string& name) {
  const OptionSpec* option = find_option(name);
  return option != nullptr && option->name == name ? option : nullptr;
}

// The Python form of an option's default: a number, a bool, a name or None.
py::object python_default(const OptionSpec& option) {
  return std::visit(
      [](const auto& field) -> py::object {
        const auto value = field.get(SolveOptions{});
        using T = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::is_same_v<T, RealPair>) return value ? py::object(py::make_tuple(value->first, value->second)) : py::object(py::none());
        else return py::cast(value);
      },
      option.fields.front());
}

}  // namespace

std::vector<std::string> option_names() {
  std::vector<std::string> names;
  for (const OptionSpec& option : option_table()) names.push_back(option.name);
  std::sort(names.begin(), names.end());
  return names;
}

py::list option_table_py() {
  py::list rows;
  for (const OptionSpec& option : option_table()) {
    py::dict row;
    row["name"] = option.name;
    row["flag"] = option.flag();
    row["type"] = option_type_name(option.type());
    py::list choices;
    for (const OptionChoice& c : option.choices) choices.append(c.name);
    row["choices"] = choices;
    row["default"] = python_default(option);
    row["accepts"] = option.type() == OptionType::kInteger || option.type() == OptionType::kReal ? option_rule(option) : "";
    row["help"] = option.help;
    py::list methods;
    for (Method m : option.methods) methods.append(method_name(m));
    row["methods"] = methods;
    rows.append(row);
  }
  return rows;
}

void apply_options(const py::dict& names, SolveOptions& options) {
  std::string unknown;
  for (const auto& [key, value] : names) {
    const std::string name = py::str(key);
    if (named_option(name) == nullptr) unknown += (unknown.empty() ? "'" : ", '") + name + "'";
  }
  if (!unknown.empty()) throw Error("unknown option " + unknown + " (known: see reluopt.option_names())");
  const bool samples_given = names.contains("samples");
  for (const auto& [key, value] : names) apply_option(*named_option(py::str(key)), value, options);
  // As on the command line, a stop rule makes the sample count a cap that is unlimited unless given.
  if (options.sampling.stop_rule && !samples_given) options.sampling.samples = std::numeric_limits<long>::max();
}

SolveOptions solve_options(const py::dict& settings, const py::dict& options, double time_limit) {
  SolveOptions out;
  out.method = parse_method(settings["method"].cast<std::string>());
  out.threads = integer_argument<int>("threads", settings["threads"]);
  out.seed = integer_argument<std::uint64_t>("seed", settings["seed"]);
  out.sampling.record_values = settings["record_values"].cast<bool>();
  apply_options(options, out);
  validate_options(out, time_limit);
  return out;
}

}  // namespace reluopt::python
