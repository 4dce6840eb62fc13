#pragma once
/// \file
/// The animated page of a run (DESIGN §11, docs/animations.md): `mechint run --animate FILE.html`
/// and `mechint view RUN.csv --system SYSTEM --out FILE.html`. One self-contained HTML file — the
/// template src/app/animation_page.html, compiled in, with the run's data written into it — that
/// draws the mechanism (app/drawing.hpp) and plots energy, momenta, multipliers and controls.

#include <cstdint>
#include <string>
#include <vector>

#include "app/drawing.hpp"

namespace mechint::app {

/// The rows a page keeps. A browser holds a few tens of thousands of frames without effort, so a
/// longer run is decimated: every stride-th row, stride = ceil(rows / F), and the last row always,
/// with F = kMaxFrames, or fewer for wide rows: F = kMaxKeptValues / columns when that is smaller.
/// A page of 10^6 rows thus holds at most kMaxFrames + 1 frames (about 4 MB for the double
/// pendulum), and what is held while a run or a CSV is read stays bounded whatever its width.
class AnimationFrames {
 public:
  static constexpr std::uint64_t kMaxFrames = 20000;
  /// The most numbers the kept rows hold (16 MB).
  static constexpr std::uint64_t kMaxKeptValues = 2000000;

  /// `expected_rows`: the rows the run will write (app/disk_space.hpp, output_rows).
  explicit AnimationFrames(std::uint64_t expected_rows);

  /// The columns; call before the first row (it sets the stride for their number).
  void header(const std::vector<std::string>& columns);
  void row(const std::vector<double>& values);
  /// Keeps the last row if the stride skipped it; call once after the last row.
  void finish();

  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::vector<double>>& rows() const { return kept_; }
  std::uint64_t rows_seen() const { return seen_; }
  std::uint64_t stride() const { return stride_; }

 private:
  std::uint64_t expected_rows_;
  std::uint64_t stride_;
  std::uint64_t seen_ = 0;
  bool last_kept_ = false;
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> kept_;
  std::vector<double> last_;
};

/// The most numbers (times, positions, plotted values) a page holds, about 10 MB of text: frames
/// of a drawing with many points are thinned further to stay below it.
inline constexpr std::size_t kMaxPageValues = 500000;

/// The page's text: `drawing` evaluated at every kept row (its coordinates found by name among
/// the columns; InvalidInput when one is missing), the time series by column name (energy, jacobi,
/// htilde; J…, px; lambda…; u…), `title` as a heading.
std::string animation_page(const Drawing& drawing, const AnimationFrames& frames, const std::string& title);

/// Refuses (InvalidInput, naming `option`) a page path that cannot be written: a directory, or a
/// file in a missing directory (app/file_writer.hpp's check_output_path). Checked before a run, so
/// that a long run does not end unwritten.
void check_page_path(const std::string& option, const std::string& path);

/// Writes the page to `path`, a path the user named (`option` in messages), by app/file_writer.hpp:
/// a regular file atomically; "-", a device, a FIFO or a terminal written through, never replaced.
void write_animation_page(const std::string& path, const Drawing& drawing, const AnimationFrames& frames,
                          const std::string& title, const std::string& option = "--out");

/// Reads a CSV written by `mechint run` into frames (decimated as a run's would be). InvalidInput
/// `FILE:LINE: what` for what is not such a file (app/run_csv.hpp): empty, no header with t first,
/// a row of another length, a value that is not a finite number, t not increasing.
AnimationFrames read_run_csv(const std::string& path);

}  // namespace mechint::app
