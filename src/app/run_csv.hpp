#pragma once
/// \file
/// The CSV a run writes (`mechint run --out`), read back: by `mechint view RUN.csv` and by
/// `mechint optimize` for its trajectory page (docs/animations.md). What it accepts is what a run
/// writes — a header of distinct names with `t` first, then rows of as many finite numbers, `t`
/// strictly increasing — with lines ending in "\n" or "\r\n" (a file saved on Windows) and blank
/// lines skipped. Anything else is refused with one line `FILE:LINE: what` (InvalidInput, exit 2):
/// an empty file, a header without `t` first, an empty or repeated name, a row of another number
/// of fields, a field that is not a finite number, a `t` not after the previous row's. The file is
/// read through model_file::InputFile: a regular file only, of bounded size and line length.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mechint::model_file {
class InputFile;
}

namespace mechint::app {

/// What is wrong with a row of a run's `columns` read after a row at `previous_t` (null: the first
/// row), or empty: a value that is not a finite number, a `t` not after the previous row's. The one
/// rule for the rows of a run given back to mechint (this file's reader, Python's Trajectory.animate).
std::string run_row_problem(const std::vector<std::string>& columns, const std::vector<double>& values,
                            const double* previous_t);

class RunCsv {
 public:
  /// Largest CSV read, in bytes (a run of 10^8 rows of Kepler is about 10 GB).
  static constexpr std::uint64_t kMaxSize = std::uint64_t{64} << 30;
  /// Most columns (a run of the 1000-link chain has about 3000).
  static constexpr std::size_t kMaxColumns = 65536;

  /// Opens `path`, reads and checks its header, and counts its rows (a first pass over the file).
  explicit RunCsv(const std::string& path);
  RunCsv(const RunCsv&) = delete;
  RunCsv& operator=(const RunCsv&) = delete;
  ~RunCsv();

  const std::vector<std::string>& columns() const { return columns_; }
  /// The rows the first pass counted (non-blank lines after the header).
  std::uint64_t rows() const { return rows_; }

  /// Reads the rows (a second pass, over no more than the bytes of the first), checking each, and
  /// calls `row` with each row's values in order. Call once.
  void read_rows(const std::function<void(const std::vector<double>&)>& row);

 private:
  std::unique_ptr<model_file::InputFile> in_;
  std::vector<std::string> columns_;
  std::uint64_t header_line_ = 0;
  std::uint64_t rows_ = 0;
};

}  // namespace mechint::app
