#include "app/animation_page.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "app/exact_number.hpp"
#include "app/file_writer.hpp"
#include "app/output.hpp"
#include "app/run_csv.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {

/// The template src/app/animation_page.html (generated source, CMakeLists.txt).
extern const char* const kAnimationPageTemplate;

namespace {

std::uint64_t stride_for(std::uint64_t rows, std::uint64_t max_frames) {
  return std::max<std::uint64_t>(1, (rows + max_frames - 1) / max_frames);
}

}  // namespace

AnimationFrames::AnimationFrames(std::uint64_t expected_rows)
    : expected_rows_(expected_rows), stride_(stride_for(expected_rows, kMaxFrames)) {}

void AnimationFrames::header(const std::vector<std::string>& columns) {
  columns_ = columns;
  // Wide rows (a chain of hundreds of links) keep fewer frames, so that what is held stays within
  // kMaxKeptValues whatever the width; the page thins them further by its drawing (animation_page).
  const std::uint64_t by_width = std::max<std::uint64_t>(2, kMaxKeptValues / std::max<std::size_t>(1, columns.size()));
  stride_ = std::max(stride_, stride_for(expected_rows_, std::min(kMaxFrames, by_width)));
}

void AnimationFrames::row(const std::vector<double>& values) {
  last_kept_ = seen_ % stride_ == 0;
  if (last_kept_)
    kept_.push_back(values);
  else
    last_ = values;
  ++seen_;
}

void AnimationFrames::finish() {
  if (!last_kept_ && !last_.empty()) kept_.push_back(last_);
  last_kept_ = true;
}

namespace {

/// A JSON string safe inside a <script> element: "<" escaped, so that no "</script>" ends it.
std::string script_string(const std::string& text) {
  const std::string json = nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  for (char c : json) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

void append_number(std::string& out, double x) {
  char buffer[kExactNumberCapacity];
  out.append(buffer, static_cast<std::size_t>(write_exact_number(x, buffer)));
}

/// Which plot a column belongs to, or "" for none.
std::string group_of(const std::string& column) {
  static const std::regex momentum("J[A-Za-z0-9]*|px"), multiplier("lambda[0-9]+"), control("u[0-9]+");
  if (column == "energy" || column == "jacobi" || column == "htilde") return "energy";
  if (std::regex_match(column, momentum)) return "momentum";
  if (std::regex_match(column, multiplier)) return "multipliers";
  if (std::regex_match(column, control)) return "controls";
  return "";
}

}  // namespace

std::string animation_page(const Drawing& drawing, const AnimationFrames& frames, const std::string& title) {
  const auto& columns = frames.columns();
  if (frames.rows().empty()) throw InvalidInput("the run has no rows to animate");
  // A drawing of many points (a chain of hundreds of links) thins the frames further, so that the
  // page holds at most kMaxPageValues numbers whatever the drawing: every `thin`-th kept row, and
  // the last.
  std::size_t series = 0;
  for (const auto& c : columns) series += group_of(c).empty() ? 0 : 1;
  const std::size_t per_frame = 1 + series + drawing.moving_points() * static_cast<std::size_t>(drawing.dimension());
  const std::size_t kept = frames.rows().size();
  const std::size_t thin = std::max<std::size_t>(1, (kept * per_frame + kMaxPageValues - 1) / kMaxPageValues);
  std::vector<std::vector<double>> thinned;
  if (thin > 1) {
    for (std::size_t f = 0; f < kept; f += thin) thinned.push_back(frames.rows()[f]);
    if ((kept - 1) % thin != 0) thinned.push_back(frames.rows().back());
  }
  const auto& rows = thin > 1 ? thinned : frames.rows();
  const std::uint64_t stride = frames.stride() * thin;
  std::vector<std::size_t> q_columns;
  for (const auto& name : drawing.coordinates()) {
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end())
      throw InvalidInput("the drawing needs the coordinate " + quote_for_message(name) +
                         ", which is not a column of the run");
    q_columns.push_back(static_cast<std::size_t>(it - columns.begin()));
  }

  std::string data = "{\"title\":" + script_string(title) + ",\"dimension\":" + std::to_string(drawing.dimension()) +
                     ",\"moving\":" + std::to_string(drawing.moving_points()) + ",\"names\":[";
  for (std::size_t i = 0; i < drawing.point_names().size(); ++i)
    data += (i ? "," : "") + script_string(drawing.point_names()[i]);
  data += "],\"fixed\":[";
  for (std::size_t i = 0; i < drawing.fixed_positions().size(); ++i) {
    data += i ? ",[" : "[";
    for (std::size_t k = 0; k < drawing.fixed_positions()[i].size(); ++k) {
      if (k) data += ',';
      append_number(data, drawing.fixed_positions()[i][k]);
    }
    data += ']';
  }
  const auto pairs = [&](const std::vector<std::pair<int, int>>& links) {
    data += '[';
    for (std::size_t i = 0; i < links.size(); ++i)
      data += (i ? ",[" : "[") + std::to_string(links[i].first) + "," + std::to_string(links[i].second) + "]";
    data += ']';
  };
  data += "],\"links\":";
  pairs(drawing.links());
  data += ",\"walls\":[";
  for (std::size_t i = 0; i < drawing.walls().size(); ++i) {
    const auto& w = drawing.walls()[i];
    data += (i ? ",[" : "[") + std::to_string(w[0]) + "," + std::to_string(w[1]) + "," + std::to_string(w[2]) + "]";
  }
  data += ']';
  // The impacts from the run's own count (the column `impacts`, cumulative, so that thinning keeps
  // every one): the frames whose interval (previous frame, this one] holds one. null without the
  // column: the page then guesses from positions.
  data += ",\"impact_frames\":";
  const auto counted = std::find(columns.begin(), columns.end(), "impacts");
  if (counted == columns.end()) {
    data += "null";
  } else {
    const auto c = static_cast<std::size_t>(counted - columns.begin());
    data += '[';
    bool first = true;
    for (std::size_t f = 1; f < rows.size(); ++f)
      if (rows[f][c] > rows[f - 1][c]) {
        data += (first ? "" : ",") + std::to_string(f);
        first = false;
      }
    data += ']';
  }
  data += ",\"t\":[";
  for (std::size_t f = 0; f < rows.size(); ++f) {
    if (f) data += ',';
    append_number(data, rows[f][0]);
  }
  data += "],\"positions\":[";
  std::vector<double> q(q_columns.size()), positions;
  for (std::size_t f = 0; f < rows.size(); ++f) {
    for (std::size_t i = 0; i < q_columns.size(); ++i) q[i] = rows[f][q_columns[i]];
    positions.clear();
    drawing.append_positions(q, positions);
    for (std::size_t k = 0; k < positions.size(); ++k) {
      if (!std::isfinite(positions[k]))
        throw InvalidInput("the drawing is not finite at t = " + format_number(rows[f][0]) + ": check its expressions");
      if (f || k) data += ',';
      append_number(data, positions[k]);
    }
  }
  data += "],\"groups\":[";
  bool first_group = true;
  for (const std::string group : {"energy", "momentum", "multipliers", "controls"}) {
    std::string series;
    for (std::size_t c = 1; c < columns.size(); ++c) {
      if (group_of(columns[c]) != group) continue;
      series += (series.empty() ? "{\"name\":" : ",{\"name\":") + script_string(columns[c]) + ",\"values\":[";
      for (std::size_t f = 0; f < rows.size(); ++f) {
        if (f) series += ',';
        append_number(series, rows[f][c]);
      }
      series += "]}";
    }
    if (series.empty()) continue;
    data += (first_group ? "" : ",") + std::string("{\"name\":\"") + group + "\",\"series\":[" + series + "]}";
    first_group = false;
  }
  const std::string note =
      stride > 1 ? "Every " + std::to_string(stride) + "th of the run's " +
                                std::to_string(frames.rows_seen()) + " rows is shown (" + std::to_string(rows.size()) +
                                " frames, the last row included)."
                          : std::to_string(rows.size()) + " frames, every row of the run.";
  data += "],\"frames_note\":" + script_string(note) + ",\"trail_frames\":" +
          std::to_string(std::max<std::size_t>(200, rows.size() / 5)) + "}";

  std::string page = kAnimationPageTemplate;
  const std::string marker = "/*MECHINT_DATA*/null";
  const auto at = page.find(marker);
  if (at == std::string::npos) throw std::logic_error("the animation template has no data marker");
  page.replace(at, marker.size(), data);
  return page;
}

void check_page_path(const std::string& option, const std::string& path) { check_output_path(option, path); }

void write_animation_page(const std::string& path, const Drawing& drawing, const AnimationFrames& frames,
                          const std::string& title, const std::string& option) {
  write_file(path, animation_page(drawing, frames, title), WriteOptions{WritePath::kUserNamed, false, option});
}

AnimationFrames read_run_csv(const std::string& path) {
  RunCsv csv(path);
  AnimationFrames frames(csv.rows());
  frames.header(csv.columns());
  csv.read_rows([&](const std::vector<double>& values) { frames.row(values); });
  frames.finish();
  return frames;
}

}  // namespace mechint::app
