#pragma once
/// \file
/// Notices: what mechint says that is neither a result nor an error ("compiled MODEL in 0.2 s, once").
/// They go to a sink the front end chooses. By default a notice is a line on stderr at once; the
/// command line holds them back and prints them only when the command succeeds, so that a command
/// that fails prints one line on stderr, its error, whatever it had to do first (DESIGN §4).

#include <functional>
#include <iostream>
#include <mutex>
#include <string>
#include <utility>

namespace mechint {

/// Receives each notice, a line without its newline. May be called from several threads at once
/// (the sink is called under a lock).
using NoticeSink = std::function<void(const std::string&)>;

namespace detail {
struct NoticeState {
  std::mutex mutex;
  NoticeSink sink;
};
inline NoticeState& notice_state() {
  static NoticeState state;
  return state;
}
}  // namespace detail

/// Replaces the sink (an empty one: stderr at once). Returns the previous one.
inline NoticeSink set_notice_sink(NoticeSink sink) {
  auto& state = detail::notice_state();
  std::lock_guard lock(state.mutex);
  return std::exchange(state.sink, std::move(sink));
}

/// Says `line` through the sink.
inline void notice(const std::string& line) {
  auto& state = detail::notice_state();
  std::lock_guard lock(state.mutex);
  if (state.sink) {
    state.sink(line);
  } else {
    std::cerr << line << std::endl;
  }
}

}  // namespace mechint
