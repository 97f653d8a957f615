#pragma once

// A free MPS file read by COIN-OR's CoinMpsIO, the reader CBC itself uses: how the tests check that what
// formulation/model_file.h writes is read back as the same model by another reader.
#include <string>

#include "lp/linear_model.h"

namespace reluopt {

// The file's model as a LinearModel to maximize: CoinMpsIO minimizes, so the objective is negated. A right-hand
// side on the objective row (an offset; the files of formulation/model_file.h have none) is not read. Throws reluopt::Error naming the file when CoinMpsIO reports errors.
LinearModel read_free_mps_minimization(const std::string& path);

}  // namespace reluopt
