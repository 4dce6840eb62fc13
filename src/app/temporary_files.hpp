#pragma once
/// \file
/// Temporary files that must not outlive an interrupted run, and the SIGINT/SIGTERM handler that
/// removes them (DESIGN §4: exit 130/143 with one line, no partial file left behind).
///
/// The handler does only what is async-signal-safe: kill(2) of the registered child process groups
/// (a compiler, a plotter), unlink(2) of the registered paths (kept in fixed buffers), write(2) of
/// one line, _exit(128 + signal).

#include <string>

namespace mechint::app {

/// Registers `path` (a file, or a directory emptied by the removal of its registered files) for
/// removal on SIGINT/SIGTERM for as long as the object lives.
class TemporaryFileGuard {
 public:
  explicit TemporaryFileGuard(const std::string& path);
  TemporaryFileGuard(const TemporaryFileGuard&) = delete;
  TemporaryFileGuard& operator=(const TemporaryFileGuard&) = delete;
  ~TemporaryFileGuard();

 private:
  int slot_ = -1;
};

/// Registers a running child process (app/child_process.hpp), the leader of its own process group,
/// whose whole group the SIGINT/SIGTERM handler kills before it removes the temporary files, for as
/// long as the object lives.
class ChildGroupGuard {
 public:
  explicit ChildGroupGuard(int pid);
  ChildGroupGuard(const ChildGroupGuard&) = delete;
  ChildGroupGuard& operator=(const ChildGroupGuard&) = delete;
  ~ChildGroupGuard();

 private:
  int slot_ = -1;
};

/// Installs the SIGINT/SIGTERM handler (once, from main).
void install_interrupt_handler();

/// A fresh name for a temporary beside `target`: "<dir>/.<name>.<pid>.partial".
std::string temporary_path_for(const std::string& target);

}  // namespace mechint::app
