#pragma once
/// \file
/// The rows of one `mechint run` on their way to the CSV output, watched on the way: the progress
/// line reads the time the run has reached, the animation (app/animation_page.hpp) keeps the rows
/// it draws. A RowWriter that forwards to another.

#include <string>
#include <vector>

#include "app/animation_page.hpp"
#include "app/row_writer.hpp"
#include "app/progress.hpp"

namespace mechint::app {

class WatchedRows final : public RowWriter {
 public:
  /// `progress` and `frames` may be null.
  WatchedRows(RowWriter& out, ProgressLine* progress, AnimationFrames* frames = nullptr)
      : out_(out), progress_(progress), frames_(frames) {}

  void header(const std::vector<std::string>& columns) override {
    out_.header(columns);
    if (frames_) frames_->header(columns);
  }
  void row(const std::vector<double>& values) override {
    out_.row(values);
    if (frames_) frames_->row(values);
    if (progress_ && !values.empty()) progress_->update(values.front());  // the first column is t
  }
  RunCheckpoint* checkpoint() override { return out_.checkpoint(); }
  std::uint64_t flush() override { return out_.flush(); }
  void poll(double t) override {
    out_.poll(t);
    if (progress_) progress_->update(t);
  }

 private:
  RowWriter& out_;
  ProgressLine* progress_;
  AnimationFrames* frames_;
};

}  // namespace mechint::app
