#pragma once
/// \file
/// A sweep file checked against its system (DESIGN §9), ready to run members: every name of
/// `[set]`, `[vary]` and `[derived]` resolved the way `mechint run --set` resolves it
/// (app/run_system.hpp, resolve_run), every value of `[vary]` accepted, the `[derived]` expressions
/// parsed, the summary's columns known. Anything wrong is refused before a member runs, located in
/// the sweep file (InvalidInput, exit 2).
///
/// A member is a `run` of the system with its `--set` values through run_system, its rows
/// summarised as they stream (app/sweep_rows.hpp); run_member may be called from several threads at
/// once (the system is loaded, a model file compiled, before: by the constructor).

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/sweep_file.hpp"
#include "app/system_entry.hpp"
#include "model_file/expression_parser.hpp"

namespace mechint::app {

class SweepPlan {
 public:
  /// Checks `spec` against its system; throws InvalidInput `FILE:LINE:COLUMN: what` (or the model
  /// file's own located error).
  explicit SweepPlan(SweepSpec spec);
  SweepPlan(const SweepPlan&) = delete;
  SweepPlan& operator=(const SweepPlan&) = delete;

  const SweepSpec& spec() const { return spec_; }
  std::size_t members() const { return spec_.members; }
  /// summary.csv's header line (no newline).
  const std::string& header_line() const { return header_; }
  /// The names of the summary's state columns, without `_final`.
  const std::vector<std::string>& state_names() const { return state_names_; }

  /// Runs member `m` and returns its summary row (no newline). A member that fails (exit 2 or 3)
  /// gives a row with its message and exit code, not an exception. When `stop` (may be null) turns
  /// true, the member stops between steps and Interrupted is thrown: it has no row. An I/O error
  /// (IoError: a model that cannot be loaded, a cache not to be trusted) is never one member's
  /// result but the sweep's: it is thrown, and stops the sweep as it stops `mechint run` (exit 4).
  /// With `trajectory` (the sweep keeps trajectories), the member's rows at output_every go there
  /// too: its columns and its rows one after another (empty when it failed before its first row).
  struct Trajectory {
    std::vector<std::string> columns;
    std::vector<double> values;
  };
  std::string run_member(std::size_t m, const std::atomic<bool>* stop = nullptr, Trajectory* trajectory = nullptr) const;

  /// What sweep.json records of the sweep: the file's content resolved (the method, h, every
  /// member's values), the member count and mechint's version; a rerun into the same directory
  /// continues only a sweep whose description is equal.
  nlohmann::json describe() const;
  /// The digest of describe() (app/sweep_digest.hpp): what the journal is bound to.
  std::string digest() const;
  /// The cells member m's summary row begins with: its index and its varied values.
  std::string member_inputs(std::size_t m) const;

 private:
  /// Member m's --set values and step, its derived values computed; `failure` set (with exit 2)
  /// when a derived value is not finite or its names do not resolve.
  struct MemberSettings {
    Overrides overrides;
    double h = 0.0;
    std::vector<double> derived;
    std::string failure;
  };
  MemberSettings settings_of(std::size_t m) const;
  /// Starts member m's stepper (no step taken): its run's columns, or the error that stops it.
  std::vector<std::string> probe_columns(const MemberSettings& s) const;
  /// Refuses the sweep when no member can start, all for one and the same reason.
  [[noreturn]] void refuse_every_member(int exit, const std::string& why, bool from_settings) const;
  void check_names();
  void parse_derived();
  void find_columns();

  SweepSpec spec_;
  std::shared_ptr<const SystemEntry> opened_;  ///< app/open_system.hpp
  const SystemEntry* system_ = nullptr;
  std::string method_;  ///< the method as asked for (empty: the system's default)
  std::string resolved_method_;
  OutputSchedule schedule_;
  /// A largest error over the run is recorded: members write a row at every step.
  bool records_maxima_ = false;
  std::vector<std::string> state_names_;
  std::string header_;
  /// [derived]: the names an expression may use (the system's numbers), its trees, and the index
  /// among those names of each derived name.
  std::vector<std::string> symbol_names_;
  model_file::SymbolTable symbols_;
  std::vector<model_file::Expression> derived_trees_;
  std::vector<std::size_t> derived_symbols_;
};

}  // namespace mechint::app
