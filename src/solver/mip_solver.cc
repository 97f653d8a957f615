#include "solver/mip_solver.h"

#include "solver/cbc_mip.h"

namespace reluopt {

std::unique_ptr<MipSolver> make_mip_solver(MipBackend backend) {
  switch (backend) {
    case MipBackend::kCbc: return std::make_unique<CbcMipSolver>();
  }
  return std::make_unique<CbcMipSolver>();
}

}  // namespace reluopt
