// libFuzzer target: the NNet reader, and a forward pass through what it reads.
#include "fuzz/fuzz_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return reluopt::fuzz::run(data, size, [](std::istream& in) {
    const reluopt::LoadedModel model = reluopt::detail::read_nnet(in, "fuzz.nnet", reluopt::fuzz::kLimits);
    model.network.forward(Eigen::VectorXd::Zero(model.network.input_dim()));
  });
}
