#pragma once
/// \file
/// Starts the external programs mechint needs (the plotter, the C++ compiler of model files) from an
/// argument vector, never a command string: no shell ever parses a file name a user supplied
/// (docs/security.md).
///
/// The child runs in its own process group with standard input from /dev/null. It is killed when
/// the thread that started it dies (PR_SET_PDEATHSIG), and the SIGINT/SIGTERM handler of the command
/// line kills its whole group (app/temporary_files.hpp), so an interrupted mechint leaves no compiler
/// running behind it.

#include <string>
#include <vector>

namespace mechint::app {

/// Where the child's standard output and error go.
struct ChildOutput {
  enum class Kind { kInherit, kDiscard, kFile };
  Kind kind = Kind::kInherit;
  int fd = -1;  ///< with kFile: an open descriptor, written by both streams

  static ChildOutput inherit() { return {}; }
  static ChildOutput discard() { return {Kind::kDiscard, -1}; }
  static ChildOutput file(int fd) { return {Kind::kFile, fd}; }
};

/// How a child ended.
struct ChildResult {
  bool started = false;  ///< false: the program was not found or could not be executed
  int error = 0;         ///< with !started: the errno of the lookup or of execve
  int exit_status = -1;  ///< the exit status, or -1 when a signal ended it
  int signal = 0;        ///< the signal that ended it, or 0

  bool succeeded() const { return started && exit_status == 0; }
};

/// The absolute path of `program`: itself when it contains a '/', else the first executable file
/// of that name in $PATH (default "/usr/local/bin:/usr/bin:/bin"). Empty when there is none.
std::string find_program(const std::string& program);

/// Runs `argv` (argv[0] as for find_program) with the environment of this process and waits for it.
/// Never throws for the child's own failures: the result says what happened.
ChildResult run_program(const std::vector<std::string>& argv, ChildOutput output);

}  // namespace mechint::app
