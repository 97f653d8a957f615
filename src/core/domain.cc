#include "reluopt/domain.h"

#include <algorithm>
#include <cmath>

#include "core/magnitude.h"
#include "reluopt/error.h"

namespace reluopt {

Domain Domain::unit_box(int dim) {
  Domain domain = box(Eigen::VectorXd::Zero(dim), Eigen::VectorXd::Ones(dim));
  domain.description = "[0,1]^" + std::to_string(dim);
  return domain;
}

Domain Domain::box(Eigen::VectorXd lower, Eigen::VectorXd upper) {
  Domain domain;
  domain.A.resize(0, lower.size());
  domain.lower = std::move(lower);
  domain.upper = std::move(upper);
  return domain;
}

namespace {

// Names the first bound, row entry or right-hand side beyond kMaxMagnitude (indices from 0).
void check_magnitudes(const Domain& domain) {
  const auto refuse = [](const std::string& entry, double value) {
    throw Error("domain " + entry + " = " + magnitude_text(value) + " is beyond " + magnitude_text(kMaxMagnitude) +
                " in magnitude: no double-precision LP can use it (rescale the inputs; docs/NUMERICS.md)");
  };
  for (int i = 0; i < domain.dim(); ++i) {
    if (std::abs(domain.lower[i]) > kMaxMagnitude) refuse("bound lower[" + std::to_string(i) + "]", domain.lower[i]);
    if (std::abs(domain.upper[i]) > kMaxMagnitude) refuse("bound upper[" + std::to_string(i) + "]", domain.upper[i]);
  }
  for (int r = 0; r < domain.num_rows(); ++r) {
    for (int j = 0; j < domain.A.cols(); ++j)
      if (std::abs(domain.A(r, j)) > kMaxMagnitude)
        refuse("row entry A[" + std::to_string(r) + "][" + std::to_string(j) + "]", domain.A(r, j));
    if (std::abs(domain.b[r]) > kMaxMagnitude) refuse("right-hand side b[" + std::to_string(r) + "]", domain.b[r]);
  }
}

}  // namespace

void Domain::validate(int expected_dim) const {
  if (lower.size() != expected_dim || upper.size() != expected_dim)
    throw Error("domain dimension mismatch: bounds have " + std::to_string(lower.size()) + " and " +
                std::to_string(upper.size()) + " entries but the network has " +
                std::to_string(expected_dim) + " inputs");
  for (int i = 0; i < expected_dim; ++i) {
    if (!std::isfinite(lower[i]) || !std::isfinite(upper[i]))
      throw Error("domain bound " + std::to_string(i) + " is not finite (the domain must be bounded)");
    if (lower[i] > upper[i])
      throw Error("domain is empty: lower[" + std::to_string(i) + "] > upper[" + std::to_string(i) + "]");
  }
  if (A.rows() > 0 && A.cols() != expected_dim)
    throw Error("domain dimension mismatch: rows of A have " + std::to_string(A.cols()) +
                " entries but the network has " + std::to_string(expected_dim) + " inputs");
  if (A.rows() != b.size())
    throw Error("domain dimension mismatch: A has " + std::to_string(A.rows()) + " rows but b has " +
                std::to_string(b.size()) + " entries");
  if (!A.allFinite() || !b.allFinite()) throw Error("domain rows A x <= b contain a value that is not finite");
  check_magnitudes(*this);
}

double Domain::max_violation(const Eigen::VectorXd& x) const {
  double violation = std::max((lower - x).maxCoeff(), (x - upper).maxCoeff());
  if (A.rows() > 0) violation = std::max(violation, (A * x - b).maxCoeff());
  return std::max(violation, 0.0);
}

}  // namespace reluopt
