#pragma once
/// \file
/// Checkpoint and resume of `mechint run` (`--checkpoint FILE --checkpoint-every DT`, `--resume FILE`;
/// docs/trustworthy-runs.md).
///
/// A checkpoint is taken at an output row, the first at or after each multiple of DT of run time. It
/// holds what the run is (mechint's version, the system, the method, every parameter and option
/// value, the time grid: the description `bind` receives), the time and step of the row, the
/// stepper's complete state (core/state_archive.hpp, with the stepper's type), and how many bytes of
/// output were written up to that row. It is written to a temporary beside FILE and renamed onto it,
/// so FILE is always a whole checkpoint, whatever moment the run is killed at.
///
/// The rows of a checkpointed run go to FILE.rows (not to a temporary that an interrupt removes);
/// `--resume FILE` truncates FILE.rows to the recorded length, restores the stepper and continues, so
/// that the finished output is byte for byte the output of a run never interrupted. When the run
/// completes, FILE.rows becomes the `--out` file and FILE is removed.
///
/// FILE must be a regular file or a new name (symlinks followed): a device, a FIFO or a directory is
/// refused. FILE.rows is locked (flock) for as long as a run or a resume holds it: a second run of
/// the same checkpoint is refused instead of interleaving its rows.

#include <cstdint>
#include <string>

namespace mechint::app {

/// What the command line asked for.
struct CheckpointRequest {
  std::string path;     ///< the checkpoint file
  double every = 0.0;   ///< run time between checkpoints (> 0)
  bool resume = false;  ///< continue the run saved in `path`
};

/// One run's checkpoint file (see the file comment).
class RunCheckpoint {
 public:
  /// Refuses (InvalidInput) a non-positive or non-finite interval, a path that is not a regular file
  /// or a new name, a checkpoint another run holds; when resuming, reads `path` and refuses a
  /// missing, truncated or foreign file.
  explicit RunCheckpoint(CheckpointRequest request);
  RunCheckpoint(const RunCheckpoint&) = delete;
  RunCheckpoint& operator=(const RunCheckpoint&) = delete;
  ~RunCheckpoint();

  /// The checkpoint file (symlinks followed).
  const std::string& path() const { return target_; }

  /// What this run is (system, method, values, options, grid). When resuming, refuses (InvalidInput)
  /// a description that differs from the saved one, naming the first difference.
  void bind(const std::string& run_description);

  bool resuming() const { return request_.resume; }
  /// When resuming: the saved stepper's type and bytes, its time, and the output bytes written.
  const std::string& saved_stepper_type() const { return saved_type_; }
  const std::string& saved_state() const { return saved_state_; }
  double saved_time() const { return saved_time_; }
  std::uint64_t saved_output_bytes() const { return saved_output_bytes_; }

  /// Where the rows go while the run lasts: FILE.rows.
  std::string rows_path() const { return request_.path + ".rows"; }

  /// True at the first row at or after the next multiple of the interval.
  bool due(double t) const;
  /// Writes the checkpoint atomically (state of a stepper of type `stepper_type` at time t, the
  /// output written so far: `output_bytes`). Throws IoError.
  void save(const std::string& stepper_type, const std::string& state, double t, std::uint64_t output_bytes);
  /// The run is complete: removes the checkpoint file.
  void finish();
  /// True once this run has written a checkpoint.
  bool saved_once() const { return saved_once_; }

 private:
  void lock_rows();
  void release_rows();

  CheckpointRequest request_;
  std::string target_;        ///< request_.path with its symlinks followed
  int lock_fd_ = -1;          ///< FILE.rows, locked
  bool created_rows_ = false;  ///< this run made FILE.rows (a new run; removed if no checkpoint is saved)
  bool finished_ = false;
  std::string description_;
  std::string saved_description_, saved_type_, saved_state_;
  double saved_time_ = 0.0;
  std::uint64_t saved_output_bytes_ = 0;
  double next_due_ = 0.0;
  bool saved_once_ = false;
};

}  // namespace mechint::app
