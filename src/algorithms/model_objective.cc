#include "algorithms/model_objective.h"

#include <utility>

#include "bounds/bounds.h"
#include "core/max_min_network.h"

namespace reluopt {

namespace {

// L <= y over the box of u, with room for the rounding of the forward pass that computes y - L (a relative
// 1e-6 of the terms' magnitude, beyond any rounding of a sum of doubles, and 1 absolute as carry_shift keeps).
Eigen::VectorXd carried_lower(const Network& network, const Domain& domain) {
  const DenseLayer& out = network.output_layer();
  Eigen::VectorXd lo = domain.lower, hi = domain.upper;
  if (network.num_hidden_layers() > 0) {
    const NeuronBounds bounds = interval_bounds(network, domain);
    lo = bounds.lower.back().cwiseMax(0.0);
    hi = bounds.upper.back().cwiseMax(0.0);
  }
  Eigen::VectorXd lower, reach;
  interval_step(out.weights, out.bias, lo, hi, &lower, nullptr, &reach);
  return lower.array() - 1.0 - 1e-6 * reach.array();
}

}  // namespace

ReducedModel with_linear_objective(ReducedModel reduced) {
  if (reduced.objective.is_linear()) return reduced;
  const Network& composite = *reduced.composite;
  const Eigen::VectorXd lower = carried_lower(composite, reduced.domain);
  detail::MaxMinNetwork compiled = detail::compile_max_min_carrying(composite, reduced.objective, lower);
  reduced.composite = std::make_shared<const Network>(std::move(compiled.network));
  reduced.objective = std::move(compiled.objective);
  if (reduced.has_output_rows()) {
    Eigen::MatrixXd rows = Eigen::MatrixXd::Zero(reduced.output_rows.rows(), reduced.output_rows.cols() + 1);
    rows.rightCols(reduced.output_rows.cols()) = reduced.output_rows;
    reduced.output_rows = std::move(rows);
  } else {
    reduced.output_rows.resize(0, reduced.composite->output_dim());
  }
  for (int& offset : reduced.output_offset) offset += 1;
  if (reduced.variables_offset >= 0) reduced.variables_offset += 1;
  return reduced;
}

}  // namespace reluopt
