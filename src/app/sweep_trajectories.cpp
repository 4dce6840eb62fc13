#include "app/sweep_trajectories.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "app/hdf5_file.hpp"
#include "app/output.hpp"
#include "app/sweep_file.hpp"
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
  // A link planted at the member's name is not written through (write_text_atomically would follow it).
  const fs::path path = member_trajectory_path(dir, m);
  std::error_code error;
  if (fs::is_symlink(path, error))
    throw IoError(quote_for_message(path.string(), 200) + " is a link: not written through; remove it and run again");
  write_text_atomically(path.string(), text);
}

void write_trajectories_h5(const fs::path& dir, std::size_t members) {
  Hdf5Output out(dir / "trajectories.h5");
  out.create_group("/members");
  for (std::size_t m = 0; m < members; ++m) {
    const fs::path source = member_trajectory_path(dir, m);
    if (!fs::exists(source)) continue;
    const SweepPlan::Trajectory t = read_member_csv(source);
    out.write_table("/members/" + member_name(m), t.values.size() / t.columns.size(), t.columns.size(), t.values.data(),
                    t.columns);
  }
  out.commit();
}

std::optional<SweepPlan::Trajectory> read_trajectory_h5(const fs::path& path, std::size_t m) {
  auto table = read_hdf5_table(path, "/members/" + member_name(m));
  if (!table) return std::nullopt;
  return SweepPlan::Trajectory{std::move(table->columns), std::move(table->values)};
}

}  // namespace mechint::app
