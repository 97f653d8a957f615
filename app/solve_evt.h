#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "reluopt/objective.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt::cli {

// `reluopt solve --evt`: the extreme-value analysis (reluopt::analyse_extremes) of the run's own X_i.
struct SolveEvt {
  std::string json;     // the result JSON's "evt" section
  std::string summary;  // lines for the text report
  std::string plot;     // with a plot file and a report: the gnuplot script that draws it (draw_evt_plot)
};

// The analysis runs on the right tail of the maximized values: X_i for a maximization, -X_i for a minimization.
// The JSON is what `reluopt evt` writes for those values, plus "sense", "analysed" ("g" or "-g") and "optimum"
// (the endpoint turned back into the user's sense: {"estimate", "ci": [lo, hi]}, null without a finite end).
// eps and delta of N(eps, delta) are the stop rule's when options has one. With fewer than kMinEvtValues values
// or all values equal the section is {"error": why, "n", "sense", "analysed"} and there is nothing to draw.
// The analysis stops at `deadline` (evt_deadline); the section is then the error naming why.
SolveEvt analyse_solve_values(const SolveResult& result, Sense sense, const SolveOptions& options,
                              const std::optional<std::string>& plot_file, const Deadline& deadline = {});

// With --evt and a time limit, the run itself has (1 - kEvtShare) of the limit and the analysis what the run
// leaves (evt_deadline): the analysis costs about a CPU second from 10,000 distinct values on (it fits at most
// 10,000 weighted points), less below. Without --evt the run has the whole limit.
inline constexpr double kEvtShare = 0.1;
double solve_time_limit(double time_limit, bool evt);

// The deadline of the analysis after a run: what the run left of time_limit (< 0: none), but at least
// kEvtGraceSeconds, so that the whole command still ends within a second of the limit; stopped by `stop`
// (Ctrl-C). After a run that Ctrl-C stopped, the grace alone (a second Ctrl-C kills the process).
inline constexpr double kEvtGraceSeconds = 0.7;
Deadline evt_deadline(double time_limit, double seconds_used, const std::atomic<bool>* stop);

}  // namespace reluopt::cli
