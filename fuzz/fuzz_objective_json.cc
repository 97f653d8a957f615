// libFuzzer target: the objective JSON reader.
#include "fuzz/fuzz_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return reluopt::fuzz::run(data, size, [](std::istream& in) {
    reluopt::detail::read_objective_json(in, "fuzz.json");
  });
}
