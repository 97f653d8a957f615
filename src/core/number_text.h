#pragma once

#include <cstdio>
#include <string>

namespace reluopt {

// `value` in 17 significant digits, which is enough for the text to read back as the same double: the form of a
// number that a solver, a checker or a user's script reads again (counterexamples, formulations, model points).
inline std::string round_trip_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace reluopt
