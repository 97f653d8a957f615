#include "algorithms/incumbent.h"

#include <algorithm>

#include "core/domain_sampler.h"
#include "core/peers.h"

namespace reluopt {

namespace {

bool better(const EvaluatedPoint& a, const EvaluatedPoint& b) {
  if (a.value != b.value) return a.value > b.value;
  return std::lexicographical_compare(a.x.begin(), a.x.end(), b.x.begin(), b.x.end());
}

}  // namespace

void Incumbent::offer(EvaluatedPoint point) {
  if (!point.feasible) return;  // a point that misses a model's row is never a solution
  std::lock_guard<std::mutex> lock(mutex_);
  if (best_ && !better(point, *best_)) return;
  if (clock_ != nullptr && (!best_ || point.value > best_->value)) trajectory_.emplace_back(clock_->elapsed(), point.value);
  best_ = std::move(point);
}

std::optional<double> Incumbent::best_value() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!best_) return std::nullopt;
  return best_->value;
}

std::optional<EvaluatedPoint> Incumbent::best() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return best_;
}

void Incumbent::fill(const Problem& problem, SolveResult& result) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!best_) {
    result.status = SolveStatus::kNoSolution;
    return;
  }
  result.status = SolveStatus::kFeasible;
  for (const auto& [seconds, value] : trajectory_)
    result.trajectory.emplace_back(seconds, problem.objective.sign() * value);
  result.x = best_->x;
  result.outputs = best_->outputs;
  result.objective = problem.objective.value(best_->outputs);
  result.domain_violation = problem.domain.max_violation(best_->x);
}

void trade_points(const Problem& problem, Peers& peers, Incumbent& incumbent) {
  const std::optional<EvaluatedPoint> best = incumbent.best();
  const Eigen::VectorXd none;
  for (Eigen::VectorXd& x : peers.exchange_best(best ? best->x : none, best ? best->value : -kInfinity)) {
    EvaluatedPoint point;
    point.outputs = problem.network.forward(x);
    point.value = problem.objective.sign() * problem.objective.value(point.outputs);
    if (problem.rows.has_output_rows()) point.feasible = output_row_excess(problem.rows, point.outputs) <= 0.0;
    point.x = std::move(x);
    incumbent.offer(std::move(point));
  }
}

std::optional<Eigen::VectorXd> PointExchange::trade(int side, const Eigen::VectorXd& x, double value) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Only a point better than both sides' posts goes up, so a received point never echoes back.
  if (value > best_ && x.size() > 0) {
    best_ = value;
    posted_[side] = x;
    ++posts_[side];
  }
  const int other = 1 - side;
  if (received_[side] == posts_[other]) return std::nullopt;
  received_[side] = posts_[other];
  return posted_[other];
}

void trade_points(const Problem& problem, const ExchangeSeat& seat, Incumbent& incumbent) {
  const std::optional<EvaluatedPoint> best = incumbent.best();
  std::optional<Eigen::VectorXd> x =
      seat.exchange->trade(seat.side, best ? best->x : Eigen::VectorXd(), best ? best->value : -kInfinity);
  if (x) incumbent.offer(evaluate_point(problem, *x));
}

void offer_forward_passes(const Problem& problem, const SolveOptions& options, int samples, Incumbent& incumbent,
                          const Deadline& deadline) {
  incumbent.offer(evaluate_point(problem, problem.interior_point));
  DomainSampler sampler(problem.domain, problem.interior_point, options.seed, options.sampling.hit_and_run_thinning);
  // A pass through a wide convolutional layer takes tens of milliseconds: the samples stop at the deadline.
  for (int i = 0; i < samples && !deadline.expired(); ++i) incumbent.offer(evaluate_point(problem, sampler.next()));
}

}  // namespace reluopt
