#pragma once
// Runs the `mechint` executable of this build (MECHINT_EXECUTABLE, set by tests/CMakeLists.txt)
// with a shell command line and captures its exit status, stdout and stderr.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace mechint::testing {

struct CliResult {
  int status;
  std::string out, err;
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream is(p);
  std::stringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

/// The per-process temporary folder of the harness's output files, removed when the test process
/// ends (ctest runs every test in a process of its own: without it each left a folder behind).
inline const std::filesystem::path& harness_directory() {
  struct Folder {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("mechint_cli_harness_" + std::to_string(::getpid()));
    Folder() { std::filesystem::create_directories(path); }
    ~Folder() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Folder folder;
  return folder.path;
}

/// Writes `text` to `folder/name` in the harness's directory (the folder made if needed) and returns
/// its path: a test's model, sweep or problem file.
inline std::string write_harness_file(const std::string& folder, const std::string& name, const std::string& text) {
  const std::filesystem::path dir = harness_directory() / folder;
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

/// `mechint <args>`; stdout and stderr go through files in the harness's temporary folder.
inline CliResult run_mechint(const std::string& args) {
  namespace fs = std::filesystem;
  const fs::path& dir = harness_directory();
  const std::string command = std::string(MECHINT_EXECUTABLE) + " " + args + " >" + (dir / "out").string() +
                              " 2>" + (dir / "err").string();
  const int raw = std::system(command.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_file(dir / "out"), read_file(dir / "err")};
}

/// How run_mechint_argv starts mechint.
struct LaunchOptions {
  std::vector<std::string> environment;  ///< "NAME=VALUE" added to (or replacing in) this process's
  std::string working_directory;          ///< empty: this process's
  int uid = -1;                           ///< >= 0: run as this user (and group `gid`); needs root
  int gid = -1;
  std::string executable;                 ///< empty: MECHINT_EXECUTABLE
};

/// `mechint <args>` from an argument vector: no shell between the test and mechint, so hostile file
/// names reach mechint exactly as written.
inline CliResult run_mechint_argv(const std::vector<std::string>& args, const LaunchOptions& options = {}) {
  namespace fs = std::filesystem;
  const fs::path& dir = harness_directory();
  const fs::path out = dir / "argv_out", err = dir / "argv_err";
  const std::string exe = options.executable.empty() ? std::string(MECHINT_EXECUTABLE) : options.executable;
  std::vector<std::string> all{exe};
  all.insert(all.end(), args.begin(), args.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& assignment : options.environment) ::putenv(const_cast<char*>(assignment.c_str()));
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(126);
    if (!options.working_directory.empty() && ::chdir(options.working_directory.c_str()) != 0) ::_exit(126);
    if (options.uid >= 0 && (::setgroups(0, nullptr) != 0 || ::setgid(options.gid) != 0 || ::setuid(options.uid) != 0))
      ::_exit(126);
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  int raw = 0;
  while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
  }
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_file(out), read_file(err)};
}

/// Files beside `path` that an output to `path` could have left: "path.partial" or the temporary
/// "<dir>/.<name>.<pid>.partial" (app/temporary_files.hpp).
inline int leftover_temporaries(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  int count = fs::exists(path.string() + ".partial") ? 1 : 0;
  std::string prefix = ".";  // appended piecewise: g++ 12 warns (-Wrestrict) on "." + std::string
  prefix += path.filename().string();
  prefix += '.';
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(path.has_parent_path() ? path.parent_path() : ".", error))
    count += entry.path().filename().string().rfind(prefix, 0) == 0;
  return count;
}

// Device nodes of a test's own, in its own directory: the cases of "a device is written through,
// never replaced" run against these, never against the machine's /dev (a regression would replace
// /dev/null for every process of the machine).
/// The character devices a test may make: Linux's memory devices (major 1).
enum class MemoryDevice { kNull = 3, kZero = 5, kFull = 7 };

/// Makes `path` a private node of `device` (mode 0666). False when this process may not (not root,
/// or a file system mounted nodev refuses it: the test then skips).
inline bool make_device_node(const std::filesystem::path& path, MemoryDevice device) {
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  if (::geteuid() != 0) return false;
  if (::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(1, static_cast<unsigned>(device))) != 0) return false;
  // A nodev mount makes the node but refuses to open it.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    std::filesystem::remove(path, ignored);
    return false;
  }
  ::close(fd);
  return true;
}

/// True when `path` is still the character device `device` (not replaced by a regular file).
inline bool is_device_node(const std::filesystem::path& path, MemoryDevice device) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISCHR(info.st_mode) &&
         info.st_rdev == ::makedev(1, static_cast<unsigned>(device));
}

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// A CSV of `mechint run` as columns by name, in the order of its header.
struct Table {
  std::vector<std::string> names;
  std::map<std::string, std::vector<double>> columns;
  std::size_t rows = 0;
  bool has(const std::string& name) const { return columns.count(name) > 0; }
  const std::vector<double>& operator[](const std::string& name) const {
    const auto it = columns.find(name);
    if (it == columns.end()) throw std::runtime_error("no column " + name);
    return it->second;
  }
};

inline Table parse_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  Table t;
  std::stringstream header(line);
  for (std::string cell; std::getline(header, cell, ',');) t.names.push_back(cell);
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::size_t i = 0;
    for (std::string cell; std::getline(row, cell, ','); ++i) t.columns[t.names.at(i)].push_back(std::stod(cell));
    ++t.rows;
  }
  return t;
}

}  // namespace mechint::testing
