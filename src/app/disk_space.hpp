#pragma once
/// \file
/// The disk guard (docs/trustworthy-runs.md, "A run that cannot fit"): before a run writes its rows,
/// the size of its output is estimated and a run that cannot fit in the free space of the file
/// system it writes to is refused with exit 4, instead of filling the disk and failing hours later.

#include <cstdint>
#include <optional>
#include <string>

#include "mechint/integrate/run_loop.hpp"

namespace mechint::app {

/// The rows a run on `schedule` writes (validated): the start, every stride-th step, and the end.
std::uint64_t output_rows(const OutputSchedule& schedule);

/// Bytes an unprivileged writer may still use on the file system that holds `directory`
/// (statvfs: f_bavail × f_frsize); none when the system cannot tell.
std::optional<std::uint64_t> free_bytes_in(const std::string& directory);

/// The same for the file system of an open file descriptor, when it is a regular file (standard
/// output redirected to a file); none for a terminal, a pipe, a device, or when it cannot tell.
std::optional<std::uint64_t> free_bytes_of_regular_file(int fd);

/// "1.5 GB", "870 kB": a size for a message (decimal units).
std::string format_bytes(double bytes);

/// Throws IoError (exit 4) with one line when `rows` rows of `row_bytes` bytes each exceed
/// `free_bytes` on `where` (a directory, for the message): how much the run would write, and
/// --output-every to thin it.
void require_room_for_rows(std::uint64_t rows, std::uint64_t row_bytes, std::uint64_t free_bytes,
                           const std::string& where);

}  // namespace mechint::app
