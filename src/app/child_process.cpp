#include "app/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "app/temporary_files.hpp"

extern char** environ;

namespace mechint::app {
namespace {

bool executable_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

/// What the child does between fork and execve: only async-signal-safe calls (the parent may have
/// threads, e.g. under Python). Reports a failure by writing errno to `report` and exiting.
[[noreturn]] void become(const char* path, char* const* argv, ChildOutput output, int report, pid_t parent) {
  // Killed with the thread that started it; if that thread is already gone, give up at once.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  ::setpgid(0, 0);  // its own group: the interrupt handler kills the compiler's children too
  // Default dispositions: an ignored SIGPIPE of the parent must not carry over.
  ::signal(SIGPIPE, SIG_DFL);
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  bool ok = null >= 0 && ::dup2(null, STDIN_FILENO) >= 0;
  if (ok && output.kind == ChildOutput::Kind::kDiscard)
    ok = ::dup2(null, STDOUT_FILENO) >= 0 && ::dup2(null, STDERR_FILENO) >= 0;
  if (ok && output.kind == ChildOutput::Kind::kFile)
    ok = ::dup2(output.fd, STDOUT_FILENO) >= 0 && ::dup2(output.fd, STDERR_FILENO) >= 0;
  if (ok) ::execve(path, argv, environ);
  const int error = errno;
  [[maybe_unused]] const auto written = ::write(report, &error, sizeof error);
  ::_exit(127);
}

}  // namespace

std::string find_program(const std::string& program) {
  if (program.empty()) return {};
  if (program.find('/') != std::string::npos) return executable_file(program) ? program : std::string();
  const char* env = std::getenv("PATH");
  std::istringstream dirs(env != nullptr && *env != '\0' ? env : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty() || dir[0] != '/') continue;  // a relative PATH entry would depend on the working directory
    const std::string candidate = dir + "/" + program;
    if (executable_file(candidate)) return candidate;
  }
  return {};
}

ChildResult run_program(const std::vector<std::string>& argv, ChildOutput output) {
  ChildResult result;
  if (argv.empty()) {
    result.error = EINVAL;
    return result;
  }
  const std::string path = find_program(argv[0]);
  if (path.empty()) {
    result.error = ENOENT;
    return result;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    result.error = errno;
    return result;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.error = errno;
    ::close(report[0]);
    ::close(report[1]);
    return result;
  }
  if (pid == 0) become(path.c_str(), args.data(), output, report[1], parent);

  ::setpgid(pid, pid);  // also here: the handler may run before the child has done it itself
  const ChildGroupGuard group(pid);
  ::close(report[1]);
  int exec_error = 0;
  ssize_t got = 0;
  do got = ::read(report[0], &exec_error, sizeof exec_error);
  while (got < 0 && errno == EINTR);
  ::close(report[0]);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      result.error = errno;
      return result;
    }
  if (got == static_cast<ssize_t>(sizeof exec_error)) {  // execve failed: the program never ran
    result.error = exec_error;
    return result;
  }
  result.started = true;
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace mechint::app
