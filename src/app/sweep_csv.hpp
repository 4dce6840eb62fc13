#pragma once
/// \file
/// The cells of a line of summary.csv or of the sweep's journal (RFC 4180 quoting, the status cell
/// being the one that may be quoted: app/sweep_file.hpp, csv_cell).

#include <optional>
#include <string>
#include <vector>

namespace mechint::app {

/// The cells of one CSV line (quoted cells unquoted, "" inside them one ").
std::vector<std::string> csv_cells(const std::string& line);

/// The same, or none when the line is not well formed: a quote left open, a quote inside an
/// unquoted cell, anything but a comma after a closing quote.
std::optional<std::vector<std::string>> strict_csv_cells(const std::string& line);

}  // namespace mechint::app
