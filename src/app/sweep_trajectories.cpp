#include "app/sweep_trajectories.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "app/hdf5_file.hpp"
#include "app/output.hpp"
#include "app/sweep_digest.hpp"
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

std::string record_of(const std::string& text) { return std::to_string(text.size()) + ":" + sweep_digest(text); }

/// The bytes of a regular file at `path`, never through a link; none when it cannot be read.
std::optional<std::string> read_regular_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat info {};
  std::optional<std::string> text;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    text.emplace();
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        text.reset();
        break;
      }
      if (n == 0) break;
      text->append(buffer, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return text;
}

SweepPlan::Trajectory parse_member_csv(const std::string& text, const fs::path& path) {
  const auto damaged = [&] {
    return IoError(quote_for_message(path.string(), 200) + " is damaged: remove it and rerun the sweep");
  };
  std::istringstream in(text);
  SweepPlan::Trajectory t;
  std::string line;
  std::getline(in, line);
  std::istringstream header(line);
  for (std::string name; std::getline(header, name, ',');) t.columns.push_back(name);
  if (t.columns.empty()) throw damaged();
  while (std::getline(in, line)) {
    const char* p = line.c_str();
    for (std::size_t j = 0; j < t.columns.size(); ++j) {
      char* end = nullptr;
      t.values.push_back(std::strtod(p, &end));
      if (end == p) throw damaged();
      p = *end == ',' ? end + 1 : end;
    }
  }
  return t;
}

}  // namespace

fs::path member_trajectory_path(const fs::path& dir, std::size_t m) {
  return dir / "trajectories" / ("member-" + member_name(m) + ".csv");
}

std::string write_member_trajectory(const fs::path& dir, std::size_t m, const SweepPlan::Trajectory& trajectory) {
  if (trajectory.columns.empty()) return kNoTrajectoryFile;
  std::string text;
  for (std::size_t j = 0; j < trajectory.columns.size(); ++j) text += (j ? "," : "") + trajectory.columns[j];
  text += "\n";
  const std::size_t width = trajectory.columns.size();
  for (std::size_t i = 0; i < trajectory.values.size(); ++i) {
    text += exact_text(trajectory.values[i]);
    text += (i + 1) % width == 0 ? "\n" : ",";
  }
  // A link (or a FIFO, a device) planted at the member's name is not written through
  // (write_text_atomically would follow it).
  write_text_atomically(member_trajectory_path(dir, m).string(), text);
  return record_of(text);
}

bool member_trajectory_matches(const fs::path& dir, std::size_t m, const std::string& record) {
  if (record == kNoTrajectoryFile) return true;
  const auto text = read_regular_file(member_trajectory_path(dir, m));
  return text && record_of(*text) == record;
}

void write_trajectories_h5(const fs::path& dir, const std::vector<std::string>& records) {
  Hdf5Output out(dir / "trajectories.h5");
  out.create_group("/members");
  for (std::size_t m = 0; m < records.size(); ++m) {
    if (records[m] == kNoTrajectoryFile) continue;
    const fs::path source = member_trajectory_path(dir, m);
    // Read once, and checked as read: the file the member wrote, or the sweep stops.
    const auto text = read_regular_file(source);
    if (!text || record_of(*text) != records[m])
      throw IoError(quote_for_message(source.string(), 200) + (text ? " changed" : " disappeared") +
                    " while the sweep ran: trajectories.h5 is not written; run the sweep again (it runs member " +
                    std::to_string(m) + " again)");
    const SweepPlan::Trajectory t = parse_member_csv(*text, source);
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
