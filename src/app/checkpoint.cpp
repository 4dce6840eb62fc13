#include "app/checkpoint.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/file_paths.hpp"
#include "app/output.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

#ifndef MECHINT_VERSION
#error "MECHINT_VERSION must be defined by the build"
#endif

namespace mechint::app {
namespace {

constexpr const char* kMagic = "mechint-checkpoint 1";

/// FNV-1a, 64 bits: detects a checkpoint damaged after it was written (it is renamed whole into
/// place, so a kill cannot truncate it).
std::uint64_t checksum(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// A length-prefixed field: "NAME LENGTH\n" then LENGTH bytes and "\n".
void put_field(std::string& out, const char* name, const std::string& bytes) {
  out += std::string(name) + " " + std::to_string(bytes.size()) + "\n";
  out += bytes;
  out += "\n";
}

/// Reads the fields back; every malformation is the same one-line refusal.
class Fields {
 public:
  Fields(const std::string& text, std::string path) : text_(text), path_(std::move(path)) {}

  std::string line() {
    const std::size_t end = text_.find('\n', at_);
    if (end == std::string::npos) fail();
    std::string l = text_.substr(at_, end - at_);
    at_ = end + 1;
    return l;
  }
  std::string field(const std::string& name) {
    const std::string header = line();
    if (header.rfind(name + " ", 0) != 0) fail();
    const std::string digits = header.substr(name.size() + 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 18) fail();
    const std::size_t length = std::stoull(digits);
    if (length > text_.size() - at_ || at_ + length >= text_.size() || text_[at_ + length] != '\n') fail();
    std::string bytes = text_.substr(at_, length);
    at_ += length + 1;
    return bytes;
  }
  std::size_t position() const { return at_; }
  [[noreturn]] void fail() const {
    throw InvalidInput("--resume " + quote_for_message(path_, 200) + " is not a mechint checkpoint (or it is damaged)");
  }

 private:
  const std::string& text_;
  std::string path_;
  std::size_t at_ = 0;
};

/// The first "name=value" item (separated by ';') where two descriptions differ, for the message.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string ia, ib;
  while (true) {
    const bool more_a = static_cast<bool>(std::getline(sa, ia, ';'));
    const bool more_b = static_cast<bool>(std::getline(sb, ib, ';'));
    if (!more_a && !more_b) return "";
    if (!more_a || !more_b || ia != ib)
      return "saved " + quote_for_message(more_a ? ia : std::string("(nothing)"), 60) + ", this run " +
             quote_for_message(more_b ? ib : std::string("(nothing)"), 60);
  }
}

}  // namespace

void RunCheckpoint::lock_rows() {
  // The rows file is the lock: it lives from the first run to the completed one, unlike the
  // checkpoint, which each save replaces. flock is released when the process dies.
  const std::string rows = rows_path();
  const std::string option = request_.resume ? "--resume" : "--checkpoint";
  const int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (request_.resume ? 0 : O_CREAT);
  lock_fd_ = ::open(rows.c_str(), flags, 0644);
  if (lock_fd_ < 0) {
    const int error = errno;
    if (request_.resume && error == ENOENT)
      throw InvalidInput("--resume: the rows written before the checkpoint, " + quote_for_message(rows, 200) +
                         ", are missing");
    throw InvalidInput(option + ": cannot open " + quote_for_message(rows, 200) + ": " +
                       (error == ELOOP ? "it is a symbolic link" : std::strerror(error)));
  }
  struct stat held {}, named {};
  if (::fstat(lock_fd_, &held) != 0 || !S_ISREG(held.st_mode)) {
    release_rows();
    throw InvalidInput(option + ": " + quote_for_message(rows, 200) + " is not a regular file");
  }
  created_rows_ = !request_.resume;
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    release_rows();
    created_rows_ = false;
    if (error == EWOULDBLOCK)
      throw InvalidInput(option + " " + quote_for_message(request_.path, 200) +
                         " is in use by another mechint run: two runs of one checkpoint would mix their rows");
    throw IoError("cannot lock " + quote_for_message(rows, 200) + ": " + std::strerror(error));
  }
  // The name may have been moved on (a run that completed meanwhile renamed its rows to --out).
  if (::stat(rows.c_str(), &named) != 0 || named.st_ino != held.st_ino || named.st_dev != held.st_dev) {
    release_rows();
    created_rows_ = false;
    throw InvalidInput(option + " " + quote_for_message(request_.path, 200) +
                       " changed while it was being opened (another run finished with it): try again");
  }
}

void RunCheckpoint::release_rows() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
}

RunCheckpoint::~RunCheckpoint() {
  // A run that stopped before its first checkpoint leaves nothing: no checkpoint refers to its rows.
  if (created_rows_ && !saved_once_ && !finished_) ::unlink(rows_path().c_str());
  release_rows();
}

RunCheckpoint::RunCheckpoint(CheckpointRequest request) : request_(std::move(request)) {
  if (request_.path.empty()) throw InvalidInput("--checkpoint needs a file name");
  if (!(std::isfinite(request_.every) && request_.every > 0.0))
    throw InvalidInput("--checkpoint-every must be a positive number of time units, got " + format_number(request_.every));
  next_due_ = request_.every;
  const std::string option = request_.resume ? "--resume" : "--checkpoint";
  // Only a regular file (or a new name) is ever replaced by a checkpoint: never a device, a FIFO,
  // a directory (as root, --checkpoint /dev/null would otherwise replace the system's /dev/null).
  target_ = follow_symlinks(request_.path, option);
  struct stat info {};
  if (::stat(target_.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
    throw InvalidInput(option + " " + quote_for_message(request_.path, 200) +
                       " is not a regular file (a directory, a device or a FIFO): name a regular file or a new one");
  if (::stat(target_.c_str(), &info) != 0 && request_.resume)
    throw InvalidInput("--resume " + quote_for_message(request_.path, 200) + ": cannot read it: " + std::strerror(errno));
  lock_rows();
  if (!request_.resume) return;
  // A constructor that throws runs no destructor: the lock must not outlive a refused resume.
  const auto read_saved = [this] {
    std::ifstream in(target_, std::ios::binary);
    if (!in)
      throw InvalidInput("--resume " + quote_for_message(request_.path, 200) + ": cannot read it" +
                         (errno ? std::string(": ") + std::strerror(errno) : std::string()));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    Fields f(text, request_.path);
    if (f.line() != kMagic) f.fail();
    const std::string version = f.line();
    if (version != std::string("version ") + MECHINT_VERSION)
      throw InvalidInput("--resume " + quote_for_message(request_.path, 200) + " was written by mechint " +
                         quote_for_message(version.rfind("version ", 0) == 0 ? version.substr(8) : version, 40) +
                         ", this is " + MECHINT_VERSION + ": a checkpoint resumes only in the version that wrote it");
    saved_description_ = f.field("run");
    saved_type_ = f.field("stepper");
    const std::string time = f.field("time");
    const std::string output = f.field("output");
    saved_state_ = f.field("state");
    const std::size_t body = f.position();
    const std::string sum = f.field("checksum");
    if (f.position() != text.size() || sum != std::to_string(checksum(text.substr(0, body)))) f.fail();
    char* end = nullptr;
    saved_time_ = std::strtod(time.c_str(), &end);
    if (time.empty() || std::isspace(static_cast<unsigned char>(time[0])) || end != time.c_str() + time.size() ||
        !std::isfinite(saved_time_))
      f.fail();
    if (output.empty() || output.find_first_not_of("0123456789") != std::string::npos || output.size() > 19) f.fail();
    saved_output_bytes_ = std::stoull(output);
    next_due_ = saved_time_ + request_.every;
  };
  try {
    read_saved();
  } catch (...) {
    release_rows();
    throw;
  }
}

void RunCheckpoint::bind(const std::string& run_description) {
  description_ = run_description;
  if (!request_.resume || saved_description_ == description_) return;
  throw InvalidInput("--resume " + quote_for_message(request_.path, 200) +
                     " is the checkpoint of another run (" + first_difference(saved_description_, description_) +
                     "): resume with the command line that wrote it");
}

bool RunCheckpoint::due(double t) const {
  // Rows are at grid times k·h; a multiple of the interval that falls between two rows is taken at
  // the next one. The tolerance keeps a multiple that is a grid time by rounding from being missed.
  return t >= next_due_ * (1.0 - 1e-12);
}

void RunCheckpoint::save(const std::string& stepper_type, const std::string& state, double t,
                         std::uint64_t output_bytes) {
  std::string text = std::string(kMagic) + "\nversion " + MECHINT_VERSION + "\n";
  char time[40];
  std::snprintf(time, sizeof time, "%a", t);  // exact
  put_field(text, "run", description_);
  put_field(text, "stepper", stepper_type);
  put_field(text, "time", time);
  put_field(text, "output", std::to_string(output_bytes));
  put_field(text, "state", state);
  put_field(text, "checksum", std::to_string(checksum(text)));
  write_text_atomically(target_, text, /*durable=*/true);  // a resumed run relies on it after a crash
  saved_once_ = true;
  next_due_ = t + request_.every;
}

void RunCheckpoint::finish() {
  std::error_code ignored;
  std::filesystem::remove(target_, ignored);
  finished_ = true;
}

}  // namespace mechint::app
