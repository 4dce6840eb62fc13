#pragma once
/// \file
/// One sweep at a time in a directory (docs/sweeps.md, "What DIR holds"): DIR/sweep.lock, locked
/// (flock, exclusive) from before the directory is checked until the sweep ends, so that two sweeps
/// started into one DIR — at once, or the second while the first runs — cannot both take it: the
/// second is refused with exit 2 and one line naming DIR. The lock goes with the process (a killed
/// sweep holds none); the file stays, empty (removing it could let a third sweep lock a new file
/// while the second holds the old one).

#include <filesystem>

namespace mechint::app {

inline constexpr const char* kSweepLockName = "sweep.lock";

class SweepDirectoryLock {
 public:
  /// Locks `dir`/sweep.lock, creating it. Throws InvalidInput when another sweep holds it, IoError
  /// when it cannot be opened or locked (a link or anything but a regular file at its name).
  explicit SweepDirectoryLock(const std::filesystem::path& dir);
  SweepDirectoryLock(const SweepDirectoryLock&) = delete;
  SweepDirectoryLock& operator=(const SweepDirectoryLock&) = delete;
  ~SweepDirectoryLock();

 private:
  int fd_ = -1;
};

}  // namespace mechint::app
