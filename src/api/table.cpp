// mechint::Table (mechint/system.hpp): columns of numbers by name.
#include <cmath>
#include <limits>

#include "mechint/core/format.hpp"
#include "mechint/system.hpp"

namespace mechint {

Table::Table(std::vector<std::string> columns, std::vector<std::vector<double>> values,
             std::map<std::string, std::vector<std::string>> text)
    : columns_(std::move(columns)), values_(std::move(values)), text_(std::move(text)) {
  if (values_.size() != columns_.size()) throw InvalidInput("Table: one column of values per name");
  for (const auto& column : values_)
    if (column.size() != values_.front().size()) throw InvalidInput("Table: every column must have as many rows");
}

bool Table::has(const std::string& column) const {
  for (const auto& name : columns_)
    if (name == column) return true;
  return false;
}

std::size_t Table::index_of(const std::string& column) const {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == column) return i;
  std::string names;
  for (const auto& name : columns_) names += (names.empty() ? "" : ", ") + name;
  throw InvalidInput("no column " + quote_for_message(column) + " (columns: " + names + ")");
}

std::span<const double> Table::operator[](const std::string& column) const& { return values_[index_of(column)]; }

const std::vector<std::string>& Table::text(const std::string& column) const& {
  static const std::vector<std::string> kNone;
  index_of(column);  // an unknown name is refused as by operator[]
  const auto found = text_.find(column);
  return found == text_.end() ? kNone : found->second;
}

std::vector<double> Table::row(std::size_t i) const {
  if (i >= rows()) throw InvalidInput("row " + std::to_string(i) + " of a table of " + std::to_string(rows()) + " rows");
  std::vector<double> out;
  out.reserve(values_.size());
  for (const auto& column : values_) out.push_back(column[i]);
  return out;
}

}  // namespace mechint
