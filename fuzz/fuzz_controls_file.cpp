// libFuzzer target over the controls files of `mechint run SYSTEM --controls FILE.csv`
// (app/control_schedule.cpp: ControlSchedule::read). See docs/fuzzing.md.
//
// Input: one byte that chooses the control names the file must name (see kNameSets), then the bytes
// of the CSV file. ControlSchedule::read takes a path, so every input is written to one file of this
// process, in a directory of its own (fuzz_checks.hpp: private_path), and read from there. Finding: a crash, a hang, a
// sanitizer report, an exception other than mechint::InvalidInput or mechint::IoError, a message
// that is not one printable line `FILE:LINE: what`, or an accepted schedule that breaks what the
// header promises (a row per data line of the width of the names, finite values, strictly increasing
// finite times, at() and before() picking the row in force) (__builtin_trap).
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "app/control_schedule.hpp"
#include "fuzz_checks.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace {

using mechint::app::ControlSchedule;

// The schedule's rows are private; their invariants are what this target checks. An explicit
// instantiation may name private members ([temp.spec.general]/6), so this reads them without
// changing the class: get(TimesTag{}) is &ControlSchedule::times_.
struct TimesTag {
  using type = std::vector<double> ControlSchedule::*;
  friend type get(TimesTag);
};
struct ValuesTag {
  using type = std::vector<double> ControlSchedule::*;
  friend type get(ValuesTag);
};
template <typename Tag, typename Tag::type kMember>
struct Expose {
  friend typename Tag::type get(Tag) { return kMember; }
};
template struct Expose<TimesTag, &ControlSchedule::times_>;
template struct Expose<ValuesTag, &ControlSchedule::values_>;

/// The control names a file may be asked for: numbered as the built-in systems' (u1, ...) or named
/// as a model file's.
const std::vector<std::vector<std::string>> kNameSets = {
    {"u1"}, {"u1", "u2"}, {"u1", "u2", "u3"}, {"torque", "thrust"}};
constexpr int kWidest = 3;

const std::string& input_path() {
  static const std::string path = mechint::fuzz::private_path("controls.csv");
  return path;
}

/// One printable line `FILE:LINE: what`, of bounded length.
void check_message(std::string_view message) {
  FUZZ_CHECK(mechint::fuzz::printable(message));
  FUZZ_CHECK(message.size() <= 1000);
  const std::string file = mechint::printable_line(input_path(), 200);
  FUZZ_CHECK(message.starts_with(file + ":"));
  std::size_t i = file.size() + 1;
  const std::size_t digits = i;
  while (i < message.size() && message[i] >= '0' && message[i] <= '9') ++i;
  FUZZ_CHECK(i > digits && message.substr(i).starts_with(": ") && message.size() > i + 2);
}

template <int m>
void check_row(const mechint::VecD<m>& u, const std::vector<double>& values, std::size_t row, int width) {
  for (int j = 0; j < m; ++j) FUZZ_CHECK(u[j] == (j < width ? values[row * width + j] : 0.0));
}

void check_schedule(const ControlSchedule& s, const std::vector<std::string>& names) {
  const auto width = static_cast<int>(names.size());
  FUZZ_CHECK(s.width() == width);
  const std::vector<double>& times = s.*get(TimesTag{});
  const std::vector<double>& values = s.*get(ValuesTag{});
  FUZZ_CHECK(!times.empty());
  FUZZ_CHECK(values.size() == times.size() * names.size());
  for (const double u : values) FUZZ_CHECK(std::isfinite(u));
  for (std::size_t i = 0; i < times.size(); ++i) {
    FUZZ_CHECK(std::isfinite(times[i]));
    if (i > 0) FUZZ_CHECK(times[i - 1] < times[i]);
  }
  // The row in force: at t_i the row i, just before t_i the row i - 1 (the first row before it).
  for (std::size_t i = 0; i < times.size(); ++i) {
    check_row<kWidest>(s.at<kWidest>(times[i]), values, i, width);
    check_row<kWidest>(s.before<kWidest>(times[i]), values, i == 0 ? 0 : i - 1, width);
  }
  check_row<kWidest>(s.at<kWidest>(-HUGE_VAL), values, 0, width);
  check_row<kWidest>(s.at<kWidest>(HUGE_VAL), values, times.size() - 1, width);
  FUZZ_CHECK(s.describe().starts_with("controls=" + std::to_string(times.size()) + " rows of " +
                                      std::to_string(width) + ", digest "));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto& names = kNameSets[data[0] % kNameSets.size()];
  mechint::fuzz::write_file(input_path(), std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  mechint::fuzz::expect_only_refusals([&] { check_schedule(ControlSchedule::read(input_path(), names), names); },
                                      check_message);
  return 0;
}
