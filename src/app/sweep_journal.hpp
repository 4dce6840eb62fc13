#pragma once
/// \file
/// The journal of a sweep (DIR/journal.csv, docs/sweeps.md): the summary row of every finished
/// member, appended as it finishes, so that a sweep stopped in any way continues from it. A row is
/// one write(2) of a whole line: once written it survives the process (SIGTERM, SIGKILL); sync()
/// forces the rows to the disk against a crash of the machine, which the sweep does about once a
/// second (at every member it would cost more than short members: a disk under load takes
/// milliseconds per fdatasync).
///
/// The journal trusts nothing it reads: it is bound to its sweep. Its first line names the digest
/// of the sweep's definition (app/sweep_digest.hpp); every line after it is a member's summary row,
/// the record of its trajectory file, and the digest of the sweep's definition, the row and that
/// record, and the row must begin with the member's own inputs (its index and varied values). A
/// journal of another sweep, a row of another sweep, an edited row or a line damaged anywhere is
/// refused (InvalidInput, exit 2, one line naming the line), never copied into the summary. The one
/// exception is the last line without its newline: what a stop in the middle of an append leaves
/// (a kill, a full disk); it is dropped, and the file truncated to the last whole line, when the
/// journal is opened again, and its member runs again. A member journaled twice (run again because
/// its trajectory file was missing) is taken from its last row.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mechint::app {

/// What a journal is bound to.
struct JournalBinding {
  std::string sweep;          ///< the digest of the sweep's definition (what sweep.json's "sweep" holds)
  std::size_t members = 0;
  std::size_t columns = 0;    ///< the cells of a summary row (summary.csv's header)
  /// The cells member m's row begins with, as summary.csv writes them: "m,<its varied values>".
  std::function<std::string(std::size_t)> inputs;
};

/// A member's entry: its summary row (no newline) and the record of its trajectory file
/// (app/sweep_trajectories.hpp: "-" when the sweep keeps none, "none" when the member wrote none,
/// else "<bytes>:<digest>").
struct JournalEntry {
  std::string row;
  std::string trajectory = "-";
};

/// The journal's first line (no newline).
std::string journal_header(const JournalBinding& binding);

/// The journal line of `entry` (no newline): what append writes, and what a rank of an MPI job
/// sends to rank 0.
std::string journal_line(const JournalBinding& binding, const JournalEntry& entry);

/// The member and entry of a journal line, or why it is not one of this sweep (a message that
/// follows "damaged at line N").
struct ReadLine {
  std::size_t member = 0;
  JournalEntry entry;
  std::string refusal;  ///< empty: the line is the sweep's own
};
ReadLine read_journal_line(const JournalBinding& binding, const std::string& line);

class SweepJournal {
 public:
  /// Opens (creates) the journal of the sweep `binding` names and reads the entries already in it.
  /// Throws InvalidInput for a journal of another sweep or a damaged one, IoError when it cannot be
  /// read or written.
  SweepJournal(std::string path, JournalBinding binding);
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;
  ~SweepJournal();

  const JournalBinding& binding() const { return binding_; }
  /// The entries read when opened, by member (none: not done yet).
  const std::vector<std::optional<JournalEntry>>& entries() const { return entries_; }

  /// Appends member `entry`. Not thread-safe: one caller at a time. Throws IoError.
  void append(const JournalEntry& entry) { append_line(journal_line(binding_, entry)); }
  /// Appends a line another rank sent, checked first (InvalidInput when it is not this sweep's);
  /// returns its member and entry.
  std::pair<std::size_t, JournalEntry> append_checked(const std::string& line);
  /// Forces the rows appended so far to the disk (fdatasync); may run beside append. Throws IoError.
  void sync();

 private:
  void append_line(const std::string& line);
  [[noreturn]] void damaged(std::size_t line_number, const std::string& why) const;

  std::string path_;
  JournalBinding binding_;
  int fd_ = -1;
  bool failed_ = false;  ///< an append failed: no more (app/sweep_journal.cpp)
  std::vector<std::optional<JournalEntry>> entries_;
};

/// The exit code of a summary row: its last field.
int row_exit_code(const std::string& row);

}  // namespace mechint::app
