#pragma once

#include <string>

namespace reluopt {

// The largest magnitude a weight, bias, domain bound, domain row entry or objective weight may have
// (docs/NUMERICS.md). 1e15 is about 1 / (4.5 epsilon) of a double: a term this large in a neuron's sum leaves
// terms of size 1 below the sum's rounding, and the product of two such numbers (1e30) is COIN-OR's infinity
// (CLP aborts on an objective coefficient of 1e25). A trained network is many orders of magnitude below it;
// values above it come from a corrupt file (a flipped byte turns a weight into 1e35) or a unit mistake.
inline constexpr double kMaxMagnitude = 1e15;

// "-1.5e+20", with enough digits to find the value in the file.
std::string magnitude_text(double value);

}  // namespace reluopt
