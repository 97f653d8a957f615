#pragma once

#include <cstdint>
#include <string>

namespace reluopt {

enum class Method { kSampling };

// "sampling" -> Method::kSampling; throws reluopt::Error naming the unknown method otherwise.
Method parse_method(const std::string& name);
std::string method_name(Method method);

struct SamplingOptions {
  long samples = 1000;            // the paper's warm-start setting
  int threads = 0;                // 0: all cores
  std::uint64_t seed = 0;
  int hit_and_run_thinning = 0;   // 0: max(10, d) steps between samples (polyhedral domains only)
};

struct SolveOptions {
  Method method = Method::kSampling;
  SamplingOptions sampling;
};

}  // namespace reluopt
