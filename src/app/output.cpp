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

/// True when the byte at `offset` of the file `path` is a newline.
bool byte_is_newline(const std::string& path, std::uint64_t offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  return in.get(c) && c == '\n';
}

}  // namespace

CsvOutput::CsvOutput(std::string path, RunCheckpoint* checkpoint) : path_(std::move(path)), checkpoint_(checkpoint) {
  if (checkpoint_) {
    if (written_through(path_))
      throw InvalidInput("--checkpoint needs --out FILE naming a regular file (a resumed run writes the whole output "
                         "again), got " + quote_for_message(path_.empty() ? std::string("-") : path_, 200));
    check_output_path("--out", path_);
    target_ = follow_symlinks(path_, "--out");
    refuse_same_file("--out", path_, checkpoint_->resuming() ? "--resume" : "--checkpoint", checkpoint_->path());
    open_checkpoint_rows();
    return;
  }
  if (path_ == "-") path_.clear();
  writer_.emplace(path_, WriteOptions{WritePath::kUserNamed, false, "--out"});
  target_ = writer_->target();
  temporary_ = writer_->temporary();
}

CsvOutput::CsvOutput(RunCheckpoint& checkpoint) : checkpoint_(&checkpoint) { open_checkpoint_rows(); }

void CsvOutput::open_checkpoint_rows() {
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
}

CsvOutput::~CsvOutput() {
  if (!checkpoint_) return;  // the writer removes its temporary
  // The rows of a checkpointed run stay as long as a checkpoint file refers to them.
  if (!committed_ && (checkpoint_->resuming() || checkpoint_->saved_once())) return;
  if (!committed_) {
    file_.close();
    std::error_code ignored;
    fs::remove(temporary_, ignored);
  }
}

void CsvOutput::put(std::string_view text) {
  if (writer_) {
    writer_->write(text);
    return;
  }
  file_ << text;
  check_written();
}

void CsvOutput::check_written() {
  if (file_) return;
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
    put(header_);
  }
  put(line_);
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
  if (writer_) {
    writer_->flush();
    return writer_->bytes_written();
  }
  errno = 0;
  file_.flush();
  check_written();
  return static_cast<std::uint64_t>(file_.tellp());
}

void CsvOutput::commit() {
  if (writer_) {
    writer_->commit();
    committed_ = true;
    return;
  }
  errno = 0;
  file_.flush();
  check_written();
  file_.close();
  check_written();
  if (checkpoint_ && target_.empty()) {  // no output file: the rows were the caller's to read
    checkpoint_->finish();
    std::error_code ignored;
    fs::remove(temporary_, ignored);
    clear_completion(temporary_);  // one a killed command line's completion left
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

}  // namespace mechint::app
