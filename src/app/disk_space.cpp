#include "app/disk_space.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cstdio>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {

std::uint64_t output_rows(const OutputSchedule& schedule) {
  const auto steps = static_cast<std::uint64_t>(schedule.steps());
  const auto stride = static_cast<std::uint64_t>(schedule.stride());
  return 1 + steps / stride + (steps % stride != 0 ? 1 : 0);
}

namespace {
std::uint64_t available(const struct statvfs& s) {
  return static_cast<std::uint64_t>(s.f_bavail) * static_cast<std::uint64_t>(s.f_frsize);
}
}  // namespace

std::optional<std::uint64_t> free_bytes_in(const std::string& directory) {
  struct statvfs s{};
  if (::statvfs(directory.empty() ? "." : directory.c_str(), &s) != 0) return std::nullopt;
  return available(s);
}

std::optional<std::uint64_t> free_bytes_of_regular_file(int fd) {
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  struct statvfs s{};
  if (::fstatvfs(fd, &s) != 0) return std::nullopt;
  return available(s);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 6) {
    bytes /= 1000.0;
    ++u;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buffer;
}

void require_room_for_rows(std::uint64_t rows, std::uint64_t row_bytes, std::uint64_t free_bytes,
                           const std::string& where) {
  // In double: 2^44 rows of a few hundred bytes overflow nothing there.
  const double total = static_cast<double>(rows) * static_cast<double>(row_bytes);
  if (total <= static_cast<double>(free_bytes)) return;
  throw IoError("the run would write " + format_number(static_cast<double>(rows)) + " rows of about " +
                std::to_string(row_bytes) + " bytes (" + format_bytes(total) + "), more than the " +
                format_bytes(static_cast<double>(free_bytes)) + " free on the file system of " +
                quote_for_message(where, 200) + ": write fewer rows with --output-every DT (a multiple of --h)");
}

}  // namespace mechint::app
