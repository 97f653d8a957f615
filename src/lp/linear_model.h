#pragma once

#include <limits>
#include <string>
#include <vector>

namespace reluopt {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A solver-agnostic LP/MIP: maximize objective^T v + objective_constant subject to
// row_lower <= A v <= row_upper and col_lower <= v <= col_upper, some columns integer.
// Rows are stored compressed row-wise. Formulations build it; solver adapters consume it.
class LinearModel {
 public:
  int num_cols() const { return static_cast<int>(col_lower_.size()); }
  int num_rows() const { return static_cast<int>(row_lower_.size()); }
  int num_integer() const;

  int add_column(double lower, double upper, double objective = 0.0, bool integer = false,
                 std::string name = {});
  int add_row(const std::vector<int>& index, const std::vector<double>& value, double lower, double upper,
              std::string name = {});
  // A row from dense coefficients over columns [first_col, first_col + n); zeros are skipped.
  int add_dense_row(const double* coefficients, int n, int first_col, double lower, double upper,
                    std::string name = {});
  void reserve(int rows, int nonzeros);

  void set_objective(int col, double coefficient) { objective_[col] = coefficient; }
  void set_objective_constant(double c) { objective_constant_ = c; }
  void set_col_bounds(int col, double lower, double upper);
  void set_row_bounds(int row, double lower, double upper);
  void set_integer(int col, bool integer) { is_integer_[col] = integer; }

  const std::vector<double>& col_lower() const { return col_lower_; }
  const std::vector<double>& col_upper() const { return col_upper_; }
  const std::vector<double>& objective() const { return objective_; }
  double objective_constant() const { return objective_constant_; }
  const std::vector<bool>& is_integer() const { return is_integer_; }
  // Names given to add_column / add_row, or "c<j>" / "r<i>" when none was given.
  std::string col_name(int col) const;
  std::string row_name(int row) const;

  const std::vector<int>& row_start() const { return row_start_; }  // num_rows + 1 entries
  const std::vector<int>& row_index() const { return row_index_; }
  const std::vector<double>& row_value() const { return row_value_; }
  const std::vector<double>& row_lower() const { return row_lower_; }
  const std::vector<double>& row_upper() const { return row_upper_; }

  // objective^T v + constant, and the largest bound or row violation at v.
  double evaluate(const std::vector<double>& v) const;
  double max_violation(const std::vector<double>& v) const;

 private:
  std::vector<double> col_lower_, col_upper_, objective_;
  std::vector<bool> is_integer_;
  std::vector<std::string> col_names_;
  double objective_constant_ = 0.0;
  std::vector<int> row_start_{0};
  std::vector<int> row_index_;
  std::vector<double> row_value_;
  std::vector<double> row_lower_, row_upper_;
  std::vector<std::string> row_names_;
};

}  // namespace reluopt
