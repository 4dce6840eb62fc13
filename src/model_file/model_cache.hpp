#pragma once
/// \file
/// The cache of compiled model files, a directory that trusts no one but its owner (docs/security.md).
///
/// - The directory is created 0700 when missing and refused (IoError, exit 4, one line) when it is
///   not a directory owned by this user or is writable by group or others: anyone who can write it
///   could plant a library that would run inside mechint.
/// - Every file is reached relative to the directory's open descriptor, created with
///   `O_CREAT | O_EXCL | O_NOFOLLOW` in a private build directory and renamed into place: a symlink
///   planted at a name is replaced, never followed.
/// - A library is loaded only from a descriptor whose file was checked to be a regular file owned by
///   this user and not writable by group or others (`/proc/self/fd/N`: the file checked is the file
///   loaded, whatever happens to the name meanwhile).
/// - Build directories left by killed compiles are removed by the next compile.

#include <filesystem>
#include <string>

namespace mechint::model_file {

/// An open, checked cache directory.
class ModelCache {
 public:
  /// Opens the directory named by `$MECHINT_CACHE_DIR`, else `$XDG_CACHE_HOME/mechint/models`, else
  /// `~/.cache/mechint/models`, creating what is missing (0700). Throws IoError when there is none or
  /// it cannot be trusted.
  static ModelCache open_default();
  /// Opens `dir` (created 0700 when missing) and checks it as above.
  explicit ModelCache(std::filesystem::path dir);
  ModelCache(ModelCache&& other) noexcept;
  ModelCache(const ModelCache&) = delete;
  ModelCache& operator=(const ModelCache&) = delete;
  ModelCache& operator=(ModelCache&&) = delete;
  ~ModelCache();

  const std::filesystem::path& path() const { return path_; }
  int fd() const { return fd_; }

  /// An open read-only descriptor of `name` in the cache when it is a file this user can trust (the
  /// caller closes it), -1 when there is no such name. Throws IoError naming the file when something
  /// else is there (a symlink, another user's file, a group- or world-writable file).
  int open_trusted(const std::string& name) const;

  /// Holds an exclusive lock on `name` (a lock file in the cache) while it lives.
  class Lock {
   public:
    Lock(const ModelCache& cache, const std::string& name);
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    ~Lock();

   private:
    int fd_ = -1;
  };

  /// Creates a private build directory in the cache (mkdtemp, 0700) and returns its path; its name
  /// records this process, so that remove_stale_builds() of a later run knows it is abandoned.
  std::filesystem::path make_build_directory() const;
  /// Removes the build directories of processes that no longer run.
  void remove_stale_builds() const;
  /// Moves `from` (a path inside a build directory of this cache) to `name` in the cache, replacing
  /// what is there (a symlink at `name` is replaced, not followed). Throws IoError.
  void place(const std::filesystem::path& from, const std::string& name) const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

/// Creates `path` for writing with O_CREAT | O_EXCL | O_NOFOLLOW (mode 0600) and returns its
/// descriptor; throws IoError.
int create_new_file(const std::filesystem::path& path);

/// Writes all of `text` to `fd`; throws IoError naming `path`.
void write_all(int fd, const std::string& text, const std::filesystem::path& path);

}  // namespace mechint::model_file
