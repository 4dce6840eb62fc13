// The one reader of input files (model_file/input_file.hpp) and the bounds of TOML inputs
// (model_file/toml_input.hpp, docs/security.md): a TOML text nested without end — 50 000 dotted key
// parts, table header parts, arrays or inline tables in 100 KB — is refused before toml++ builds it
// (it crashed `sweep`, `check` and `optimize` with SIGSEGV), as one located line with exit 2, by
// every command that reads TOML; the scan counts exactly what toml++ builds (strings and comments
// do not count); what is not a regular file is refused at once, never waited on.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_harness.hpp"
#include "mechint/core/errors.hpp"
#include "model_file/input_file.hpp"
#include "model_file/toml_input.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::InvalidInput;
using mechint::model_file::check_toml_limits;
using mechint::model_file::kMaxTomlDepth;
using mechint::model_file::kMaxTomlKeys;
using mechint::testing::count_lines;
using mechint::testing::run_mechint_argv;

fs::path scratch(const std::string& name) {
  const fs::path dir = ::mechint::testing::harness_directory() / "input_limits";
  fs::create_directories(dir);
  return dir / name;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream os(path, std::ios::binary);
  os << text;
}

std::string repeated(const std::string& piece, int times, const std::string& separator = "") {
  std::string s;
  for (int i = 0; i < times; ++i) s += (i ? separator : "") + piece;
  return s;
}

/// The message check_toml_limits gives `text`, or "" when it accepts it.
std::string refusal(const std::string& text) {
  try {
    check_toml_limits(text, "f.toml");
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

/// The deep texts of the issue, each of about 100 KB: 50 000 parts or brackets.
struct DeepText {
  const char* name;
  std::string text;
  const char* where;  ///< FILE:LINE:COLUMN of the first level beyond the limit
};

std::vector<DeepText> deep_texts() {
  const int n = 50000;
  return {
      {"table header", "[" + repeated("a", n, ".") + ".b]\nx = 1\n", ":1:130:"},
      {"dotted key", repeated("a", n, ".") + ".b = 1\n", ":1:129:"},
      {"array", "a = " + repeated("[", n) + repeated("]", n) + "\n", ":1:69:"},
      {"inline table", "a = " + repeated("{b = ", n) + "1" + repeated("}", n) + "\n", ":1:321:"},
      {"dotted keys in inline tables", "a = " + repeated("{b.c = ", n / 2) + "1" + repeated("}", n / 2) + "\n", ":1:"},
      {"array of tables", "[[" + repeated("a", n, ".") + "]]\n", ":1:131:"},
  };
}

TEST(TomlLimits, EachDeepFormIsRefusedWhereItPassesTheLimit) {
  for (const auto& deep : deep_texts()) {
    const std::string message = refusal(deep.text);
    EXPECT_EQ(message.rfind(std::string("f.toml") + deep.where, 0), 0u) << deep.name << ": " << message;
    EXPECT_NE(message.find("nested deeper than 64 levels"), std::string::npos) << deep.name << ": " << message;
  }
}

TEST(TomlLimits, TheLimitIsExactlyTheDepthTomlBuildsForEveryForm) {
  // Depth 64 passes, 65 is refused: a key of n parts under [t] sits at 1 + n.
  EXPECT_EQ(refusal(repeated("a", 64, ".") + " = 1\n"), "");
  EXPECT_NE(refusal(repeated("a", 65, ".") + " = 1\n"), "");
  EXPECT_EQ(refusal("[t]\n" + repeated("a", 63, ".") + " = 1\n"), "");
  EXPECT_NE(refusal("[t]\n" + repeated("a", 64, ".") + " = 1\n"), "");
  EXPECT_EQ(refusal("[" + repeated("a", 64, ".") + "]\n"), "");
  EXPECT_NE(refusal("[" + repeated("a", 65, ".") + "]\n"), "");
  // [[a]]: the array at depth 1, its table at 2.
  EXPECT_EQ(refusal("[[" + repeated("a", 63, ".") + "]]\n"), "");
  EXPECT_NE(refusal("[[" + repeated("a", 64, ".") + "]]\n"), "");
  // a = [[...[1]...]]: a at 1, k arrays inside it, 1 at depth 1 + k.
  EXPECT_EQ(refusal("a = " + repeated("[", 63) + "1" + repeated("]", 63) + "\n"), "");
  EXPECT_NE(refusal("a = " + repeated("[", 64) + "1" + repeated("]", 64) + "\n"), "");
  EXPECT_EQ(refusal("a = " + repeated("[", 64) + repeated("]", 64) + "\n"), "");  // empty: nothing at 65
  EXPECT_EQ(refusal("a = " + repeated("{b = ", 63) + "1" + repeated("}", 63) + "\n"), "");
  EXPECT_NE(refusal("a = " + repeated("{b = ", 64) + "1" + repeated("}", 64) + "\n"), "");
  EXPECT_EQ(kMaxTomlDepth, 64);
}

TEST(TomlLimits, StringsAndCommentsDoNotCount) {
  const std::string brackets = repeated("[{a.", 100);
  EXPECT_EQ(refusal("a = \"" + brackets + "\\\"" + brackets + "\"\n"), "");
  EXPECT_EQ(refusal("a = '" + brackets + "'\n"), "");
  EXPECT_EQ(refusal("a = \"\"\"\n" + brackets + "\n\\\"\"\"" + brackets + "\"\"\"\n"), "");
  EXPECT_EQ(refusal("a = '''\n" + brackets + "\n'''\n"), "");
  EXPECT_EQ(refusal("# " + brackets + "\na = [ # " + brackets + "\n  1,\n]\n"), "");
  EXPECT_EQ(refusal("\"" + repeated("a", 100, ".") + "\" = 1\n"), "");   // one quoted key
  EXPECT_EQ(refusal("[\"" + repeated("a", 100, ".") + "\"]\n"), "");    // one quoted table name
  EXPECT_EQ(refusal("a = 1979-05-27 07:32:00Z\nb = [1.5, 2.5e3, inf]\n"), "");
  // ... but a deep text after them still is, at its own line and column.
  EXPECT_EQ(refusal("a = \"[[[\"\n# {{{\nb = '''\n]]]\n'''\n" + repeated("x", 70, ".") + " = 1\n").rfind("f.toml:6:129:", 0),
            0u);
}

TEST(TomlLimits, TooManyKeysAndTooLargeATextAreRefused) {
  std::string keys;
  for (std::size_t i = 0; i <= kMaxTomlKeys; ++i) keys += "k" + std::to_string(i) + "=1\n";
  EXPECT_EQ(refusal(keys).rfind("f.toml:65537:1: more than 65536 keys", 0), 0u) << refusal(keys);
  const std::string large(mechint::model_file::kMaxTextFileSize + 1, '#');
  EXPECT_EQ(refusal(large).rfind("f.toml:1:1: TOML text of 1048577 bytes is larger than the limit", 0), 0u);
}

/// A FIFO named `name` in the scratch directory, with no writer.
fs::path fifo(const std::string& name) {
  const fs::path path = scratch(name);
  fs::remove(path);
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
  return path;
}

/// `mechint args...` under `timeout`: a reader that waited on a FIFO would end as 124, not hang.
mechint::testing::CliResult run_bounded(std::vector<std::string> args) {
  args.insert(args.begin(), {"60", MECHINT_EXECUTABLE});
  mechint::testing::LaunchOptions options;
  options.executable = "/usr/bin/timeout";
  return run_mechint_argv(args, options);
}

void expect_one_line_refusal(const mechint::testing::CliResult& r, const std::string& start, const std::string& what,
                             const std::string& label) {
  EXPECT_EQ(r.status, 2) << label << ": " << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << label << ": " << r.err;
  EXPECT_EQ(r.err.rfind("mechint: error: " + start, 0), 0u) << label << ": " << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << label << ": " << r.err;
}

TEST(TomlLimitsCli, CheckSweepAndOptimizeRefuseEveryDeepFileWithOneLine) {
  int i = 0;
  for (const auto& deep : deep_texts()) {
    const std::string label = deep.name;
    const fs::path model = scratch("deep" + std::to_string(i) + ".toml");
    const fs::path sweep = scratch("deep-sweep" + std::to_string(i) + ".toml");
    const fs::path problem = scratch("deep-problem" + std::to_string(i) + ".toml");
    const fs::path out = scratch("deep-out" + std::to_string(i++));
    write(model, deep.text);
    // Sweep and problem files: the deep text after valid keys, so that only the depth refuses them.
    write(sweep, "system = \"kepler\"\nh = 0.01\nt_end = 0.1\n" + deep.text);
    write(problem, "model = \"cart-pole\"\nhorizon = 2.0\nsteps = 20\n" + deep.text);
    expect_one_line_refusal(run_bounded({"check", model.string()}), model.string() + deep.where,
                            "nested deeper than 64 levels", "check " + label);
    const std::string later = std::string(deep.where).replace(1, 1, "4");  // the same place, 3 lines down
    expect_one_line_refusal(run_bounded({"sweep", sweep.string(), "--out", out.string()}), sweep.string() + later,
                            "nested deeper than 64 levels", "sweep " + label);
    EXPECT_FALSE(fs::exists(out)) << label;
    expect_one_line_refusal(run_bounded({"optimize", problem.string(), "--out", out.string()}),
                            problem.string() + later, "nested deeper than 64 levels", "optimize " + label);
    EXPECT_FALSE(fs::exists(out)) << label;
    // A model file run, animated or viewed is read by the same reader.
    expect_one_line_refusal(run_bounded({"run", model.string(), "--t-end", "1"}), model.string() + deep.where,
                            "nested deeper than 64 levels", "run " + label);
  }
}

TEST(TomlLimitsCli, AFileWithinTheLimitGoesOnToItsOwnChecks) {
  // 64 levels reach toml++ and the model file's reader, which names the unknown key.
  const fs::path model = scratch("at-limit.toml");
  write(model, repeated("a", 64, ".") + " = 1\n");
  const auto r = run_bounded({"check", model.string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.find("nested deeper"), std::string::npos) << r.err;
}

TEST(InputFileCli, AFifoWithoutWriterIsRefusedAtOnceByEveryReader) {
  const fs::path model = fifo("fifo.toml"), sweep = fifo("fifo-sweep"), problem = fifo("fifo-problem"),
                 controls = fifo("fifo-controls.csv"), csv = fifo("fifo-run.csv");
  expect_one_line_refusal(run_bounded({"check", model.string()}), model.string() + ": ", "is not a regular file",
                          "check");
  expect_one_line_refusal(run_bounded({"sweep", sweep.string(), "--out", scratch("fifo-out").string()}),
                          sweep.string() + ": ", "is not a regular file", "sweep");
  expect_one_line_refusal(run_bounded({"optimize", problem.string(), "--out", scratch("fifo-out").string()}),
                          problem.string() + ": ",
                          "is not a regular file", "optimize");
  expect_one_line_refusal(run_bounded({"run", "cart-pole", "--t-end", "1", "--controls", controls.string()}),
                          controls.string() + ": ", "is not a regular file", "run --controls");
  expect_one_line_refusal(
      run_bounded({"view", csv.string(), "--system", "kepler", "--out", scratch("fifo.html").string()}),
      csv.string() + ": ", "is not a regular file", "view");
  EXPECT_FALSE(fs::exists(scratch("fifo.html")));
}

TEST(InputFile, ReadsLinesEndingInLfOrCrLfAndBoundsThem) {
  const fs::path path = scratch("lines.txt");
  write(path, "a,b\r\nc\n\r\nlast");
  mechint::model_file::InputFile in(path.string(), "test file", 1000);
  std::string line;
  std::vector<std::string> lines;
  while (in.read_line(line, 10)) lines.push_back(line);
  EXPECT_EQ(lines, (std::vector<std::string>{"a,b", "c", "", "last"}));
  EXPECT_EQ(in.line_number(), 4u);

  write(path, "short\n" + std::string(11, 'x') + "\n");
  mechint::model_file::InputFile bounded(path.string(), "test file", 1000);
  EXPECT_TRUE(bounded.read_line(line, 10));
  try {
    bounded.read_line(line, 10);
    ADD_FAILURE() << "a line of 11 bytes was read under a limit of 10";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(":2: line longer than the limit of 10 bytes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(mechint::model_file::InputFile(path.string(), "test file", 5), InvalidInput);
  EXPECT_THROW(mechint::model_file::InputFile(scratch("missing").string(), "test file", 5), InvalidInput);
  EXPECT_THROW(mechint::model_file::InputFile(scratch("").string(), "test file", 5), InvalidInput);  // a directory
}

}  // namespace
