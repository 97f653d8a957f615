// Bad model and JSON files: each gets one printable line naming the file and the field, tensor or node, and
// nothing that would not fit in memory is allocated. The ONNX fixtures in tests/fixtures/bad_inputs are
// written by tests/io/make_bad_fixtures.py; inputs libFuzzer found are kept there as found (fuzz/).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/reader_test_util.h"
#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/json_io.h"
#include "reluopt/model_io.h"
#include "reluopt/vnnlib.h"

namespace reluopt {
namespace {

using testing::error_message;
using testing::TempFile;

const std::string kBadDir = std::string(RELUOPT_FIXTURES_DIR) + "/bad_inputs/";

// The message of the Error `read` throws, checked to be one printable line containing every word.
template <typename Read>
void expect_error(Read read, const std::vector<std::string>& words) {
  const std::string message = error_message(read);
  EXPECT_EQ(detail::printable(message), message) << "not printable: " << message;
  for (const std::string& word : words)
    EXPECT_NE(message.find(word), std::string::npos) << "'" << word << "' not in: " << message;
}

// ---- ONNX ----

TEST(BadOnnx, OpsetsOutsideSevenToTwentyEightAreRefused) {
  expect_error([] { read_onnx(kBadDir + "opset6.onnx"); }, {"opset6.onnx", "uses opset 6", "opsets 7 to 28"});
  expect_error([] { read_onnx(kBadDir + "opset29.onnx"); }, {"opset29.onnx", "uses opset 29", "opsets 7 to 28"});
  EXPECT_EQ(read_onnx(kBadDir + "opset7.onnx").describe(), "2 -> 3 -> 1");
}

TEST(BadOnnx, BatchOfInputsIsRefusedNamingTheShape) {
  expect_error([] { read_onnx(kBadDir + "batch_input_3x6.onnx"); },
               {"input 'x'", "batch_input_3x6.onnx", "[3,6]", "a batch of 3 inputs"});
}

TEST(BadOnnx, OneImageIsFlattened) {
  EXPECT_EQ(read_onnx(kBadDir + "image_input_1x1x2x3.onnx").describe(), "6 -> 3 -> 1");
}

TEST(BadOnnx, NonFiniteWeightsAreRefusedNamingTheTensor) {
  expect_error([] { read_onnx(kBadDir + "nan_weight.onnx"); },
               {"tensor 'W0'", "nan_weight.onnx", "value nan at element 2 is not finite"});
  expect_error([] { read_onnx(kBadDir + "inf_weight.onnx"); },
               {"tensor 'W0'", "inf_weight.onnx", "value -inf at element 5 is not finite"});
}

TEST(BadOnnx, RawBytesOfANameAreEscaped) {
  expect_error([] { read_onnx(kBadDir + "non_utf8_operator.onnx"); },
               {"unsupported ONNX operator 'Relu\\xff'", "node 'act0'"});
}

TEST(BadOnnx, TruncatedAndEmptyFilesAreNotModels) {
  expect_error([] { read_onnx(kBadDir + "truncated.onnx"); }, {"truncated.onnx", "is not an ONNX model"});
  expect_error([] { read_onnx(kBadDir + "empty.onnx"); }, {"empty.onnx", "is not an ONNX model"});
}

TEST(BadOnnx, DimensionsWhoseProductOverflowsAreRefused) {
  expect_error([] { read_onnx(kBadDir + "huge_dims.onnx"); },
               {"tensor 'W0'", "[1099511627776,1099511627776]"});
}

// x [1,1] + a [1000,1] + b [1,1000]: two constants of 1000 numbers broadcast to 10^6 affine rows (16 MB).
TEST(BadOnnx, TensorsBeyondTheMemoryLimitAreRefusedBeforeAllocation) {
  const std::string path = kBadDir + "broadcast_blowup.onnx";
  std::ifstream in(path, std::ios::binary);
  expect_error([&] { detail::read_onnx(in, path, detail::ReadLimits{1 << 20}); },
               {"node 'add_row'", "broadcast_blowup.onnx", "[1000,1000]", "needs 0.016 GB", "more than the"});
  EXPECT_EQ(read_onnx(path).output_dim(), 1000000);  // within the default limit it is a network
}

TEST(BadOnnx, DirectoriesAndMissingFilesAreNamed) {
  const TempFile file("model.onnx", "");
  expect_error([&] { read_model(file.directory()); }, {"cannot open model file", "(it is a directory)"});
  expect_error([&] { read_onnx(file.directory()); }, {"cannot open model file", "(it is a directory)"});
  expect_error([&] { read_model(file.directory() + "/none.onnx"); }, {"none.onnx", "(no such file)"});
}

TEST(BadOnnx, TwoInitializersOfOneNameAreRefused) {
  expect_error([] { read_onnx(kBadDir + "duplicate_initializer.onnx"); },
               {"duplicate_initializer.onnx", "has two initializers named 'W0'"});
}

// ---- Every reader ----

// The first bytes of a gzip stream: the magic 1f 8b, deflate, no flags.
const std::string kGzipHeader("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);

TEST(BadFile, GzipCompressedFilesAreRefusedWithTheCommandThatDecompresses) {
  const TempFile property("p.vnnlib.gz", kGzipHeader);
  expect_error([&] { read_vnnlib(property.path()); },
               {"VNN-LIB file '" + property.path() + "' is gzip-compressed; decompress it first (gunzip " +
                property.path() + ")"});
  const TempFile model("m.onnx", kGzipHeader);
  expect_error([&] { read_model(model.path()); },
               {"model file '" + model.path() + "' is gzip-compressed", "(gunzip -c " + model.path() + " > NEW_FILE)"});
  expect_error([&] { read_onnx(model.path()); }, {"model file", "is gzip-compressed"});
  const TempFile nnet("m.nnet", kGzipHeader);
  expect_error([&] { read_nnet(nnet.path()); }, {"m.nnet", "is gzip-compressed"});
  const TempFile domain("d.json", kGzipHeader);
  expect_error([&] { read_domain_json(domain.path()); }, {"domain file", "d.json", "is gzip-compressed"});
}

TEST(BadFile, SymbolicLinkLoopsAreNamed) {
  const TempFile file("unused", "");
  const std::filesystem::path a = std::filesystem::path(file.directory()) / "a.vnnlib";
  const std::filesystem::path b = std::filesystem::path(file.directory()) / "b.vnnlib";
  std::filesystem::create_symlink(b, a);
  std::filesystem::create_symlink(a, b);
  expect_error([&] { read_vnnlib(a.string()); },
               {"cannot open VNN-LIB file '" + a.string() + "' (a symbolic link loop"});
  expect_error([&] { read_model(b.string()); }, {"cannot open model file", "(a symbolic link loop"});
}

// ---- NNet ----

TEST(BadNnet, LayerSizesThatCouldNotFitAreRefusedBeforeReadingTheWeights) {
  const TempFile file("huge.nnet", "3,3,1,100000000,\n3,100000000,100000000,1,\n0,\n");
  expect_error([&] { read_nnet(file.path()); }, {"huge.nnet", "line 2", "declare", "weights", "needs"});
}

TEST(BadNnet, RawBytesOfATokenAreEscaped) {
  const TempFile file("bytes.nnet", "1,1,1,1,\n1,\xff\x01,\n");
  expect_error([&] { read_nnet(file.path()); }, {"bytes.nnet", "line 2", "'\\xff\\x01' is not a number"});
}

TEST(BadNnet, EmptyAndDirectoryFilesAreNamed) {
  const TempFile file("empty.nnet", "");
  expect_error([&] { read_model(file.path()); }, {"empty.nnet", "line 1", "file ends early"});
  expect_error([&] { read_nnet(file.directory()); }, {"cannot open model file", "(it is a directory)"});
}

// ---- Domain and objective JSON ----

TEST(BadDomainJson, NullBoundNamesTheFileAndTheEntry) {
  const TempFile file("null.json", R"({"lower": [0, null], "upper": [1, 1]})");
  expect_error([&] { read_domain_json(file.path()); },
               {"domain file '" + file.path() + "'", "entry 1 of \"lower\" is not finite: null"});
}

TEST(BadDomainJson, InfiniteAndOverflowingEntriesAreRefused) {
  const TempFile inf("inf.json", R"({"lower": [0], "upper": ["inf"]})");
  expect_error([&] { read_domain_json(inf.path()); }, {"inf.json", "entry 0 of \"upper\" is not finite: \"inf\""});
  const TempFile overflow("overflow.json", R"({"lower": [0], "upper": [1], "A": [[1e400]], "b": [1]})");
  expect_error([&] { read_domain_json(overflow.path()); },
               {"malformed JSON in domain file", "overflow.json", "number overflow parsing '1e400'"});
}

TEST(BadDomainJson, InconsistentSizesAndEmptyBoxesNameTheFile) {
  const TempFile sizes("sizes.json", R"({"lower": [0, 0], "upper": [1]})");
  expect_error([&] { read_domain_json(sizes.path()); }, {"sizes.json", "\"lower\" has 2 entries and \"upper\" 1"});
  const TempFile empty("crossed.json", R"({"lower": [0, 2], "upper": [1, 1]})");
  expect_error([&] { read_domain_json(empty.path()); }, {"crossed.json", "is empty", "entry 1"});
  const TempFile rows("rows.json", R"({"lower": [0], "upper": [1], "A": [[1], [2]], "b": [1]})");
  expect_error([&] { read_domain_json(rows.path()); }, {"rows.json", "\"A\" has 2 rows but \"b\" has 1"});
}

TEST(BadDomainJson, EmptyDirectoryAndInvalidUtf8FilesAreNamed) {
  const TempFile empty("empty.json", "");
  expect_error([&] { read_domain_json(empty.path()); }, {"malformed JSON in domain file", "empty.json"});
  expect_error([&] { read_domain_json(empty.directory()); }, {"cannot open domain file", "(it is a directory)"});
  const TempFile bytes("bytes.json", "{\"lower\": [\"\xff\"]}");
  expect_error([&] { read_domain_json(bytes.path()); }, {"malformed JSON", "bytes.json"});
}

TEST(ObjectiveJson, SenseIsMaxMinMaximizeOrMinimize) {
  for (const auto& [sense, expected] : {std::pair{"max", Sense::kMaximize}, {"maximize", Sense::kMaximize},
                                        {"min", Sense::kMinimize}, {"minimize", Sense::kMinimize}}) {
    const TempFile file("objective.json", std::string(R"({"weights": [1], "sense": ")") + sense + "\"}");
    EXPECT_EQ(read_objective_json(file.path()).sense, expected) << sense;
  }
}

TEST(BadObjectiveJson, SenseOfAnotherKindIsRefused) {
  const TempFile number("number.json", R"({"weights": [1], "sense": 1})");
  expect_error([&] { read_objective_json(number.path()); }, {"number.json", "\"sense\" must be", "not 1"});
  const TempFile word("word.json", R"({"weights": [1], "sense": "Max"})");
  expect_error([&] { read_objective_json(word.path()); }, {"word.json", "not \"Max\""});
}

TEST(BadObjectiveJson, NonFiniteWeightsAndConstantsAreRefused) {
  const TempFile weight("weight.json", R"({"weights": [1, "nan"]})");
  expect_error([&] { read_objective_json(weight.path()); }, {"weight.json", "entry 1 of \"weights\" is not finite: \"nan\""});
  const TempFile constant("constant.json", R"({"weights": [1], "constant": null})");
  expect_error([&] { read_objective_json(constant.path()); }, {"constant.json", "\"constant\" is not finite: null"});
}

// ---- Inputs libFuzzer found (fuzz/): each once crashed or broke a rule; the sanitizer builds check them ----

// The reader of a fuzz finding, by the target that found it: fuzz/onnx_*, nnet_*, domain_*, objective_*.
void read_finding(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  std::ifstream in(file, std::ios::binary);
  const detail::ReadLimits limits{std::uint64_t{256} << 20};  // as in fuzz/fuzz_reader.h
  if (name.rfind("onnx_", 0) == 0) detail::read_onnx(in, name, limits);
  else if (name.rfind("nnet_", 0) == 0) detail::read_nnet(in, name, limits);
  else if (name.rfind("domain_", 0) == 0) detail::read_domain_json(in, name);
  else if (name.rfind("objective_", 0) == 0) detail::read_objective_json(in, name);
  else ADD_FAILURE() << "unknown reader for " << name;
}

TEST(FuzzFindings, EachIsAnErrorOfOneLine) {
  int findings = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kBadDir + "fuzz")) {
    SCOPED_TRACE(entry.path().filename().string());
    expect_error([&] { read_finding(entry.path()); }, {entry.path().filename().string()});
    ++findings;
  }
  EXPECT_GT(findings, 0);
}

TEST(FuzzFindings, ReshapeToDimensionsWhoseProductOverflows) {
  expect_error([] { read_finding(kBadDir + "fuzz/onnx_reshape_overflow.onnx"); },
               {"invalid target shape", "too large"});
}

}  // namespace
}  // namespace reluopt
