// libFuzzer target: the problem file reader (docs/PROBLEM.md), the model's validation and its reduction to one
// composite network. Model paths resolve in tests/fixtures/problem, so the two small networks there (demand.nnet,
// risk.nnet) load and the fuzzer reaches the variables, inputs, constraints and objective behind them.
#include "core/model_reduction.h"
#include "fuzz/fuzz_reader.h"
#include "io/problem_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return reluopt::fuzz::run(data, size, [](std::istream& in) {
    const reluopt::Model model = reluopt::detail::read_problem_json(in, "fuzz.json", RELUOPT_FUZZ_MODELS);
    model.validate();
    reluopt::reduce(model);
  });
}
