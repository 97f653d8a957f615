#include "lp/domain_rows.h"

#include <Eigen/Dense>

namespace reluopt {

void add_domain_rows(const Domain& domain, LinearModel& model) {
  // Row by row from a row-major copy of A, so that each row's coefficients are contiguous.
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> A = domain.A;
  for (int r = 0; r < domain.num_rows(); ++r)
    model.add_dense_row(A.row(r).data(), domain.dim(), 0, -kInfinity, domain.b[r]);
}

}  // namespace reluopt
