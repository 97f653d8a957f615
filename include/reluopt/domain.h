#pragma once

#include <string>

#include <Eigen/Dense>

namespace reluopt {

// The input domain P = {x : lower <= x <= upper, A x <= b}: a box, possibly cut by linear rows.
// Pure data; validate() checks shapes and finiteness. Non-emptiness of a polyhedron needs an LP and is
// checked by prepare_domain() in algorithms/domain_setup.h.
struct Domain {
  Eigen::VectorXd lower;
  Eigen::VectorXd upper;
  Eigen::MatrixXd A;  // rows x dim; zero rows for a plain box
  Eigen::VectorXd b;
  std::string description;  // where it came from, for reports ("[0,1]^10 (default)", a file name...)

  static Domain unit_box(int dim);
  static Domain box(Eigen::VectorXd lower, Eigen::VectorXd upper);

  int dim() const { return static_cast<int>(lower.size()); }
  int num_rows() const { return static_cast<int>(A.rows()); }
  bool has_rows() const { return A.rows() > 0; }

  // Throws reluopt::Error naming the problem: wrong dimension, non-finite or crossed bounds, bad rows.
  void validate(int expected_dim) const;
  // Largest violation of any bound or row at x (0 when x is inside).
  double max_violation(const Eigen::VectorXd& x) const;
};

}  // namespace reluopt
