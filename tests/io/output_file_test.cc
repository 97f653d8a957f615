// write_output_file: the new text replaces the file whole, and a write that fails is an error naming the path.
#include "io/output_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reluopt/error.h"

namespace reluopt {
namespace {

namespace fs = std::filesystem;

std::string contents(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/reluopt_output_file_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(OutputFile, ReplacesTheFileAndLeavesNoTemporary) {
  const fs::path target = dir_ / "result.json";
  write_output_file(target, "first\n", "the JSON result");
  write_output_file(target, "second\n", "the JSON result");
  EXPECT_EQ(contents(target), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 1);
}

TEST_F(OutputFile, WritesThroughALinkAndKeepsIt) {
  const fs::path target = dir_ / "real.json";
  const fs::path link = dir_ / "link.json";
  write_output_file(target, "old", "x");
  fs::create_symlink("real.json", link);
  write_output_file(link, "new", "x");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(contents(target), "new");
}

TEST_F(OutputFile, FailuresNameWhatAndWhere) {
  const std::string missing = (dir_ / "no" / "such" / "dir.json").string();
  try {
    write_output_file(missing, "text", "the sample values");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write the sample values to '" + missing + "'"), std::string::npos);
  }
  // A device cannot be renamed over: it is written in place, and a full one is an error, not silence.
  EXPECT_THROW(write_output_file("/dev/full", std::string(1 << 16, 'x'), "the JSON result"), Error);
  EXPECT_NO_THROW(write_output_file("/dev/null", "text", "the JSON result"));
}

}  // namespace
}  // namespace reluopt
