#include "app/output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include <unistd.h>

#include "app/disk_space.hpp"
#include "app/exact_number.hpp"
#include "app/file_paths.hpp"
#include "mechint/core/errors.hpp"
#include "app/checkpoint_completion.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

namespace fs = std::filesystem;

std::string reason() { return errno != 0 ? std::string(": ") + std::strerror(errno) : std::string(); }

/// The file a regular-file output replaces: the path itself, or the end of its chain of symlinks.
/// Throws InvalidInput for a directory or a missing parent directory.
std::string regular_target(const std::string& path) {
  std::error_code error;
  const fs::path target(follow_symlinks(path, "--out"));  // a dangling link: its target is created
  if (fs::is_directory(target, error)) throw InvalidInput("--out " + quote_for_message(path, 200) + " is a directory");
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, error))
    throw InvalidInput("--out " + quote_for_message(path, 200) + ": directory " +
                       quote_for_message(parent.string(), 200) + " does not exist");
  return target.string();
}

/// True when the byte at `offset` of the file `path` is a newline.
bool byte_is_newline(const std::string& path, std::uint64_t offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  return in.get(c) && c == '\n';
}

/// True for an existing path that must be written in place: not a regular file, not a directory.
bool write_through(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);  // follows symlinks: /dev/stdout, ...
  return !error && fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status);
}

}  // namespace

CsvOutput::CsvOutput(std::string path, RunCheckpoint* checkpoint)
    : path_(std::move(path)), os_(&std::cout), checkpoint_(checkpoint) {
  if (checkpoint_) {
    if (path_.empty() || path_ == "-" || write_through(path_))
      throw InvalidInput("--checkpoint needs --out FILE naming a regular file (a resumed run writes the whole output "
                         "again), got " + quote_for_message(path_.empty() ? std::string("-") : path_, 200));
    target_ = regular_target(path_);
    refuse_same_file("--out", path_, checkpoint_->resuming() ? "--resume" : "--checkpoint", checkpoint_->path());
    temporary_ = checkpoint_->rows_path();
    errno = 0;
    if (checkpoint_->resuming()) {
      std::error_code error;
      const auto size = fs::file_size(temporary_, error);
      if (error || size < checkpoint_->saved_output_bytes())
        throw InvalidInput("--resume: the rows written before the checkpoint, " + quote_for_message(temporary_, 200) +
                           ", are missing or shorter than the checkpoint records");
      // The recorded length must end a row, after the header (a checkpoint edited with its checksum
      // recomputed could name any length).
      if (checkpoint_->saved_output_bytes() == 0 || !byte_is_newline(temporary_, checkpoint_->saved_output_bytes() - 1))
        throw InvalidInput("--resume: the checkpoint's record of the rows written does not end a row of " +
                           quote_for_message(temporary_, 200) + ": it was damaged or edited");
      fs::resize_file(temporary_, checkpoint_->saved_output_bytes(), error);  // drop rows after the checkpoint
      if (error) throw IoError("cannot truncate " + quote_for_message(temporary_, 200) + ": " + error.message());
      file_.open(temporary_, std::ios::out | std::ios::app);
    } else {
      file_.open(temporary_, std::ios::out | std::ios::trunc);
    }
    if (!file_) throw IoError("cannot write " + quote_for_message(temporary_, 200) + reason());
    os_ = &file_;
    return;
  }
  if (path_.empty() || path_ == "-") {
    path_.clear();
    return;
  }
  if (write_through(path_)) {
    target_ = path_;
    errno = 0;
    file_.open(target_, std::ios::out | std::ios::app);  // append: no truncation of a device
    if (!file_) throw IoError("cannot write " + quote_for_message(path_, 200) + reason());
    os_ = &file_;
    return;
  }
  target_ = regular_target(path_);
  temporary_ = temporary_path_for(target_);
  guard_ = std::make_unique<TemporaryFileGuard>(temporary_);
  errno = 0;
  file_.open(temporary_);
  if (!file_) throw IoError("cannot write " + quote_for_message(temporary_, 200) + reason());
  os_ = &file_;
}

CsvOutput::~CsvOutput() {
  // The rows of a checkpointed run stay as long as a checkpoint file refers to them.
  if (checkpoint_ && !committed_ && (checkpoint_->resuming() || checkpoint_->saved_once())) return;
  if (!temporary_.empty() && !committed_) {
    file_.close();
    std::error_code ignored;
    fs::remove(temporary_, ignored);
  }
}

void CsvOutput::check_written() {
  if (*os_) return;
  const std::string where = path_.empty() ? std::string("standard output") : quote_for_message(path_, 200);
  throw IoError("cannot write to " + where + reason());
}

void CsvOutput::header(const std::vector<std::string>& columns) {
  // Held back until the first row has passed the disk guard: a refused run writes nothing.
  header_.clear();
  for (std::size_t i = 0; i < columns.size(); ++i) header_ += (i ? "," : "") + columns[i];
  header_ += '\n';
}

void CsvOutput::row(const std::vector<double>& values) {
  char buffer[kExactNumberCapacity];
  line_.clear();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) line_ += ',';
    line_.append(buffer, static_cast<std::size_t>(write_exact_number(values[i], buffer)));
  }
  line_ += '\n';
  errno = 0;
  if (!rows_checked_) {
    rows_checked_ = true;
    check_room(line_.size());
    *os_ << header_;
  }
  *os_ << line_;
  check_written();
}

void CsvOutput::check_room(std::size_t row_bytes) const {
  // A resumed run's rows are partly written already, and its file is its own: not estimated.
  if (expected_rows_ == 0 || (checkpoint_ && checkpoint_->resuming())) return;
  std::optional<std::uint64_t> free;
  std::string where;
  if (!temporary_.empty()) {
    // The temporary (or the checkpoint's rows) is beside the target: the same file system.
    const fs::path parent = fs::path(temporary_).parent_path();
    where = parent.empty() ? std::string(".") : parent.string();
    free = free_bytes_in(where);
  } else if (path_.empty()) {
    // Standard output: estimated only when redirected to a regular file; a terminal or a pipe
    // holds nothing.
    free = free_bytes_of_regular_file(STDOUT_FILENO);
    where = "standard output";
  }
  // The start row is among the shortest (later times and values carry more digits): the estimate
  // errs low, so that a run which fits is not refused; a run that fits by less fails when the disk
  // is full (exit 4, no file left), as it always did.
  if (free) require_room_for_rows(expected_rows_, row_bytes, *free, where);
}

std::uint64_t CsvOutput::flush() {
  errno = 0;
  os_->flush();
  check_written();
  return file_.is_open() ? static_cast<std::uint64_t>(file_.tellp()) : 0;
}

void CsvOutput::commit() {
  errno = 0;
  os_->flush();
  check_written();
  if (path_.empty()) {
    committed_ = true;
    return;
  }
  file_.close();
  check_written();
  if (temporary_.empty()) {
    committed_ = true;
    return;
  }
  // A checkpointed run marks itself completing first, so that a kill between the rename and the
  // removal of the checkpoint is recognised by --resume (app/checkpoint_completion.hpp).
  if (checkpoint_) mark_completing(temporary_, target_);
  std::error_code error;
  fs::rename(temporary_, target_, error);
  if (error) {
    if (checkpoint_) clear_completion(temporary_);
    throw IoError("cannot move " + quote_for_message(temporary_, 200) + " to " + quote_for_message(target_, 200) +
                  ": " + error.message());
  }
  committed_ = true;
  if (checkpoint_) {
    checkpoint_->finish();
    clear_completion(temporary_);
  }
}

void write_text_atomically(const std::string& path, const std::string& text) {
  const std::string target = regular_target(path);
  const std::string temporary = temporary_path_for(target);
  TemporaryFileGuard guard(temporary);
  {
    errno = 0;
    std::ofstream os(temporary);
    if (!os) throw IoError("cannot write " + quote_for_message(temporary, 200) + reason());
    os << text;
    os.close();
    if (!os) {
      const std::string why = reason();
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw IoError("cannot write " + quote_for_message(temporary, 200) + why);
    }
  }
  std::error_code error;
  fs::rename(temporary, target, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw IoError("cannot move " + quote_for_message(temporary, 200) + " to " + quote_for_message(target, 200) +
                  ": " + error.message());
  }
}

}  // namespace mechint::app
