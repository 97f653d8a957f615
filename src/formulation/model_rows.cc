// What a model around networks adds to a network's MIP formulation (docs/PROBLEM.md §2): linear rows on the
// composite's outputs and integer input columns.
#include <string>

#include "formulation/formulation_parts.h"
#include "formulation/mip_formulation.h"
#include "reluopt/error.h"

namespace reluopt {

void add_output_rows(MipFormulation& f, const Network& network, const Eigen::MatrixXd& C, const Eigen::VectorXd& e) {
  if (C.rows() == 0) return;
  const DenseLayer& out = network.output_layer();
  if (C.cols() != out.weights.rows() || e.size() != C.rows())
    throw Error("output rows: " + std::to_string(C.cols()) + " columns for " + std::to_string(out.weights.rows()) +
                " outputs");
  const std::vector<int>& last = layer_inputs(f, network.num_hidden_layers());
  const Eigen::MatrixXd rows = C * out.weights;
  const Eigen::VectorXd rhs = e - C * out.bias;
  for (Eigen::Index r = 0; r < C.rows(); ++r) {
    std::vector<int> index;
    std::vector<double> value;
    for (std::size_t j = 0; j < last.size(); ++j) {
      const double a = rows(r, static_cast<Eigen::Index>(j));
      if (a == 0.0) continue;
      index.push_back(last[j]);
      value.push_back(a);
    }
    f.model.add_row(index, value, -kInfinity, rhs[r], "output_row" + std::to_string(r));
  }
}

void set_integer_inputs(MipFormulation& f, const std::vector<bool>& integer) {
  if (integer.empty()) return;
  if (integer.size() != f.input.size())
    throw Error("integer inputs: " + std::to_string(integer.size()) + " flags for " + std::to_string(f.input.size()) +
                " inputs");
  for (std::size_t i = 0; i < integer.size(); ++i)
    if (integer[i]) f.model.set_integer(f.input[i], true);
}

}  // namespace reluopt
