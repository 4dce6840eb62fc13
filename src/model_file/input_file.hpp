#pragma once
/// \file
/// The one way mechint reads a file it is given (model, problem and sweep files, controls files,
/// the CSV of `mechint view`): a regular file only, of bounded size, read whole or line by line
/// with a bounded line length; every refusal one line naming the file (mechint::InvalidInput,
/// exit 2). TOML files then go through toml_input.hpp, which bounds their nesting before toml++.
///
/// The path is checked before it is opened and the descriptor after, and the open does not block:
/// a FIFO without a writer, a terminal or a device (/dev/zero) is refused at once rather than
/// waited on or read forever, and a path swapped between the check and the open cannot slip
/// through. Reading stops one byte past the limit, so a file that grows while it is read is
/// refused too.
///
/// Header-only: each fuzzer compiles exactly the sources it lists (fuzz/CMakeLists.txt), and every
/// reader's fuzzer gets this one without listing another file.

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::model_file {

/// Largest text input read whole (a model, problem or sweep file), in bytes.
inline constexpr std::size_t kMaxTextFileSize = std::size_t{1} << 20;
/// Longest line of a CSV input (a controls file, the CSV of `mechint view`), in bytes: a row of
/// the 1000-link chain's run is about 100 KB.
inline constexpr std::size_t kMaxCsvLineLength = std::size_t{4} << 20;

class InputFile {
 public:
  /// Opens `path` for reading; `what` names it in messages ("model file", "controls file").
  /// Refuses a path that cannot be opened, is not a regular file, or holds more than `max_bytes`.
  InputFile(const std::string& path, std::string_view what, std::uint64_t max_bytes)
      : label_(printable_line(path, 400)), what_(what), max_bytes_(max_bytes) {
    // Checked by path before opening, since opening some devices acts (a watchdog starts), then
    // again on the descriptor: the path may have been replaced in between.
    struct stat named {};
    if (::stat(path.c_str(), &named) != 0) fail_to_open();
    if (!S_ISREG(named.st_mode)) fail("the " + what_ + " is not a regular file");
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) fail_to_open();
    struct stat opened {};
    if (::fstat(fd_, &opened) != 0) fail_to_open();
    if (!S_ISREG(opened.st_mode)) fail("the " + what_ + " is not a regular file");
    if (static_cast<std::uint64_t>(opened.st_size) > max_bytes_) fail_too_large();
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  /// The path as messages show it (printable_line).
  const std::string& label() const { return label_; }
  /// Lines returned so far by read_line (the number of the last one).
  std::uint64_t line_number() const { return line_number_; }
  /// Bytes consumed so far.
  std::uint64_t bytes_read() const { return consumed_; }

  /// The rest of the file, whole.
  std::string read_all() {
    std::string text;
    std::string_view chunk;
    while (next_chunk(chunk)) {
      text.append(chunk);
      begin_ = end_;
    }
    return text;
  }

  /// The next line into `line`, without its end ("\n", or "\r\n": a file saved on Windows reads
  /// as the same lines); false at the end of the file. A line of more than `max_line` bytes is
  /// refused as `FILE:LINE: ...`, before it is held whole.
  bool read_line(std::string& line, std::size_t max_line) {
    line.clear();
    bool any = false;
    std::string_view chunk;
    while (next_chunk(chunk)) {
      any = true;
      const std::size_t newline = chunk.find('\n');
      const std::size_t take = newline == std::string_view::npos ? chunk.size() : newline;
      if (line.size() + take > max_line + 1) {  // + 1: the '\r' of a CRLF end
        ++line_number_;
        fail_at_line("line longer than the limit of " + std::to_string(max_line) + " bytes");
      }
      line.append(chunk.substr(0, take));
      begin_ += take;
      if (newline != std::string_view::npos) {
        ++begin_;
        break;
      }
    }
    if (!any) return false;
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > max_line) fail_at_line("line longer than the limit of " + std::to_string(max_line) + " bytes");
    return true;
  }

  /// Back to the start of the file, for a second pass over no more than the bytes of the first
  /// (a file that grows meanwhile is read as it was).
  void rewind() {
    if (::lseek(fd_, 0, SEEK_SET) != 0) {
      const int error = errno;
      fail("cannot read the " + what_ + " again (" + std::strerror(error) + ")");
    }
    max_bytes_ = consumed_;
    consumed_ = 0;
    begin_ = end_ = 0;
    line_number_ = 0;
    rewound_ = true;
  }

  /// Throws InvalidInput `FILE: what`.
  [[noreturn]] void fail(const std::string& what) const { throw InvalidInput(label_ + ": " + what); }
  /// Throws InvalidInput `FILE:LINE: what`, at the last line read (line 1 of an empty file).
  [[noreturn]] void fail_at_line(const std::string& what) const {
    throw InvalidInput(label_ + ":" + std::to_string(std::max<std::uint64_t>(line_number_, 1)) + ": " +
                       printable_line(what, 500));
  }

 private:
  static constexpr std::size_t kBufferSize = 1 << 16;

  /// The unread bytes of the buffer, refilled when empty; false at the end of the file.
  bool next_chunk(std::string_view& chunk) {
    if (begin_ == end_) {
      begin_ = end_ = 0;
      if (buffer_.empty()) buffer_.resize(kBufferSize);
      ssize_t n = 0;
      do {
        n = ::read(fd_, buffer_.data(), buffer_.size());
      } while (n < 0 && errno == EINTR);
      if (n < 0) {
        const int error = errno;
        fail("cannot read the " + what_ + " (" + std::strerror(error) + ")");
      }
      if (n == 0) return false;
      end_ = static_cast<std::size_t>(n);
      consumed_ += static_cast<std::uint64_t>(n);
      if (consumed_ > max_bytes_) {
        if (rewound_) {  // grew since the first pass: read only what the first pass read
          end_ -= static_cast<std::size_t>(consumed_ - max_bytes_);
          consumed_ = max_bytes_;
          if (end_ == 0) return false;
        } else {
          fail_too_large();
        }
      }
    }
    chunk = std::string_view(buffer_.data() + begin_, end_ - begin_);
    return true;
  }

  [[noreturn]] void fail_to_open() const {
    const int error = errno;  // before anything else may set it
    fail("cannot read the " + what_ + ": cannot open it (" + std::strerror(error) + ")");
  }

  [[noreturn]] void fail_too_large() const {
    fail("the " + what_ + " is larger than the limit of " + std::to_string(max_bytes_) + " bytes");
  }

  std::string label_;
  std::string what_;
  std::uint64_t max_bytes_;
  int fd_ = -1;
  std::string buffer_;
  std::size_t begin_ = 0, end_ = 0;  ///< the unread part of buffer_
  std::uint64_t consumed_ = 0;
  std::uint64_t line_number_ = 0;
  bool rewound_ = false;
};

/// The text of an input file read whole (a model, problem or sweep file, `what` in messages):
/// refuses what is not a regular file, is larger than kMaxTextFileSize or cannot be read.
inline std::string read_input_file(const std::string& path, std::string_view what) {
  return InputFile(path, what, kMaxTextFileSize).read_all();
}

}  // namespace mechint::model_file
