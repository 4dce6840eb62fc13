// libFuzzer target over sweep files (app/sweep_file.cpp: parse_sweep_text, docs/sweeps.md). See
// docs/fuzzing.md.
//
// Input: the bytes of a sweep file, named sweeps/fuzz.toml. Finding: a crash, a hang, a sanitizer
// report, an exception other than mechint::InvalidInput or mechint::IoError, a message that is not
// one printable line `sweeps/fuzz.toml:LINE:COLUMN: what`, or an accepted spec that breaks what the
// reader promises the rest of the sweep (__builtin_trap): a system named (a relative model file
// resolved beside the sweep file), a positive finite t_end and h, between 1 and kMaxSweepMembers
// members that are the product of the value counts (grid) or their common count (zip), every
// member's value indices inside its lists, every value's summary cell reading back as one CSV cell
// of its text (the journal checks a row's inputs by these cells), a name set, varied or derived
// once, `record` known names in their order, trajectories with an interval, every position at
// line and column >= 1. What the names mean is checked later, against the system.
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "app/sweep_csv.hpp"
#include "app/sweep_file.hpp"
#include "fuzz_checks.hpp"
#include "mechint/core/errors.hpp"

namespace {

using namespace mechint::app;

constexpr std::string_view kLabel = "sweeps/fuzz.toml";

void check_message(std::string_view message) { mechint::fuzz::check_located_message(message, kLabel); }

void check_position(const mechint::model_file::SourcePosition& where) {
  FUZZ_CHECK(where.line >= 1 && where.column >= 1);
}

void check_spec(const SweepSpec& spec) {
  FUZZ_CHECK(spec.file == kLabel);
  FUZZ_CHECK(!spec.system.empty() && !spec.system_as_written.empty());
  check_position(spec.system_where);
  const bool relative_file = spec.system_is_file && std::filesystem::path(spec.system_as_written).is_relative();
  FUZZ_CHECK(spec.system == (relative_file ? (std::filesystem::path("sweeps") / spec.system_as_written).string()
                                           : spec.system_as_written));
  FUZZ_CHECK(std::isfinite(spec.t_end) && spec.t_end > 0.0);
  if (spec.h) FUZZ_CHECK(std::isfinite(*spec.h) && *spec.h > 0.0);
  FUZZ_CHECK(spec.members >= 1 && spec.members <= kMaxSweepMembers);

  std::set<std::string> names;
  for (const auto& s : spec.set) {
    FUZZ_CHECK(names.insert(s.name).second && !s.text.empty());
    check_position(s.where);
  }
  std::size_t product = 1;
  bool random = false;
  for (const auto& v : spec.vary) {
    FUZZ_CHECK(names.insert(v.name).second);
    check_position(v.where);
    FUZZ_CHECK(!v.texts.empty() && v.texts.size() == v.cells.size() && v.texts.size() == v.value_where.size());
    FUZZ_CHECK(v.kind == "list" || v.kind == "range" || v.kind == "uniform" || v.kind == "normal" || v.kind == "sobol");
    random = random || (v.kind != "list" && v.kind != "range");
    for (std::size_t i = 0; i < v.texts.size(); ++i) {
      check_position(v.value_where[i]);
      FUZZ_CHECK(!v.texts[i].empty());
      const auto cells = strict_csv_cells(v.cells[i]);
      FUZZ_CHECK(cells && cells->size() == 1 && cells->front() == v.texts[i]);
      if (v.kind != "list") FUZZ_CHECK(std::isfinite(std::strtod(v.texts[i].c_str(), nullptr)));
      if (v.name == "h") FUZZ_CHECK(std::strtod(v.texts[i].c_str(), nullptr) > 0.0);
    }
    if (spec.zip) FUZZ_CHECK(v.texts.size() == spec.members);
    product *= v.texts.size();  // bounded: the reader refused a grid of more than kMaxSweepMembers
    FUZZ_CHECK(spec.zip || product <= kMaxSweepMembers);
  }
  if (random) FUZZ_CHECK(spec.seed.has_value());
  FUZZ_CHECK(spec.vary.empty() ? spec.members == 1 : spec.zip || product == spec.members);
  for (const std::size_t m : {std::size_t{0}, spec.members / 2, spec.members - 1}) {
    const auto indices = spec.value_indices(m);
    FUZZ_CHECK(indices.size() == spec.vary.size());
    for (std::size_t i = 0; i < indices.size(); ++i) FUZZ_CHECK(indices[i] < spec.vary[i].texts.size());
  }
  for (const auto& d : spec.derived) {
    FUZZ_CHECK(names.insert(d.name).second && d.name != "h");
    check_position(d.where);
    check_position(d.text_where);
  }
  for (const char* fixed : {"t_end", "method", "output_every"}) FUZZ_CHECK(names.count(fixed) == 0);
  // record: known names, each once, in the order of sweep_record_names().
  const auto& known = sweep_record_names();
  std::size_t at = 0;
  for (const auto& r : spec.record) {
    const auto found = std::find(known.begin() + static_cast<std::ptrdiff_t>(at), known.end(), r);
    FUZZ_CHECK(found != known.end());
    at = static_cast<std::size_t>(found - known.begin()) + 1;
  }
  FUZZ_CHECK(std::isfinite(spec.output_every) && spec.output_every >= 0.0);
  if (spec.trajectories) FUZZ_CHECK(spec.output_every > 0.0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  mechint::fuzz::expect_only_refusals([&] { check_spec(parse_sweep_text(text, std::string(kLabel))); }, check_message);
  return 0;
}
