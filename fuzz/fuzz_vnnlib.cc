// libFuzzer target: the VNN-LIB reader, and the margin of every case it reads at a zero output.
#include "fuzz/fuzz_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return reluopt::fuzz::run(data, size, [](std::istream& in) {
    const reluopt::VnnlibProperty property = reluopt::detail::read_vnnlib(in, "fuzz.vnnlib");
    const Eigen::VectorXd y = Eigen::VectorXd::Zero(property.num_outputs);
    for (const reluopt::VnnlibCase& c : property.cases)
      for (const auto& conjunction : c.unsafe)
        for (const reluopt::OutputConstraint& constraint : conjunction) constraint.holds(y);
  });
}
