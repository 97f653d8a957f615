#include <cmath>
#include <stdexcept>

#include "reluopt/network.h"

namespace reluopt {

const Eigen::MatrixXd& Weights::dense() const {
  if (is_sparse_) throw std::logic_error("Weights::dense() of a sparse W");
  return dense_;
}

Eigen::MatrixXd& Weights::dense() {
  if (is_sparse_) throw std::logic_error("Weights::dense() of a sparse W");
  return dense_;
}

const Weights::Sparse& Weights::sparse() const {
  if (!is_sparse_) throw std::logic_error("Weights::sparse() of a dense W");
  return sparse_;
}

const Eigen::RowVectorXd Weights::row(Eigen::Index j) const {
  if (!is_sparse_) return dense_.row(j);
  Eigen::RowVectorXd r = Eigen::RowVectorXd::Zero(sparse_.cols());
  for (Sparse::InnerIterator it(sparse_, j); it; ++it) r[it.col()] = it.value();
  return r;
}

const Eigen::VectorXd Weights::col(Eigen::Index i) const {
  if (!is_sparse_) return dense_.col(i);
  return Eigen::VectorXd(sparse_.col(i));
}

Eigen::VectorXd Weights::abs_times(const Eigen::VectorXd& v) const {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(rows());
  if (is_sparse_) {
    for (Eigen::Index j = 0; j < sparse_.rows(); ++j)
      for (Sparse::InnerIterator it(sparse_, j); it; ++it) out[j] += std::abs(it.value()) * v[it.col()];
  } else {
    for (Eigen::Index i = 0; i < dense_.cols(); ++i) out.array() += dense_.col(i).array().abs() * v[i];
  }
  return out;
}

namespace {

// W with f applied to each stored entry (f(0) = 0, so a sparse W stays sparse with the same pattern or less).
template <typename F>
Weights map_entries(const Weights& w, F f) {
  if (!w.is_sparse()) return Weights(Eigen::MatrixXd(w.dense().unaryExpr(f)));
  Weights::Sparse s = w.sparse();
  for (Eigen::Index k = 0; k < s.nonZeros(); ++k) s.valuePtr()[k] = f(s.valuePtr()[k]);
  s.prune(0.0);
  return Weights(std::move(s));
}

}  // namespace

Weights Weights::cwiseAbs() const {
  return map_entries(*this, [](double w) { return std::abs(w); });
}

Weights Weights::positive_part() const {
  return map_entries(*this, [](double w) { return w > 0.0 ? w : 0.0; });
}

Weights Weights::negative_part() const {
  return map_entries(*this, [](double w) { return w < 0.0 ? w : 0.0; });
}

Weights Weights::scaled(const Eigen::VectorXd& r, const Eigen::VectorXd& c) const {
  if (!is_sparse_) return Weights(Eigen::MatrixXd(r.asDiagonal() * dense_ * c.asDiagonal()));
  return Weights(Sparse(r.asDiagonal() * sparse_ * c.asDiagonal()));
}

bool Weights::allFinite() const {
  if (!is_sparse_) return dense_.allFinite();
  return Eigen::Map<const Eigen::VectorXd>(sparse_.valuePtr(), sparse_.nonZeros()).allFinite();
}

bool Weights::operator==(const Weights& other) const {
  if (rows() != other.rows() || cols() != other.cols()) return false;
  if (!is_sparse_ && !other.is_sparse_) return dense_ == other.dense_;
  Sparse difference = to_sparse() - other.to_sparse();
  difference.prune(0.0);
  return difference.nonZeros() == 0;
}

bool Weights::within(double limit) const {
  if (!is_sparse_) return (dense_.array().abs() <= limit).all();
  return (Eigen::Map<const Eigen::VectorXd>(sparse_.valuePtr(), sparse_.nonZeros()).array().abs() <= limit).all();
}

}  // namespace reluopt
