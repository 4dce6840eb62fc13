#include "app/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mechint/core/format.hpp"

namespace mechint::app {
namespace {

std::atomic<bool> line_shown{false};
static_assert(std::atomic<bool>::is_always_lock_free, "read by a signal handler");

/// Writes all of `text` to stderr; a terminal that refuses it only loses the line.
void write_stderr(const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + written, text.size() - written);
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

std::string duration_text(double seconds) {
  char buffer[32];
  if (seconds < 60.0)
    std::snprintf(buffer, sizeof buffer, "%.0f s", seconds);
  else if (seconds < 3600.0)
    std::snprintf(buffer, sizeof buffer, "%.0f min %02.0f s", std::floor(seconds / 60.0), std::fmod(seconds, 60.0));
  else
    std::snprintf(buffer, sizeof buffer, "%.0f h %02.0f min", std::floor(seconds / 3600.0),
                  std::floor(std::fmod(seconds, 3600.0) / 60.0));
  return buffer;
}

}  // namespace

bool progress_line_shown() noexcept { return line_shown.load(); }

void erase_progress_line() {
  if (line_shown.exchange(false)) write_stderr("\r\033[K");  // carriage return, erase to the end of the line
}

std::chrono::milliseconds progress_interval() {
  if (const char* text = std::getenv("MECHINT_PROGRESS_INTERVAL_MS")) {
    char* end = nullptr;
    const long ms = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && ms >= 0) return std::chrono::milliseconds(ms);
  }
  return std::chrono::milliseconds(250);
}

ProgressLine::ProgressLine(std::string label, double total, bool enabled, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), total_(total), active_(enabled && total > 0.0 && ::isatty(STDERR_FILENO) == 1),
      interval_(progress_interval()) {
  start_ = std::chrono::steady_clock::now();
  // The first line after one interval: a run that ends sooner shows nothing.
  next_draw_ = start_ + interval_;
}

ProgressLine::ProgressLine(std::string label, OpenEnded, bool enabled, std::string unit)
    : ProgressLine(std::move(label), 1.0, enabled, std::move(unit)) {
  total_ = 0.0;
  open_ended_ = true;
}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::clear() {
  if (!drawn_) return;
  drawn_ = false;
  erase_progress_line();  // nothing when a log line (app/progress_log.hpp) has erased it already
}

void ProgressLine::draw(double done, std::chrono::steady_clock::time_point now, const std::string& detail) {
  next_draw_ = now + interval_;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0.0 && done > 0.0 ? done / elapsed : 0.0;  // model time (or units) per second
  std::string line = "\r" + label_ + ": ";
  if (open_ended_) {
    line += format_number(done, 15) + " " + unit_;
    if (rate > 0.0) line += "  (" + format_number(rate, 3) + " per s)";
  } else {
    char percent[16];
    std::snprintf(percent, sizeof percent, "%.1f%%", 100.0 * std::clamp(done / total_, 0.0, 1.0));
    line += percent;
    if (unit_.empty())
      line += "  t = " + format_number(done, 4) + " of " + format_number(total_, 4);
    else
      line += "  " + format_number(done, 15) + " of " + format_number(total_, 15) + " " + unit_;
    if (rate > 0.0)
      line += "  (" + format_number(rate, 3) + " per s, " + duration_text(std::max(0.0, total_ - done) / rate) + " left)";
  }
  if (!detail.empty()) line += "  " + detail;
  line += "\033[K";  // erase what a longer previous line left
  line_shown.store(true);
  write_stderr(line);
  drawn_ = true;
}

}  // namespace mechint::app
