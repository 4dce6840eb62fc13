#pragma once
/// \file
/// The end of a checkpointed run, safe against a kill at any moment (docs/trustworthy-runs.md). A
/// completing run (CsvOutput::commit) writes the marker CHECKPOINT.rows.done naming its `--out`, then
/// renames CHECKPOINT.rows onto `--out`, then removes the checkpoint and the marker. A `--resume` that
/// finds the marker knows where the run was stopped: with the rows still there, before the rename (the
/// marker is dropped and the run resumes as usual); without them, after it — the run had completed,
/// and there is nothing left to do but remove the checkpoint and the marker.

#include <string>

namespace mechint::app {

/// The marker of the rows file `rows` (RunCheckpoint::rows_path()): ROWS.done.
std::string completion_marker(const std::string& rows);

/// Writes the marker (atomically) naming `out_target`, the file the rows are about to be renamed onto.
void mark_completing(const std::string& rows, const std::string& out_target);

/// Removes the marker (a missing one is fine).
void clear_completion(const std::string& rows);

/// For `--resume CHECKPOINT --out OUT` (`rows` = CHECKPOINT.rows): true when the run of the checkpoint
/// had completed into OUT (the checkpoint and the marker are then removed, and a line on standard
/// error says so); false when it must be resumed. Throws InvalidInput when it completed into another
/// file than OUT.
bool run_had_completed(const std::string& checkpoint_path, const std::string& rows, const std::string& out);

}  // namespace mechint::app
