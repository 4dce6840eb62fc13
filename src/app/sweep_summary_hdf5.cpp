#include "app/sweep_summary_hdf5.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "app/hdf5_file.hpp"

namespace mechint::app {
namespace {

/// The number a whole cell spells, or none.
bool number_of(const std::string& cell, double& value) {
  if (cell.empty()) {
    value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  char* end = nullptr;
  value = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size();
}

}  // namespace

void write_summary_h5(const std::filesystem::path& dir, const std::string& header, const std::vector<std::string>& rows) {
  const std::vector<std::string> columns = csv_cells(header);
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size());
  for (const auto& row : rows) cells.push_back(csv_cells(row));
  Hdf5Output out(dir / "summary.h5");
  for (std::size_t j = 0; j < columns.size(); ++j) {
    std::vector<double> numbers(rows.size());
    std::vector<std::string> texts(rows.size());
    bool numeric = true;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      texts[i] = j < cells[i].size() ? cells[i][j] : std::string();
      numeric = numeric && number_of(texts[i], numbers[i]);
    }
    if (numeric)
      out.write_table("/" + columns[j], rows.size(), 1, numbers.data());
    else
      out.write_strings("/" + columns[j], texts);
  }
  out.write_string_attribute("/", "columns", columns);
  out.commit();
}

}  // namespace mechint::app
