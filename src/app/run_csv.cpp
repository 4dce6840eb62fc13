#include "app/run_csv.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/input_file.hpp"

namespace mechint::app {
namespace {

constexpr const char* kExpected = "a CSV written by mechint run is expected";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool blank(std::string_view line) { return trim(line).empty(); }

/// The number a whole field spells, read as the run wrote it (%.17g, independent of the locale), if
/// it is finite. A value below the smallest normal double reads as the nearest subnormal or zero,
/// as the run computed it.
std::optional<double> finite_number(std::string_view field) {
  double x = 0.0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), x);
  if (field.empty() || end != field.data() + field.size()) return std::nullopt;
  if (error == std::errc::result_out_of_range) {
    // from_chars leaves x unset out of range: tell an underflow (accepted) from an overflow.
    const std::string text(field);
    x = std::strtod(text.c_str(), nullptr);
    if (std::abs(x) > 1.0) return std::nullopt;
  } else if (error != std::errc()) {
    return std::nullopt;
  }
  if (!std::isfinite(x)) return std::nullopt;
  return x;
}

/// The fields of one line, split at every comma (a run writes no quoted fields), trimmed; at most
/// `limit` + 1 of them, so that a line of commas does not make a field per byte.
std::vector<std::string_view> split_fields(std::string_view line, std::size_t limit) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start)));
    if (comma == std::string_view::npos || fields.size() > limit) return fields;
    start = comma + 1;
  }
}

}  // namespace

RunCsv::RunCsv(const std::string& path)
    : in_(std::make_unique<model_file::InputFile>(path, "CSV", kMaxSize)) {
  std::string line;
  while (in_->read_line(line, model_file::kMaxCsvLineLength)) {
    if (in_->line_number() == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // a UTF-8 mark
    if (!blank(line)) break;
  }
  if (blank(line)) in_->fail_at_line(std::string("the file is empty: ") + kExpected);
  header_line_ = in_->line_number();
  const auto names = split_fields(line, kMaxColumns);
  if (names.size() > kMaxColumns)
    in_->fail_at_line("more than " + std::to_string(kMaxColumns) + " columns in the header: " + kExpected);
  if (names.front() != "t")
    in_->fail_at_line("the first column must be t, not " + quote_for_message(names.front()) + ": " + kExpected);
  std::set<std::string_view> seen;
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (names[c].empty())
      in_->fail_at_line("column " + std::to_string(c + 1) + " of the header has no name: " + kExpected);
    if (!seen.insert(names[c]).second)
      in_->fail_at_line("column " + quote_for_message(names[c]) + " appears twice in the header");
    columns_.emplace_back(names[c]);
  }
  while (in_->read_line(line, model_file::kMaxCsvLineLength))
    if (!blank(line)) ++rows_;
  if (rows_ == 0) in_->fail_at_line("no rows after the header: " + std::string(kExpected));
}

RunCsv::~RunCsv() = default;

void RunCsv::read_rows(const std::function<void(const std::vector<double>&)>& row) {
  in_->rewind();
  std::string line;
  for (std::uint64_t skipped = 0; skipped < header_line_; ++skipped) in_->read_line(line, model_file::kMaxCsvLineLength);
  std::vector<double> values(columns_.size());
  bool first = true;
  double previous_t = 0.0;
  while (in_->read_line(line, model_file::kMaxCsvLineLength)) {
    if (blank(line)) continue;
    const auto fields = split_fields(line, columns_.size());
    if (fields.size() != columns_.size())
      in_->fail_at_line((fields.size() > columns_.size() ? "more than " + std::to_string(columns_.size())
                                                         : std::to_string(fields.size())) +
                        " values, expected " + std::to_string(columns_.size()) + " as the header's columns");
    for (std::size_t c = 0; c < fields.size(); ++c) {
      const std::string_view field = fields[c];
      const auto x = finite_number(field);
      if (!x)
        in_->fail_at_line("column " + std::to_string(c + 1) + " (" + quote_for_message(columns_[c]) +
                          ") is not a finite number: " + quote_for_message(field));
      values[c] = *x;
    }
    const std::string problem = run_row_problem(columns_, values, first ? nullptr : &previous_t);
    if (!problem.empty()) in_->fail_at_line(problem);
    previous_t = values[0];
    first = false;
    row(values);
  }
}

std::string run_row_problem(const std::vector<std::string>& columns, const std::vector<double>& values,
                            const double* previous_t) {
  for (std::size_t c = 0; c < values.size() && c < columns.size(); ++c)
    if (!std::isfinite(values[c]))
      return "column " + std::to_string(c + 1) + " (" + quote_for_message(columns[c]) +
             ") is not a finite number: " + format_number(values[c]);
  // The page plays the rows in order of t: a row going back in time (rows edited or joined) would
  // draw a motion the run never had.
  if (previous_t && !values.empty() && !(values[0] > *previous_t))
    return "t = " + format_number(values[0], 17) + " is not after the previous row's t = " +
           format_number(*previous_t, 17) + " (a run's rows have increasing t)";
  return {};
}

}  // namespace mechint::app
