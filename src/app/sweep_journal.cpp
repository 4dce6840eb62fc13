#include "app/sweep_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdlib>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

std::string reason() { return errno != 0 ? std::string(": ") + std::strerror(errno) : std::string(); }

}  // namespace

SweepJournal::SweepJournal(std::string path, std::size_t members) : path_(std::move(path)), rows_(members) {
  errno = 0;
  // Never through a link planted at its name, and never anything but a regular file (a FIFO would
  // block the open, a device or another file would be truncated): as checkpoints (app/checkpoint.cpp).
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd_ < 0) throw IoError("cannot open the sweep's journal " + quote_for_message(path_, 200) + reason());
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw IoError("the sweep's journal " + quote_for_message(path_, 200) + " is not a regular file");
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IoError("cannot read the sweep's journal " + quote_for_message(path_, 200) + reason());
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  const std::size_t whole = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  if (whole < text.size() && ::ftruncate(fd_, static_cast<off_t>(whole)) != 0)  // a torn last line
    throw IoError("cannot truncate the sweep's journal " + quote_for_message(path_, 200) + reason());
  std::size_t line_number = 0;
  for (std::size_t begin = 0; begin < whole;) {
    const std::size_t end = text.find('\n', begin);
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    const std::size_t comma = line.find(',');
    char* stop = nullptr;
    const unsigned long long member = comma == std::string::npos ? 0 : std::strtoull(line.c_str(), &stop, 10);
    if (comma == 0 || comma == std::string::npos || stop != line.c_str() + comma || line[0] < '0' || line[0] > '9' ||
        member >= members)
      throw InvalidInput("the sweep's journal " + quote_for_message(path_, 200) + " is damaged at line " +
                         std::to_string(line_number) + ": remove it to run every member again");
    if (!rows_[member]) rows_[member] = std::move(line);
  }
}

SweepJournal::~SweepJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void SweepJournal::append(const std::string& row) {
  const std::string line = row + "\n";
  std::size_t written = 0;
  errno = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw IoError("cannot write the sweep's journal " + quote_for_message(path_, 200) + reason());
    written += static_cast<std::size_t>(n);
  }
}

void SweepJournal::sync() {
  errno = 0;
  if (::fdatasync(fd_) != 0)
    throw IoError("cannot write the sweep's journal " + quote_for_message(path_, 200) + reason());
}

int row_exit_code(const std::string& row) {
  const std::size_t comma = row.rfind(',');
  return std::atoi(row.c_str() + (comma == std::string::npos ? 0 : comma + 1));
}

}  // namespace mechint::app
