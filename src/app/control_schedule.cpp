#include "app/control_schedule.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "app/parameters.hpp"
#include "model_file/input_file.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

std::string_view trim(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

/// The cells of one CSV line (no quoting: names and numbers contain no commas), trimmed.
std::vector<std::string> split_cells(std::string_view line) {
  std::vector<std::string> cells;
  for (std::size_t start = 0;;) {
    const std::size_t comma = line.find(',', start);
    cells.emplace_back(trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start)));
    if (comma == std::string_view::npos) return cells;
    start = comma + 1;
  }
}

}  // namespace

ControlSchedule ControlSchedule::constant(std::vector<double> values) {
  ControlSchedule s;
  s.width_ = static_cast<int>(values.size());
  s.times_ = {0.0};
  s.values_ = std::move(values);
  return s;
}

ControlSchedule ControlSchedule::read(const std::string& path, const std::vector<std::string>& names) {
  // A regular file only, of bounded size, as model and problem files: /dev/zero or a FIFO would be
  // read forever.
  constexpr std::uint64_t kMaxControlsFileSize = std::uint64_t{1} << 30;
  model_file::InputFile in(path, "controls file", kMaxControlsFileSize);
  const auto fail = [&](const std::string& what) { in.fail_at_line(what); };
  const auto next_line = [&](std::string& line) { return in.read_line(line, model_file::kMaxCsvLineLength); };

  // Header: t, then every control name once; column_of[c] is the control of CSV column c + 1.
  std::string line;
  std::vector<int> column_of;
  std::vector<std::string> header;
  while (header.empty() && next_line(line)) {
    if (trim(line).empty()) continue;
    header = split_cells(line);
  }
  if (header.empty()) {
    fail("the controls file is empty: it needs a header t," + join_names(names) + " and rows");
  }
  if (header.front() != "t") fail("the first column must be t, got " + quote_for_message(header.front()));
  std::vector<bool> seen(names.size(), false);
  for (std::size_t c = 1; c < header.size(); ++c) {
    const auto it = std::find(names.begin(), names.end(), header[c]);
    if (it == names.end())
      fail("unknown control " + quote_for_message(header[c]) + " in the header (controls: " + join_names(names) + ")");
    const auto index = static_cast<std::size_t>(it - names.begin());
    if (seen[index]) fail("control " + quote_for_message(header[c]) + " appears twice in the header");
    seen[index] = true;
    column_of.push_back(static_cast<int>(index));
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!seen[i]) fail("the header has no column for control " + quote_for_message(names[i]));

  ControlSchedule s;
  s.width_ = static_cast<int>(names.size());
  while (next_line(line)) {
    if (trim(line).empty()) continue;
    const auto cells = split_cells(line);
    if (cells.size() != header.size())
      fail(std::to_string(cells.size()) + " values, expected " + std::to_string(header.size()) + " (" +
           join_names(header) + ")");
    double t = 0.0;
    std::vector<double> row(names.size());
    try {
      t = parse_real("t", cells[0]);
      for (std::size_t c = 1; c < cells.size(); ++c) row[column_of[c - 1]] = parse_real(header[c], cells[c]);
    } catch (const InvalidInput& e) {
      fail(e.what());
    }
    if (!s.times_.empty() && !(t > s.times_.back()))
      fail("t = " + format_number(t, 17) + " is not after the previous row's t = " +
           format_number(s.times_.back(), 17) + " (rows must have increasing t)");
    s.times_.push_back(t);
    s.values_.insert(s.values_.end(), row.begin(), row.end());
  }
  if (s.times_.empty()) fail("no rows after the header: give at least one row t," + join_names(names));
  return s;
}

ControlSchedule ControlSchedule::from_table(const ControlTable& table, const std::vector<std::string>& names) {
  const auto fail = [](const std::string& what) { throw InvalidInput("controls: " + what); };
  std::vector<const std::vector<double>*> column_of(names.size(), nullptr);
  for (const auto& [name, values] : table.columns) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) fail("unknown control " + quote_for_message(name) + " (controls: " + join_names(names) + ")");
    const auto index = static_cast<std::size_t>(it - names.begin());
    if (column_of[index]) fail("control " + quote_for_message(name) + " is given twice");
    if (values.size() != table.t.size())
      fail("control " + quote_for_message(name) + " has " + std::to_string(values.size()) + " values for " +
           std::to_string(table.t.size()) + " times t");
    column_of[index] = &values;
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!column_of[i]) fail("no values for control " + quote_for_message(names[i]));
  if (table.t.empty()) fail("no rows: give at least one time t and the controls' values at it");
  ControlSchedule s;
  s.width_ = static_cast<int>(names.size());
  for (std::size_t r = 0; r < table.t.size(); ++r) {
    const double t = table.t[r];
    if (!std::isfinite(t)) fail("t[" + std::to_string(r) + "] is not a finite number");
    if (r > 0 && !(t > table.t[r - 1]))
      fail("t[" + std::to_string(r) + "] = " + format_number(t, 17) + " is not after t[" + std::to_string(r - 1) +
           "] = " + format_number(table.t[r - 1], 17) + " (rows must have increasing t)");
    s.times_.push_back(t);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const double u = (*column_of[i])[r];
      if (!std::isfinite(u)) fail(names[i] + "[" + std::to_string(r) + "] is not a finite number");
      s.values_.push_back(u);
    }
  }
  return s;
}

std::string ControlSchedule::describe() const {
  // FNV-1a over the bits of every number: a resumed run must be given the same schedule.
  std::uint64_t hash = 14695981039346656037ull;
  const auto mix = [&](double x) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    for (int b = 0; b < 8; ++b) hash = (hash ^ ((bits >> (8 * b)) & 0xff)) * 1099511628211ull;
  };
  for (const double t : times_) mix(t);
  for (const double u : values_) mix(u);
  return "controls=" + std::to_string(times_.size()) + " rows of " + std::to_string(width_) + ", digest " +
         std::to_string(hash);
}

std::vector<std::string> numbered_controls(int m) {
  std::vector<std::string> names;
  for (int i = 1; i <= m; ++i) names.push_back("u" + std::to_string(i));
  return names;
}

}  // namespace mechint::app
