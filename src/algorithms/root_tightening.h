#pragma once

// Optimization-based bound tightening at the root of a model (as bounds/lp_bounds.cc does over P, here with the
// output rows C y <= e and integrality of a reduced model). The LP relaxation over the root's box and bounds
// (triangles, domain rows, output rows loosened for their rounding) contains every point of P that meets the
// rows, so the max and min over it of an input coordinate or of a pre-activation (the LP's safe dual bound,
// loosened for the LP's tolerances) hold over every point a search must keep; an integer coordinate's round
// inwards. Bound propagation sees neither the rows nor integrality: with them the rows decide neurons (stable),
// shrink the box of the inputs they restrict and narrow every triangle, and so every big-M. Inputs first (a
// smaller box tightens every layer), then layer by layer, each layer's LPs built with the bounds found before it;
// after each step a propagation with the bounds found as its prior carries them to the later layers.
#include <Eigen/Dense>

#include "algorithms/problem.h"
#include "bounds/bounds.h"
#include "bounds/symbolic_bounds.h"
#include "formulation/mip_formulation.h"
#include "reluopt/run_control.h"

namespace reluopt {

// The share of the time left that the root's tightening takes by default (it stops at the share, keeping what
// it found).
inline constexpr double kRootTighteningShare = 0.2;

struct RootBounds {
  Eigen::VectorXd lo, hi;  // the inputs' box
  Propagation prop;        // over [lo, hi], with every bound found as its prior
};

// The tightened box and neuron bounds of `problem` (with `prior`, valid bounds over its domain, as the
// propagation's starting point); the LPs stop at share_of_time of the time left, keeping what they found.
RootBounds tighten_root(const Problem& problem, const Deadline& deadline,
                        double share_of_time = kRootTighteningShare, const NeuronBounds* prior = nullptr);

// Hidden layers 1..last_layer of `bounds` (valid over `box`, a plain box) tightened in turn, within `deadline`:
// each unstable neuron's max and min over the LP relaxation of the layers below it (big-M, MATH.md §3, with the
// bounds found so far; layer 0 needs none, interval arithmetic is exact over a box) and up to `rounds` rounds of
// Anderson et al.'s cuts (MATH.md §5) that its optimum violates, most uncertain neuron first; each bound is the
// LP's safe dual bound loosened for its tolerances, the tighter of it and the one before is kept. After each
// layer a propagation of the objective (output_weights, constant) with the bounds as its prior carries them to
// the later layers. The LP relaxation of the triangle alone is about CROWN's (within 0.5% on a 784 -> 4x256 ->
// 10 network); the cuts are what narrows the bounds (to about 0.77x on its second layer, bab.cc).
void refine_hidden_layers(const Network& network, const Domain& box, const Eigen::VectorXd& output_weights,
                          double constant, int last_layer, int rounds, NeuronBounds& bounds,
                          const Deadline& deadline);

// The model's rows C y <= e on the outputs (formulation/mip_formulation.h), each loosened by an allowance for
// the rounding of its coefficients C W_L and right-hand side e - C b_L, so that an LP keeps every point that
// meets the rows exactly.
void add_model_rows(const Problem& problem, MipFormulation& f);

}  // namespace reluopt
