#pragma once
/// \file
/// The trajectories of a sweep's members (`trajectories = true`, DESIGN §9, docs/sweeps.md): each
/// member's rows at `output_every` — those `mechint run --output-every` writes with its values — go
/// to DIR/trajectories/member-NNNNNN.csv as the member finishes (before its summary row is
/// journaled, so a member a rerun skips has its file), and, once every member is done,
/// DIR/trajectories.h5 gathers them in member order: a dataset /members/NNNNNN (rows x columns,
/// float64) per member with its column names as the attribute `columns`. Both are written through
/// a temporary file and a rename; the HDF5 file records no times, so its bytes depend only on the
/// rows (the same for any number of threads or ranks, and after an interrupted sweep is rerun).
///
/// Nothing in DIR is trusted: each member's journal row records its file ("none": it wrote none;
/// else its size and digest, app/sweep_digest.hpp). A rerun checks every journaled member's file
/// against its record and runs the member again when the file is missing or not the one written;
/// trajectories.h5 is assembled from the recorded files only, each checked as it is read.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/sweep_plan.hpp"

namespace mechint::app {

/// DIR/trajectories/member-NNNNNN.csv of member m.
std::filesystem::path member_trajectory_path(const std::filesystem::path& dir, std::size_t m);

/// The record of a member that wrote no trajectory file.
inline constexpr const char* kNoTrajectoryFile = "none";

/// Writes member m's rows (nothing when it has no column: it failed before its first row) and
/// returns the file's record for the journal: "<bytes>:<digest>", or kNoTrajectoryFile.
std::string write_member_trajectory(const std::filesystem::path& dir, std::size_t m,
                                    const SweepPlan::Trajectory& trajectory);

/// Whether member m's file is the one its `record` describes (kNoTrajectoryFile: always): a regular
/// file, not a link, of that size and digest.
bool member_trajectory_matches(const std::filesystem::path& dir, std::size_t m, const std::string& record);

/// Gathers the members' recorded files (records[m], kNoTrajectoryFile: no dataset) into
/// DIR/trajectories.h5. Throws IoError when a file cannot be read or written, or is not the one
/// recorded (missing, changed while the sweep ran: a rerun runs its member again).
void write_trajectories_h5(const std::filesystem::path& dir, const std::vector<std::string>& records);

/// Member m's dataset of an HDF5 file written by write_trajectories_h5 (none: no such dataset).
std::optional<SweepPlan::Trajectory> read_trajectory_h5(const std::filesystem::path& file, std::size_t m);

}  // namespace mechint::app
