#pragma once
/// \file
/// One updating progress line on a terminal (docs/trustworthy-runs.md, "Progress"): what fraction of
/// a long run is done, how fast it goes and how long it has left, redrawn in place with '\r' at most
/// a few times a second and erased at the end. Nothing at all when stderr is not a terminal (a log
/// file, a pipe, a test), so that scripts see stderr empty on success. The one line of `run`,
/// `sweep`, `optimize` (Ipopt's iterations, open-ended) and `reproduce` (app/experiment_progress.hpp);
/// a log sharing the terminal with it writes through app/progress_log.hpp.

#include <chrono>
#include <string>

namespace mechint::app {

class ProgressLine {
 public:
  /// A line "LABEL: 42% t = 4.2 of 10 (…/s, 6 s left)" for work from 0 to `total`, drawn on
  /// stderr when `enabled` and stderr is a terminal; with a `unit` (counted work, e.g. "members"),
  /// "LABEL: 42% 42 of 100 members (…/s, 6 s left)". The redraw interval is 250 ms;
  /// MECHINT_PROGRESS_INTERVAL_MS overrides it (0: at every update — for tests, which must not
  /// depend on the machine's speed).
  ProgressLine(std::string label, double total, bool enabled, std::string unit = "");
  /// Counted work whose extent is not known in advance (Ipopt's iterations: only a limit is):
  /// "LABEL: 12 iterations  (5.1 per s)" — no fraction and no time left, which would be guesses.
  struct OpenEnded {};
  ProgressLine(std::string label, OpenEnded, bool enabled, std::string unit);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  /// Erases the line (also when a failure leaves the run: its message then starts on a clean line).
  ~ProgressLine();

  bool active() const { return active_; }

  /// The work has reached `done` (of `total`). Cheap when nothing is drawn: one comparison when
  /// inactive, one read of the monotonic clock (vDSO, no system call) otherwise.
  void update(double done) {
    if (!active_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now < next_draw_) return;
    draw(done, now, {});
  }

  /// As update(done), with the text `detail()` appended to the line (e.g. Ipopt's constraint
  /// violation); `detail` is called only when the line is redrawn.
  template <class Detail>
  void update(double done, Detail&& detail) {
    if (!active_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now < next_draw_) return;
    draw(done, now, detail());
  }

  /// Erases the line now (idempotent).
  void clear();

 private:
  void draw(double done, std::chrono::steady_clock::time_point now, const std::string& detail);

  std::string label_;
  std::string unit_;  ///< empty: the work is model time t
  double total_;  ///< 0 for open-ended work
  bool open_ended_ = false;
  bool active_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::duration interval_;
  std::chrono::steady_clock::time_point start_, next_draw_;
};

/// True while a progress line is on the terminal: the SIGINT/SIGTERM handler
/// (app/temporary_files.cpp) erases it before writing its own line. A lock-free atomic read,
/// async-signal-safe.
bool progress_line_shown() noexcept;

/// Erases the progress line on the terminal, if one is shown, so that a line of a log starts clean
/// (app/progress_log.hpp); the line is drawn again at its next update.
void erase_progress_line();

/// The redraw interval: MECHINT_PROGRESS_INTERVAL_MS if set to a whole number of milliseconds,
/// else 250 ms.
std::chrono::milliseconds progress_interval();

}  // namespace mechint::app
