#pragma once
/// \file
/// The journal of a sweep (DIR/journal.csv, docs/sweeps.md): the summary row of every finished
/// member, appended as it finishes, so that a sweep stopped in any way continues from it. A row is
/// one write(2) of a whole line: once written it survives the process (SIGTERM, SIGKILL); sync()
/// forces the rows to the disk against a crash of the machine, which the sweep does about once a
/// second (at every member it would cost more than short members: a disk under load takes
/// milliseconds per fdatasync). A line without its newline was cut by the stop and is dropped, and
/// the file truncated to the last whole line, when the journal is opened again.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace mechint::app {

class SweepJournal {
 public:
  /// Opens (creates) the journal of a sweep of `members` members and reads the rows already in it.
  /// Throws InvalidInput for a line that is not a member's row of this sweep (a damaged journal),
  /// IoError when it cannot be read or written.
  SweepJournal(std::string path, std::size_t members);
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;
  ~SweepJournal();

  /// The rows read when opened, by member (none: not done yet).
  const std::vector<std::optional<std::string>>& rows() const { return rows_; }

  /// Appends member `row` (a summary row without its newline, starting with the member's index).
  /// Not thread-safe: one caller at a time. Throws IoError.
  void append(const std::string& row);
  /// Forces the rows appended so far to the disk (fdatasync); may run beside append. Throws IoError.
  void sync();

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<std::optional<std::string>> rows_;
};

/// The exit code of a summary row: its last field.
int row_exit_code(const std::string& row);

}  // namespace mechint::app
