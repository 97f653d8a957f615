// The files of the extreme-value analysis (values CSV in, JSON out) and the `reluopt evt` command.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_options.h"
#include "evt_command.h"
#include "reluopt/error.h"
#include "reluopt/evt.h"
#include "reluopt/evt_json.h"

namespace reluopt {
namespace {

namespace fs = std::filesystem;

std::string temp_path(const std::string& name) { return (fs::path(::testing::TempDir()) / name).string(); }

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// As `reluopt solve --values-out` writes it: beta(2, 3) values on [0, 1], 17 significant digits.
std::string values_csv(int n, std::uint64_t seed) {
  const Distribution beta{Family::kBeta, {2.0, 3.0}, 0.0, 1.0};
  std::mt19937_64 rng(seed);
  std::ostringstream out;
  out.precision(17);
  out << "sample,value\n";
  for (int i = 0; i < n; ++i) out << i << ',' << quantile(beta, (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53) << '\n';
  return out.str();
}

bool gnuplot_available() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && access((dir + "/gnuplot").c_str(), X_OK) == 0) return true;
  return false;
}

TEST(EvtIo, ReadsTheValuesCsv) {
  const std::string path = temp_path("evt_values_ok.csv");
  write(path, "sample,value\r\n0,1.5\n\n1, -2e-3\n2,7\n");
  EXPECT_EQ(read_values_csv(path), (std::vector<double>{1.5, -2e-3, 7.0}));
}

TEST(EvtIo, NamesTheLineOfAMalformedCsv) {
  const std::string path = temp_path("evt_values_bad.csv");
  write(path, "sample,value\n0,1.5\n1,abc\n");
  try {
    read_values_csv(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
  write(path, "sample,value\n0,1.5,3\n");
  EXPECT_THROW(read_values_csv(path), Error);
  write(path, "sample,value\n0,nan\n");
  EXPECT_THROW(read_values_csv(path), Error);
  write(path, "a,b\n0,1\n");
  EXPECT_THROW(read_values_csv(path), Error);
  EXPECT_THROW(read_values_csv(temp_path("evt_no_such_file.csv")), Error);
}

TEST(EvtCommand, BadCommandLinesAreUsageErrors) {
  using cli::run_evt_command;
  using cli::UsageError;
  EXPECT_THROW(run_evt_command({}), UsageError);
  EXPECT_THROW(run_evt_command({"a.csv", "--bogus"}), UsageError);
  EXPECT_THROW(run_evt_command({"a.csv", "--eps"}), UsageError);
  EXPECT_THROW(run_evt_command({"a.csv", "--eps", "-1"}), UsageError);
  EXPECT_THROW(run_evt_command({"a.csv", "--eps=x"}), UsageError);
  EXPECT_THROW(run_evt_command({"a.csv", "--delta", "1"}), UsageError);
  EXPECT_THROW(run_evt_command({"a.csv", "b.csv"}), UsageError);
  for (const char* threads : {"1025", "1.5", "-2", "two"})
    EXPECT_THROW(run_evt_command({"a.csv", "--threads", threads}), UsageError) << threads;
}

TEST(EvtCommand, BadInputIsAnError) {
  using cli::run_evt_command;
  EXPECT_THROW(run_evt_command({temp_path("evt_missing.csv")}), Error);
  const std::string few = temp_path("evt_few.csv");
  write(few, values_csv(10, 1));
  EXPECT_THROW(run_evt_command({few}), Error);
  const std::string equal = temp_path("evt_equal.csv");
  std::string text = "sample,value\n";
  for (int i = 0; i < 100; ++i) text += std::to_string(i) + ",3.25\n";
  write(equal, text);
  EXPECT_THROW(run_evt_command({equal}), Error);
}

TEST(EvtCommand, WritesTheJsonReport) {
  const std::string csv = temp_path("evt_run.csv"), json_path = temp_path("evt_run.json");
  write(csv, values_csv(1000, 2));
  ASSERT_EQ(cli::run_evt_command({csv, "--json", json_path, "--eps=0.05", "--delta", "0.1"}), 0);
  std::ifstream in(json_path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_TRUE(doc["fits"].is_array());
  ASSERT_GE(doc["fits"].size(), 3u);
  for (const auto& fit : doc["fits"]) {
    EXPECT_TRUE(fit["family"].is_string());
    EXPECT_TRUE(fit["params"].contains("loc"));
    EXPECT_TRUE(fit["params"].contains("scale"));
    EXPECT_TRUE(fit["rss"].is_number());
  }
  EXPECT_LE(doc["fits"][0]["rss"].get<double>(), doc["fits"][2]["rss"].get<double>());
  EXPECT_TRUE(doc["gamma"]["best_fit"].is_number());
  EXPECT_TRUE(doc["gamma"]["moment"].is_number());
  EXPECT_EQ(doc["gamma"]["moment_ci"].size(), 2u);
  ASSERT_TRUE(doc["endpoint"].is_object()) << doc.dump(2);  // beta data: a finite-endpoint best fit
  EXPECT_EQ(doc["endpoint"]["ci"].size(), 2u);
  EXPECT_LE(doc["endpoint"]["ci"][0].get<double>(), doc["endpoint"]["estimate"].get<double>());
  const auto& sc = doc["sample_complexity"];
  EXPECT_EQ(sc["eps"].get<double>(), 0.05);
  EXPECT_EQ(sc["delta"].get<double>(), 0.1);
  EXPECT_TRUE(sc["n_tail"].is_number());
  EXPECT_TRUE(sc["n_closed_form"].is_number());
}

TEST(EvtCommand, DrawsThePlot) {
  if (!gnuplot_available()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string csv = temp_path("evt_plot.csv"), png = temp_path("evt_plot's figure.png");
  write(csv, values_csv(500, 3));
  fs::remove(png);
  ASSERT_EQ(cli::run_evt_command({csv, "--plot", png}), 0);
  std::ifstream in(png, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  EXPECT_GT(fs::file_size(png), 10000u);
}

TEST(EvtPlot, ScriptLabelsTheTopThreeFits) {
  std::vector<double> values;
  const Distribution beta{Family::kBeta, {2.0, 3.0}, 0.0, 1.0};
  for (int i = 1; i < 300; ++i) values.push_back(quantile(beta, i / 300.0));
  EvtOptions options;
  options.bootstrap_resamples = 20;
  const EvtReport report = analyse_extremes(values, options);
  const std::string script = evt_plot_script(report, "out.png");
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_NE(script.find(std::to_string(i + 1) + ". " + family_name(report.fits[i].distribution.family)),
              std::string::npos);
  EXPECT_NE(script.find("set output 'out.png'"), std::string::npos);
  EXPECT_NE(script.find("xlabel"), std::string::npos);
}

}  // namespace
}  // namespace reluopt
