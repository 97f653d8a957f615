// Projected gradient ascent with perturbations (docs/MATH.md §14; after Tong, Zhu, Serra & Burer,
// arXiv 2512.24295, "PPGA"). On a linear region of the network the objective is affine in x, so its gradient is
// constant there and costs one forward pass (recording the pattern) and one backward pass through it:
//   d(sign * g)/dx = W_1^T D_1 W_2^T D_2 ... W_{K-1}^T D_{K-1} (sign * W_K^T w),   D_k = diag(h_k > 0).
// From each sample of P, steps x <- proj_P(x + t grad) with t grown by 1.5 after an improving step and halved
// after one that does not improve; when t shrinks below a millionth of the box's diameter (or the region is
// flat) the ascent restarts from a random point near its best one, at most `perturbations` times. The sampling
// driver then solves the LP of the best point's region, which takes the region's exact maximum.
#include "algorithms/gradient.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <random>

#include "algorithms/model_region.h"
#include "algorithms/sampling.h"
#include "core/domain_sampler.h"
#include "core/peers.h"

namespace reluopt {

Projector::Projector(const Domain& domain, int max_cycles, double tolerance)
    : domain_(domain), row_norms_squared_(domain.A.rowwise().squaredNorm()), max_cycles_(max_cycles),
      tolerance_(tolerance) {}

Eigen::VectorXd Projector::project(const Eigen::VectorXd& y) const {
  auto clamp = [&](const Eigen::VectorXd& v) { return v.cwiseMax(domain_.lower).cwiseMin(domain_.upper).eval(); };
  if (!domain_.has_rows()) return clamp(y);
  const int rows = domain_.num_rows();
  const double stop = tolerance_ * std::max(1.0, (domain_.upper - domain_.lower).norm());
  // Dykstra: each set keeps the correction it removed last cycle and adds it back before projecting again.
  Eigen::VectorXd x = y;
  Eigen::VectorXd box_correction = Eigen::VectorXd::Zero(y.size());
  Eigen::VectorXd row_correction = Eigen::VectorXd::Zero(rows);  // multiples of the row a_i
  for (int cycle = 0; cycle < max_cycles_; ++cycle) {
    const Eigen::VectorXd start = x;
    const Eigen::VectorXd before_box = x + box_correction;
    x = clamp(before_box);
    box_correction = before_box - x;
    for (int i = 0; i < rows; ++i) {
      if (row_norms_squared_[i] == 0.0) continue;
      const auto a = domain_.A.row(i).transpose();
      // x + c_i a_i projected onto a_i^T x <= b_i moves along a_i only, so its correction stays a multiple.
      const double shifted = a.dot(x) + row_correction[i] * row_norms_squared_[i];
      const double multiple = std::max(0.0, (shifted - domain_.b[i]) / row_norms_squared_[i]);
      x += (row_correction[i] - multiple) * a;
      row_correction[i] = multiple;
    }
    // x can stand still for a cycle while the corrections still change, so a cycle must also end inside the
    // box and every row.
    if ((x - start).norm() <= stop && domain_.max_violation(x) <= stop) break;
  }
  return x;
}

RegionGradient region_gradient(const Network& network, const Objective& objective, const Eigen::VectorXd& x,
                               const Deadline* deadline) {
  const auto expired = [deadline] { return deadline != nullptr && deadline->expired(); };
  RegionGradient result;
  const int layers = network.num_hidden_layers();
  std::vector<Eigen::VectorXd> active(layers);
  Eigen::VectorXd value = x;
  for (int k = 0; k < layers; ++k) {
    if (expired()) {
      result.complete = false;
      return result;
    }
    const DenseLayer& layer = network.hidden_layer(k);
    const Eigen::VectorXd h = layer.weights * value + layer.bias;
    active[k] = (h.array() > 0.0).cast<double>().matrix();
    value = h.cwiseMax(0.0);
  }
  const DenseLayer& out = network.output_layer();
  result.value = objective.sign() * objective.value(out.weights * value + out.bias);
  Eigen::VectorXd back = objective.sign() * (out.weights.transpose() * objective.weights);
  for (int k = layers - 1; k >= 0; --k) {
    if (expired()) {
      result.complete = false;
      return result;
    }
    back = network.hidden_layer(k).weights.transpose() * back.cwiseProduct(active[k]);
  }
  result.gradient = std::move(back);
  return result;
}

namespace {

// The first step moves x by this share of the box's diameter; an ascent is stuck when its step would move x
// by less than kStuck of it.
constexpr double kFirstStep = 0.1;
constexpr double kStuck = 1e-6;

// A point of the ascent with its value and its region's gradient. With a model's output rows, a point that
// misses one carries the rows' penalty (model_region.h) and the penalty's descent direction as its slope: the
// ascent first reaches the rows, then climbs among the points that meet them.
struct AscentPoint {
  Eigen::VectorXd x;
  RegionGradient slope;
  double penalty = 0.0;
};

// Less penalty first, then the higher value.
bool better(const AscentPoint& a, const AscentPoint& b) {
  if (a.penalty != b.penalty) return a.penalty < b.penalty;
  return a.slope.value > b.slope.value;
}

class GradientMover final : public SampleMover {
 public:
  GradientMover(const Problem& problem, const GradientOptions& options, std::uint64_t seed, GradientCounters& counters)
      : problem_(problem), options_(options), projector_(problem.domain), rng_(seed), counters_(counters),
        width_(problem.domain.upper - problem.domain.lower), diameter_(width_.norm()) {}

  EvaluatedPoint move(const Eigen::VectorXd& sample, const Deadline& deadline) override {
    EvaluatedPoint start = evaluate_point(problem_, sample);
    if (diameter_ == 0.0 || options_.ascent_steps == 0) return start;
    std::optional<AscentPoint> first = at(start.x, deadline);
    if (!first) return start;
    AscentPoint current = std::move(*first);
    AscentPoint best = current;
    double step = first_step(current);
    long steps = 0;
    int perturbations = 0;
    while (steps < options_.ascent_steps && !deadline.expired()) {
      ++steps;
      if (step * current.slope.gradient.norm() < kStuck * diameter_) {
        if (perturbations == options_.perturbations) break;
        ++perturbations;
        std::optional<AscentPoint> restart = at(perturbed(best.x), deadline);
        if (!restart) break;
        current = std::move(*restart);
        step = first_step(current);
        continue;
      }
      std::optional<AscentPoint> next = at(current.x + step * current.slope.gradient, deadline);
      if (!next) break;
      if (better(*next, current)) {
        current = std::move(*next);
        step *= 1.5;
        if (better(current, best)) best = current;
      } else {
        step *= 0.5;
      }
    }
    counters_.steps.fetch_add(steps, std::memory_order_relaxed);
    counters_.perturbations.fetch_add(perturbations, std::memory_order_relaxed);
    EvaluatedPoint end = evaluate_point(problem_, best.x);
    if (end.feasible != start.feasible) return end.feasible ? end : start;
    return end.value >= start.value ? end : start;
  }

 private:
  // x projected onto P (and, with rows, moved inside it as a reported point would be), with its value and
  // gradient. A box's projection is exact, so it saves evaluate_point's forward pass. None when the deadline
  // passes within the passes.
  std::optional<AscentPoint> at(const Eigen::VectorXd& x, const Deadline& deadline) {
    Eigen::VectorXd projected = projector_.project(x);
    if (problem_.domain.has_rows()) projected = evaluate_point(problem_, std::move(projected)).x;
    AscentPoint point{std::move(projected), {}};
    point.slope = region_gradient(problem_.network, problem_.objective, point.x, &deadline);
    if (!point.slope.complete) return std::nullopt;
    if (problem_.rows.has_output_rows()) {
      RowViolation violation = row_violation(problem_, point.x);
      if (violation.excess > 0.0) {
        point.penalty = violation.penalty;
        point.slope.gradient = -std::move(violation.gradient);
      }
    }
    return point;
  }
  double first_step(const AscentPoint& point) const {
    const double norm = point.slope.gradient.norm();
    return norm > 0.0 ? kFirstStep * diameter_ / norm : 0.0;
  }
  Eigen::VectorXd perturbed(const Eigen::VectorXd& x) {
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    Eigen::VectorXd y = x;
    for (Eigen::Index i = 0; i < y.size(); ++i) y[i] += options_.perturbation_radius * width_[i] * unit(rng_);
    return y;
  }

  const Problem& problem_;
  const GradientOptions& options_;
  Projector projector_;
  std::mt19937_64 rng_;
  GradientCounters& counters_;
  Eigen::VectorXd width_;
  double diameter_;
};

}  // namespace

MoverFactory gradient_movers(const Problem& problem, const SolveOptions& options, GradientCounters& counters) {
  // The perturbations draw from streams of their own, so the samples are those of the sampling method.
  return [&problem, &options, &counters](int thread) {
    return std::make_unique<GradientMover>(problem, options.gradient,
                                           stream_seed(stream_seed(options.seed, thread), 1), counters);
  };
}

SolveResult run_gradient(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                         const RunContext& control) {
  GradientCounters counters;
  SolveResult result = run_sampling(problem, options, deadline, control, {}, gradient_movers(problem, options, counters));
  result.method = method_name(Method::kGradient);
  std::vector<long> counts = {counters.steps.load(), counters.perturbations.load()};
  if (control.peers != nullptr) {
    counts = control.peers->sum(counts, deadline);
    result.distributed.communication_seconds = control.peers->communication_seconds();
  }
  result.gradient.steps = counts[0];
  result.gradient.perturbations = counts[1];
  return result;
}

}  // namespace reluopt
