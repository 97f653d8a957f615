// libFuzzer target: the domain JSON reader, and the domain's own validation at its dimension.
#include "fuzz/fuzz_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return reluopt::fuzz::run(data, size, [](std::istream& in) {
    const reluopt::Domain domain = reluopt::detail::read_domain_json(in, "fuzz.json");
    domain.validate(domain.dim());
  });
}
