#include "model_file/diagnostics.hpp"

#include <algorithm>
#include <cstddef>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::model_file {

namespace {

// Names longer than this are not compared: they are not typos of short keys, and the quadratic
// edit distance must stay cheap on hostile input.
constexpr std::size_t kMaxComparedLength = 64;

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

void fail_at(const std::string& file, SourcePosition where, std::string_view what) {
  // printable_line on each part: the label is a path from the command line and `what` may carry
  // pieces of the file; neither may break the line or flood the terminal.
  throw InvalidInput(printable_line(file, 400) + ":" + std::to_string(where.line) + ":" +
                     std::to_string(where.column) + ": " + printable_line(what, 1000));
}

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  if (name.empty() || name.size() > kMaxComparedLength) return "";
  std::string best;
  std::size_t best_distance = 0;
  for (const auto& candidate : candidates) {
    if (candidate.size() > kMaxComparedLength) continue;
    const std::size_t allowed = std::max<std::size_t>(1, std::max(name.size(), candidate.size()) / 3);
    // The lengths alone bound the distance from below: skip the quadratic computation.
    const std::size_t length_difference =
        name.size() > candidate.size() ? name.size() - candidate.size() : candidate.size() - name.size();
    if (length_difference > allowed) continue;
    const std::size_t distance = edit_distance(name, candidate);
    if (distance <= allowed && (best.empty() || distance < best_distance)) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string best = closest_name(name, candidates);
  return best.empty() ? std::string() : " (did you mean " + quote_for_message(best) + "?)";
}

}  // namespace mechint::model_file
