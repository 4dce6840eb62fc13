#pragma once
/// \file
/// DIR/summary.h5 (DESIGN §9: the summary table in HDF5 beside summary.csv, docs/sweeps.md): one
/// dataset per column of summary.csv at the file's root, their order in the file's attribute
/// `columns`. A column whose every cell is a number (or empty) is float64, an empty cell NaN (a
/// failed member's values); any other column (status) is fixed-length strings. Written through a
/// temporary file and a rename, with no times recorded (app/hdf5_file.hpp).

#include <filesystem>
#include <string>
#include <vector>

#include "app/sweep_csv.hpp"

namespace mechint::app {

/// Writes DIR/summary.h5 from summary.csv's header line and rows (no newlines).
void write_summary_h5(const std::filesystem::path& dir, const std::string& header, const std::vector<std::string>& rows);

}  // namespace mechint::app
