#include "formulation/model_file.h"

#include <cmath>
#include <sstream>
#include <vector>

#include "core/number_text.h"
#include "reluopt/error.h"

namespace reluopt {

namespace {

constexpr const char* kConstantColumn = "objective_constant";

// The written objective's coefficients: the model's, negated when the user minimizes.
double written(double coefficient, Sense sense) { return sense == Sense::kMaximize ? coefficient : -coefficient; }

struct ColumnEntry {
  int row;
  double value;
};

// The matrix column by column (MPS lists it so).
std::vector<std::vector<ColumnEntry>> by_column(const LinearModel& model) {
  std::vector<std::vector<ColumnEntry>> columns(static_cast<std::size_t>(model.num_cols()));
  for (int r = 0; r < model.num_rows(); ++r)
    for (int k = model.row_start()[r]; k < model.row_start()[r + 1]; ++k)
      if (model.row_value()[k] != 0.0) columns[model.row_index()[k]].push_back({r, model.row_value()[k]});
  return columns;
}

bool free_row(const LinearModel& model, int r) {
  return std::isinf(model.row_lower()[r]) && std::isinf(model.row_upper()[r]);
}

void mps_rows(const LinearModel& model, std::ostringstream& out) {
  out << "ROWS\n N  obj\n";
  for (int r = 0; r < model.num_rows(); ++r) {
    if (free_row(model, r)) continue;
    const double lo = model.row_lower()[r], hi = model.row_upper()[r];
    const char* type = lo == hi ? "E" : std::isinf(lo) ? "L" : "G";
    out << " " << type << "  " << model.row_name(r) << "\n";
  }
}

void mps_columns(const LinearModel& model, Sense sense, std::ostringstream& out) {
  const auto columns = by_column(model);
  out << "COLUMNS\n";
  bool integer_block = false;
  for (int j = 0; j < model.num_cols(); ++j) {
    const bool integer = model.is_integer()[j];
    if (integer != integer_block) {
      out << "    MARKER  'MARKER'  " << (integer ? "'INTORG'" : "'INTEND'") << "\n";
      integer_block = integer;
    }
    const std::string name = model.col_name(j);
    out << "    " << name << "  obj  " << round_trip_text(written(model.objective()[j], sense)) << "\n";
    for (const ColumnEntry& e : columns[j])
      if (!free_row(model, e.row))
        out << "    " << name << "  " << model.row_name(e.row) << "  " << round_trip_text(e.value) << "\n";
  }
  if (integer_block) out << "    MARKER  'MARKER'  'INTEND'\n";
  out << "    " << kConstantColumn << "  obj  " << round_trip_text(written(model.objective_constant(), sense)) << "\n";
}

void mps_rhs_and_ranges(const LinearModel& model, std::ostringstream& out) {
  out << "RHS\n";
  std::ostringstream ranges;
  for (int r = 0; r < model.num_rows(); ++r) {
    if (free_row(model, r)) continue;
    const double lo = model.row_lower()[r], hi = model.row_upper()[r];
    const double rhs = std::isinf(lo) ? hi : lo;
    if (rhs != 0.0) out << "    RHS  " << model.row_name(r) << "  " << round_trip_text(rhs) << "\n";
    if (!std::isinf(lo) && !std::isinf(hi) && lo != hi)
      ranges << "    RNG  " << model.row_name(r) << "  " << round_trip_text(hi - lo) << "\n";
  }
  if (!ranges.str().empty()) out << "RANGES\n" << ranges.str();
}

void mps_bounds(const LinearModel& model, std::ostringstream& out) {
  out << "BOUNDS\n";
  for (int j = 0; j < model.num_cols(); ++j) {
    const std::string name = model.col_name(j);
    const double lo = model.col_lower()[j], hi = model.col_upper()[j];
    if (lo == hi) {
      out << " FX BND  " << name << "  " << round_trip_text(lo) << "\n";
      continue;
    }
    if (std::isinf(lo) && std::isinf(hi)) {
      out << " FR BND  " << name << "\n";
      continue;
    }
    out << (std::isinf(lo) ? " MI BND  " + name + "\n" : " LO BND  " + name + "  " + round_trip_text(lo) + "\n");
    out << (std::isinf(hi) ? " PL BND  " + name + "\n" : " UP BND  " + name + "  " + round_trip_text(hi) + "\n");
  }
  out << " FX BND  " << kConstantColumn << "  1\n";
}

// " + 2 x - 0.5 y", wrapped every 8 terms (LP files limit line length).
std::string lp_terms(const std::vector<std::pair<std::string, double>>& terms) {
  std::string out;
  int count = 0;
  for (const auto& [name, value] : terms) {
    out += (count > 0 && count % 8 == 0 ? "\n   " : "") + std::string(value < 0.0 ? " - " : " + ") +
           round_trip_text(std::abs(value)) + " " + name;
    ++count;
  }
  return out.empty() ? " 0 " + std::string(kConstantColumn) : out;
}

std::vector<std::pair<std::string, double>> lp_row(const LinearModel& model, int r) {
  std::vector<std::pair<std::string, double>> terms;
  for (int k = model.row_start()[r]; k < model.row_start()[r + 1]; ++k)
    if (model.row_value()[k] != 0.0) terms.emplace_back(model.col_name(model.row_index()[k]), model.row_value()[k]);
  return terms;
}

void lp_constraints(const LinearModel& model, std::ostringstream& out) {
  out << "Subject To\n";
  for (int r = 0; r < model.num_rows(); ++r) {
    if (free_row(model, r)) continue;
    const std::string terms = lp_terms(lp_row(model, r));
    const double lo = model.row_lower()[r], hi = model.row_upper()[r];
    const std::string name = model.row_name(r);
    if (lo == hi) {
      out << " " << name << ":" << terms << " = " << round_trip_text(lo) << "\n";
    } else if (std::isinf(lo)) {
      out << " " << name << ":" << terms << " <= " << round_trip_text(hi) << "\n";
    } else if (std::isinf(hi)) {
      out << " " << name << ":" << terms << " >= " << round_trip_text(lo) << "\n";
    } else {
      out << " " << name << "_lo:" << terms << " >= " << round_trip_text(lo) << "\n";
      out << " " << name << "_hi:" << terms << " <= " << round_trip_text(hi) << "\n";
    }
  }
}

void lp_bounds(const LinearModel& model, std::ostringstream& out) {
  out << "Bounds\n";
  for (int j = 0; j < model.num_cols(); ++j) {
    const std::string name = model.col_name(j);
    const double lo = model.col_lower()[j], hi = model.col_upper()[j];
    if (lo == hi) {
      out << " " << name << " = " << round_trip_text(lo) << "\n";
    } else if (std::isinf(lo) && std::isinf(hi)) {
      out << " " << name << " free\n";
    } else {
      out << " " << (std::isinf(lo) ? std::string("-inf") : round_trip_text(lo)) << " <= " << name << " <= "
          << (std::isinf(hi) ? std::string("+inf") : round_trip_text(hi)) << "\n";
    }
  }
  out << " " << kConstantColumn << " = 1\n";
}

}  // namespace

std::string to_free_mps(const LinearModel& model, Sense sense, const std::string& name) {
  std::ostringstream out;
  out << "NAME " << name << "\n";
  if (sense == Sense::kMaximize) out << "OBJSENSE\n    MAX\n";
  mps_rows(model, out);
  mps_columns(model, sense, out);
  mps_rhs_and_ranges(model, out);
  mps_bounds(model, out);
  out << "ENDATA\n";
  return out.str();
}

std::string to_lp_format(const LinearModel& model, Sense sense) {
  std::ostringstream out;
  out << "\\ written by reluopt\n" << (sense == Sense::kMaximize ? "Maximize\n" : "Minimize\n");
  std::vector<std::pair<std::string, double>> objective;
  for (int j = 0; j < model.num_cols(); ++j)
    if (model.objective()[j] != 0.0) objective.emplace_back(model.col_name(j), written(model.objective()[j], sense));
  objective.emplace_back(kConstantColumn, written(model.objective_constant(), sense));
  out << " obj:" << lp_terms(objective) << "\n";
  lp_constraints(model, out);
  lp_bounds(model, out);
  std::string integers;
  for (int j = 0; j < model.num_cols(); ++j)
    if (model.is_integer()[j]) integers += " " + model.col_name(j) + "\n";
  if (!integers.empty()) out << "General\n" << integers;
  out << "End\n";
  return out.str();
}

}  // namespace reluopt
