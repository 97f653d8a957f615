// libFuzzer target: the VNN-LIB reader, the margin of every case it reads at a zero output, and the shape of
// every case's domain (a box with finite, uncrossed bounds and rows over every input) checked at its centre.
#include <cstdlib>

#include "fuzz/fuzz_reader.h"

namespace {

// A domain the reader returns is one the library takes: anything else is a finding.
void check_domain(const reluopt::Domain& domain, int num_inputs) {
  const bool shaped = domain.dim() == num_inputs && domain.upper.size() == num_inputs &&
                      domain.A.cols() == num_inputs && domain.b.size() == domain.A.rows();
  if (!shaped || !domain.lower.allFinite() || !domain.upper.allFinite() || !domain.A.allFinite() ||
      !domain.b.allFinite() || (domain.lower.array() > domain.upper.array()).any()) {
    std::cerr << "the reader returned a malformed domain\n";
    std::abort();
  }
  domain.max_violation(0.5 * domain.lower + 0.5 * domain.upper);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return reluopt::fuzz::run(data, size, [](std::istream& in) {
    const reluopt::VnnlibProperty property = reluopt::detail::read_vnnlib(in, "fuzz.vnnlib");
    const Eigen::VectorXd y = Eigen::VectorXd::Zero(property.num_outputs);
    for (const reluopt::VnnlibCase& c : property.cases) {
      check_domain(c.box, property.num_inputs);
      for (const auto& conjunction : c.unsafe)
        for (const reluopt::OutputConstraint& constraint : conjunction) constraint.holds(y);
    }
  });
}
