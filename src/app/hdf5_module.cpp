// libmechint_hdf5.so: the HDF5 side of app/hdf5_file.hpp (the interface in app/hdf5_module.hpp).
// The one source that includes hdf5.h; loaded by app/hdf5_file.cpp when a sweep first writes or a
// test first reads a file.
#include "app/hdf5_module.hpp"

#include <hdf5.h>

#include <algorithm>
#include <stdexcept>

#include "app/hdf5_file.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app::hdf5 {
namespace {

namespace fs = std::filesystem;

/// An HDF5 identifier, closed by its own function when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id < 0) throw std::runtime_error("HDF5: cannot " + what);
  }
  Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle& operator=(Handle&&) = delete;
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5: cannot " + what);
}

void quiet() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

/// An object creation property list that records no access, change or creation times.
Handle untimed(hid_t property_class) {
  Handle list(H5Pcreate(property_class), H5Pclose, "create a property list");
  check(H5Pset_obj_track_times(list, false), "switch off time tracking");
  return list;
}

/// A fixed-length string type as wide as the longest of `values` (and their terminating zero).
Handle string_type(const std::vector<std::string>& values, std::string& packed) {
  std::size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size() + 1);
  packed.assign(width * values.size(), '\0');
  for (std::size_t j = 0; j < values.size(); ++j) packed.replace(j * width, values[j].size(), values[j]);
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "copy a string type");
  check(H5Tset_size(type, width), "size a string type");
  check(H5Tset_strpad(type, H5T_STR_NULLTERM), "pad a string type");
  return type;
}

std::vector<std::string> unpack(const std::string& packed, std::size_t width, std::size_t count) {
  std::vector<std::string> values;
  for (std::size_t j = 0; j < count; ++j) values.emplace_back(packed.c_str() + j * width);
  return values;
}

bool exists(hid_t file, const std::string& path) {
  // Every link on the way must exist for H5Lexists to be asked about the next.
  std::size_t at = 0;
  while ((at = path.find('/', at + 1)) != std::string::npos)
    if (H5Lexists(file, path.substr(0, at).c_str(), H5P_DEFAULT) <= 0) return false;
  return path == "/" || H5Lexists(file, path.c_str(), H5P_DEFAULT) > 0;
}

class FileWriter final : public Writer {
 public:
  explicit FileWriter(const fs::path& path) {
    const Handle file_creation = untimed(H5P_FILE_CREATE);  // the root group's times
    // In memory, grown a MiB at a time, never written to a file by HDF5 (app/hdf5_module.hpp).
    const Handle file_access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create a property list");
    check(H5Pset_fapl_core(file_access, std::size_t{1} << 20, false), "keep a file in memory");
    file_.emplace(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, file_creation, file_access), H5Fclose,
                  "create " + quote_for_message(path.string(), 200) + " in memory");
  }

  void create_group(const std::string& path) override {
    Handle group(H5Gcreate2(*file_, path.c_str(), H5P_DEFAULT, group_creation_, H5P_DEFAULT), H5Gclose,
                 "create the group " + path);
  }

  void write_table(const std::string& path, std::size_t rows, std::size_t columns, const double* values,
                   const std::vector<std::string>& column_names) override {
    const hsize_t dims[2] = {rows, columns};
    Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose, "create a dataspace");
    Handle data(H5Dcreate2(*file_, path.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, dataset_creation_, H5P_DEFAULT),
                H5Dclose, "create the dataset " + path);
    if (rows * columns > 0) check(H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), "write " + path);
    if (!column_names.empty()) write_string_attribute(path, "columns", column_names);
  }

  void write_strings(const std::string& path, const std::vector<std::string>& values) override {
    std::string packed;
    const Handle type = string_type(values, packed);
    const hsize_t count[1] = {values.size()};
    Handle space(H5Screate_simple(1, count, nullptr), H5Sclose, "create a dataspace");
    Handle data(H5Dcreate2(*file_, path.c_str(), type, space, H5P_DEFAULT, dataset_creation_, H5P_DEFAULT), H5Dclose,
                "create the dataset " + path);
    if (!values.empty()) check(H5Dwrite(data, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, packed.data()), "write " + path);
  }

  void write_string_attribute(const std::string& path, const std::string& name,
                              const std::vector<std::string>& values) override {
    std::string packed;
    const Handle type = string_type(values, packed);
    const hsize_t count[1] = {values.size()};
    Handle space(H5Screate_simple(1, count, nullptr), H5Sclose, "create a dataspace");
    Handle object(H5Oopen(*file_, path.c_str(), H5P_DEFAULT), H5Oclose, "open " + path);
    Handle attribute(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                     "create the attribute " + name + " of " + path);
    check(H5Awrite(attribute, type, packed.data()), "write the attribute " + name + " of " + path);
  }

  std::string close() override {
    check(H5Fflush(*file_, H5F_SCOPE_GLOBAL), "finish the file");
    const ssize_t size = H5Fget_file_image(*file_, nullptr, 0);
    if (size < 0) throw std::runtime_error("HDF5: cannot read the file's bytes");
    std::string image(static_cast<std::size_t>(size), '\0');
    if (H5Fget_file_image(*file_, image.data(), image.size()) != size)
      throw std::runtime_error("HDF5: cannot read the file's bytes");
    file_.reset();
    return image;
  }

 private:
  // HDF5's own error printing off before anything is asked of it; the property lists before the file.
  bool quiet_ = (quiet(), true);
  Handle dataset_creation_ = untimed(H5P_DATASET_CREATE);
  Handle group_creation_ = untimed(H5P_GROUP_CREATE);
  std::optional<Handle> file_;
};

/// The fixed-length strings of a one-dimensional dataset or attribute of `type` over `space`, which
/// `read` fills into one packed buffer (string_type's layout).
template <class Read>
std::vector<std::string> read_packed(hid_t type, hid_t space, Read&& read) {
  hsize_t count = 0;
  H5Sget_simple_extent_dims(space, &count, nullptr);
  const std::size_t width = H5Tget_size(type);
  std::string packed(width * count, '\0');
  if (count > 0) read(packed.data());
  return unpack(packed, width, count);
}

Handle open_for_reading(const fs::path& path) {
  quiet();
  return Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open " + quote_for_message(path.string(), 200));
}

class Hdf5Backend final : public Backend {
 public:
  std::unique_ptr<Writer> create(const fs::path& path) const override { return std::make_unique<FileWriter>(path); }

  std::optional<Hdf5Table> read_table(const fs::path& path, const std::string& name) const override {
    const Handle file = open_for_reading(path);
    if (!exists(file, name)) return std::nullopt;
    Handle data(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + name);
    Handle space(H5Dget_space(data), H5Sclose, "read the dataspace of " + name);
    hsize_t dims[2] = {0, 1};
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 1 || rank > 2) throw std::runtime_error(name + " is not a table");
    H5Sget_simple_extent_dims(space, dims, nullptr);
    Hdf5Table t;
    t.rows = dims[0];
    t.values.resize(dims[0] * dims[1]);
    if (!t.values.empty()) check(H5Dread(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.values.data()), "read " + name);
    if (H5Aexists(data, "columns") > 0) t.columns = read_string_attribute(path, name, "columns");
    return t;
  }

  std::optional<std::vector<std::string>> read_strings(const fs::path& path, const std::string& name) const override {
    const Handle file = open_for_reading(path);
    if (!exists(file, name)) return std::nullopt;
    Handle data(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + name);
    Handle type(H5Dget_type(data), H5Tclose, "read the type of " + name);
    Handle space(H5Dget_space(data), H5Sclose, "read the dataspace of " + name);
    return read_packed(type, space, [&](char* packed) {
      check(H5Dread(data, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, packed), "read " + name);
    });
  }

  std::vector<std::string> read_string_attribute(const fs::path& path, const std::string& name,
                                                 const std::string& attribute_name) const override {
    const Handle file = open_for_reading(path);
    Handle object(H5Oopen(file, name.c_str(), H5P_DEFAULT), H5Oclose, "open " + name);
    Handle attribute(H5Aopen(object, attribute_name.c_str(), H5P_DEFAULT), H5Aclose, "open the attribute " + attribute_name);
    Handle type(H5Aget_type(attribute), H5Tclose, "read the type of " + attribute_name);
    Handle space(H5Aget_space(attribute), H5Sclose, "read the dataspace of " + attribute_name);
    return read_packed(type, space, [&](char* packed) {
      check(H5Aread(attribute, type, packed), "read the attribute " + attribute_name);
    });
  }
};

}  // namespace
}  // namespace mechint::app::hdf5

extern "C" __attribute__((visibility("default"))) const mechint::app::hdf5::Backend* mechint_hdf5_backend() {
  static const mechint::app::hdf5::Hdf5Backend backend;
  return &backend;
}
