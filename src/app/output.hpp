#pragma once
/// \file
/// The CSV output of `mechint run` (DESIGN §4): a regular file appears whole or not at all; a
/// device, a FIFO, a terminal or standard output is written through, never replaced.

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <optional>

#include "app/checkpoint.hpp"
#include "app/file_writer.hpp"
#include "app/row_writer.hpp"

namespace mechint::app {

/// Rows of a run as CSV (%.17g: every double written exactly).
///
/// * empty path or "-": standard output;
/// * an existing path that is not a regular file (a character or block device such as /dev/null
///   or /dev/full, a FIFO, a socket): opened and written in place;
/// * otherwise (a new file, or an existing regular file, also through a symlink, which is
///   followed): rows go to a temporary beside the target, renamed onto it by `commit()`; destroyed
///   without a commit (an exception left the run) or interrupted (SIGINT/SIGTERM), the temporary is
///   removed and the target is untouched.
/// All three are app/file_writer.hpp's FileWriter.
///
/// Every write is checked: a failure (disk full, /dev/full, a closed pipe) is an IoError (exit 4)
/// naming the path and the system's reason.
///
/// With a checkpoint (app/checkpoint.hpp) the path must name a regular file; rows go to the
/// checkpoint's FILE.rows, which an interrupt leaves in place, and a resumed run continues it from
/// the length the checkpoint recorded. FILE.rows is removed on failure only when no checkpoint
/// refers to it.
class CsvOutput final : public RowWriter {
 public:
  /// Throws InvalidInput if the path is a directory or its directory does not exist (or, with a
  /// checkpoint, is not a regular file, or the rows of the resumed run are missing), IoError if it
  /// cannot be opened.
  explicit CsvOutput(std::string path, RunCheckpoint* checkpoint = nullptr);
  /// A checkpointed run without an output file of its own (the C++ API, whose run returns its rows):
  /// the rows go to the checkpoint's FILE.rows as above, and `commit()` removes the checkpoint, then
  /// FILE.rows (read it before).
  explicit CsvOutput(RunCheckpoint& checkpoint);
  CsvOutput(const CsvOutput&) = delete;
  CsvOutput& operator=(const CsvOutput&) = delete;
  ~CsvOutput() override;

  /// The rows the run will write (output_rows(schedule), app/disk_space.hpp); 0: unknown. Before the
  /// first row reaches a regular file, the run's size is estimated from that row's length and a run
  /// that cannot fit in the file system's free space is refused (IoError, exit 4).
  void expect_rows(std::uint64_t rows) { expected_rows_ = rows; }

  void header(const std::vector<std::string>& columns) override;
  void row(const std::vector<double>& values) override;
  RunCheckpoint* checkpoint() override { return checkpoint_; }
  std::uint64_t flush() override;
  /// Flushes and (for a regular file) moves the file into place; throws IoError on a write error.
  void commit();

 private:
  /// With a checkpoint: opens FILE.rows (a resumed run's cut back to the recorded length).
  void open_checkpoint_rows();
  void put(std::string_view text);
  void check_written();
  /// The disk guard (app/disk_space.hpp), on the first row of `row_bytes` bytes.
  void check_room(std::size_t row_bytes) const;

  std::string path_;       ///< what the user named ("" for standard output)
  std::string target_;     ///< the file the rows end up in (symlinks followed)
  std::string temporary_;  ///< where rows go before the commit; empty when writing through
  std::optional<FileWriter> writer_;  ///< without a checkpoint
  std::ofstream file_;                ///< with a checkpoint: its FILE.rows, continued by a resumed run
  bool committed_ = false;
  RunCheckpoint* checkpoint_ = nullptr;
  std::uint64_t expected_rows_ = 0;
  bool rows_checked_ = false;  ///< the disk guard has looked at the first row
  std::string header_;         ///< the header line, written with the first row
  std::string line_;           ///< one row as text, reused
};

}  // namespace mechint::app
