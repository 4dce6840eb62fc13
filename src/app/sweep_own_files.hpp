#pragma once
/// \file
/// The files a sweep rewrites in its directory (sweep.json, summary.csv, summary.h5,
/// trajectories.h5, trajectories/member-NNNNNN.csv): nothing in DIR is trusted, and mechint's one
/// writer follows a link and writes through a FIFO or a device (as `--out` asks), so a link or
/// anything but a regular file planted at such a name is refused, never written through.

#include <filesystem>
#include <string>

namespace mechint::app {

/// `path` as a string when it does not exist or is a regular file. Throws IoError (exit 4, one
/// line: remove it and run again) when it is a link, a directory, a FIFO, a socket or a device.
std::string sweep_own_file(const std::filesystem::path& path);

}  // namespace mechint::app
