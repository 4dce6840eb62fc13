#include "app/file_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>

#include "app/file_paths.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

namespace fs = std::filesystem;

/// Bytes held before a write(2): large enough that a CSV row is not a system call.
constexpr std::size_t kBufferBytes = 1 << 16;

/// How long a FIFO without a reader is waited for (a reader started just after mechint, as in
/// `mechint run ... --out fifo & cat fifo`), before exit 4 instead of blocking forever.
constexpr auto kFifoReaderWait = std::chrono::seconds(5);

std::string shown(const std::string& path) { return quote_for_message(path, 200); }

std::string what_kind(mode_t mode) {
  if (S_ISLNK(mode)) return "a link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

/// The parent directory of `target` must exist: a missing one is a mistyped path, refused before any
/// work.
void require_parent_directory(const std::string& option, const std::string& path, const fs::path& target) {
  std::error_code error;
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, error))
    throw InvalidInput(option + " " + shown(path) + ": directory " + shown(parent.string()) + " does not exist");
}

/// Opens an existing non-regular file for writing in place: never created, never truncated. A FIFO
/// whose reader has not opened it yet is waited for a little, then refused.
int open_through(const std::string& path, const std::string& option, bool fifo) {
  const auto deadline = std::chrono::steady_clock::now() + kFifoReaderWait;
  for (;;) {
    // O_NONBLOCK: a FIFO without a reader is ENXIO instead of a hang; a device is not waited on.
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
      const int flags = ::fcntl(fd, F_GETFL);
      if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
      return fd;
    }
    if (errno == EINTR) continue;
    if (errno == ENXIO && fifo && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    const int error_number = errno;
    if (error_number == ENXIO)
      throw IoError(option + " " + shown(path) + (fifo ? ": the FIFO has no reader" : ": cannot be written (no device or reader)"));
    throw IoError("cannot write to " + option + " " + shown(path) + ": " + std::strerror(error_number));
  }
}

/// A new temporary file beside the target, only ever created (never through a link planted at its
/// name), with the permission bits of the file it will replace.
int create_temporary(const std::string& temporary, const std::string& target) {
  for (int attempt = 0;; ++attempt) {
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      struct stat replaced {};
      if (::stat(target.c_str(), &replaced) == 0 && S_ISREG(replaced.st_mode)) ::fchmod(fd, replaced.st_mode & 0777);
      return fd;
    }
    if (errno == EINTR) continue;
    // A temporary of this name is left from a killed process of the same pid: it is ours to remove.
    if (errno == EEXIST && attempt == 0 && ::unlink(temporary.c_str()) == 0) continue;
    const int error_number = errno;
    throw IoError("cannot write " + shown(temporary) + ": " + std::strerror(error_number));
  }
}

/// fsync of the directory holding `path`, so that a rename in it survives a crash of the machine.
void sync_directory_of(const std::string& path) {
  const fs::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // a directory that cannot be opened for reading: the rename itself is done
  const int result = ::fsync(fd);
  const int error_number = errno;
  ::close(fd);
  if (result != 0 && error_number != EINVAL)  // EINVAL: a file system without directory fsync
    throw IoError("cannot write " + shown(dir) + ": " + std::strerror(error_number));
}

}  // namespace

void refuse_foreign_entry(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
    throw IoError(shown(path) + " is " + what_kind(info.st_mode) +
                  ", which mechint did not write: neither followed nor replaced; remove it and run again");
}

bool written_through(const std::string& path) {
  if (path.empty() || path == "-") return true;
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode);
}

void check_output_path(const std::string& option, const std::string& path) {
  if (path.empty() || path == "-") return;
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) throw InvalidInput(option + " " + shown(path) + " is a directory");
    if (!S_ISREG(info.st_mode)) return;  // written through
  }
  require_parent_directory(option, path, fs::path(follow_symlinks(path, option)));
}

FileWriter::FileWriter(std::string path, WriteOptions options) : path_(std::move(path)), options_(std::move(options)) {
  buffer_.reserve(kBufferBytes);
  const std::string& option = options_.option;
  if (options_.path == WritePath::kUserNamed) {
    if (path_.empty() || path_ == "-") {
      std::cout.flush();  // what the stream holds goes first
      fd_ = STDOUT_FILENO;
      return;
    }
    struct stat info {};
    if (::stat(path_.c_str(), &info) == 0) {  // follows links: /dev/stdout, /proc/self/fd/N, a link to a device
      if (S_ISDIR(info.st_mode)) throw InvalidInput(option + " " + shown(path_) + " is a directory");
      if (!S_ISREG(info.st_mode)) {
        target_ = path_;
        fd_ = open_through(path_, option, S_ISFIFO(info.st_mode));
        owns_fd_ = true;
        return;
      }
    }
    target_ = follow_symlinks(path_, option);  // a dangling link: its target is created
  } else {
    if (path_.empty()) throw InvalidInput(option + ": no file named");
    refuse_foreign_entry(path_);
    target_ = path_;
  }
  require_parent_directory(option, path_, fs::path(target_));
  temporary_ = temporary_path_for(target_);
  guard_ = std::make_unique<TemporaryFileGuard>(temporary_);
  fd_ = create_temporary(temporary_, target_);
  owns_fd_ = true;
}

FileWriter::~FileWriter() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
  if (!temporary_.empty() && !committed_) ::unlink(temporary_.c_str());
}

void FileWriter::fail_write(int error_number) {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  // A user-named path is named as the user gave it, with its option (--out, --animate, ...).
  const std::string where = path_.empty() || path_ == "-" ? std::string("standard output")
                            : options_.path == WritePath::kUserNamed ? options_.option + " " + shown(path_)
                                                                     : shown(path_);
  throw IoError("cannot write to " + where + ": " + std::strerror(error_number));
}

void FileWriter::write_out(const char* data, std::size_t size) {
  if (fd_ < 0) throw IoError("cannot write to " + shown(path_) + ": already closed");
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail_write(n < 0 ? errno : EIO);
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void FileWriter::write(std::string_view bytes) {
  written_ += bytes.size();
  if (buffer_.size() + bytes.size() > kBufferBytes) {
    write_out(buffer_.data(), buffer_.size());
    buffer_.clear();
    if (bytes.size() > kBufferBytes) {
      write_out(bytes.data(), bytes.size());
      return;
    }
  }
  buffer_.append(bytes);
}

void FileWriter::flush() {
  write_out(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void FileWriter::commit() {
  if (committed_) return;
  flush();
  if (owns_fd_) {
    if (options_.durable && !temporary_.empty() && ::fsync(fd_) != 0) fail_write(errno);
    const int result = ::close(fd_);
    const int error_number = errno;
    fd_ = -1;
    // close(2) reports a delayed write error (NFS, a quota): the file is not whole.
    if (result != 0 && error_number != EINTR) fail_write(error_number);
  }
  if (!temporary_.empty()) {
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
      const int error_number = errno;
      ::unlink(temporary_.c_str());
      throw IoError("cannot move " + shown(temporary_) + " to " + shown(target_) + ": " + std::strerror(error_number));
    }
    if (options_.durable) sync_directory_of(target_);
  }
  committed_ = true;
}

void write_file(const std::string& path, std::string_view text, const WriteOptions& options) {
  FileWriter writer(path, options);
  writer.write(text);
  writer.commit();
}

void write_text_atomically(const std::string& path, std::string_view text, bool durable) {
  write_file(path, text, WriteOptions{WritePath::kOwned, durable, "file"});
}

}  // namespace mechint::app
