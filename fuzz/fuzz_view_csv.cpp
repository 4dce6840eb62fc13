// libFuzzer target over the CSV of `mechint view RUN.csv` (app/run_csv.cpp: RunCsv, through
// model_file::InputFile). See docs/fuzzing.md.
//
// Input: the bytes of the CSV file. RunCsv takes a path, so every input is written to one file of
// this process, in a directory of its own (fuzz_checks.hpp: private_path), and read from there.
// Finding: a crash, a hang, a sanitizer report, an exception other than mechint::InvalidInput or
// mechint::IoError, a message that is not one printable line `FILE:LINE: what`, or an accepted file
// that breaks what the header promises (a header of distinct non-empty names with t first, as many
// rows as counted, each of the header's width, finite values, t strictly increasing)
// (__builtin_trap).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "app/run_csv.hpp"
#include "fuzz_checks.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace {

using mechint::app::RunCsv;

const std::string& input_path() {
  static const std::string path = mechint::fuzz::private_path("run.csv");
  return path;
}

/// One printable line `FILE:LINE: what`, of bounded length.
void check_message(std::string_view message) {
  FUZZ_CHECK(mechint::fuzz::printable(message));
  const std::string file = mechint::printable_line(input_path(), 400);
  FUZZ_CHECK(message.size() <= file.size() + 24 + 4 * 500 + 64);  // what: printable_line(what, 500)
  FUZZ_CHECK(message.starts_with(file + ":"));
  std::size_t i = file.size() + 1;
  const std::size_t digits = i;
  while (i < message.size() && message[i] >= '0' && message[i] <= '9') ++i;
  FUZZ_CHECK(i > digits && message[digits] != '0' && message.substr(i).starts_with(": ") && message.size() > i + 2);
}

void check_file() {
  RunCsv csv(input_path());
  const auto& columns = csv.columns();
  FUZZ_CHECK(!columns.empty() && columns.front() == "t");
  FUZZ_CHECK(columns.size() <= RunCsv::kMaxColumns);
  const std::set<std::string> distinct(columns.begin(), columns.end());
  FUZZ_CHECK(distinct.size() == columns.size());
  for (const auto& name : columns) FUZZ_CHECK(!name.empty() && name.find(',') == std::string::npos);
  FUZZ_CHECK(csv.rows() >= 1);
  std::uint64_t rows = 0;
  double previous = -HUGE_VAL;
  csv.read_rows([&](const std::vector<double>& values) {
    FUZZ_CHECK(values.size() == columns.size());
    for (const double x : values) FUZZ_CHECK(std::isfinite(x));
    FUZZ_CHECK(values[0] > previous);
    previous = values[0];
    ++rows;
  });
  // The file does not change between the passes here: every counted row is read.
  FUZZ_CHECK(rows == csv.rows());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mechint::fuzz::write_file(input_path(), std::string_view(reinterpret_cast<const char*>(data), size));
  mechint::fuzz::expect_only_refusals(check_file, check_message);
  return 0;
}
