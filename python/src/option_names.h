#pragma once

#include <limits>
#include <string>
#include <type_traits>

#include <pybind11/pybind11.h>

#include "reluopt/error.h"
#include "reluopt/options.h"

namespace reluopt::python {

// Sets the fields of `options` that the keyword arguments of reluopt.solve(**options) name: the option table's
// names (reluopt/options.h), the command line's flags without "--" and with '_' for '-'. Throws reluopt::Error naming every
// unknown name, or naming the option and the value that has the wrong type. Ranges are checked afterwards by
// validate_options, with the command line's messages.
void apply_options(const pybind11::dict& names, SolveOptions& options);

// The options of a run: settings {"method", "threads", "seed", "record_values"} (named arguments of
// reluopt.solve), then the keyword options by apply_options, all checked by validate_options.
SolveOptions solve_options(const pybind11::dict& settings, const pybind11::dict& options, double time_limit);

// A Python integer (an int, or anything with __index__ but a bool) as T, or reluopt::Error naming `what`:
// "threads takes an integer, not 1.5", or for a value out of T's range (where pybind11's own cast raises a
// RuntimeError) "threads takes an integer from -2147483648 to 2147483647, not 1099511627776".
template <typename T>
T integer_argument(const std::string& what, pybind11::handle value) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  const std::string given = ", not " + pybind11::repr(value).cast<std::string>();
  if (pybind11::isinstance<pybind11::bool_>(value) || !PyIndex_Check(value.ptr()))
    throw Error(what + " takes an integer" + given);
  const auto index = pybind11::reinterpret_steal<pybind11::int_>(PyNumber_Index(value.ptr()));
  if (!index) throw pybind11::error_already_set();
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  if (index < pybind11::int_(lo) || pybind11::int_(hi) < index)
    throw Error(what + " takes an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + given);
  return index.cast<T>();
}

// The option table's names, sorted: every one a keyword of reluopt.solve (method, threads and seed are its
// named arguments, the rest go through apply_options).
std::vector<std::string> option_names();

// The option table as a list of dicts {"name", "flag", "type", "choices", "default", "accepts", "help",
// "methods"} for reluopt.option_table().
pybind11::list option_table_py();

}  // namespace reluopt::python
