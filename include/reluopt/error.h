#pragma once

#include <stdexcept>
#include <string>

namespace reluopt {

// Raised at the library boundary for bad input: unreadable or malformed files, unsupported operators,
// inconsistent shapes, invalid domains or options. The message is one line and names the culprit.
// Outcomes of an optimization (infeasible, time limit...) are never exceptions; see result.h.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace reluopt
