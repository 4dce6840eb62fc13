#pragma once
/// \file
/// The interface of mechint's HDF5 module, libmechint_hdf5.so (app/hdf5_module.cpp): the one library
/// that links HDF5, loaded by app/hdf5_file.cpp the first time a file is written or read. Linked into
/// the program instead, HDF5 and what it needs (curl, GnuTLS, LDAP, Kerberos: 32 more shared
/// libraries) were loaded and initialised by every start of mechint, sweep or not: 5 ms of a 10 ms
/// start (docs/performance-history.md, "The start of the process").
///
/// Both sides are built together by the same compiler against the same libstdc++, so the interface
/// is C++; only standard types cross it, and a failure is a std::runtime_error (one line).

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mechint::app {
struct Hdf5Table;
}

namespace mechint::app::hdf5 {

/// An HDF5 file being built in memory (HDF5's core driver, no backing store): HDF5 itself never
/// writes to the disk. It did, and on a full disk it lost writes it had deferred and still reported
/// its file closed (a sparse, damaged file), or left a file it could not close that crashed the
/// process at exit; the bytes it builds are written by mechint's own writer instead.
class Writer {
 public:
  virtual ~Writer() = default;
  virtual void create_group(const std::string& path) = 0;
  virtual void write_table(const std::string& path, std::size_t rows, std::size_t columns, const double* values,
                           const std::vector<std::string>& column_names) = 0;
  virtual void write_strings(const std::string& path, const std::vector<std::string>& values) = 0;
  virtual void write_string_attribute(const std::string& path, const std::string& name,
                                      const std::vector<std::string>& values) = 0;
  /// Closes the file and returns its bytes: the HDF5 file, whole.
  virtual std::string close() = 0;
};

/// What the module provides (app/hdf5_file.hpp's functions, without the writing of the file).
class Backend {
 public:
  virtual ~Backend() = default;
  /// A new file in memory, named `path` in messages, recording no object times (its bytes depend
  /// only on what is written).
  virtual std::unique_ptr<Writer> create(const std::filesystem::path& path) const = 0;
  virtual std::optional<Hdf5Table> read_table(const std::filesystem::path& file, const std::string& path) const = 0;
  virtual std::optional<std::vector<std::string>> read_strings(const std::filesystem::path& file,
                                                              const std::string& path) const = 0;
  virtual std::vector<std::string> read_string_attribute(const std::filesystem::path& file, const std::string& path,
                                                         const std::string& name) const = 0;
};

/// The module's entry point, looked up by this name.
inline constexpr const char* kEntryPoint = "mechint_hdf5_backend";
using EntryPoint = const Backend* (*)();

}  // namespace mechint::app::hdf5
