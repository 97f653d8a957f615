#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "reluopt/error.h"
#include "reluopt/network.h"

namespace reluopt {

namespace {

// Refuses to write out a convolution whose matrix would take more than kMaxWrittenOutBytes.
void check_written_out(const Conv2d& conv, double bytes, const char* form) {
  if (bytes <= Weights::kMaxWrittenOutBytes) return;
  char size[64];
  std::snprintf(size, sizeof size, "%.1f GB", bytes / 1e9);
  throw Error("a convolution of " + std::to_string(conv.rows()) + " outputs and " + std::to_string(conv.cols()) +
              " inputs written out as a " + form + " matrix needs " + size + " (at most " +
              std::to_string(static_cast<int>(Weights::kMaxWrittenOutBytes / 1e9)) + " GB)");
}

}  // namespace

double Weights::bytes() const {
  if (conv_) return static_cast<double>(conv_->kernel().size()) * sizeof(double);
  if (is_sparse_) return static_cast<double>(sparse_.nonZeros()) * (sizeof(double) + sizeof(int));
  return static_cast<double>(dense_.size()) * sizeof(double);
}

const Eigen::MatrixXd& Weights::dense() const {
  if (!is_dense()) throw std::logic_error("Weights::dense() of a W that is not dense");
  return dense_;
}

Eigen::MatrixXd& Weights::dense() {
  if (!is_dense()) throw std::logic_error("Weights::dense() of a W that is not dense");
  return dense_;
}

const Weights::Sparse& Weights::sparse() const {
  if (!is_sparse_) throw std::logic_error("Weights::sparse() of a W that is not sparse");
  return sparse_;
}

const Conv2d& Weights::conv() const {
  if (!conv_) throw std::logic_error("Weights::conv() of a W that is not a convolution");
  return *conv_;
}

Eigen::MatrixXd Weights::to_dense() const {
  if (conv_) {
    check_written_out(*conv_, static_cast<double>(rows()) * static_cast<double>(cols()) * sizeof(double), "dense");
    return Eigen::MatrixXd(conv_->to_sparse());
  }
  return is_sparse_ ? Eigen::MatrixXd(sparse_) : dense_;
}

Weights::Sparse Weights::to_sparse() const {
  if (conv_) {
    check_written_out(*conv_, static_cast<double>(conv_->nonzeros()) * (sizeof(double) + sizeof(int)), "sparse");
    return conv_->to_sparse();
  }
  return is_sparse_ ? sparse_ : Sparse(dense_.sparseView());
}

const Eigen::RowVectorXd Weights::row(Eigen::Index j) const {
  if (is_dense()) return dense_.row(j);
  if (conv_) {
    Eigen::RowVectorXd r = Eigen::RowVectorXd::Zero(cols());
    conv_->for_each_in_row(j, [&](Eigen::Index i, double w) { r[i] = w; });
    return r;
  }
  Eigen::RowVectorXd r = Eigen::RowVectorXd::Zero(sparse_.cols());
  for (Sparse::InnerIterator it(sparse_, j); it; ++it) r[it.col()] = it.value();
  return r;
}

const Eigen::VectorXd Weights::col(Eigen::Index i) const {
  if (conv_) return conv_->col(i);
  if (!is_sparse_) return dense_.col(i);
  return Eigen::VectorXd(sparse_.col(i));
}

Eigen::VectorXd Weights::abs_times(const Eigen::VectorXd& v) const {
  if (conv_) return conv_->with_kernel(conv_->kernel().cwiseAbs()).times(v);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(rows());
  if (is_sparse_) {
    for (Eigen::Index j = 0; j < sparse_.rows(); ++j)
      for (Sparse::InnerIterator it(sparse_, j); it; ++it) out[j] += std::abs(it.value()) * v[it.col()];
  } else {
    for (Eigen::Index i = 0; i < dense_.cols(); ++i) out.array() += dense_.col(i).array().abs() * v[i];
  }
  return out;
}

Eigen::VectorXd Weights::abs_reach(const Eigen::VectorXd& m) const {
  if (!conv_) return abs_times(m);
  return conv_->row_abs_bound() * (m.size() > 0 ? m.maxCoeff() : 0.0);
}

namespace {

// W with f applied to each stored entry (f(0) = 0, so a sparse W stays sparse with the same pattern or less).
template <typename F>
Weights map_entries(const Weights& w, F f) {
  if (w.is_conv()) return Weights(w.conv().with_kernel(w.conv().kernel().unaryExpr(f)));
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
  if (conv_) return Weights(Sparse(r.asDiagonal() * to_sparse() * c.asDiagonal()));
  if (!is_sparse_) return Weights(Eigen::MatrixXd(r.asDiagonal() * dense_ * c.asDiagonal()));
  return Weights(Sparse(r.asDiagonal() * sparse_ * c.asDiagonal()));
}

bool Weights::allFinite() const {
  if (conv_) return conv_->kernel().allFinite();
  if (!is_sparse_) return dense_.allFinite();
  return Eigen::Map<const Eigen::VectorXd>(sparse_.valuePtr(), sparse_.nonZeros()).allFinite();
}

bool Weights::operator==(const Weights& other) const {
  if (rows() != other.rows() || cols() != other.cols()) return false;
  if (is_dense() && other.is_dense()) return dense_ == other.dense_;
  if (conv_ && other.conv_ && conv_->geometry() == other.conv_->geometry())
    return conv_->kernel() == other.conv_->kernel();
  Sparse difference = to_sparse() - other.to_sparse();
  difference.prune(0.0);
  return difference.nonZeros() == 0;
}

bool Weights::within(double limit) const {
  if (conv_) return (conv_->kernel().array().abs() <= limit).all();
  if (!is_sparse_) return (dense_.array().abs() <= limit).all();
  return (Eigen::Map<const Eigen::VectorXd>(sparse_.valuePtr(), sparse_.nonZeros()).array().abs() <= limit).all();
}

}  // namespace reluopt
