// The figure of the paper's Appendix B as a gnuplot script: the histogram density of the X_i with the densities
// of the top three fits (labelled with their RSS) and, for a finite-endpoint best fit, its endpoint M.
// The densities are tabulated here (gnuplot has no beta or GEV), so the script needs only gnuplot itself.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "reluopt/evt.h"

namespace reluopt {

namespace {

constexpr int kCurvePoints = 600;
constexpr std::size_t kCurves = 3;
const char* const kColours[kCurves] = {"#d62728", "#2ca02c", "#9467bd"};
const int kDashTypes[kCurves] = {1, 2, 4};  // solid, dashed, dash-dot: coinciding fits stay visible

std::string number(double v) {
  if (!std::isfinite(v)) return "NaN";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", v);
  return buffer;
}

std::string short_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", v);
  return buffer;
}

// A gnuplot string literal: single quotes, a quote doubled.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string fit_label(std::size_t rank, const Fit& fit) {
  std::string label = std::to_string(rank + 1) + ". " + family_name(fit.distribution.family) + " (";
  for (const auto& [name, value] : named_parameters(fit.distribution)) label += name + "=" + short_number(value) + " ";
  return label + "RSS " + short_number(fit.rss) + ")";
}

}  // namespace

std::string evt_plot_script(const EvtReport& report, const std::string& png_path) {
  const Histogram& h = report.histogram;
  const double range = report.max - report.min;
  const double right = report.endpoint ? std::max(report.endpoint->estimate, report.max) : report.max;
  const double x_lo = report.min - 0.05 * range, x_hi = right + 0.05 * range;
  const std::size_t curves = std::min(kCurves, report.fits.size());

  std::ostringstream s;
  s << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
       "  set terminal pngcairo size 1100,800 noenhanced font 'Sans,12'\n"
       "} else {\n"
       "  set terminal png size 1100,800 noenhanced\n"
       "}\n"
    << "set output " << quoted(png_path) << "\n"
    << "set title " << quoted("Fitted distributions of the sampled values X_i (n = " + std::to_string(report.n) +
                              "), top three by RSS")
    << "\nset xlabel 'X_i: best value reached from a sample'\nset ylabel 'density'\n"
    << "set key below left Left reverse box\nset bmargin 10\nset grid\n"
    << "set style fill solid 0.6 border rgb '#4a6f98'\n";

  double y_max = *std::max_element(h.density.begin(), h.density.end());
  const double cap = 2.5 * y_max;
  s << "$histogram << EOD\n";
  for (std::size_t j = 0; j < h.density.size(); ++j) s << number(h.centre(j)) << ' ' << number(h.density[j]) << '\n';
  s << "EOD\n";
  for (std::size_t c = 0; c < curves; ++c) {
    s << "$fit" << c << " << EOD\n";
    for (int i = 0; i <= kCurvePoints; ++i) {
      const double x = x_lo + (x_hi - x_lo) * i / kCurvePoints;
      const double y = pdf(report.fits[c].distribution, x);
      if (std::isfinite(y)) y_max = std::max(y_max, std::min(y, cap));
      s << number(x) << ' ' << number(y) << '\n';
    }
    s << "EOD\n";
  }
  s << "set xrange [" << number(x_lo) << ":" << number(x_hi) << "]\n"
    << "set yrange [0:" << number(1.15 * y_max) << "]\n";
  if (report.endpoint)
    s << "$endpoint << EOD\n" << number(report.endpoint->estimate) << " 0\n"
      << number(report.endpoint->estimate) << ' ' << number(1.15 * y_max) << "\nEOD\n";

  s << "plot $histogram using 1:2:(" << number(h.width) << ") with boxes lc rgb '#a9c6e3' title "
    << quoted("histogram (" + std::to_string(h.density.size()) + " bins)");
  for (std::size_t c = 0; c < curves; ++c)
    s << ", \\\n     $fit" << c << " using 1:2 with lines lw " << (c == 0 ? 3 : 2) << " dt " << kDashTypes[c]
      << " lc rgb '" << kColours[c] << "' title " << quoted(fit_label(c, report.fits[c]));
  if (report.endpoint)
    s << ", \\\n     $endpoint using 1:2 with lines dt 2 lw 2 lc rgb 'black' title "
      << quoted("endpoint M = " + short_number(report.endpoint->estimate) + " (" +
                family_name(report.endpoint->family) + "; " +
                std::to_string(static_cast<int>(std::lround(100.0 * report.confidence))) + "% interval [" +
                short_number(report.endpoint->lo) + ", " + short_number(report.endpoint->hi) + "])");
  s << "\nset output\n";
  return s.str();
}

}  // namespace reluopt
