#include "lp/linear_model.h"

#include <algorithm>

#include "reluopt/error.h"

namespace reluopt {

int LinearModel::num_integer() const {
  return static_cast<int>(std::count(is_integer_.begin(), is_integer_.end(), true));
}

int LinearModel::add_column(double lower, double upper, double objective, bool integer, std::string name) {
  col_lower_.push_back(lower);
  col_upper_.push_back(upper);
  objective_.push_back(objective);
  is_integer_.push_back(integer);
  col_names_.push_back(std::move(name));
  return num_cols() - 1;
}

int LinearModel::add_row(const std::vector<int>& index, const std::vector<double>& value, double lower,
                         double upper, std::string name) {
  if (index.size() != value.size()) throw Error("LinearModel::add_row: index and value sizes differ");
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (index[i] < 0 || index[i] >= num_cols()) throw Error("LinearModel::add_row: column out of range");
    if (value[i] == 0.0) continue;
    row_index_.push_back(index[i]);
    row_value_.push_back(value[i]);
  }
  row_start_.push_back(static_cast<int>(row_index_.size()));
  row_lower_.push_back(lower);
  row_upper_.push_back(upper);
  row_names_.push_back(std::move(name));
  return num_rows() - 1;
}

int LinearModel::add_dense_row(const double* coefficients, int n, int first_col, double lower, double upper,
                               std::string name) {
  if (first_col < 0 || first_col + n > num_cols()) throw Error("LinearModel::add_dense_row: out of range");
  for (int i = 0; i < n; ++i) {
    if (coefficients[i] == 0.0) continue;
    row_index_.push_back(first_col + i);
    row_value_.push_back(coefficients[i]);
  }
  row_start_.push_back(static_cast<int>(row_index_.size()));
  row_lower_.push_back(lower);
  row_upper_.push_back(upper);
  row_names_.push_back(std::move(name));
  return num_rows() - 1;
}

void LinearModel::reserve(int rows, int nonzeros) {
  row_start_.reserve(row_start_.size() + rows);
  row_lower_.reserve(row_lower_.size() + rows);
  row_upper_.reserve(row_upper_.size() + rows);
  row_names_.reserve(row_names_.size() + rows);
  row_index_.reserve(row_index_.size() + nonzeros);
  row_value_.reserve(row_value_.size() + nonzeros);
}

std::string LinearModel::col_name(int col) const {
  return col_names_[col].empty() ? "c" + std::to_string(col) : col_names_[col];
}

std::string LinearModel::row_name(int row) const {
  return row_names_[row].empty() ? "r" + std::to_string(row) : row_names_[row];
}

void LinearModel::set_col_bounds(int col, double lower, double upper) {
  col_lower_[col] = lower;
  col_upper_[col] = upper;
}

void LinearModel::set_row_bounds(int row, double lower, double upper) {
  row_lower_[row] = lower;
  row_upper_[row] = upper;
}

double LinearModel::evaluate(const std::vector<double>& v) const {
  double total = objective_constant_;
  for (int j = 0; j < num_cols(); ++j) total += objective_[j] * v[j];
  return total;
}

double LinearModel::max_violation(const std::vector<double>& v) const {
  double worst = 0.0;
  for (int j = 0; j < num_cols(); ++j)
    worst = std::max({worst, col_lower_[j] - v[j], v[j] - col_upper_[j]});
  for (int r = 0; r < num_rows(); ++r) {
    double activity = 0.0;
    for (int k = row_start_[r]; k < row_start_[r + 1]; ++k) activity += row_value_[k] * v[row_index_[k]];
    worst = std::max({worst, row_lower_[r] - activity, activity - row_upper_[r]});
  }
  return worst;
}

}  // namespace reluopt
