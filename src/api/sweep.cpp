// mechint::sweep (mechint/system.hpp): a sweep file run as `mechint sweep` runs it, its summary.csv
// read back as a table (numbers written with 17 digits read back as the very doubles computed).
#include <stdlib.h>

#include <charconv>
#include <filesystem>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "api/api_errors.hpp"
#include "app/run_csv.hpp"
#include "app/sweep.hpp"
#include "app/sweep_csv.hpp"
#include "mechint/core/format.hpp"
#include "mechint/system.hpp"
#include "model_file/input_file.hpp"

namespace mechint {
namespace {

namespace fs = std::filesystem;

/// A directory of this process's own (mode 0700, a fresh name), removed with what it holds.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "mechint-sweep-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw IoError("cannot make a temporary directory for the sweep in " +
                    quote_for_message(fs::temp_directory_path().string(), 200));
    path_ = pattern;
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

bool parse_number(const std::string& cell, double& value) {
  const char* end = cell.data() + cell.size();
  const auto [ptr, error] = std::from_chars(cell.data(), end, value);
  return error == std::errc() && ptr == end;
}

/// summary.csv as columns: a column of numbers (an empty cell, a failed member's, is NaN), or of text
/// where any cell is not a number (`status`), whose numbers then read as NaN.
Table read_summary(const fs::path& path) {
  // Through the one reader (model_file/input_file.hpp): a regular file of bounded size and lines, as
  // every file mechint reads; what replaced the summary in a directory of the user's is refused.
  model_file::InputFile in(path.string(), "the sweep's summary", app::RunCsv::kMaxSize);
  std::string line;
  if (!in.read_line(line, model_file::kMaxCsvLineLength))
    throw IoError("the sweep's summary " + quote_for_message(path.string(), 200) + " is empty");
  const std::vector<std::string> columns = app::csv_cells(line);
  std::vector<std::vector<std::string>> cells(columns.size());
  while (in.read_line(line, model_file::kMaxCsvLineLength)) {
    if (line.empty()) continue;
    const auto row = app::csv_cells(line);
    if (row.size() != columns.size())
      throw IoError("the sweep's summary " + quote_for_message(path.string(), 200) + " has a row of " +
                    std::to_string(row.size()) + " cells under " + std::to_string(columns.size()) + " columns");
    for (std::size_t c = 0; c < row.size(); ++c) cells[c].push_back(row[c]);
  }
  std::vector<std::vector<double>> values(columns.size());
  std::map<std::string, std::vector<std::string>> text;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    bool numbers_only = true;
    for (const auto& cell : cells[c]) {
      double value = std::numeric_limits<double>::quiet_NaN();
      if (!cell.empty() && !parse_number(cell, value)) numbers_only = false;
      values[c].push_back(value);
    }
    if (!numbers_only) text[columns[c]] = std::move(cells[c]);
  }
  return Table(columns, std::move(values), std::move(text));
}

}  // namespace

Table sweep(const std::string& file, unsigned threads, const std::string& out_dir) {
  return api::with_mechint_errors([&] {
    if (!out_dir.empty()) {
      app::sweep_command(file, out_dir, threads, /*progress=*/false, std::cerr);
      return read_summary(fs::path(out_dir) / "summary.csv");
    }
    const ScratchDirectory scratch;
    const fs::path out = scratch.path() / "out";
    app::sweep_command(file, out.string(), threads, /*progress=*/false, std::cerr);
    return read_summary(out / "summary.csv");
  });
}

}  // namespace mechint
