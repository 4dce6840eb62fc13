#include "app/progress_log.hpp"

#include "app/progress.hpp"

namespace mechint::app {

int ProgressLog::Buffer::overflow(int c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  erase_progress_line();
  return target_.sputc(traits_type::to_char_type(c));
}

std::streamsize ProgressLog::Buffer::xsputn(const char* text, std::streamsize n) {
  erase_progress_line();
  return target_.sputn(text, n);
}

}  // namespace mechint::app
