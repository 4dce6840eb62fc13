#include "app/sweep_trajectories.hpp"

#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "app/output.hpp"
#include "app/sweep_file.hpp"
#include "app/temporary_files.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

namespace fs = std::filesystem;

std::string member_name(std::size_t m) {
  char name[32];
  std::snprintf(name, sizeof name, "%06zu", m);
  return name;
}

/// An HDF5 identifier, closed by its own function when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id < 0) throw IoError("HDF5: cannot " + what);
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
  if (status < 0) throw IoError("HDF5: cannot " + what);
}

/// A property list of object creation that records no access, change or creation times (they would
/// make the file's bytes depend on when it was written).
Handle untimed(hid_t property_class) {
  Handle list(H5Pcreate(property_class), H5Pclose, "create a property list");
  check(H5Pset_obj_track_times(list, false), "switch off time tracking");
  return list;
}

SweepPlan::Trajectory read_member_csv(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw IoError("cannot read " + quote_for_message(path.string(), 200));
  SweepPlan::Trajectory t;
  std::string line;
  std::getline(in, line);
  std::istringstream header(line);
  for (std::string name; std::getline(header, name, ',');) t.columns.push_back(name);
  while (std::getline(in, line)) {
    const char* p = line.c_str();
    for (std::size_t j = 0; j < t.columns.size(); ++j) {
      char* end = nullptr;
      t.values.push_back(std::strtod(p, &end));
      if (end == p) throw IoError(quote_for_message(path.string(), 200) + " is damaged: remove it and rerun the sweep");
      p = *end == ',' ? end + 1 : end;
    }
  }
  return t;
}

}  // namespace

fs::path member_trajectory_path(const fs::path& dir, std::size_t m) {
  return dir / "trajectories" / ("member-" + member_name(m) + ".csv");
}

void write_member_trajectory(const fs::path& dir, std::size_t m, const SweepPlan::Trajectory& trajectory) {
  if (trajectory.columns.empty()) return;
  std::string text;
  for (std::size_t j = 0; j < trajectory.columns.size(); ++j) text += (j ? "," : "") + trajectory.columns[j];
  text += "\n";
  const std::size_t width = trajectory.columns.size();
  for (std::size_t i = 0; i < trajectory.values.size(); ++i) {
    text += exact_text(trajectory.values[i]);
    text += (i + 1) % width == 0 ? "\n" : ",";
  }
  write_text_atomically(member_trajectory_path(dir, m).string(), text);
}

void write_trajectories_h5(const fs::path& dir, std::size_t members) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // failures become one IoError line, not HDF5's stack
  const fs::path target = dir / "trajectories.h5", partial = temporary_path_for(target.string());
  const TemporaryFileGuard guard(partial.string());  // removed on SIGINT/SIGTERM meanwhile
  try {
    {
      const Handle file_creation = untimed(H5P_FILE_CREATE);  // the root group's times
      Handle file(H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, file_creation, H5P_DEFAULT), H5Fclose,
                  "create " + quote_for_message(partial.string(), 200));
      const Handle group_creation = untimed(H5P_GROUP_CREATE);
      Handle group(H5Gcreate2(file, "members", H5P_DEFAULT, group_creation, H5P_DEFAULT), H5Gclose, "create /members");
      const Handle dataset_creation = untimed(H5P_DATASET_CREATE);
      for (std::size_t m = 0; m < members; ++m) {
        const fs::path source = member_trajectory_path(dir, m);
        if (!fs::exists(source)) continue;
        const SweepPlan::Trajectory t = read_member_csv(source);
        const hsize_t dims[2] = {t.values.size() / t.columns.size(), t.columns.size()};
        Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose, "create a dataspace");
        Handle data(H5Dcreate2(group, member_name(m).c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, dataset_creation,
                               H5P_DEFAULT),
                    H5Dclose, "create dataset " + member_name(m));
        if (!t.values.empty())
          check(H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.values.data()),
                "write dataset " + member_name(m));
        // The column names: fixed-length strings, as wide as the longest.
        std::size_t width = 1;
        for (const auto& c : t.columns) width = std::max(width, c.size() + 1);
        std::string names(width * t.columns.size(), '\0');
        for (std::size_t j = 0; j < t.columns.size(); ++j) names.replace(j * width, t.columns[j].size(), t.columns[j]);
        Handle text(H5Tcopy(H5T_C_S1), H5Tclose, "copy a string type");
        check(H5Tset_size(text, width), "size a string type");
        check(H5Tset_strpad(text, H5T_STR_NULLTERM), "pad a string type");
        const hsize_t count[1] = {t.columns.size()};
        Handle names_space(H5Screate_simple(1, count, nullptr), H5Sclose, "create a dataspace");
        Handle attribute(H5Acreate2(data, "columns", text, names_space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                         "create the attribute columns");
        check(H5Awrite(attribute, text, names.data()), "write the attribute columns");
      }
    }
    std::error_code error;
    fs::rename(partial, target, error);
    if (error) throw IoError("cannot write " + quote_for_message(target.string(), 200) + ": " + error.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw;
  }
}

std::optional<SweepPlan::Trajectory> read_trajectory_h5(const fs::path& path, std::size_t m) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open " + quote_for_message(path.string(), 200));
  const std::string name = "/members/" + member_name(m);
  if (H5Lexists(file, "/members", H5P_DEFAULT) <= 0 || H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0) return std::nullopt;
  Handle data(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + name);
  Handle space(H5Dget_space(data), H5Sclose, "read the dataspace of " + name);
  hsize_t dims[2] = {0, 0};
  if (H5Sget_simple_extent_ndims(space) != 2) throw IoError(name + " is not a table");
  H5Sget_simple_extent_dims(space, dims, nullptr);
  SweepPlan::Trajectory t;
  t.values.resize(dims[0] * dims[1]);
  if (!t.values.empty()) check(H5Dread(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.values.data()), "read " + name);
  Handle attribute(H5Aopen(data, "columns", H5P_DEFAULT), H5Aclose, "open the columns of " + name);
  Handle type(H5Aget_type(attribute), H5Tclose, "read the type of the columns");
  const std::size_t width = H5Tget_size(type);
  std::string names(width * dims[1], '\0');
  check(H5Aread(attribute, type, names.data()), "read the columns of " + name);
  for (std::size_t j = 0; j < dims[1]; ++j) t.columns.emplace_back(names.c_str() + j * width);
  return t;
}

}  // namespace mechint::app
