#pragma once
/// \file
/// A log in front of stderr that shares the terminal with a progress line (app/progress.hpp): every
/// write first erases the line, so that the log's lines and the one updating line below them never
/// run into each other (`mechint reproduce` logs each experiment's stages, `mechint optimize` its
/// result). Writes pass through unchanged when no line is shown (stderr not a terminal, --quiet).

#include <ostream>
#include <streambuf>

namespace mechint::app {

class ProgressLog : public std::ostream {
 public:
  /// Writes to `target`'s buffer, which must outlive this stream.
  explicit ProgressLog(std::ostream& target) : std::ostream(&buffer_), buffer_(*target.rdbuf()) {}

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(std::streambuf& target) : target_(target) {}

   protected:
    int overflow(int c) override;
    std::streamsize xsputn(const char* text, std::streamsize n) override;
    int sync() override { return target_.pubsync(); }

   private:
    std::streambuf& target_;
  };
  Buffer buffer_;
};

}  // namespace mechint::app
