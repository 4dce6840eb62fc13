#include "app/sweep_plan.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "app/error_report.hpp"
#include "app/open_system.hpp"
#include "app/run_system.hpp"
#include "app/sweep_digest.hpp"
#include "app/sweep_rows.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/evaluate.hpp"
#include "model_file/model_file_system.hpp"

#ifndef MECHINT_VERSION
#define MECHINT_VERSION "unknown"
#endif

namespace mechint::app {
namespace {

using model_file::SourcePosition;

double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// The message of resolve_run's refusal of these values, or "" when it accepts them. A start the
/// system cannot start from (InvalidStart: off its constraints, out of its reach) is not the file's
/// fault but that member's: it fails when it runs (exit 2), the others run.
std::string refusal(const SystemEntry& system, const std::string& method, const Overrides& overrides) {
  try {
    resolve_run(system, method, overrides);
  } catch (const InvalidStart&) {
    return "";
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

/// Thrown by HeaderProbe: a run's columns, known once its stepper has started.
struct HeaderSeen {
  std::vector<std::string> columns;
};

/// A RowWriter that stops the run at its header: the columns of a member without its steps.
class HeaderProbe final : public RowWriter {
 public:
  void header(const std::vector<std::string>& columns) override { throw HeaderSeen{columns}; }
  void row(const std::vector<double>&) override {}
};

void collect_parameters(const model_file::Expression& e, std::set<int>& into) {
  if (e.kind == model_file::Expression::Kind::kSymbol && e.symbol == model_file::SymbolKind::kParameter)
    into.insert(e.index);
  for (const auto& a : e.args) collect_parameters(a, into);
}

}  // namespace

SweepPlan::SweepPlan(SweepSpec spec) : spec_(std::move(spec)) {
  // The system: a model file is read (its own errors are located in it) and, on the first
  // resolve below, compiled and loaded, before any thread runs a member.
  if (spec_.system_is_file) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(spec_.system, error))
      spec_.fail(spec_.system_where, "model file " + quote_for_message(spec_.system, 200) +
                                         " not found (a relative path is relative to the sweep file)");
    opened_ = open_system(spec_.system);  // its errors are located in the model file
  } else {
    try {
      opened_ = open_system(spec_.system);
    } catch (const InvalidInput& e) {
      spec_.fail(spec_.system_where, e.what());  // an unknown name, located in the sweep file
    }
  }
  system_ = opened_.get();
  method_ = spec_.method;
  OutputSchedule schedule;
  schedule.t_end = spec_.t_end;
  if (spec_.h) schedule.h = *spec_.h;
  try {
    schedule_ = with_default_step(*system_, schedule, spec_.h.has_value());
    schedule_.validate();
  } catch (const InvalidInput& e) {
    spec_.fail(spec_.h ? spec_.h_where : spec_.t_end_where, e.what());
  }
  records_maxima_ =
      spec_.records("energy_error") || spec_.records("momentum_error") || spec_.records("constraint_residual");
  check_names();
  parse_derived();
  find_columns();
}

void SweepPlan::check_names() {
  Overrides fixed;
  for (const auto& s : spec_.set) fixed[s.name] = s.text;
  if (const std::string why = refusal(*system_, method_, fixed); !why.empty()) {
    // Locate it: the method, or the first [set] value refused on its own.
    if (!spec_.method.empty() && refusal(*system_, method_, {}).size()) spec_.fail(spec_.method_where, why);
    for (const auto& s : spec_.set)
      if (const std::string alone = refusal(*system_, method_, {{s.name, s.text}}); !alone.empty())
        spec_.fail(s.where, "[set] " + s.name + ": " + alone);
    spec_.fail(spec_.set.empty() ? spec_.system_where : spec_.set.front().where, why);
  }
  resolved_method_ = resolve_run(*system_, method_, fixed).method;
  for (const auto& v : spec_.vary) {
    if (v.name == "h") {
      for (std::size_t i = 0; i < v.texts.size(); ++i) {
        OutputSchedule s = schedule_;
        s.h = std::strtod(v.texts[i].c_str(), nullptr);
        try {
          s.validate();
        } catch (const InvalidInput& e) {
          spec_.fail(v.value_where[i], "[vary] h = " + v.texts[i] + ": " + e.what());
        }
      }
      continue;
    }
    std::set<std::string> checked;
    for (std::size_t i = 0; i < v.texts.size(); ++i) {
      if (!checked.insert(v.texts[i]).second) continue;
      Overrides with = fixed;
      with[v.name] = v.texts[i];
      if (const std::string why = refusal(*system_, method_, with); !why.empty())
        spec_.fail(v.value_where[i], "[vary] " + v.name + " = " + v.texts[i] + ": " + why);
    }
  }
  if (spec_.records_indicators()) {
    Overrides with = fixed;
    with["indicators"] = "on";
    if (const std::string why = refusal(*system_, method_, with); !why.empty())
      spec_.fail(spec_.record_where, "record megno, lyapunov and fli need the method option indicators=on: " + why);
  }
}

void SweepPlan::parse_derived() {
  if (spec_.derived.empty()) return;
  Overrides fixed;
  for (const auto& s : spec_.set) fixed[s.name] = s.text;
  // The names an expression may use: the system's numbers (parameters, initial values, controls),
  // with their values for the member (set, varied, derived above, or the default).
  for (const auto& p : system_->parameters(fixed))
    if (p.kind != ParameterSpec::Kind::kChoice) symbol_names_.push_back(p.name);
  for (const auto& c : system_->controls) symbol_names_.push_back(c);
  symbols_ = model_file::SymbolTable({}, symbol_names_, {});
  std::vector<std::string> derived_so_far;
  for (const auto& d : spec_.derived) {
    const auto at = std::find(symbol_names_.begin(), symbol_names_.end(), d.name);
    if (at == symbol_names_.end())
      spec_.fail(d.where, "[derived] " + quote_for_message(d.name) + " is not a number of system '" + system_->name +
                              "'" + model_file::did_you_mean(d.name, symbol_names_) + " (its numbers: " +
                              model_file::join_names(symbol_names_) + ")");
    model_file::ExpressionSource source;
    source.text = d.expression;
    source.start = d.text_where;
    model_file::Expression tree =
        model_file::parse_expression(source, symbols_, model_file::ExpressionContext::kDefinition, spec_.file);
    if (model_file::uses_symbol(tree, model_file::SymbolKind::kTime))
      spec_.fail(d.text_where, "[derived] " + d.name + ": t is not known before a member runs");
    std::set<int> used;
    collect_parameters(tree, used);
    for (const int i : used) {
      const std::string& name = symbol_names_[static_cast<std::size_t>(i)];
      const bool later = std::any_of(spec_.derived.begin(), spec_.derived.end(), [&](const SweepDerived& other) {
        return other.name == name &&
               std::find(derived_so_far.begin(), derived_so_far.end(), name) == derived_so_far.end();
      });
      if (later)
        spec_.fail(d.text_where, "[derived] " + d.name + " uses " + quote_for_message(name) +
                                     ", which is derived at or after it: order [derived] so that a name is derived "
                                     "before it is used");
    }
    derived_trees_.push_back(std::move(tree));
    derived_symbols_.push_back(static_cast<std::size_t>(at - symbol_names_.begin()));
    derived_so_far.push_back(d.name);
  }
}

SweepPlan::MemberSettings SweepPlan::settings_of(std::size_t m) const {
  MemberSettings s;
  s.h = schedule_.h;
  for (const auto& set : spec_.set) s.overrides[set.name] = set.text;
  const auto indices = spec_.value_indices(m);
  for (std::size_t i = 0; i < spec_.vary.size(); ++i) {
    const std::string& text = spec_.vary[i].texts[indices[i]];
    if (spec_.vary[i].name == "h")
      s.h = std::strtod(text.c_str(), nullptr);
    else
      s.overrides[spec_.vary[i].name] = text;
  }
  if (!derived_trees_.empty()) {
    model_file::SymbolValues<double> values;
    try {
      const ResolvedRun resolved = resolve_run(*system_, method_, s.overrides);
      for (const auto& name : symbol_names_) {
        // A varied structural choice may leave this member's system without a name of the first's.
        if (!resolved.values.has(name)) {
          s.failure = "[derived]: this member's system has no " + quote_for_message(name) +
                      " (a varied name changes the system's names)";
          return s;
        }
        values.parameters.push_back(resolved.values.real(name));
      }
    } catch (const InvalidInput& e) {
      s.failure = e.what();
      return s;
    }
    for (std::size_t j = 0; j < derived_trees_.size(); ++j) {
      const double x = model_file::evaluate(derived_trees_[j], values);
      const std::string& name = spec_.derived[j].name;
      if (!std::isfinite(x)) {
        s.failure = "[derived] " + name + " is not a finite number (" +
                    (std::isnan(x) ? std::string("nan") : format_number(x)) + ") for this member";
        return s;
      }
      values.parameters[derived_symbols_[j]] = x;
      s.derived.push_back(x);
      s.overrides[name] = exact_text(x);
    }
  }
  if (spec_.records_indicators()) s.overrides["indicators"] = "on";
  return s;
}

void SweepPlan::find_columns() {
  // The values of member 0 together (each was accepted alone above).
  {
    const MemberSettings s = settings_of(0);
    if (s.failure.empty())
      if (const std::string why = refusal(*system_, method_, s.overrides); !why.empty())
        spec_.fail(spec_.vary.empty() ? spec_.system_where : spec_.vary.front().where, "member 0: " + why);
  }
  // The state columns: the header of the first member whose stepper starts (no step is taken). A
  // member that cannot start fails alone (its row says why) and the next one may start; but when
  // none can, all for one and the same reason, the sweep is refused as its single run would be,
  // before any member runs (a combination of [set] values and record no member can run). An I/O
  // error (a model that cannot be loaded) is the sweep's, not a member's: it refuses it at once.
  bool started = false, one_reason = true;
  int first_exit = 0;
  std::string first_why;
  bool first_from_settings = false;
  for (std::size_t m = 0; m < spec_.members && !started; ++m) {
    const MemberSettings s = settings_of(m);
    int exit = static_cast<int>(ExitCode::kBadInput);
    std::string why = s.failure;
    if (why.empty()) {
      try {
        state_names_ = RunColumns::of(probe_columns(s)).state_names();
        started = true;
        break;
      } catch (const IoError&) {
        throw;
      } catch (const Error& e) {
        exit = static_cast<int>(e.exit_code());
        why = e.what();
      }
    }
    if (m == 0) {
      first_exit = exit;
      first_why = why;
      first_from_settings = !s.failure.empty();
    } else if (exit != first_exit || why != first_why) {
      one_reason = false;
    }
  }
  if (!started && one_reason && spec_.members > 0) refuse_every_member(first_exit, first_why, first_from_settings);
  header_ = "member";
  for (const auto& v : spec_.vary) header_ += "," + v.name;
  for (const auto& d : spec_.derived) header_ += "," + d.name;
  for (const auto& r : spec_.record) {
    if (r == "final")
      for (const auto& name : state_names_) header_ += "," + name + "_final";
    else
      header_ += "," + r;
  }
  header_ += ",status,exit";
}

std::vector<std::string> SweepPlan::probe_columns(const MemberSettings& s) const {
  OutputSchedule schedule = schedule_;
  schedule.h = s.h;
  HeaderProbe probe;
  try {
    run_system(*system_, method_, s.overrides, schedule, probe);
  } catch (const HeaderSeen& seen) {
    return seen.columns;
  }
  throw std::logic_error("a sweep member's run ended without its header");
}

void SweepPlan::refuse_every_member(int exit, const std::string& why, bool from_settings) const {
  const std::string what = (spec_.members > 1 ? "no member can run: " : "the member cannot run: ") + why;
  if (exit == static_cast<int>(ExitCode::kNumericalFailure)) throw NumericalFailure(spec_.file + ": " + what);
  // Bad input: located in the sweep file, as the refusals of check_names.
  if (from_settings && !spec_.derived.empty()) {
    // At the expression the message names ("[derived] NAME ..."), else the first.
    for (const auto& d : spec_.derived)
      if (why.starts_with("[derived] " + d.name + " ")) spec_.fail(d.text_where, what);
    spec_.fail(spec_.derived.front().text_where, what);
  }
  if (spec_.records_indicators()) {
    // The chaos indicators' option with the rest of the file (adapt=sundman with indicators=on):
    // refused at `record`, as a method that has no such option is.
    MemberSettings without = settings_of(0);
    without.overrides.erase("indicators");
    bool starts_without = without.failure.empty();
    try {
      if (starts_without) probe_columns(without);
    } catch (const Error&) {
      starts_without = false;
    }
    if (starts_without)
      spec_.fail(spec_.record_where, "record megno, lyapunov and fli need the method option indicators=on: " + why);
  }
  spec_.fail(!spec_.set.empty() ? spec_.set.front().where : spec_.vary.empty() ? spec_.system_where : spec_.vary_where,
             what);
}

std::string SweepPlan::run_member(std::size_t m, const std::atomic<bool>* stop, Trajectory* trajectory) const {
  const double cpu_start = thread_cpu_seconds();
  std::string status = "ok";
  int exit = 0;
  MemberRows rows(stop);
  std::vector<double> derived;
  long steps = 0, failed_at = -1;
  try {
    const MemberSettings s = settings_of(m);
    derived = s.derived;
    if (!s.failure.empty()) {
      status = s.failure;
      exit = static_cast<int>(ExitCode::kBadInput);
    } else {
      OutputSchedule schedule = schedule_;
      schedule.h = s.h;
      // The largest errors over the run are over every step: a row at every step. That costs (the
      // rows of a 2-coordinate model cost more than its steps: Hénon–Heiles 0.63 against 0.25 µs a
      // step), so a sweep that records no such maximum takes only the first and the last rows.
      schedule.output_every = records_maxima_ ? 0.0 : schedule.t_end;
      if (spec_.trajectories) {
        // The rows at output_every: the run's own when it writes no other, else every stride-th of
        // the rows at every step.
        const double every = spec_.output_every;
        const long stride = std::lround(every / s.h);
        if (stride < 1 || std::abs(static_cast<double>(stride) * s.h - every) > 1e-9 * every)
          throw InvalidInput("output_every = " + exact_text(every) + " is not a multiple of this member's h = " +
                             exact_text(s.h));
        schedule.output_every = records_maxima_ ? 0.0 : every;
        rows.keep_trajectory(records_maxima_ ? stride : 1);
      }
      steps = schedule.steps();
      run_system(*system_, method_, s.overrides, schedule, rows);
      if (rows.columns().state_names() != state_names_) {
        status = "the state columns of this member differ from the sweep's (a varied name changes the system's "
                 "coordinates): run it alone";
        exit = static_cast<int>(ExitCode::kBadInput);
      }
    }
  } catch (const Interrupted&) {
    throw;  // the sweep stops: not the member's failure
  } catch (const IoError&) {
    throw;  // nor is an I/O error (a model that cannot be loaded): the sweep stops with exit 4
  } catch (const NumericalFailure& e) {
    status = e.what();
    exit = static_cast<int>(e.exit_code());
    failed_at = e.location().step;
  } catch (const DomainError& e) {
    status = e.what();
    exit = static_cast<int>(e.exit_code());
    failed_at = e.location().step;
  } catch (...) {
    const ErrorReport report = report_of(std::current_exception());  // the one table (app/error_report.hpp)
    if (report.exit == ExitCode::kIoError) throw;  // a file operation's error stops the sweep, as IoError does
    status = described(report);
    exit = static_cast<int>(report.exit);
  }
  const double cpu = thread_cpu_seconds() - cpu_start;
  if (trajectory) {
    trajectory->columns = rows.columns().names;
    trajectory->values = rows.trajectory();
  }
  const bool ok = exit == 0;
  const RunColumns& c = rows.columns();
  const auto column = [&](std::ptrdiff_t j) {
    return ok && j >= 0 ? exact_text(rows.last_row()[static_cast<std::size_t>(j)]) : std::string();
  };

  std::string line = member_inputs(m);
  for (std::size_t j = 0; j < spec_.derived.size(); ++j)
    line += "," + (j < derived.size() ? exact_text(derived[j]) : std::string());
  for (const auto& r : spec_.record) {
    if (r == "final") {
      for (std::size_t j = 0; j < state_names_.size(); ++j)
        line += "," + column(static_cast<std::ptrdiff_t>(c.state_begin + j));
    } else if (r == "energy_error") {
      line += "," + (ok && c.energy >= 0 ? exact_text(rows.energy_error()) : std::string());
    } else if (r == "momentum_error") {
      line += "," + (ok && !c.momenta.empty() ? exact_text(rows.momentum_error()) : std::string());
    } else if (r == "constraint_residual") {
      line += "," + (ok && c.has_constraints() ? exact_text(rows.constraint_residual()) : std::string());
    } else if (r == "megno") {
      line += "," + column(c.megno);
    } else if (r == "lyapunov") {
      line += "," + column(c.lyapunov);
    } else if (r == "fli") {
      line += "," + column(c.fli);
    } else if (r == "steps") {
      // A failed member: the steps before the one that failed (the rows at every step, or where the
      // failure says it happened).
      const long before = std::max<long>({0, rows.rows() - 1, failed_at - 1});
      line += "," + std::to_string(ok ? steps : before);
    } else if (r == "cpu_s") {
      line += "," + format_number(cpu, 6);
    }
  }
  line += "," + csv_cell(printable_line(status)) + "," + std::to_string(exit);
  return line;
}

std::string SweepPlan::digest() const { return sweep_digest(describe().dump()); }

std::string SweepPlan::member_inputs(std::size_t m) const {
  std::string cells = std::to_string(m);
  const auto indices = spec_.value_indices(m);
  for (std::size_t i = 0; i < spec_.vary.size(); ++i) cells += "," + spec_.vary[i].cells[indices[i]];
  return cells;
}

nlohmann::json SweepPlan::describe() const {
  using nlohmann::json;
  json set = json::object();
  for (const auto& s : spec_.set) set[s.name] = s.text;
  json vary = json::array();
  for (const auto& v : spec_.vary)
    vary.push_back({{"name", v.name}, {"kind", v.kind}, {"parameters", v.parameters}, {"values", v.texts}});
  json derived = json::array();
  for (const auto& d : spec_.derived) derived.push_back({{"name", d.name}, {"expression", d.expression}});
  return {{"version", MECHINT_VERSION},
          {"system", spec_.system_as_written},
          {"system_definition", system_->fingerprint},
          {"method", resolved_method_},
          {"h", schedule_.h},
          {"t_end", schedule_.t_end},
          {"set", set},
          {"vary", vary},
          {"derived", derived},
          {"combine", spec_.zip ? "zip" : "grid"},
          {"seed", spec_.seed ? json(*spec_.seed) : json(nullptr)},
          {"record", spec_.record},
          {"trajectories", spec_.trajectories},
          {"output_every", spec_.output_every},
          {"members", spec_.members},
          {"columns", header_}};
}

}  // namespace mechint::app
