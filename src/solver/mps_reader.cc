#include "solver/mps_reader.h"

#include <coin/CoinMpsIO.hpp>
#include <coin/CoinPackedMatrix.hpp>

#include "reluopt/error.h"

namespace reluopt {

namespace {

double from_coin(double value, double infinity) {
  if (value >= infinity) return kInfinity;
  if (value <= -infinity) return -kInfinity;
  return value;
}

}  // namespace

LinearModel read_free_mps_minimization(const std::string& path) {
  CoinMpsIO reader;
  reader.messageHandler()->setLogLevel(0);
  reader.setInfinity(1e30);
  if (reader.readMps(path.c_str(), "") != 0) throw Error("'" + path + "': CoinMpsIO could not read the MPS file");
  LinearModel model;
  const double inf = reader.getInfinity();
  for (int j = 0; j < reader.getNumCols(); ++j)
    model.add_column(from_coin(reader.getColLower()[j], inf), from_coin(reader.getColUpper()[j], inf),
                     -reader.getObjCoefficients()[j], reader.isInteger(j), reader.columnName(j));
  const CoinPackedMatrix* rows = reader.getMatrixByRow();
  for (int r = 0; r < reader.getNumRows(); ++r) {
    const CoinShallowPackedVector row = rows->getVector(r);
    model.add_row(std::vector<int>(row.getIndices(), row.getIndices() + row.getNumElements()),
                  std::vector<double>(row.getElements(), row.getElements() + row.getNumElements()),
                  from_coin(reader.getRowLower()[r], inf), from_coin(reader.getRowUpper()[r], inf), reader.rowName(r));
  }
  return model;
}

}  // namespace reluopt
