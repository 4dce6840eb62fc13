#include "app/sweep_csv.hpp"

namespace mechint::app {

std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

std::optional<std::vector<std::string>> strict_csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  std::size_t i = 0;
  for (;;) {
    if (i < line.size() && line[i] == '"') {  // a quoted cell, to its closing quote
      for (++i;; ++i) {
        if (i >= line.size()) return std::nullopt;
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cells.back() += '"';
            ++i;
          } else {
            ++i;
            break;
          }
        } else {
          cells.back() += line[i];
        }
      }
    } else {
      for (; i < line.size() && line[i] != ','; ++i) {
        if (line[i] == '"') return std::nullopt;
        cells.back() += line[i];
      }
    }
    if (i == line.size()) return cells;
    if (line[i] != ',') return std::nullopt;
    ++i;
    cells.emplace_back();
  }
}

}  // namespace mechint::app
