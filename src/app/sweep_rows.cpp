#include "app/sweep_rows.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace mechint::app {
namespace {

/// NAME followed by digits only, at least one (lambda1, u2, mu3).
bool numbered(const std::string& name, const std::string& stem) {
  if (name.size() <= stem.size() || name.compare(0, stem.size(), stem) != 0) return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(stem.size()), name.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

/// A column that the recorders write after the Noether momenta: the momenta end before it.
bool after_momenta(const std::string& name) {
  const auto ends_with = [&](const std::string& tail) {
    return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends_with("_work") || name == "constraint_residual" || name == "nonholonomic_residual" ||
         numbered(name, "lambda") || numbered(name, "mu") || numbered(name, "u") || name == "megno" ||
         name == "lyapunov" || name == "fli" || name == "impacts";
}

}  // namespace

RunColumns RunColumns::of(const std::vector<std::string>& header) {
  RunColumns c;
  c.names = header;
  for (std::size_t i = 1; i < header.size(); ++i)
    if (header[i] == "energy" || header[i] == "jacobi") {
      c.energy = static_cast<std::ptrdiff_t>(i);
      break;
    }
  // Without an energy column no recorder of mechint wrote the header: a bug, not a member's failure.
  if (header.empty() || header.front() != "t" || c.energy < 0)
    throw std::logic_error("a sweep member's run has no t or energy column");
  c.state_end = static_cast<std::size_t>(c.energy);
  std::size_t i = c.state_end + 1;
  if (i < header.size() && header[i] == "htilde") ++i;
  for (; i < header.size() && !after_momenta(header[i]); ++i) c.momenta.push_back(i);
  for (std::size_t j = 0; j < header.size(); ++j) {
    if (header[j] == "constraint_residual") c.constraint_residual = static_cast<std::ptrdiff_t>(j);
    if (header[j] == "nonholonomic_residual") c.nonholonomic_residual = static_cast<std::ptrdiff_t>(j);
    if (header[j] == "megno") c.megno = static_cast<std::ptrdiff_t>(j);
    if (header[j] == "lyapunov") c.lyapunov = static_cast<std::ptrdiff_t>(j);
    if (header[j] == "fli") c.fli = static_cast<std::ptrdiff_t>(j);
  }
  return c;
}

void MemberRows::row(const std::vector<double>& values) {
  if (rows_ == 0) first_ = values;
  last_ = values;  // the same size every row: no allocation after the first
  last_kept_ = stride_ > 0 && rows_ % stride_ == 0;
  if (last_kept_) kept_.insert(kept_.end(), values.begin(), values.end());
  ++rows_;
  if (columns_.energy >= 0) {
    const auto e = static_cast<std::size_t>(columns_.energy);
    energy_error_ = std::max(energy_error_, std::abs(values[e] - first_[e]));
  }
  for (const std::size_t j : columns_.momenta)
    momentum_error_ = std::max(momentum_error_, std::abs(values[j] - first_[j]));
  for (const std::ptrdiff_t j : {columns_.constraint_residual, columns_.nonholonomic_residual})
    if (j >= 0) constraint_residual_ = std::max(constraint_residual_, values[static_cast<std::size_t>(j)]);
}

std::vector<double> MemberRows::trajectory() const {
  std::vector<double> rows = kept_;
  if (rows_ > 0 && !last_kept_) rows.insert(rows.end(), last_.begin(), last_.end());
  return rows;
}

}  // namespace mechint::app
