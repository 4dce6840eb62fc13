#include "model_file/model_cache.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::model_file {
namespace fs = std::filesystem;

namespace {

constexpr const char* kBuildPrefix = ".build-";

std::string quoted(const fs::path& p) { return quote_for_message(p.string(), 200); }

std::string why() { return std::strerror(errno); }

/// Creates each missing component of `dir` with mode 0700 (an existing one is left as it is).
void create_private(const fs::path& dir) {
  fs::path partial;
  for (const auto& part : dir) {
    partial /= part;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST)
      throw IoError("cannot create the model cache " + quoted(dir) + ": " + quoted(partial) + ": " + why());
  }
}

/// A file or directory this user may trust: owned by this user, not writable by group or others.
/// Returns what is wrong, or an empty string.
std::string distrust(const struct stat& info) {
  if (info.st_uid != ::geteuid())
    return "is owned by user id " + std::to_string(info.st_uid) + ", not by this user (" +
           std::to_string(::geteuid()) + ")";
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) return "is writable by group or others";
  return {};
}

/// The process id recorded in a build directory's name, or 0.
pid_t owner_of_build(const std::string& name) {
  if (name.rfind(kBuildPrefix, 0) != 0) return 0;
  const char* digits = name.c_str() + std::strlen(kBuildPrefix);
  char* end = nullptr;
  const long pid = std::strtol(digits, &end, 10);
  return end != digits && *end == '-' && pid > 0 ? static_cast<pid_t>(pid) : 0;
}

/// The process id in an earlier version's temporary library ".<key>.so.<pid>.partial", or 0.
pid_t owner_of_partial(const std::string& name) {
  const std::string suffix = ".partial";
  if (name.size() <= suffix.size() || name[0] != '.' || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return 0;
  const std::string stem = name.substr(0, name.size() - suffix.size());
  const std::size_t dot = stem.rfind('.');
  if (dot == std::string::npos) return 0;
  char* end = nullptr;
  const long pid = std::strtol(stem.c_str() + dot + 1, &end, 10);
  return *end == '\0' && pid > 0 ? static_cast<pid_t>(pid) : 0;
}

bool process_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

int create_new_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw IoError("cannot create " + quoted(path) + ": " + why());
  return fd;
}

void write_all(int fd, const std::string& text, const fs::path& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw IoError("cannot write " + quoted(path) + ": " + why());
    done += static_cast<std::size_t>(n);
  }
}

ModelCache ModelCache::open_default() {
  if (const char* env = std::getenv("MECHINT_CACHE_DIR"); env != nullptr && *env != '\0') return ModelCache(env);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/')
    return ModelCache(fs::path(xdg) / "mechint" / "models");
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/')
    return ModelCache(fs::path(home) / ".cache" / "mechint" / "models");
  throw IoError("no cache directory for compiled models: set XDG_CACHE_HOME, HOME or MECHINT_CACHE_DIR");
}

ModelCache::ModelCache(fs::path dir) : path_(std::move(dir)) {
  if (path_.empty()) throw IoError("the model cache directory name is empty");
  create_private(path_);
  fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) throw IoError("cannot open the model cache " + quoted(path_) + ": " + why());
  struct stat info {};
  std::string problem = ::fstat(fd_, &info) != 0 ? why() : distrust(info);
  if (!problem.empty()) {
    ::close(fd_);
    fd_ = -1;
    throw IoError("the model cache " + quoted(path_) + " " + problem +
                  ": anyone who can write it could run code in mechint; use a private directory (MECHINT_CACHE_DIR)");
  }
}

ModelCache::ModelCache(ModelCache&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) { other.fd_ = -1; }

ModelCache::~ModelCache() {
  if (fd_ >= 0) ::close(fd_);
}

int ModelCache::open_trusted(const std::string& name) const {
  const int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return -1;
    throw IoError("cannot open " + quoted(path_ / name) + " in the model cache: " +
                  (errno == ELOOP ? std::string("it is a symbolic link") : why()) + "; remove it");
  }
  struct stat info {};
  std::string problem = ::fstat(fd, &info) != 0 ? why() : !S_ISREG(info.st_mode) ? "is not a regular file" : distrust(info);
  if (!problem.empty()) {
    ::close(fd);
    throw IoError(quoted(path_ / name) + " in the model cache " + problem + ": it is not loaded; remove it");
  }
  return fd;
}

ModelCache::Lock::Lock(const ModelCache& cache, const std::string& name) {
  fd_ = ::openat(cache.fd(), name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) throw IoError("cannot open the lock " + quoted(cache.path() / name) + ": " + why());
  while (::flock(fd_, LOCK_EX) != 0)
    if (errno != EINTR) {
      const std::string reason = why();
      ::close(fd_);
      throw IoError("cannot lock " + quoted(cache.path() / name) + ": " + reason);
    }
}

ModelCache::Lock::~Lock() { ::close(fd_); }

fs::path ModelCache::make_build_directory() const {
  std::string templ = (path_ / (kBuildPrefix + std::to_string(::getpid()) + "-XXXXXX")).string();
  std::vector<char> buffer(templ.begin(), templ.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr)
    throw IoError("cannot create a build directory in the model cache " + quoted(path_) + ": " + why());
  return fs::path(buffer.data());
}

void ModelCache::remove_stale_builds() const {
  std::error_code error;
  for (fs::directory_iterator it(path_, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    pid_t pid = owner_of_build(name);
    if (pid == 0) pid = owner_of_partial(name);
    if (pid == 0 || pid == ::getpid() || !process_gone(pid)) continue;
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);  // removes symlinks inside, never what they point to
  }
}

void ModelCache::place(const fs::path& from, const std::string& name) const {
  if (::renameat(AT_FDCWD, from.c_str(), fd_, name.c_str()) != 0)
    throw IoError("cannot place " + quoted(path_ / name) + " in the model cache: " + why());
}

}  // namespace mechint::model_file
