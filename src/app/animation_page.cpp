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
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {

/// The template src/app/animation_page.html (generated source, CMakeLists.txt).
extern const char* const kAnimationPageTemplate;

AnimationFrames::AnimationFrames(std::uint64_t expected_rows)
    : stride_(std::max<std::uint64_t>(1, (expected_rows + kMaxFrames - 1) / kMaxFrames)) {}

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
  const std::string label = quote_for_message(path, 200);
  // Checked before opening, as for model files: opening a FIFO or a device could block or never end.
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw InvalidInput("view: " + label + " is not a regular file (a CSV written by mechint run is expected)");
  std::ifstream in(path);
  if (!in) throw InvalidInput("view: cannot read " + label);
  std::string line;
  std::uint64_t lines = 0;
  while (std::getline(in, line)) ++lines;
  if (lines < 2) throw InvalidInput("view: " + label + " has no rows (a CSV written by mechint run is expected)");
  in.clear();
  in.seekg(0);
  AnimationFrames frames(lines - 1);
  std::getline(in, line);
  std::vector<std::string> columns;
  for (std::size_t start = 0;;) {
    const auto comma = line.find(',', start);
    columns.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (columns.empty() || columns.front() != "t")
    throw InvalidInput("view: " + label + ":1: the first column must be t (a CSV written by mechint run is expected)");
  frames.header(columns);
  std::vector<double> values(columns.size());
  for (std::uint64_t number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const char* p = line.c_str();
    for (std::size_t c = 0; c < columns.size(); ++c) {
      char* end = nullptr;
      values[c] = std::strtod(p, &end);
      const bool separator_ok = c + 1 < columns.size() ? *end == ',' : (*end == '\0' || *end == '\r');
      if (end == p || !separator_ok || !std::isfinite(values[c]))
        throw InvalidInput("view: " + label + ":" + std::to_string(number) + ": column " + std::to_string(c + 1) + " (" +
                           quote_for_message(columns[c]) + ") is not a finite number, or the row has not " +
                           std::to_string(columns.size()) + " values");
      p = end + (c + 1 < columns.size() ? 1 : 0);
    }
    frames.row(values);
  }
  frames.finish();
  return frames;
}

}  // namespace mechint::app
