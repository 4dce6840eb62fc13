#pragma once
/// \file
/// What an experiment of `mechint reproduce` says of its own progress, shown as the command's
/// progress line (app/progress.hpp) on a terminal: "mechint reproduce [2/13] impacts: 42.6%  29 of
/// 68 runs  (3.1 per s, 12 s left)". An experiment that knows how much work it has calls plan()
/// once it knows, and advance() as each piece ends; one that does not is shown by its log lines
/// alone. A no-op when the line is off (stderr not a terminal, --quiet, Python's reproduce).

#include <optional>
#include <string>

#include "app/progress.hpp"

namespace mechint::app {

class ExperimentProgress {
 public:
  /// `label`: the line's start, e.g. "mechint reproduce [2/13] impacts".
  ExperimentProgress(std::string label, bool enabled) : label_(std::move(label)), enabled_(enabled) {}

  /// The work ahead: `total` pieces of `unit` (e.g. 68 "runs"); starts a new count.
  void plan(double total, const std::string& unit) {
    line_.reset();
    done_ = 0.0;
    line_.emplace(label_, total, enabled_, unit);
  }
  /// `pieces` more of the plan are done.
  void advance(double pieces = 1.0) {
    done_ += pieces;
    if (line_) line_->update(done_);
  }
  /// Erases the line (at the end of the experiment).
  void clear() {
    if (line_) line_->clear();
  }

 private:
  std::string label_;
  bool enabled_;
  double done_ = 0.0;
  std::optional<ProgressLine> line_;
};

}  // namespace mechint::app
