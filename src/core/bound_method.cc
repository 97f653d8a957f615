// The names of the bound methods (reluopt/options.h), as the command line and Python spell them.
#include "reluopt/error.h"
#include "reluopt/options.h"

namespace reluopt {

BoundMethod parse_bound_method(const std::string& name) {
  if (name == "interval") return BoundMethod::kInterval;
  if (name == "lp") return BoundMethod::kLp;
  if (name == "progressive") return BoundMethod::kProgressive;
  if (name == "symbolic") return BoundMethod::kSymbolic;
  throw Error("unknown bound method '" + name + "' (available: interval, lp, progressive, symbolic)");
}

std::string bound_method_name(BoundMethod method) {
  switch (method) {
    case BoundMethod::kInterval: return "interval";
    case BoundMethod::kLp: return "lp";
    case BoundMethod::kProgressive: return "progressive";
    case BoundMethod::kSymbolic: return "symbolic";
  }
  return "unknown";
}

}  // namespace reluopt
