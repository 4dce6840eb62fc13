// `mechint view RUN.csv` reads back exactly what a run writes (app/run_csv.hpp, docs/animations.md):
// a file saved with CRLF line ends gives the same page as the run's own (a column used to be
// dropped), and what a run never writes — t going backwards or repeated, a value that is not a
// finite number, a row of another length, an empty file, a header without t first or with a name
// twice — is refused with exit 2 and one line naming the file and line, leaving no page.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/run_csv.hpp"
#include "cli_harness.hpp"
#include "mechint/core/errors.hpp"

namespace {

namespace fs = std::filesystem;
using mechint::app::RunCsv;
using mechint::testing::count_lines;
using mechint::testing::leftover_temporaries;
using mechint::testing::read_file;
using mechint::testing::run_mechint_argv;

fs::path scratch(const std::string& name) {
  const fs::path dir = ::mechint::testing::harness_directory() / "view_csv";
  fs::create_directories(dir);
  return dir / name;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream os(path, std::ios::binary);
  os << text;
}

/// The text with every "\n" made "\r\n".
std::string with_crlf(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

/// A Kepler run's CSV (its text), written once.
const std::string& kepler_csv() {
  static const std::string text = [] {
    const fs::path csv = scratch("kepler-run.csv");
    const auto r = run_mechint_argv({"run", "kepler", "--t-end", "1", "--out", csv.string()});
    EXPECT_EQ(r.status, 0) << r.err;
    return read_file(csv);
  }();
  return text;
}

mechint::testing::CliResult view(const fs::path& csv, const fs::path& page, const std::string& system = "kepler") {
  return run_mechint_argv({"view", csv.string(), "--system", system, "--out", page.string()});
}

TEST(ViewCsv, ACrlfFileGivesTheSamePageAsTheRunsOwn) {
  const std::string text = kepler_csv();
  ASSERT_NE(text.find('\n'), std::string::npos);
  const fs::path csv = scratch("same.csv"), page = scratch("same.html");
  write(csv, text);
  auto r = view(csv, page);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string lf_page = read_file(page);
  // The last column, the one a CRLF file lost, is plotted.
  const std::string header = text.substr(0, text.find('\n'));
  const std::string last = header.substr(header.rfind(',') + 1);
  EXPECT_NE(lf_page.find("{\"name\":\"" + last + "\""), std::string::npos) << last;

  write(csv, with_crlf(text));  // the same path: the same title
  r = view(csv, page);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_file(page), lf_page);
  // Blank lines and a UTF-8 mark (a spreadsheet's) change nothing either.
  write(csv, "\xEF\xBB\xBF" + with_crlf(text) + "\r\n\r\n");
  r = view(csv, page);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_file(page), lf_page);
}

struct BadCsv {
  const char* name;
  std::string text;
  std::string where;  ///< ":LINE: " after the file's name
  const char* what;
};

TEST(ViewCsv, WhatARunNeverWritesIsRefusedWithItsLine) {
  const std::vector<BadCsv> cases = {
      {"t backwards", "t,x,y\n0,1,0\n0.2,0.9,0.1\n0.1,0.95,0.05\n", ":4: ", "t = 0.10000000000000001 is not after"},
      {"t repeated", "t,x,y\n0,1,0\n0.1,0.9,0.1\n0.1,0.95,0.05\n", ":4: ", "is not after the previous row's t"},
      {"t backwards, CRLF", "t,x,y\r\n0,1,0\r\n-1,0.9,0.1\r\n", ":3: ", "t = -1 is not after"},
      {"t NaN", "t,x,y\n0,1,0\nnan,0.9,0.1\n", ":3: ", "column 1 ('t') is not a finite number: 'nan'"},
      {"t infinite", "t,x,y\ninf,1,0\n", ":2: ", "column 1 ('t') is not a finite number"},
      {"value overflowing", "t,x,y\n0,1e400,0\n", ":2: ", "column 2 ('x') is not a finite number"},
      {"not a number", "t,x,y\n0,1,0\n0.1,abc,0\n", ":3: ", "column 2 ('x') is not a finite number: 'abc'"},
      {"empty field", "t,x,y\n0,,0\n", ":2: ", "column 2 ('x') is not a finite number"},
      {"short row", "t,x,y\n0,1,0\n0.1,0.9\n", ":3: ", "2 values, expected 3"},
      {"long row", "t,x,y\n0,1,0,7\n", ":2: ", "more than 3 values, expected 3"},
      {"empty file", "", ":1: ", "the file is empty"},
      {"blank file", "\n \r\n\n", ":3: ", "the file is empty"},
      {"header only", "t,x,y\n", ":1: ", "no rows after the header"},
      {"no t first", "x,t,y\n1,0,0\n", ":1: ", "the first column must be t, not 'x'"},
      {"name twice", "t,x,x\n0,1,0\n", ":1: ", "column 'x' appears twice"},
      {"name empty", "t,x,,y\n0,1,0,0\n", ":1: ", "column 3 of the header has no name"},
      {"binary", std::string("t,x,y\n0,1\0,0\n", 13), ":2: ", "column 2 ('x') is not a finite number"},
  };
  for (const auto& c : cases) {
    const fs::path csv = scratch("bad.csv"), page = scratch("bad.html");
    write(csv, c.text);
    const auto r = view(csv, page);
    EXPECT_EQ(r.status, 2) << c.name << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("mechint: error: " + csv.string() + c.where, 0), 0u) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.what), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(page)) << c.name;
    EXPECT_EQ(leftover_temporaries(page), 0) << c.name;
  }
}

TEST(ViewCsv, TheReaderGivesEveryRowExactly) {
  const fs::path csv = scratch("exact.csv");
  write(csv, "t,q,energy\r\n0,4.9406564584124654e-324,-0.5\r\n\r\n0.5, 0.1 ,1e300\r\n1,-2.2250738585072014e-308,0");
  RunCsv reader(csv.string());
  EXPECT_EQ(reader.columns(), (std::vector<std::string>{"t", "q", "energy"}));
  EXPECT_EQ(reader.rows(), 3u);
  std::vector<std::vector<double>> rows;
  reader.read_rows([&](const std::vector<double>& row) { rows.push_back(row); });
  const std::vector<std::vector<double>> expected = {
      {0.0, 4.9406564584124654e-324, -0.5}, {0.5, 0.1, 1e300}, {1.0, -2.2250738585072014e-308, 0.0}};
  EXPECT_EQ(rows, expected);
}

}  // namespace
