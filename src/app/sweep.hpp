#pragma once
/// \file
/// `mechint sweep SWEEP.toml [--out DIR] [--threads N] [--quiet]` (DESIGN §9, docs/sweeps.md): the
/// members of a sweep file run on N threads in this process, each a `run` of the system with its
/// values; DIR/summary.csv holds one row per member in member order, DIR/sweep.json the sweep, and
/// DIR/journal.csv the finished members, from which a rerun into the same DIR continues.

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace mechint::app {

struct SweepOutcome {
  std::size_t members = 0;
  std::size_t failed = 0;   ///< members whose exit is not 0
  std::size_t resumed = 0;  ///< members read from the journal of an earlier, interrupted sweep
};

/// Runs the sweep file `file` into `out_dir` on `threads` threads (0: one per hardware thread);
/// `progress` shows a progress line on a terminal. Writes one line to `err` when members failed.
/// Throws InvalidInput (exit 2) for a bad sweep file, before any member runs, or an `out_dir` that
/// holds something else than this sweep; IoError (exit 4) when the files cannot be written.
/// `check_interrupt` (may be empty) is called every 100 ms from the calling thread: when it throws
/// (the Python module's Ctrl-C check, Interrupted), the members running stop between steps, the
/// finished ones stay in the journal, and the exception propagates.
SweepOutcome sweep_command(const std::string& file, const std::string& out_dir, unsigned threads, bool progress,
                           std::ostream& err, const std::function<void()>& check_interrupt = {});

/// The same for the text of a sweep file (the Python module's dict); `label` names it in messages,
/// and a relative model path in it is relative to the current directory.
SweepOutcome sweep_text(std::string_view text, const std::string& label, const std::string& out_dir, unsigned threads,
                        bool progress, std::ostream& err, const std::function<void()>& check_interrupt = {});

}  // namespace mechint::app
