// Reads the NNet text format of the ACAS Xu networks (Julian et al., "Policy compression for aircraft
// collision avoidance systems", DASC 2016). After header lines starting with "//":
//   numLayers,inputSize,outputSize,maxLayerSize
//   the numLayers + 1 layer sizes, input first
//   a flag line (unused)
//   input minimums; input maximums; means and ranges (inputSize + 1 values each, the last for the outputs)
//   for each layer, one line of comma-separated weights per neuron, then one bias per line.
// The file's network computes y = range_out * f((clip(x, min, max) - mean) / range) + mean_out. Folding
// the normalization into the first layer and the de-normalization into the last gives the same function in
// raw units on [min, max]; the clipping cannot be folded, so [min, max] is returned as input_bounds.
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/model_io.h"

namespace reluopt {
namespace {

// Hands out the data lines of the file as numbers, keeping the line number for error messages.
class NnetLines {
 public:
  NnetLines(std::istream& in, const std::string& path) : path_(path), in_(in) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("'" + path_ + "' line " + std::to_string(line_number_) + ": " + what);
  }

  // Moves to the next data line, which must exist. The flag line is skipped this way: it is obsolete and
  // its content varies between files.
  void next_line(const std::string& what) {
    if (advance()) return;
    ++line_number_;
    fail("file ends early, expected " + what);
  }

  // The numbers on the next data line, which must hold exactly `count` of them (trailing commas allowed).
  Eigen::VectorXd next(const std::string& what, Eigen::Index count) {
    next_line(what);
    std::vector<double> numbers;
    std::size_t start = 0;
    while (start <= line_.size()) {
      std::size_t end = line_.find(',', start);
      if (end == std::string::npos) end = line_.size();
      std::string token = line_.substr(start, end - start);
      token.erase(0, token.find_first_not_of(" \t\r"));
      token.erase(token.find_last_not_of(" \t\r") + 1);
      if (!token.empty()) {
        numbers.push_back(parse(token));
      } else if (end < line_.size()) {
        fail("empty value before a comma");
      }
      start = end + 1;
    }
    if (static_cast<Eigen::Index>(numbers.size()) != count)
      fail("expected " + what + " (" + std::to_string(count) + " numbers), found " +
           std::to_string(numbers.size()));
    return Eigen::Map<const Eigen::VectorXd>(numbers.data(), count);
  }

  bool at_end() { return !advance(); }

 private:
  // Moves to the next line that is neither blank nor a "//" comment; false at the end of the file.
  bool advance() {
    while (std::getline(in_, line_)) {
      ++line_number_;
      const std::size_t first = line_.find_first_not_of(" \t\r");
      if (first != std::string::npos && line_.compare(first, 2, "//") != 0) return true;
    }
    return false;
  }

  double parse(const std::string& token) const {
    double value = 0.0;
    const char* begin = token.data() + (token[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(begin, token.data() + token.size(), value);
    if (ec != std::errc() || end != token.data() + token.size()) fail("'" + token + "' is not a number");
    if (!std::isfinite(value)) fail("'" + token + "' is not finite");
    return value;
  }

  std::string path_;
  std::istream& in_;
  std::string line_;
  int line_number_ = 0;
};

std::vector<int> positive_integers(const NnetLines& lines, const Eigen::VectorXd& values,
                                   const std::string& what) {
  std::vector<int> ints;
  for (double v : values) {
    if (v != std::round(v) || v < 1 || v > 1e8) lines.fail(what + " must be positive integers");
    ints.push_back(static_cast<int>(v));
  }
  return ints;
}

// The weights the layer sizes declare must fit in memory (twice: read as rows, then as one matrix).
void check_memory(const NnetLines& lines, const std::vector<int>& sizes, const detail::ReadLimits& limits) {
  double parameters = 0;
  for (std::size_t k = 0; k + 1 < sizes.size(); ++k)
    parameters += (static_cast<double>(sizes[k]) + 1) * static_cast<double>(sizes[k + 1]);
  if (const std::string problem = detail::memory_problem(2 * sizeof(double) * parameters, limits); !problem.empty())
    lines.fail("the layer sizes declare " + std::to_string(static_cast<long long>(parameters)) + " weights, which " +
               problem);
}

DenseLayer read_layer(NnetLines& lines, int layer, int inputs, int neurons) {
  const std::string name = " of layer " + std::to_string(layer + 1);
  // Rows are collected before the matrix is allocated, so that a corrupt size runs into the end of the file
  // instead of a huge allocation.
  std::vector<Eigen::VectorXd> rows;
  for (int i = 0; i < neurons; ++i)
    rows.push_back(lines.next("the weights of neuron " + std::to_string(i + 1) + name, inputs));
  std::vector<double> bias;
  for (int i = 0; i < neurons; ++i)
    bias.push_back(lines.next("the bias of neuron " + std::to_string(i + 1) + name, 1)[0]);
  DenseLayer dense{Eigen::MatrixXd(neurons, inputs), Eigen::Map<const Eigen::VectorXd>(bias.data(), neurons)};
  for (int i = 0; i < neurons; ++i) dense.weights.dense().row(i) = rows[i].transpose();
  return dense;
}

LoadedModel read_nnet_lines(NnetLines& lines, const std::string& path, const detail::ReadLimits& limits) {
  const std::vector<int> header = positive_integers(
      lines, lines.next("numLayers,inputSize,outputSize,maxLayerSize", 4), "the layer count and sizes");
  const int num_layers = header[0];
  const int input_size = header[1];
  const std::vector<int> sizes =
      positive_integers(lines, lines.next("the layer sizes", num_layers + 1), "layer sizes");
  if (sizes.front() != input_size || sizes.back() != header[2])
    lines.fail("the layer sizes do not start with inputSize and end with outputSize");
  check_memory(lines, sizes, limits);
  lines.next_line("the flag line");
  const Eigen::VectorXd mins = lines.next("the input minimums", input_size);
  const Eigen::VectorXd maxes = lines.next("the input maximums", input_size);
  if ((mins.array() > maxes.array()).any()) lines.fail("an input maximum is below its minimum");
  const Eigen::VectorXd means = lines.next("the means", input_size + 1);
  const Eigen::VectorXd ranges = lines.next("the ranges", input_size + 1);
  if ((ranges.head(input_size).array() == 0.0).any()) lines.fail("an input range is zero");

  std::vector<DenseLayer> layers;
  for (int k = 0; k < num_layers; ++k) layers.push_back(read_layer(lines, k, sizes[k], sizes[k + 1]));
  if (!lines.at_end()) lines.fail("unexpected data after the last layer");

  // W ((x - mean) / range) + b = (W diag(1/range)) x + (b - W diag(1/range) mean).
  DenseLayer& first = layers.front();
  first.weights.dense() = first.weights.dense() * ranges.head(input_size).cwiseInverse().asDiagonal();
  first.bias -= first.weights * means.head(input_size);
  // range_out (W x + b) + mean_out, the same de-normalization for every output.
  DenseLayer& last = layers.back();
  last.weights.dense() *= ranges[input_size];
  last.bias = (last.bias * ranges[input_size]).array() + means[input_size];

  Domain bounds = Domain::box(mins, maxes);
  bounds.description = "NNet input bounds";
  try {
    return LoadedModel{Network(std::move(layers)), "nnet", std::move(bounds)};
  } catch (const Error& e) {
    throw Error("'" + path + "': " + e.what());
  }
}

}  // namespace

namespace detail {

LoadedModel read_nnet(std::istream& in, const std::string& name, const ReadLimits& limits) {
  try {
    NnetLines lines(in, name);
    return read_nnet_lines(lines, name, limits);
  } catch (const Error& e) {
    throw Error(printable(e.what()));  // tokens from the file may hold any bytes
  }
}

}  // namespace detail

LoadedModel read_nnet(const std::string& path) {
  std::ifstream in = detail::open_input(path, "model");
  return detail::read_nnet(in, path);
}

}  // namespace reluopt
