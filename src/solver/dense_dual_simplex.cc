#include "solver/dense_dual_simplex.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace reluopt {

namespace {

constexpr double kPrimalTolerance = 1e-9;   // basic variables this far outside their bounds are infeasible
constexpr double kDualTolerance = 1e-9;     // the Harris ratio test's allowance on reduced costs
constexpr double kPivotTolerance = 1e-9;    // smaller tableau entries never become pivots
constexpr double kCheckTolerance = 1e-7;    // the final check, relative to 1 + |bound| (CLP's primal tolerance)

// The pivot's inner loop: row -= factor * pivot_row, returning the new ||row||^2. It is where the time goes,
// so it is built twice, for AVX2 + FMA and for plain x86-64, and the loader picks what the CPU has.
__attribute__((target_clones("arch=haswell", "default")))
double subtract_scaled_row(double* __restrict row, double factor, const double* __restrict pivot_row, int n) {
  for (int j = 0; j < n; ++j) row[j] -= factor * pivot_row[j];
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;  // four sums so that the reduction vectorizes
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    s0 += row[j] * row[j];
    s1 += row[j + 1] * row[j + 1];
    s2 += row[j + 2] * row[j + 2];
    s3 += row[j + 3] * row[j + 3];
  }
  for (; j < n; ++j) s0 += row[j] * row[j];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace

bool DenseDualSimplex::load(const LinearModel& model) {
  const int n = model.num_cols();
  rows_.clear();
  for (int r = 0; r < model.num_rows(); ++r)
    if (std::isfinite(model.row_lower()[r]) || std::isfinite(model.row_upper()[r])) rows_.push_back(r);
  const int m = static_cast<int>(rows_.size());
  cols_ = n;
  const int variables = n + m;

  // Variables: columns 0..n-1, then the row activities r_i = a_i^T x. We minimize -objective.
  lower_.assign(variables, 0.0);
  upper_.assign(variables, 0.0);
  cost_.assign(variables, 0.0);
  value_.assign(variables, 0.0);
  at_upper_.assign(variables, 0);
  for (int j = 0; j < n; ++j) {
    lower_[j] = model.col_lower()[j];
    upper_[j] = model.col_upper()[j];
    if (!std::isfinite(lower_[j]) || !std::isfinite(upper_[j])) return false;  // not for this solver
    cost_[j] = -model.objective()[j];
  }
  for (int i = 0; i < m; ++i) {
    lower_[n + i] = model.row_lower()[rows_[i]];
    upper_[n + i] = model.row_upper()[rows_[i]];
  }

  // The slack basis: r basic, every column nonbasic at the bound its cost favours (dual feasible).
  basic_.resize(m);
  nonbasic_.resize(n);
  reduced_cost_.assign(cost_.begin(), cost_.begin() + n);
  for (int j = 0; j < n; ++j) {
    nonbasic_[j] = j;
    at_upper_[j] = cost_[j] < 0.0;
    value_[j] = at_upper_[j] ? upper_[j] : lower_[j];
  }
  tableau_.assign(static_cast<std::size_t>(m) * n, 0.0);
  row_weight_.assign(m, 1.0);
  for (int i = 0; i < m; ++i) {
    basic_[i] = n + i;
    double* row = tableau_row(i);
    double activity = 0.0;
    const int r = rows_[i];
    for (int e = model.row_start()[r]; e < model.row_start()[r + 1]; ++e) {
      row[model.row_index()[e]] -= model.row_value()[e];
      activity += model.row_value()[e] * value_[model.row_index()[e]];
    }
    double norm = 0.0;
    for (int j = 0; j < n; ++j) norm += row[j] * row[j];
    row_weight_[i] = 1.0 + norm;
    value_[n + i] = activity;
  }
  return true;
}

int DenseDualSimplex::leaving_row() const {
  int p = -1;
  double best_score = 0.0;
  for (std::size_t i = 0; i < basic_.size(); ++i) {
    const int v = basic_[i];
    double infeasibility = 0.0;
    if (value_[v] < lower_[v] - kPrimalTolerance) infeasibility = lower_[v] - value_[v];
    else if (value_[v] > upper_[v] + kPrimalTolerance) infeasibility = value_[v] - upper_[v];
    else continue;
    const double score = infeasibility * infeasibility / row_weight_[i];
    if (score > best_score) best_score = score, p = static_cast<int>(i);
  }
  return p;
}

int DenseDualSimplex::entering_column(int p, bool to_lower, double shortfall) {
  // With x_B(p) = -sum_j alpha_j x_j, the candidates are the columns that move x_B(p) towards its bound from
  // a feasible side of their own bounds; the dual step theta = d_q / alpha_q keeps every reduced cost dual
  // feasible. Bound flipping (the "long-step" ratio test; Fourer 1994, Koberstein's thesis 2005, §3.2.2):
  // walking the breakpoints |d_j / alpha_j| upwards, a boxed column whose breakpoint is passed moves to its
  // other bound instead of entering, as long as x_B(p) is still short of its bound after all flips so far;
  // that saves one iteration per flip on a box. Among the columns left at the blocking breakpoint, Harris'
  // two passes pick the largest |alpha| within kDualTolerance of it.
  const double* alpha = tableau_row(p);
  candidates_.clear();
  for (int j = 0; j < cols_; ++j) {
    const int v = nonbasic_[j];
    if (lower_[v] == upper_[v] || std::abs(alpha[j]) < kPivotTolerance) continue;
    // To raise x_B(p): raise x_j (at lower) when alpha_j < 0, lower it (at upper) when alpha_j > 0.
    const bool raises = at_upper_[v] ? alpha[j] > 0.0 : alpha[j] < 0.0;
    if (raises == to_lower) candidates_.push_back({std::abs(reduced_cost_[j]) / std::abs(alpha[j]), j});
  }
  flips_.clear();
  if (candidates_.empty()) return -1;
  // The breakpoints in increasing order, popped from a min-heap only as far as the walk goes; the heap
  // [begin, heap_end) keeps the columns that did not flip, the blocking one on top.
  auto later = [](const std::pair<double, int>& a, const std::pair<double, int>& b) { return a > b; };
  std::make_heap(candidates_.begin(), candidates_.end(), later);
  auto heap_end = candidates_.end();
  while (heap_end - candidates_.begin() > 1) {
    const int j = candidates_.front().second;
    const double reach = std::abs(alpha[j]) * (upper_[nonbasic_[j]] - lower_[nonbasic_[j]]);
    if (!(reach < shortfall)) break;  // infinite or enough: j blocks
    shortfall -= reach;
    flips_.push_back(j);
    std::pop_heap(candidates_.begin(), heap_end, later);
    --heap_end;
  }
  double limit = kInfinity;
  for (auto c = candidates_.begin(); c != heap_end; ++c)
    limit = std::min(limit, (std::abs(reduced_cost_[c->second]) + kDualTolerance) / std::abs(alpha[c->second]));
  int q = -1;
  double best_alpha = 0.0;
  for (auto c = candidates_.begin(); c != heap_end; ++c) {
    if (c->first > limit || std::abs(alpha[c->second]) <= best_alpha) continue;
    best_alpha = std::abs(alpha[c->second]);
    q = c->second;
  }
  return q;
}

void DenseDualSimplex::flip_bounds() {
  for (const int j : flips_) {
    const int v = nonbasic_[j];
    const double step = at_upper_[v] ? lower_[v] - upper_[v] : upper_[v] - lower_[v];
    at_upper_[v] = !at_upper_[v];
    value_[v] += step;
    for (std::size_t i = 0; i < basic_.size(); ++i) value_[basic_[i]] -= tableau_row(static_cast<int>(i))[j] * step;
  }
}

void DenseDualSimplex::pivot(int p, int q, bool to_lower, double target) {
  const int m = static_cast<int>(basic_.size()), n = cols_;
  const int leaving = basic_[p], entering = nonbasic_[q];
  double* pivot_row = tableau_row(p);
  const double pivot = pivot_row[q];

  // Dual update: d_j -= theta alpha_j; the leaving variable's reduced cost is -theta. A cost pushed past zero
  // by the Harris allowance is set to zero.
  const double theta = reduced_cost_[q] / pivot;
  for (int j = 0; j < n; ++j) {
    if (j == q) continue;
    double d = reduced_cost_[j] - theta * pivot_row[j];
    if (at_upper_[nonbasic_[j]] ? d > 0.0 : d < 0.0) d = 0.0;
    reduced_cost_[j] = d;
  }
  reduced_cost_[q] = -theta;
  if (to_lower ? reduced_cost_[q] < 0.0 : reduced_cost_[q] > 0.0) reduced_cost_[q] = 0.0;

  // Primal update: move the entering variable so that x_B(p) lands on its bound.
  const double delta = (value_[leaving] - target) / pivot;
  for (int i = 0; i < m; ++i) value_[basic_[i]] -= tableau_row(i)[q] * delta;
  value_[entering] += delta;
  value_[leaving] = target;
  at_upper_[leaving] = !to_lower;

  // The tableau: row p /= pivot with T[p][q] = 1 / pivot; row i -= T[i][q] row p with T[i][q] = -T[i][q] / pivot.
  const double inverse = 1.0 / pivot;
  double norm = 0.0;
  for (int j = 0; j < n; ++j) {
    pivot_row[j] *= inverse;
    norm += pivot_row[j] * pivot_row[j];
  }
  pivot_row[q] = inverse;
  row_weight_[p] = 1.0 + norm + inverse * inverse - 1.0;  // the scaled entry q was 1
  for (int i = 0; i < m; ++i) {
    if (i == p) continue;
    double* row = tableau_row(i);
    const double factor = row[q];
    if (factor == 0.0) continue;
    double row_norm = subtract_scaled_row(row, factor, pivot_row, n);
    const double entry = -factor * inverse;
    row_norm += entry * entry - row[q] * row[q];
    row[q] = entry;
    row_weight_[i] = 1.0 + row_norm;
  }
  basic_[p] = entering;
  nonbasic_[q] = leaving;
}

bool DenseDualSimplex::verified_point(const LinearModel& model, std::vector<double>& x) const {
  // Every bound of the original model at the point, and dual feasibility of the reduced costs recomputed from
  // the final tableau, d_j = c_j - sum_i c_B(i) T_ij.
  const int n = cols_;
  x.assign(value_.begin(), value_.begin() + n);
  for (int j = 0; j < n; ++j) {
    const double slack = kCheckTolerance * (1.0 + std::max(std::abs(lower_[j]), std::abs(upper_[j])));
    if (x[j] < lower_[j] - slack || x[j] > upper_[j] + slack) return false;
    x[j] = std::clamp(x[j], lower_[j], upper_[j]);
  }
  for (int r = 0; r < model.num_rows(); ++r) {
    double activity = 0.0;
    for (int e = model.row_start()[r]; e < model.row_start()[r + 1]; ++e)
      activity += model.row_value()[e] * x[model.row_index()[e]];
    const double lo = model.row_lower()[r], hi = model.row_upper()[r];
    if (std::isfinite(lo) && activity < lo - kCheckTolerance * (1.0 + std::abs(lo))) return false;
    if (std::isfinite(hi) && activity > hi + kCheckTolerance * (1.0 + std::abs(hi))) return false;
  }
  for (int j = 0; j < n; ++j) {
    const int v = nonbasic_[j];
    if (lower_[v] == upper_[v]) continue;
    double d = cost_[v];
    for (std::size_t i = 0; i < basic_.size(); ++i) d -= cost_[basic_[i]] * tableau_row(static_cast<int>(i))[j];
    const double allowance = kCheckTolerance * (1.0 + std::abs(cost_[v]));
    if (at_upper_[v] ? d > allowance : d < -allowance) return false;
  }
  return true;
}

LpSolution DenseDualSimplex::solve(const LinearModel& model, double time_limit_seconds) {
  LpSolution solution;
  solution.status = LpStatus::kError;
  if (!load(model)) return solution;
  const auto start = std::chrono::steady_clock::now();
  const int max_iterations = 20 * (static_cast<int>(basic_.size()) + cols_) + 100;
  for (int iteration = 0;; ++iteration) {
    solution.iterations = iteration;
    if (iteration >= max_iterations) return solution;  // stalled: kError
    const bool stopped = stop_ != nullptr && stop_->load(std::memory_order_relaxed);
    if (stopped || ((iteration & 31) == 31 && std::isfinite(time_limit_seconds) &&
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
                        time_limit_seconds)) {
      solution.status = LpStatus::kTimeLimit;
      return solution;
    }
    const int p = leaving_row();
    if (p < 0) break;  // primal feasible: optimal
    const int leaving = basic_[p];
    const bool to_lower = value_[leaving] < lower_[leaving];
    const double target = to_lower ? lower_[leaving] : upper_[leaving];
    const int q = entering_column(p, to_lower, std::abs(value_[leaving] - target));
    if (q < 0) {
      solution.status = LpStatus::kInfeasible;  // the dual ray of row p
      return solution;
    }
    flip_bounds();
    pivot(p, q, to_lower, target);
  }
  std::vector<double> x;
  if (!verified_point(model, x)) return solution;
  solution.status = LpStatus::kOptimal;
  solution.values = std::move(x);
  solution.objective = model.evaluate(solution.values);
  return solution;
}

}  // namespace reluopt
