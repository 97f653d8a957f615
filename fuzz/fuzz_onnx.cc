// libFuzzer target: the ONNX reader, and a forward pass through what it reads.
#include "fuzz/fuzz_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return reluopt::fuzz::run(data, size, [](std::istream& in) {
    const reluopt::Network network = reluopt::detail::read_onnx(in, "fuzz.onnx", reluopt::fuzz::kLimits);
    network.forward(Eigen::VectorXd::Zero(network.input_dim()));
  });
}
