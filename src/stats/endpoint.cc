// Profile-likelihood (likelihood-ratio) interval of the right endpoint M (Coles 2001, section 2.6.6):
//   l_p(M) = max of the log-likelihood over the other parameters with the endpoint held at M (fitting.cc),
//   interval = {M >= max X_i : l - l_p(M) <= limit},  limit = chi2_1 quantile(level) / 2,
// with l the maximized log-likelihood. M is never below a value that was reached, hence M >= max X_i.
// Search on the gap g = M - max X_i: from the fitted gap, double g until the likelihood has dropped by more than
// the limit, then bisect geometrically to 0.1%, keeping the outer end (the interval is not made narrower by the
// search). Below the fitted gap likewise, down to the smallest gap the fits allow (1e-10 of the range).
// Wilks' theorem gives the nominal level asymptotically when the shape governing the end exceeds 2 (gamma > -1/2);
// for shapes in [1, 2] the likelihood is non-regular (Smith 1985) and the level is approximate.
// Each search takes at most kMaxSteps profile fits, whatever the likelihood returns (a NaN never loops), and
// stops with the deadline (Stopped).
#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/evt_internal.h"
#include "stats/fit_spec.h"

namespace reluopt::detail {

namespace {

// Doubling from 1e-6 of the range to kMaxGap takes 40 steps, a bisection to 0.1% about 15.
constexpr int kMaxSteps = 64;

}  // namespace

EndpointInterval endpoint_interval(const Fit& best, const WeightedSample& sample, double limit, bool lower,
                                   const Deadline& deadline) {
  const double range = sample.max - sample.min, tiny = kMinGap * range, largest = kMaxGap * range;
  const double gap_hat = std::max(*right_endpoint(best.distribution) - sample.max, tiny);
  std::vector<double> free;
  std::optional<Fit> last;
  auto outside = [&](double gap) {
    last = profile_fit(best, sample, gap, free, deadline);
    return best.log_likelihood - last->log_likelihood > limit;
  };
  // Geometric bisection between a gap inside the interval and one outside, to 0.1%; returns the outer end and
  // leaves its profile fit in `last`.
  auto bisect = [&](double in, double out) {
    for (int step = 0; step < kMaxSteps && std::max(in, out) / std::min(in, out) > 1.001; ++step) {
      const double mid = std::sqrt(in * out);
      (outside(mid) ? out : in) = mid;
    }
    outside(out);
    return out;
  };

  EndpointInterval interval;
  double far = std::max(gap_hat, 1e-6 * range);
  bool beyond = false;
  for (int step = 0; step < kMaxSteps && !beyond && (step == 0 || far < largest); ++step) {
    far *= 2.0;
    beyond = outside(far);
  }
  if (!beyond || far >= largest) {
    interval.hi = std::numeric_limits<double>::infinity();
  } else {
    interval.hi = sample.max + bisect(far / 2.0, far);
    interval.at_hi = last;
  }
  interval.lo = sample.max;
  if (lower && gap_hat > 2.0 * tiny) {
    free.clear();
    if (outside(tiny)) interval.lo = sample.max + bisect(gap_hat, tiny);
  }
  return interval;
}

}  // namespace reluopt::detail
