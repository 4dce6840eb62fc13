#include "app/sweep_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "app/sweep_csv.hpp"
#include "app/sweep_digest.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

constexpr std::string_view kHeaderStart = "mechint sweep journal ";

std::string reason() { return errno != 0 ? std::string(": ") + std::strerror(errno) : std::string(); }

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

/// A trajectory record: "-", "none" or "<bytes>:<digest>".
bool is_trajectory_record(std::string_view text) {
  if (text == "-" || text == "none") return true;
  const std::size_t colon = text.find(':');
  return colon != std::string_view::npos && colon <= 19 && all_digits(text.substr(0, colon)) &&
         is_sweep_digest(text.substr(colon + 1));
}

/// What the digest of a row covers: the sweep, the row (the member's inputs and results) and its
/// trajectory's record.
std::string row_digest(const JournalBinding& binding, const std::string& row, const std::string& trajectory) {
  return sweep_digest(binding.sweep + "\n" + row + "\n" + trajectory);
}

}  // namespace

std::string journal_header(const JournalBinding& binding) { return std::string(kHeaderStart) + binding.sweep; }

std::string journal_line(const JournalBinding& binding, const JournalEntry& entry) {
  return entry.row + "," + entry.trajectory + "," + row_digest(binding, entry.row, entry.trajectory);
}

ReadLine read_journal_line(const JournalBinding& binding, const std::string& line) {
  ReadLine r;
  const std::size_t last = line.rfind(',');
  const std::size_t before = last == std::string::npos || last == 0 ? std::string::npos : line.rfind(',', last - 1);
  if (before == std::string::npos) {
    r.refusal = "not a row: too few fields";
    return r;
  }
  const std::string digest = line.substr(last + 1);
  r.entry.trajectory = line.substr(before + 1, last - before - 1);
  r.entry.row = line.substr(0, before);
  if (!is_sweep_digest(digest) || !is_trajectory_record(r.entry.trajectory)) {
    r.refusal = "not a row: it does not end in a trajectory record and a digest";
    return r;
  }
  const auto cells = strict_csv_cells(r.entry.row);
  if (!cells || cells->size() != binding.columns) {
    r.refusal = "a row of " + (cells ? std::to_string(cells->size()) : std::string("malformed")) + " cells where the " +
                "summary has " + std::to_string(binding.columns);
    return r;
  }
  const std::string& member = cells->front();
  if (!all_digits(member) || member.size() > 19 || (member.size() > 1 && member[0] == '0') ||
      std::strtoull(member.c_str(), nullptr, 10) >= binding.members) {
    r.refusal = "no member of this sweep is numbered " + quote_for_message(member, 40);
    return r;
  }
  r.member = static_cast<std::size_t>(std::strtoull(member.c_str(), nullptr, 10));
  const std::string& exit = cells->back();
  if (!all_digits(exit) || exit.size() > 3 || std::atoi(exit.c_str()) > 255) {
    r.refusal = "its exit code " + quote_for_message(exit, 40) + " is not one";
    return r;
  }
  const std::string inputs = binding.inputs ? binding.inputs(r.member) : member;
  if (r.entry.row.compare(0, inputs.size(), inputs) != 0 || r.entry.row.size() <= inputs.size() ||
      r.entry.row[inputs.size()] != ',') {
    r.refusal = "member " + member + "'s values are not this sweep's (" + quote_for_message(inputs, 120) + ")";
    return r;
  }
  if (row_digest(binding, r.entry.row, r.entry.trajectory) != digest) {
    r.refusal = "member " + member + "'s row is not one this sweep wrote (another sweep's, or edited)";
    return r;
  }
  return r;
}

SweepJournal::SweepJournal(std::string path, JournalBinding binding)
    : path_(std::move(path)), binding_(std::move(binding)), entries_(binding_.members) {
  errno = 0;
  // Never through a link planted at its name, and never anything but a regular file (a FIFO would
  // block the open, a device or another file would be truncated): as checkpoints (app/checkpoint.cpp).
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd_ < 0) throw IoError("cannot open the sweep's journal " + quote_for_message(path_, 200) + reason());
  try {
    struct stat info {};
    if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode))
      throw IoError("the sweep's journal " + quote_for_message(path_, 200) + " is not a regular file");
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
    const std::string header = journal_header(binding_);
    if (whole == 0) {
      append_line(header);  // a new journal (or one whose first line was torn): bound to this sweep
      return;
    }
    std::size_t line_number = 0;
    for (std::size_t begin = 0; begin < whole;) {
      const std::size_t end = text.find('\n', begin);
      const std::string line = text.substr(begin, end - begin);
      begin = end + 1;
      if (++line_number == 1) {
        if (line == header) continue;
        if (line.starts_with(kHeaderStart))
          throw InvalidInput("the sweep's journal " + quote_for_message(path_, 200) +
                             " belongs to another sweep (its first line names another sweep's digest): remove it "
                             "to run every member again");
        damaged(1, "its first line is not a sweep journal's");
      }
      ReadLine read = read_journal_line(binding_, line);
      if (!read.refusal.empty()) damaged(line_number, read.refusal);
      entries_[read.member] = std::move(read.entry);  // a later row of a member supersedes its earlier one
    }
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

void SweepJournal::damaged(std::size_t line_number, const std::string& why) const {
  throw InvalidInput("the sweep's journal " + quote_for_message(path_, 200) + " is damaged at line " +
                     std::to_string(line_number) + " (" + why + "): remove it to run every member again");
}

SweepJournal::~SweepJournal() {
  if (fd_ >= 0) ::close(fd_);
}

std::pair<std::size_t, JournalEntry> SweepJournal::append_checked(const std::string& line) {
  ReadLine read = read_journal_line(binding_, line);
  if (!read.refusal.empty())
    throw InvalidInput("a rank of the job sent a row that is not this sweep's (" + read.refusal + ")");
  append_line(line);
  return {read.member, std::move(read.entry)};
}

void SweepJournal::append_line(const std::string& text) {
  // After a failed append nothing more is appended: a row behind the part of a line a full disk
  // left would make the journal damaged in its middle instead of torn at its end.
  if (failed_) throw IoError("cannot write the sweep's journal " + quote_for_message(path_, 200));
  const std::string line = text + "\n";
  std::size_t written = 0;
  errno = 0;
  struct stat before {};
  const bool sized = ::fstat(fd_, &before) == 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = reason();
      failed_ = true;
      // The part written is taken back where possible; else it is the torn last line a rerun drops.
      if (written > 0 && sized && ::ftruncate(fd_, before.st_size) != 0) {
      }
      throw IoError("cannot write the sweep's journal " + quote_for_message(path_, 200) + why);
    }
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
