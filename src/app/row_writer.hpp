#pragma once
/// \file
/// Where a run's rows go (a CSV file, a table in memory, a sweep's summary, Python arrays): the
/// recorder (src/methods/started_kernel_stepper.hpp) writes its header once, then one row per
/// output time.

#include <cstdint>
#include <string>
#include <vector>

namespace mechint::app {

class RunCheckpoint;

/// Where a run ends and how its rows leave: `header` once, then `row` per output time.
class RowWriter {
 public:
  virtual ~RowWriter() = default;
  virtual void header(const std::vector<std::string>& columns) = 0;
  virtual void row(const std::vector<double>& values) = 0;
  /// The checkpoint of a checkpointed run (app/checkpoint.hpp), or none.
  virtual RunCheckpoint* checkpoint() { return nullptr; }
  /// Writes out what is buffered; returns the bytes of output so far (what a checkpoint records).
  virtual std::uint64_t flush() { return 0; }
  /// Called between steps, every kPollInterval steps (integrate/run_loop.hpp), with the time the run
  /// has reached: throws (Interrupted) to stop the run. The Python module checks for Ctrl-C here, the
  /// command line updates its progress line (app/progress.hpp).
  virtual void poll(double /*t*/) {}
};

}  // namespace mechint::app
