// Placeholder being replaced: LP-based and progressive bounds (MATH.md §4).
#include "reluopt/bounds.h"
#include "reluopt/error.h"

namespace reluopt {

BoundMethod parse_bound_method(const std::string& name) {
  if (name == "interval") return BoundMethod::kInterval;
  if (name == "lp") return BoundMethod::kLp;
  if (name == "progressive") return BoundMethod::kProgressive;
  throw Error("unknown bound method '" + name + "' (available: interval, lp, progressive)");
}

std::string bound_method_name(BoundMethod method) {
  switch (method) {
    case BoundMethod::kInterval: return "interval";
    case BoundMethod::kLp: return "lp";
    case BoundMethod::kProgressive: return "progressive";
  }
  return "unknown";
}

NeuronBounds compute_bounds(const Network& network, const Domain& domain, const BoundOptions&, const Deadline&) {
  return interval_bounds(network, domain);
}

}  // namespace reluopt
