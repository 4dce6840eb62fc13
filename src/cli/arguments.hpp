#pragma once
/// \file
/// The command line of `mechint` (DESIGN §4) parsed into a value, without running anything: what
/// `main` executes and what the argument fuzzer (fuzz/) exercises.

#include <optional>
#include <string>
#include <vector>

#include "app/checkpoint.hpp"
#include "mechint/integrate/run_loop.hpp"

namespace mechint::cli {

/// `mechint run SYSTEM ...`
struct RunCommand {
  std::string system;  ///< a built-in name or the path of a model file (ends in .toml)
  std::string method;  ///< empty: the system's default
  OutputSchedule schedule;  ///< validated
  bool h_given = false;     ///< --h was given (else a model file's own h may replace the default)
  std::vector<std::string> assignments;  ///< the `--set NAME=VALUE` texts, in order
  /// `--controls FILE.csv`: the controls over time (app/control_schedule.hpp); empty: none.
  std::string controls;
  std::string out;  ///< empty or "-": standard output
  /// --checkpoint FILE [--checkpoint-every DT], or --resume FILE (app/checkpoint.hpp).
  std::optional<app::CheckpointRequest> checkpoint;
  /// --quiet: no progress line on a terminal (app/progress.hpp).
  bool quiet = false;
  /// --animate FILE.html: the animated page of the run (app/animation_page.hpp); empty: none.
  std::string animate;
};

/// `mechint view RUN.csv --system SYSTEM [--set NAME=VALUE]... --out FILE.html`
struct ViewCommand {
  std::string csv;
  std::string system;
  std::vector<std::string> assignments;
  std::string out;
};

/// `mechint reproduce EXPERIMENT [--out DIR] [--quiet]`
struct ReproduceCommand {
  std::string experiment;
  std::string out_dir = "out";
  bool quiet = false;  ///< no progress line on a terminal (app/experiment_progress.hpp)
};

/// `mechint check FILE.toml`
struct CheckCommand {
  std::string model_file;
};

/// `mechint optimize PROBLEM.toml [--out DIR] [--verbose] [--quiet]`
struct OptimizeCommand {
  std::string problem_file;
  std::string out_dir;  ///< empty: results.json on standard output, no files
  bool verbose = false;
  bool quiet = false;  ///< no progress line of Ipopt's iterations on a terminal
};

/// `mechint sweep SWEEP.toml [--out DIR] [--threads N] [--quiet]`
struct SweepCommand {
  std::string sweep_file;
  std::string out_dir = "out";
  unsigned threads = 0;  ///< 0: one per hardware thread
  bool quiet = false;
};

struct Command {
  enum class Kind { kList, kRun, kReproduce, kCheck, kOptimize, kView, kSweep, kHelp };
  Kind kind = Kind::kHelp;
  RunCommand run;
  ReproduceCommand reproduce;
  CheckCommand check;
  OptimizeCommand optimize;
  ViewCommand view;
  SweepCommand sweep;
  std::string help;  ///< for kHelp: the text to print
};

/// Parses argv. Throws InvalidInput with one line for anything it cannot use: an unknown
/// subcommand or option, a missing argument, a value of --h, --t-end or --output-every that is not
/// a finite number, a time grid that cannot be integrated (OutputSchedule::validate).
Command parse_command_line(int argc, const char* const* argv);

}  // namespace mechint::cli
