// libFuzzer target over mechint's command line: argument parsing (cli/arguments.cpp), the time grid
// it validates (OutputSchedule), `--set NAME=VALUE` parsing and resolution against parameter specs
// (app/parameters.cpp), and the quoting of echoed values (core/format.hpp). See docs/fuzzing.md.
//
// Input: argv tokens separated by NUL bytes (at most kMaxTokens; a token may hold any other byte,
// newlines and escape codes included), after an implicit "mechint". Finding: a crash, a hang, a
// sanitizer report, an exception other than mechint::InvalidInput, or a broken invariant below
// (__builtin_trap).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_checks.hpp"
#include "app/parameters.hpp"
#include "cli/arguments.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/run_loop.hpp"

namespace {

using namespace mechint;
using app::ParameterSpec;

constexpr std::size_t kMaxTokens = 64;

/// The longest quote_for_message(text, max_length) can be: the quotes, max_length characters of
/// at most 4 bytes each ("\xNN"), and "...' (N bytes)" with N of at most 20 digits.
constexpr std::size_t quoted_bound(std::size_t max_length) { return 2 + 4 * max_length + 6 + 20 + 7; }

void check_quoting(std::string_view text) {
  const std::string quoted = quote_for_message(text);
  FUZZ_CHECK(mechint::fuzz::printable(quoted));
  FUZZ_CHECK(quoted.size() <= quoted_bound(40));
  FUZZ_CHECK(quoted.size() >= 2 && quoted.front() == '\'');
  // Cut exactly when the text is longer than the limit, and then the full length is stated.
  const bool cut = quoted.ends_with("...' (" + std::to_string(text.size()) + " bytes)");
  FUZZ_CHECK(cut == (mechint::fuzz::characters(text) > 40));
  if (mechint::fuzz::characters(text) <= 40 && mechint::fuzz::printable(text))
    FUZZ_CHECK(quoted == "'" + std::string(text) + "'");

  const std::string line = printable_line(text);
  FUZZ_CHECK(mechint::fuzz::printable(line));
  FUZZ_CHECK(line.size() <= quoted_bound(400));
  if (mechint::fuzz::characters(text) <= 400 && mechint::fuzz::printable(text)) FUZZ_CHECK(line == text);
}

/// Realistic specs: bounded and unbounded reals, an integer range and choices, as the systems and
/// methods declare them (systems/pendulum_chain.cpp, methods/method_options.cpp).
const std::vector<ParameterSpec>& specs() {
  static const std::vector<ParameterSpec> s = {
      ParameterSpec::integer("links", 2, "number of links", 1, 1000),
      ParameterSpec::real("m", 1.0, "mass of every point", 1e-300),
      ParameterSpec::real("l", 1.0, "length of every link", 1e-300),
      ParameterSpec::real("g", 9.81, "gravity"),
      ParameterSpec::real("th1", 0.7853981633974483, "initial angle of link 1"),
      ParameterSpec::real("x", 1.0, "initial x"),
      ParameterSpec::real("newton_tol", 1e-10, "Newton tolerance", 1e-16, 1e-3),
      ParameterSpec::real("fine_h", 1e-5, "fine step", 1e-12, 1.0),
      ParameterSpec::choice("newton", {"full", "simplified"}, "Newton iteration"),
      ParameterSpec::choice("form", {"momentum", "position"}, "unknowns of the step"),
  };
  return s;
}

void check_parameters(const std::vector<std::string>& assignments) {
  std::map<std::string, std::string> overrides;
  for (const auto& a : assignments) app::parse_assignment(a, overrides);
  FUZZ_CHECK(overrides.size() == assignments.size());
  const auto values = app::ParameterValues::resolve(specs(), overrides, "pendulum-chain");
  for (const auto& spec : specs()) {
    FUZZ_CHECK(values.has(spec.name));
    FUZZ_CHECK(values.was_set(spec.name) == (overrides.count(spec.name) > 0));
    switch (spec.kind) {
      case ParameterSpec::Kind::kReal: {
        const double x = values.real(spec.name);
        FUZZ_CHECK(std::isfinite(x) && x >= spec.min_value && x <= spec.max_value);
        break;
      }
      case ParameterSpec::Kind::kInteger: {
        const double x = values.real(spec.name);
        FUZZ_CHECK(x == std::floor(x) && x >= spec.min_value && x <= spec.max_value);
        FUZZ_CHECK(values.integer(spec.name) == static_cast<int>(x));
        break;
      }
      case ParameterSpec::Kind::kChoice: {
        const std::string& c = values.choice(spec.name);
        bool listed = false;
        for (const auto& choice : spec.choices) listed = listed || choice == c;
        FUZZ_CHECK(listed);
        break;
      }
    }
  }
}

void check_schedule(const OutputSchedule& s) {
  try {
    s.validate();
  } catch (const InvalidInput&) {
    __builtin_trap();  // parse_command_line returned it as valid
  }
  const long steps = s.steps();
  const long stride = s.stride();
  FUZZ_CHECK(steps >= 1);
  FUZZ_CHECK(static_cast<double>(steps) <= OutputSchedule::kMaxSteps);
  FUZZ_CHECK(stride >= 1 && stride <= steps);
  FUZZ_CHECK(s.time_at(0) == 0.0);
  FUZZ_CHECK(s.time_at(steps) == s.t_end);
  // The grid is strictly increasing: the last interior points, and the first ones, are distinct
  // and below t_end (the rows of a run never repeat a time).
  for (long k = std::max(1L, steps - 3); k <= steps; ++k) FUZZ_CHECK(s.time_at(k - 1) < s.time_at(k));
  for (long k = 1; k <= std::min(3L, steps); ++k) FUZZ_CHECK(s.time_at(k - 1) < s.time_at(k));
}

void check_command(const cli::Command& command) {
  switch (command.kind) {
    case cli::Command::Kind::kHelp:
      FUZZ_CHECK(!command.help.empty());
      break;
    case cli::Command::Kind::kList:
      break;
    case cli::Command::Kind::kReproduce:
      FUZZ_CHECK(!command.reproduce.out_dir.empty());
      break;
    case cli::Command::Kind::kCheck:
      FUZZ_CHECK(!command.check.model_file.empty());
      break;
    case cli::Command::Kind::kOptimize:
      FUZZ_CHECK(!command.optimize.problem_file.empty());
      break;
    case cli::Command::Kind::kRun:
      check_schedule(command.run.schedule);
      check_parameters(command.run.assignments);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> tokens;
  const char* text = reinterpret_cast<const char*>(data);
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= size && tokens.size() < kMaxTokens; ++i) {
    if (i == size || data[i] == 0) {
      // A trailing NUL ends the last token rather than adding an empty one.
      if (i < size || i > begin) tokens.emplace_back(text + begin, i - begin);
      begin = i + 1;
    }
  }

  std::vector<const char*> argv = {"mechint"};
  for (const auto& t : tokens) {
    check_quoting(t);
    argv.push_back(t.c_str());
  }
  argv.push_back(nullptr);

  try {
    check_command(cli::parse_command_line(static_cast<int>(argv.size() - 1), argv.data()));
  } catch (const InvalidInput& e) {
    // What main prints: one printable line of bounded length.
    const std::string line = printable_line(e.what());
    FUZZ_CHECK(mechint::fuzz::printable(line) && line.size() <= quoted_bound(400));
  }
  return 0;
}
