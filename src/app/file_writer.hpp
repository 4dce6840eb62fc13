#pragma once
/// \file
/// The one way mechint writes a file (DESIGN §4, docs/trustworthy-runs.md "Files"): every CSV, page,
/// checkpoint, summary, report and marker goes through FileWriter.
///
/// * A regular file appears whole or not at all: the bytes go to a temporary beside the target
///   (".NAME.PID.partial", removed on SIGINT/SIGTERM by app/temporary_files.hpp), which `commit()`
///   renames onto it; destroyed without a commit (an exception left the caller), the temporary is
///   removed and the target is untouched. A full disk is an IoError (exit 4) with nothing left.
/// * A path a user named that is "-" or an existing device, FIFO, socket or terminal (also through a
///   link: /dev/stdout, /proc/self/fd/N) is written through, never replaced: no temporary, no rename,
///   no truncation.
/// * A file mechint owns (in a directory of results, a checkpoint) is only ever a regular file: an
///   entry of that name that is anything else (a link, a device, a FIFO) was not written by mechint
///   and is refused, neither followed nor replaced.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "app/temporary_files.hpp"

namespace mechint::app {

/// Whose path a FileWriter writes.
enum class WritePath {
  /// A path the user named (--out, --animate, view --out, Animation.save): "-" is standard output; an
  /// existing non-regular file is written through; otherwise the end of its chain of links becomes a
  /// regular file, atomically.
  kUserNamed,
  /// A file of mechint's own (a results directory's files, a checkpoint): a regular file, atomically;
  /// an existing entry of any other kind is refused (IoError).
  kOwned,
};

struct WriteOptions {
  WritePath path = WritePath::kUserNamed;
  /// fsync the file before the rename and its directory after: the contract of files a later run
  /// relies on after a crash of the machine (checkpoints).
  bool durable = false;
  /// How messages name the path's origin ("--out", "--animate", "the checkpoint", ...).
  std::string option = "--out";
};

class FileWriter {
 public:
  /// Opens the destination of `path`. Throws InvalidInput for a directory, a missing parent
  /// directory or an owned name that is not a regular file; IoError when it cannot be opened (a FIFO
  /// without a reader after a short wait, a permission, ...).
  FileWriter(std::string path, WriteOptions options = {});
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;
  /// Without a commit: the temporary removed, the target untouched.
  ~FileWriter();

  /// Appends `bytes` (buffered). Throws IoError naming the path and the system's reason.
  void write(std::string_view bytes);
  /// Writes out what is buffered. Throws IoError.
  void flush();
  /// Flushes, closes and (for a regular file) renames the temporary onto the target. Throws IoError.
  void commit();

  /// True when the bytes go straight to the destination (standard output, a device, a FIFO).
  bool writes_through() const { return temporary_.empty(); }
  /// The temporary beside the target ("" when writing through).
  const std::string& temporary() const { return temporary_; }
  /// The file the bytes end up in (links followed; "" for standard output).
  const std::string& target() const { return target_; }
  /// Bytes accepted by write() so far.
  std::uint64_t bytes_written() const { return written_; }

 private:
  void write_out(const char* data, std::size_t size);
  [[noreturn]] void fail_write(int error_number);

  std::string path_;       ///< as the caller named it
  WriteOptions options_;
  std::string target_;     ///< the final file
  std::string temporary_;  ///< empty when writing through
  std::unique_ptr<TemporaryFileGuard> guard_;
  int fd_ = -1;
  bool owns_fd_ = false;  ///< false for standard output
  bool committed_ = false;
  std::uint64_t written_ = 0;
  std::string buffer_;
};

/// `text` into `path` through a FileWriter, committed.
void write_file(const std::string& path, std::string_view text, const WriteOptions& options = {});

/// `text` into `path`, a file of mechint's own (WritePath::kOwned): a results directory's file, a
/// marker, a checkpoint. Throws IoError on failure.
void write_text_atomically(const std::string& path, std::string_view text, bool durable = false);

/// Refuses (IoError) a name of mechint's own that exists as anything but a regular file (a link, a
/// FIFO, a device planted in a results directory): what WritePath::kOwned writes, and what a reader
/// of mechint's own files checks before it opens one.
void refuse_foreign_entry(const std::string& path);

/// True when `path` names standard output ("-") or an existing file that is written through.
bool written_through(const std::string& path);

/// Checks what FileWriter's constructor would refuse for a user-named `path`, before any work is done
/// (a directory, a missing parent directory, a loop of links). Throws InvalidInput.
void check_output_path(const std::string& option, const std::string& path);

}  // namespace mechint::app
