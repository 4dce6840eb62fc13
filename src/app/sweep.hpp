#pragma once
/// \file
/// `mechint sweep SWEEP.toml [--out DIR] [--threads N] [--quiet]` (DESIGN §9, docs/sweeps.md): the
/// members of a sweep file run on N threads in this process, each a `run` of the system with its
/// values; DIR/summary.csv holds one row per member in member order, DIR/sweep.json the sweep, and
/// DIR/journal.csv the finished members, from which a rerun into the same DIR continues.

#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace mechint::app {

/// The processes a sweep is shared across: the ranks of an MPI job (`mpirun -n K mechint sweep`,
/// src/cli/mpi_ranks.cpp). Rank 0 owns the directory, the journal and summary.csv; every rank runs
/// the members i ≡ rank (mod K) of those not yet done, on its own threads, and sends each finished
/// row to rank 0. Called from the sweep's calling thread only (MPI_THREAD_FUNNELED).
class SweepRanks {
 public:
  virtual ~SweepRanks() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Whether `mine` holds on every rank (every rank calls it).
  virtual bool on_every_rank(bool mine) = 0;
  /// Rank 0's `text` on every rank (the others' argument is ignored).
  virtual std::string broadcast(const std::string& text) = 0;
  /// On a rank > 0: a finished member's row, to rank 0.
  virtual void send_row(const std::string& row) = 0;
  /// On rank 0: a row another rank sent, if one has arrived (does not wait).
  virtual std::optional<std::string> receive_row() = 0;
  /// Stops every rank of the job with exit `code` (an error on one rank while the members run).
  [[noreturn]] virtual void abort(int code) = 0;
};

struct SweepOutcome {
  std::size_t members = 0;
  std::size_t failed = 0;   ///< members whose exit is not 0
  std::size_t resumed = 0;  ///< members read from the journal of an earlier, interrupted sweep
};

/// Runs the sweep file `file` into `out_dir` on `threads` threads (0: one per hardware thread);
/// `progress` shows a progress line on a terminal. Writes one line to `err` when members failed.
/// Throws InvalidInput (exit 2) for a bad sweep file, before any member runs, an `out_dir` that
/// holds something else than this sweep, that another sweep is writing (app/sweep_lock.hpp), or
/// whose journal is not this sweep's (app/sweep_journal.hpp); IoError (exit 4) when the files
/// cannot be written or a member meets an I/O error. A sweep whose every member fails for one
/// reason throws that reason's error, as their single run would: before any member runs when none
/// can start, else once summary.csv records them (docs/sweeps.md).
/// `check_interrupt` (may be empty) is called every 100 ms from the calling thread: when it throws
/// (the Python module's Ctrl-C check, Interrupted), the members running stop between steps, the
/// finished ones stay in the journal, and the exception propagates.
/// `ranks` (may be null: this process alone) shares the members across the processes of an MPI job;
/// summary.csv's bytes (but cpu_s) do not depend on it.
SweepOutcome sweep_command(const std::string& file, const std::string& out_dir, unsigned threads, bool progress,
                           std::ostream& err, const std::function<void()>& check_interrupt = {},
                           SweepRanks* ranks = nullptr);

/// The same for the text of a sweep file (the Python module's dict); `label` names it in messages,
/// and a relative model path in it is relative to the current directory.
SweepOutcome sweep_text(std::string_view text, const std::string& label, const std::string& out_dir, unsigned threads,
                        bool progress, std::ostream& err, const std::function<void()>& check_interrupt = {});

}  // namespace mechint::app
