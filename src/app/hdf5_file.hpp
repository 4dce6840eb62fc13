#pragma once
/// \file
/// The little of HDF5 (serial libhdf5 from Debian) the sweeps write and their tests read back:
/// float64 tables with their column names, lists of strings. A file is built in memory by HDF5
/// and written by commit() through mechint's one writer, write_text_atomically (app/output.hpp: a
/// temporary file and a rename, no partial file under its name, none left on a full disk or on
/// SIGINT/SIGTERM); nothing is on the disk before. It records no object times, so its bytes depend
/// only on what is written. Failures are IoError, one line naming the file (HDF5's own error stack
/// is not printed). The one source that includes hdf5.h is hdf5_module.cpp. The file is held in
/// memory whole until it is written: its size in memory (twice, briefly, when it is written).

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mechint::app {

class Hdf5Output {
 public:
  explicit Hdf5Output(const std::filesystem::path& target);
  ~Hdf5Output();  ///< without commit(): nothing is written
  Hdf5Output(const Hdf5Output&) = delete;
  Hdf5Output& operator=(const Hdf5Output&) = delete;

  void create_group(const std::string& path);
  /// A rows x columns float64 dataset at `path` (row-major values), its column names as the
  /// attribute `columns` when given.
  void write_table(const std::string& path, std::size_t rows, std::size_t columns, const double* values,
                   const std::vector<std::string>& column_names = {});
  /// A one-dimensional dataset of fixed-length strings (as wide as the longest).
  void write_strings(const std::string& path, const std::vector<std::string>& values);
  /// A list of strings as the attribute `name` of the object at `path` ("/": the file).
  void write_string_attribute(const std::string& path, const std::string& name, const std::vector<std::string>& values);
  /// Closes the file and writes it, whole, under its name.
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A table read back: its column names (empty without the attribute) and row-major values.
struct Hdf5Table {
  std::vector<std::string> columns;
  std::size_t rows = 0;
  std::vector<double> values;
};
/// The float64 dataset at `path` of `file` (one- or two-dimensional); none when it does not exist.
std::optional<Hdf5Table> read_hdf5_table(const std::filesystem::path& file, const std::string& path);
/// The string dataset at `path`; none when it does not exist.
std::optional<std::vector<std::string>> read_hdf5_strings(const std::filesystem::path& file, const std::string& path);
/// The string-list attribute `name` of the object at `path`.
std::vector<std::string> read_hdf5_string_attribute(const std::filesystem::path& file, const std::string& path,
                                                    const std::string& name);

}  // namespace mechint::app
