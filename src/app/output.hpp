#pragma once
/// \file
/// The CSV output of `mechint run`: a file that appears whole or not at all.

#include <fstream>
#include <string>
#include <vector>

#include "app/methods.hpp"

namespace mechint::app {

/// Rows of a run as CSV (%.17g: every double written exactly). With a path, rows go to
/// "<path>.partial", renamed to the path by `commit()`; destroyed without a commit (an exception
/// left the run), the partial file is removed. An empty path writes to standard output.
class CsvOutput final : public RowWriter {
 public:
  /// Throws InvalidInput if the directory of `path` does not exist, IoError if it cannot be written.
  explicit CsvOutput(std::string path);
  CsvOutput(const CsvOutput&) = delete;
  CsvOutput& operator=(const CsvOutput&) = delete;
  ~CsvOutput() override;

  void header(const std::vector<std::string>& columns) override;
  void row(const std::vector<double>& values) override;
  /// Flushes and moves the file into place; throws IoError on a write error.
  void commit();

 private:
  std::string path_, partial_;
  std::ofstream file_;
  std::ostream* os_;
  bool committed_ = false;
};

/// Writes `text` to `path` through a temporary file and a rename; throws IoError on failure.
void write_text_atomically(const std::string& path, const std::string& text);

}  // namespace mechint::app
