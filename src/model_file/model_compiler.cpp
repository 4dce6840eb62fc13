#include "model_file/model_compiler.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "app/installation.hpp"
#include "app/temporary_files.hpp"
#include "mechint/core/errors.hpp"

extern char** environ;

namespace mechint::model_file {
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path toolchain_file() {
  if (const char* env = std::getenv("MECHINT_MODEL_COMPILER"); env != nullptr && *env != '\0') return env;
  const fs::path prefix = app::installation_prefix();
  if (prefix.empty()) throw std::runtime_error("cannot find the mechint executable's directory (/proc/self/exe)");
  return prefix / "share" / "mechint" / "model_compiler.json";
}

/// A path of the toolchain file: absolute, or relative to the installation prefix.
std::string resolve(const fs::path& prefix, const std::string& path) {
  const fs::path p(path);
  return (p.is_absolute() ? p : prefix / p).lexically_normal().string();
}

/// Runs `argv` with standard output and error going to `log`; returns its exit status.
int run_compiler(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// An exclusive lock on `path` for the lifetime of the object (flock: released if the process dies).
class FileLock {
 public:
  explicit FileLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0) throw IoError("cannot open the lock " + path.string() + ": " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) throw IoError("cannot lock " + path.string() + ": " + std::strerror(errno));
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock() { ::close(fd_); }

 private:
  int fd_;
};

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw IoError("cannot write " + path.string());
}

}  // namespace

Toolchain find_toolchain() {
  const fs::path file = toolchain_file();
  std::ifstream in(file);
  if (!in)
    throw std::runtime_error("model files need the compiler settings in " + file.string() +
                             ", which cannot be read (an incomplete installation?)");
  Toolchain t;
  try {
    const auto json = nlohmann::json::parse(in);
    const fs::path prefix = file.parent_path().parent_path().parent_path();  // <prefix>/share/mechint/x.json
    t.compiler = json.at("compiler").get<std::string>();
    t.compiler_identity = json.at("compiler_identity").get<std::string>();
    t.mechint_version = json.at("mechint_version").get<std::string>();
    t.flags = json.at("flags").get<std::vector<std::string>>();
    for (const auto& d : json.at("mechint_include_dirs").get<std::vector<std::string>>()) {
      t.include_dirs.push_back(resolve(prefix, d));
      t.mechint_header_dirs.emplace_back(t.include_dirs.back());
    }
    for (const auto& d : json.at("dependency_include_dirs").get<std::vector<std::string>>())
      t.include_dirs.push_back(resolve(prefix, d));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("malformed compiler settings " + file.string() + ": " + e.what());
  }
  return t;
}

fs::path cache_directory() {
  fs::path dir;
  if (const char* env = std::getenv("MECHINT_CACHE_DIR"); env != nullptr && *env != '\0') {
    dir = env;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    dir = fs::path(xdg) / "mechint" / "models";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    dir = fs::path(home) / ".cache" / "mechint" / "models";
  } else {
    throw IoError("no cache directory for compiled models: set XDG_CACHE_HOME, HOME or MECHINT_CACHE_DIR");
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw IoError("cannot create the model cache " + dir.string() + ": " + error.message());
  return dir;
}

std::string digest(const std::string& material) {
  // FNV-1a 64 with two offset bases: 128 bits against accidental collisions of cache entries.
  std::uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
  for (const unsigned char c : material) {
    a = (a ^ c) * 0x100000001b3ULL;
    b = (b ^ (c + 0x9eU)) * 0x100000001b3ULL;
  }
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return text;
}

std::string cache_key(const std::string& source, const std::string& model_text, const Toolchain& toolchain) {
  std::string material = "source\n" + source + "\nmodel\n" + model_text + "\ncompiler\n" + toolchain.compiler + "\n" +
                         toolchain.compiler_identity + "\nmechint " + toolchain.mechint_version + "\n";
  for (const auto& f : toolchain.flags) material += f + "\n";
  for (const auto& d : toolchain.include_dirs) material += d + "\n";
  // The compiler binary itself (an upgrade in place changes its size or time).
  struct stat info {};
  if (::stat(toolchain.compiler.c_str(), &info) == 0)
    material += std::to_string(info.st_size) + " " + std::to_string(info.st_mtime) + "\n";
  // Every mechint header, in a fixed order: an edited header must not load a stale library.
  std::vector<fs::path> headers;
  for (const auto& dir : toolchain.mechint_header_dirs) {
    std::error_code error;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, error), end;
         !error && it != end; it.increment(error))
      if (it->path().extension() == ".hpp") headers.push_back(it->path());
  }
  std::sort(headers.begin(), headers.end());
  for (const auto& h : headers) material += h.string() + "\n" + read_text(h) + "\n";
  return digest(material);
}

fs::path compiled_library(const std::string& source, const std::string& key, const Toolchain& toolchain,
                          const std::function<void()>& announce) {
  const fs::path dir = cache_directory();
  const fs::path library = dir / (key + ".so");
  std::error_code error;
  if (fs::is_regular_file(library, error)) return library;

  // One compiler per model at a time; whoever waited finds the library in place.
  const FileLock lock(dir / (key + ".lock"));
  if (fs::is_regular_file(library, error)) return library;
  announce();
  const fs::path source_path = dir / (key + ".cpp");
  const fs::path log = dir / (key + ".log");
  write_file(source_path, source);
  const std::string temporary = app::temporary_path_for(library.string());
  const app::TemporaryFileGuard guard(temporary);
  std::vector<std::string> argv{toolchain.compiler};
  argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  for (const auto& d : toolchain.include_dirs) argv.push_back("-I" + d);
  argv.insert(argv.end(), {source_path.string(), "-o", temporary});
  const int status = run_compiler(argv, log);
  if (status != 0) {
    fs::remove(temporary, error);
    if (status < 0)
      throw std::runtime_error("cannot run the C++ compiler " + toolchain.compiler +
                               " that model files need (install g++, or check " + toolchain_file().string() + ")");
    throw std::runtime_error("the C++ source generated from the model file did not compile: source " +
                             source_path.string() + ", compiler messages " + log.string());
  }
  fs::rename(temporary, library, error);
  if (error) throw IoError("cannot place " + library.string() + " in the model cache: " + error.message());
  return library;
}

}  // namespace mechint::model_file
