#pragma once
/// \file
/// A sweep file (DESIGN §9, docs/sweeps.md) as read: TOML through toml++, every problem one line
/// `FILE:LINE:COLUMN: what is wrong` (InvalidInput, exit 2). The values of `[vary]` are generated
/// here (lists, ranges, random samples from the file's seed); what the names mean is checked later
/// against the system (app/sweep_plan.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model_file/diagnostics.hpp"

namespace mechint::app {

/// One name of `[vary]` and the values it takes.
struct SweepVaried {
  std::string name;
  model_file::SourcePosition where{1, 1};  ///< of the key
  /// "list", "range", "uniform", "normal" or "sobol", with the numbers that define it (from, to /
  /// low, high / mean, sd; none for a list) and its count: what sweep.json records.
  std::string kind;
  std::vector<double> parameters;
  /// The values in order, as `--set` text (numbers exact, %.17g) and as summary.csv cells.
  std::vector<std::string> texts;
  std::vector<std::string> cells;
  /// Where each value is written (a list's elements; otherwise all at the entry's value).
  std::vector<model_file::SourcePosition> value_where;
};

/// One name of `[derived]`: an expression of the model-file grammar (DESIGN §6).
struct SweepDerived {
  std::string name;
  model_file::SourcePosition where{1, 1};       ///< of the key
  std::string expression;
  model_file::SourcePosition text_where{1, 1};  ///< of the string
};

/// A fixed `[set]` value.
struct SweepSetting {
  std::string name;
  std::string text;  ///< as --set text
  model_file::SourcePosition where{1, 1};
};

/// The quantities `[sweep] record` may name, in the order of their summary.csv columns.
inline const std::vector<std::string>& sweep_record_names() {
  static const std::vector<std::string> names = {"final", "energy_error", "momentum_error", "constraint_residual",
                                                 "megno", "lyapunov",     "fli",            "steps",
                                                 "cpu_s"};
  return names;
}

struct SweepSpec {
  std::string file;  ///< the sweep file, for messages
  /// `system`: a built-in name, or a model file's path (resolved against the sweep file's directory).
  std::string system;
  std::string system_as_written;
  bool system_is_file = false;
  model_file::SourcePosition system_where{1, 1};
  std::string method;  ///< empty: the system's default
  model_file::SourcePosition method_where{1, 1};
  std::optional<double> h;  ///< none: the model file's h, else run's default 0.01
  model_file::SourcePosition h_where{1, 1};
  double t_end = 10.0;
  model_file::SourcePosition t_end_where{1, 1};
  std::vector<SweepSetting> set;          ///< in file order
  std::vector<SweepVaried> vary;          ///< in file order
  model_file::SourcePosition vary_where{1, 1};  ///< the [vary] table
  std::vector<SweepDerived> derived;      ///< in file order
  bool zip = false;                       ///< combine = "zip" (else "grid")
  std::optional<std::uint64_t> seed;
  /// `record`, in the order of sweep_record_names() (the file's order does not matter).
  std::vector<std::string> record;
  model_file::SourcePosition record_where{1, 1};
  bool trajectories = false;
  double output_every = 0.0;
  std::size_t members = 0;

  bool records(std::string_view what) const {
    for (const auto& r : record)
      if (r == what) return true;
    return false;
  }
  /// Whether `record` names a chaos indicator (the members then run with indicators=on).
  bool records_indicators() const { return records("megno") || records("lyapunov") || records("fli"); }

  /// The value index of each varied name for member `m` (grid: the last name fastest; zip: m).
  std::vector<std::size_t> value_indices(std::size_t m) const;

  /// Throws InvalidInput `FILE:LINE:COLUMN: what`.
  [[noreturn]] void fail(model_file::SourcePosition where, const std::string& what) const {
    model_file::fail_at(file, where, what);
  }
};

/// A number as summary.csv and --set write it: exact (%.17g), as `run` writes its CSV.
std::string exact_text(double x);

/// A text cell of summary.csv: quoted (RFC 4180) when it holds a comma, a quote or a line break, or
/// starts with a space.
std::string csv_cell(const std::string& text);

#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
/// Most members a sweep may have (summary rows are kept in memory until summary.csv is written).
inline constexpr std::size_t kMaxSweepMembers = 10'000'000;
/// Most values `[vary]` may hold in all, its names together (each value is kept as text and as a
/// summary cell, written to sweep.json and checked against the system: about 150 bytes each).
inline constexpr std::size_t kMaxSweepValues = 10'000'000;
#else
// The fuzzers' build (fuzz/CMakeLists.txt defines the macro): the reader takes the same paths at
// ten thousand values as at ten million, and ten million take a minute under the sanitizers, which
// libFuzzer would report as a hang.
inline constexpr std::size_t kMaxSweepMembers = 10'000;
inline constexpr std::size_t kMaxSweepValues = 10'000;
#endif

/// Parses the text of a sweep file; `file` names it in messages and resolves a relative model path.
SweepSpec parse_sweep_text(std::string_view text, const std::string& file);

/// Reads and parses the sweep file at `path`.
SweepSpec read_sweep_file(const std::string& path);

}  // namespace mechint::app
