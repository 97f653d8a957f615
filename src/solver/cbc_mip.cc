#include "solver/cbc_mip.h"

#include <coin/CbcEventHandler.hpp>
#include <coin/CbcHeuristic.hpp>
#include <coin/CbcHeuristicFPump.hpp>
#include <coin/CbcCompareDefault.hpp>
#include <coin/CbcModel.hpp>
#include <coin/CbcNode.hpp>
#include <coin/CglCutGenerator.hpp>
#include <coin/CoinError.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>
#include <coin/OsiCuts.hpp>
#include <coin/OsiRowCut.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

#include "solver/coin_convert.h"
#include "solver/mip_worker.h"

namespace reluopt {

namespace {

// CBC's default node selection until `after` nodes, then best-first: the open node of the smallest LP bound
// (CBC minimizes), the deeper of two equal ones. CBC asks every1000Nodes whether to reorder its heap, so the switch
// falls on a multiple of 1000 nodes (from the start for after <= 0).
class BestBoundAfter : public CbcCompareDefault {
 public:
  explicit BestBoundAfter(long after) : after_(after), best_bound_(after <= 0) {}
  CbcCompareBase* clone() const override { return new BestBoundAfter(*this); }
  // Whether node y comes before node x.
  bool test(CbcNode* x, CbcNode* y) override {
    if (!best_bound_) return CbcCompareDefault::test(x, y);
    if (x->objectiveValue() != y->objectiveValue()) return x->objectiveValue() > y->objectiveValue();
    return x->depth() < y->depth();
  }
  bool every1000Nodes(CbcModel* model, int nodes) override {
    const bool reorder = CbcCompareDefault::every1000Nodes(model, nodes);
    if (best_bound_ || nodes < after_) return reorder;
    best_bound_ = true;
    return true;
  }

 private:
  long after_;
  bool best_bound_;
};

// CglCutGenerator around our solver-neutral separator. CBC clones generators; the separator is shared and
// stateless.
class SeparatorCutGenerator : public CglCutGenerator {
 public:
  explicit SeparatorCutGenerator(const CutSeparator& separator) : separator_(separator) {}
  CglCutGenerator* clone() const override { return new SeparatorCutGenerator(*this); }
  void generateCuts(const OsiSolverInterface& si, OsiCuts& cuts,
                    const CglTreeInfo info = CglTreeInfo()) override {
    (void)info;
    for (const LinearCut& cut : separator_.separate(si.getColSolution())) {
      OsiRowCut row;
      row.setRow(static_cast<int>(cut.index.size()), cut.index.data(), cut.value.data());
      row.setLb(coin_bound(cut.lower));
      row.setUb(coin_bound(cut.upper));
      row.setGloballyValid(true);
      cuts.insert(row);
    }
  }

 private:
  const CutSeparator& separator_;
};

// Stops CBC on the deadline's stop request and reports progress at most twice a second.
class DeadlineHandler : public CbcEventHandler {
 public:
  DeadlineHandler(const Deadline& deadline, const MipParameters& options, double constant)
      : deadline_(deadline), options_(options), constant_(constant) {}
  CbcEventHandler* clone() const override { return new DeadlineHandler(*this); }
  CbcAction event(CbcEvent which) override {
    if (deadline_.interrupted()) return stop;
    if (options_.on_solution && (which == solution || which == heuristicSolution) && model_->bestSolution() != nullptr)
      options_.on_solution(model_->bestSolution());
    if (options_.on_progress && (which == node || which == solution || which == heuristicSolution) &&
        deadline_.elapsed() >= next_report_) {
      next_report_ = deadline_.elapsed() + 0.5;
      std::optional<double> incumbent;
      // CBC minimizes the negated objective (see load()).
      if (model_->bestSolution() != nullptr) incumbent = constant_ - model_->getObjValue();
      options_.on_progress(incumbent, constant_ - model_->getBestPossibleObjValue(), model_->getNodeCount());
    }
    return noAction;
  }

 private:
  const Deadline& deadline_;
  const MipParameters& options_;
  double constant_;
  double next_report_ = 0.0;
};

std::unique_ptr<OsiClpSolverInterface> load(const LinearModel& model) {
  const CoinModel coin = to_coin(model);
  // CBC is given min -c^T v rather than max c^T v with setObjSense(-1): with the maximization sense, a MIP
  // start of negative value made CBC 2.10 end at the root with a bound below a feasible point.
  std::vector<double> negated(model.objective());
  for (double& c : negated) c = -c;
  auto solver = std::make_unique<OsiClpSolverInterface>();
  solver->loadProblem(coin.matrix, coin.col_lower.data(), coin.col_upper.data(), negated.data(),
                      coin.row_lower.data(), coin.row_upper.data());
  solver->setObjSense(1.0);
  for (int c = 0; c < model.num_cols(); ++c)
    if (model.is_integer()[c]) solver->setInteger(c);
  return solver;
}

// CBC 2.10 calls a feasible MIP infeasible when its numbers are large: with a fractional binary whose big-M
// column holds 1.4e9 it chooses no branch at the root ("branching on -1") and ends the search without a point
// (docs/SOLVER-NOTES.md, "CBC"). Its infeasibility is a proof only when every coefficient, bound and right side
// lies below kTrustedMagnitude; 1.3e9 was still solved.
constexpr double kTrustedMagnitude = 1e9;

bool below_trusted_magnitude(const LinearModel& model) {
  const auto small = [](double v) { return !std::isfinite(v) || std::abs(v) < kTrustedMagnitude; };
  for (const auto* values : {&model.col_lower(), &model.col_upper(), &model.row_value(), &model.row_lower(),
                             &model.row_upper()})
    if (!std::all_of(values->begin(), values->end(), small)) return false;
  return true;
}

}  // namespace

int cbc_how_often(int cut_frequency) { return cut_frequency < 0 ? -99 : cut_frequency; }

MipResult CbcMipSolver::solve(const LinearModel& model, const Deadline& deadline, const MipParameters& parameters) {
  return solve_in_worker(&solve_mip_cbc, model, deadline, parameters);
}

MipResult solve_mip_cbc(const LinearModel& model, const Deadline& deadline, const MipParameters& options) {
  MipResult result;
  const double constant = model.objective_constant();
  try {
    std::unique_ptr<OsiClpSolverInterface> solver = load(model);
    if (!options.verbose) solver->messageHandler()->setLogLevel(0);
    CbcModel cbc(*solver);
    cbc.setLogLevel(options.verbose ? 1 : 0);
    if (!options.verbose) cbc.messageHandler()->setLogLevel(0);
    cbc.setUseElapsedTime(true);
    const double remaining = deadline.remaining();
    if (std::isfinite(remaining)) cbc.setMaximumSeconds(std::max(remaining, 0.01));
    // CBC 2.10.8 aborts (CbcRowCuts::eraseRowCut: assertion `found >= 0') when our cut generator runs at
    // nodes of a multi-threaded tree (bench/results/cut_frequency.md); at the root only it is safe. Cuts inside
    // the tree therefore get one thread.
    const bool cuts_in_tree = options.separator != nullptr && options.cut_frequency > 0;
    if (options.threads > 1 && !cuts_in_tree) cbc.setNumberThreads(options.threads);
    if (options.node_limit > 0) cbc.setMaximumNodes(static_cast<int>(std::min<long>(options.node_limit, 1L << 30)));
    cbc.setAllowableGap(options.absolute_gap);
    cbc.setAllowableFractionGap(options.relative_gap);
    // CBC prunes a node whose bound is not better than the incumbent by its cutoff increment (1e-5 by default),
    // and then calls the incumbent optimal: a proven bound up to 1e-5 below a better point (seen on a LeakyRelu
    // network with free concave neurons: -0.4135203 "optimal" where -0.4135115 exists). No increment keeps the
    // proof exact up to the gaps above.
    cbc.setCutoffIncrement(0.0);
    // Without scaling: on a 64-64-64-10 digits classifier (bench/models/digits_mlp.onnx, L-inf ball 0.2) CBC with
    // CLP's default scaling proved 10.15 optimal where HiGHS certified, and we verified, 16.81.
    cbc.solver()->setHintParam(OsiDoScale, false, OsiHintTry);
    // Rounding and the feasibility pump, the two primal heuristics that paid off on the MIPs of
    // bench/acceptance_mip.py (bench/results/cbc_heuristics.md); CBC's root cut generators (Gomory, probing,
    // MIR) did not pay for themselves on the partition formulations there and are left out.
    // Built only when used: CbcRounding copies the constraint matrix, by column and by row, as it is constructed,
    // and the local-search MIPs (many, small, heuristics off) should not pay for that.
    std::optional<CbcRounding> rounding;
    std::optional<CbcHeuristicFPump> feasibility_pump;
    if (options.primal_heuristics) {
      rounding.emplace(cbc);
      feasibility_pump.emplace(cbc);
      // The pump's own clock is CPU time since it started, which runs at least as fast as wall time.
      if (std::isfinite(remaining)) feasibility_pump->setMaximumTime(std::max(remaining, 0.01));
      cbc.addHeuristic(&*rounding);
      cbc.addHeuristic(&*feasibility_pump);
    }
    if (options.reliability) cbc.setNumberBeforeTrust(*options.reliability);
    if (options.best_bound_after) {
      BestBoundAfter compare(*options.best_bound_after);
      cbc.setNodeComparison(compare);  // CBC keeps a clone
    }
    DeadlineHandler handler(deadline, options, constant);
    cbc.passInEventHandler(&handler);
    if (options.separator != nullptr) {
      SeparatorCutGenerator generator(*options.separator);
      cbc.addCutGenerator(&generator, cbc_how_often(options.cut_frequency), "reluopt cuts");
    }
    if (options.start != nullptr && !deadline.expired()) {
      // setBestSolution re-optimizes the continuous part and keeps the start as incumbent; its value is
      // that of the minimized objective. That LP runs on no clock of CBC's (seconds on the big-M model of a
      // convolution): CLP gets the deadline and the stop request for it, and no limit after it, so that CBC alone
      // decides what a stopped LP means.
      ClpSimplex& clp = *dynamic_cast<OsiClpSolverInterface&>(*cbc.solver()).getModelPtr();
      set_clp_limits(clp, deadline.stop_request(), deadline.remaining());
      const double start_value = constant - model.evaluate(*options.start);
      cbc.setBestSolution(options.start->data(), model.num_cols(), start_value, true);
      set_clp_limits(clp, nullptr, kInfinity);
    }
    const bool ran = !deadline.expired();
    if (ran) cbc.branchAndBound();
    result.nodes = cbc.getNodeCount();
    if (cbc.bestSolution() != nullptr) {
      const double* x = cbc.bestSolution();
      result.values.assign(x, x + model.num_cols());
      result.objective = model.evaluate(result.values);
    }
    const bool stopped_early = cbc.isSecondsLimitReached() || cbc.isNodeLimitReached();
    const bool proven_optimal = ran && cbc.isProvenOptimal() && !stopped_early;
    // getBestPossibleObjValue() is min(CBC's bound, its incumbent): before CBC has bounded anything (stopped
    // ahead of the root) it is just the MIP start's value, no bound at all. Unless CBC proved optimality, a
    // "bound" that does not lie strictly below its own incumbent (in the minimized sense) is therefore none.
    const double best_possible = cbc.getBestPossibleObjValue();
    const bool incumbent_only = cbc.bestSolution() != nullptr &&
                                best_possible >= cbc.getObjValue() - 1e-12 * (1.0 + std::abs(cbc.getObjValue()));
    if (ran && std::isfinite(best_possible) && std::abs(best_possible) < 1e40 && (proven_optimal || !incumbent_only))
      result.bound = constant - best_possible;
    if (proven_optimal && result.objective) {
      result.status = MipStatus::kOptimal;
      result.bound = std::max(result.bound == kInfinity ? *result.objective : result.bound, *result.objective);
    } else if (ran && cbc.isProvenInfeasible() && !stopped_early && !result.objective &&
               below_trusted_magnitude(model)) {
      result.status = MipStatus::kInfeasible;
    } else {
      result.status = result.objective ? MipStatus::kFeasible : MipStatus::kNoSolution;
    }
  } catch (const CoinError& e) {
    result.status = MipStatus::kError;
  }
  return result;
}

}  // namespace reluopt
