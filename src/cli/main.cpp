// The mechint command line (DESIGN §4):
//   mechint list
//   mechint run SYSTEM [--method M] [--h H] [--t-end T] [--output-every DT] [--set NAME=VALUE]... [--out FILE.csv]
//               [--controls FILE.csv] [--quiet] [--animate FILE.html]
//   mechint reproduce EXPERIMENT [--out DIR] [--quiet]
//   mechint check FILE.toml | ROBOT.urdf
//   mechint optimize PROBLEM.toml [--out DIR] [--verbose] [--quiet]
//   mechint view RUN.csv --system SYSTEM [--set NAME=VALUE]... --out FILE.html
//   mechint sweep SWEEP.toml [--out DIR] [--threads N] [--quiet]
// Exit codes (DESIGN §4, core/errors.hpp): 2 bad input, 3 numerical failure, 4 input/output error,
// 130/143 SIGINT/SIGTERM, each with one printable line on stderr; 1 is an unexpected exception (a
// bug). No partial output file is left behind (app/output.hpp, app/temporary_files.hpp).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/animation_page.hpp"
#include "app/checkpoint_completion.hpp"
#include "app/disk_space.hpp"
#include "app/drawing.hpp"
#include "methods/method_registry.hpp"
#include "app/experiment_entry.hpp"
#include "app/error_report.hpp"
#include "app/file_paths.hpp"
#include "app/open_system.hpp"
#include "app/optimize.hpp"
#include "app/reproduce.hpp"
#include "app/output.hpp"
#include "app/progress.hpp"
#include "app/run_system.hpp"
#include "app/sweep.hpp"
#include "cli/mpi_ranks.hpp"
#include "app/temporary_files.hpp"
#include "app/watched_rows.hpp"
#include "cli/arguments.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/core/notices.hpp"
#include "model_file/system_file.hpp"
#include "model_file/model_file_system.hpp"

namespace {

using namespace mechint;

int list_everything() {
  std::cout << "systems:\n";
  for (const auto& s : app::all_systems()) {
    std::cout << "  " << s.name << "  " << s.summary << "\n    methods: ";
    const auto defaults = app::ParameterValues::resolve(s.parameters({}), {}, s.name);
    const auto methods = s.methods(defaults);
    for (std::size_t i = 0; i < methods.size(); ++i)
      std::cout << (i ? ", " : "") << methods[i] << (methods[i] == s.default_method ? " (default)" : "");
    std::cout << "\n    --set:";
    for (const auto& p : s.parameters({})) std::cout << " " << p.name << "=" << p.default_value;
    std::cout << "\n";
    if (!s.controls.empty()) {
      std::cout << "    controls (--set NAME=VALUE, default 0, or --controls FILE.csv):";
      for (const auto& c : s.controls) std::cout << " " << c;
      std::cout << "\n";
    }
  }
  std::cout << "methods (their options, also with --set):\n";
  for (const std::string& name : methods::method_names()) {
    const methods::MethodRow& row = *methods::first_row_named(name);
    std::cout << "  " << name << "  " << row.summary;
    // Every method's order where its summary does not say it (docs/methods.md).
    if (row.summary.find("order") == std::string::npos && row.order > 0) std::cout << "; order " << row.order;
    std::cout << "\n";
    const auto options = methods::every_option_of(name);
    if (!options.empty()) {
      std::cout << "    --set:";
      for (const auto& o : options) std::cout << " " << o.name << "=" << o.default_value;
      std::cout << "\n";
    }
  }
  std::cout << "experiments:\n";
  for (const auto& e : app::all_experiments()) std::cout << "  " << e.name << "  " << e.summary << "\n";
  std::cout << "  all  every experiment above, in turn\n";
  std::cout << "model files:\n  mechint run PATH.toml runs a system described in a model file (compiled once, "
               "cached); mechint check PATH.toml shows what mechint derives from it (docs/model-files.md)\n";
  std::cout << "robots:\n  mechint run ROBOT.urdf runs a robot from its URDF (revolute, continuous, prismatic, fixed, "
               "planar and floating joints); mechint check ROBOT.urdf prints its tree (docs/robots.md)\n";
  std::cout << "animations:\n  mechint run SYSTEM ... --animate FILE.html, or mechint view RUN.csv --system SYSTEM --out "
               "FILE.html: the run drawn moving in one self-contained page (docs/animations.md)\n";
  std::cout << "optimal control:\n  mechint optimize PROBLEM.toml [--out DIR] solves a problem file by DMOC for a system with "
               "controls (docs/optimal-control.md, examples/problems/)\n";
  std::cout << "sweeps:\n  mechint sweep SWEEP.toml [--out DIR] [--threads N] runs many members of one system (a grid, "
               "zipped lists or random samples of its values) on every core into DIR/summary.csv (docs/sweeps.md, "
               "examples/sweeps/)\n";
  return 0;
}

int run_system(const cli::RunCommand& command) {
  const auto opened = app::open_system(command.system);
  const app::SystemEntry& system = *opened;
  const bool model_file = model_file::is_system_file_name(command.system);
  app::Overrides overrides;
  for (const auto& a : command.assignments) app::parse_assignment(a, overrides);
  const OutputSchedule schedule = app::with_default_step(system, command.schedule, command.h_given);
  // A file the run reads is never one it writes: the output or a checkpoint would replace it.
  const std::string checkpoint_path = command.checkpoint ? command.checkpoint->path : std::string();
  const std::string checkpoint_option = command.checkpoint && command.checkpoint->resume ? "--resume" : "--checkpoint";
  if (model_file) {
    app::refuse_same_file("--out", command.out, "the model file", command.system);
    app::refuse_same_file(checkpoint_option, checkpoint_path, "the model file", command.system);
  }
  app::refuse_same_file("--out", command.out, "--controls", command.controls);
  app::refuse_same_file(checkpoint_option, checkpoint_path, "--controls", command.controls);
  // A run stopped after its rows became --out but before its checkpoint was removed has nothing to resume.
  if (command.checkpoint && command.checkpoint->resume &&
      app::run_had_completed(command.checkpoint->path, command.checkpoint->path + ".rows", command.out))
    return 0;
  std::optional<app::RunCheckpoint> checkpoint;
  if (command.checkpoint) checkpoint.emplace(*command.checkpoint);
  // The page's drawing is made before the run: a system without one is refused before it runs.
  std::optional<app::Drawing> drawing;
  std::optional<app::AnimationFrames> frames;
  if (!command.animate.empty()) {
    if (command.checkpoint && command.checkpoint->resume)
      throw InvalidInput("--animate with --resume would draw only the rows after the checkpoint: animate the finished "
                         "CSV with mechint view RUN.csv --system SYSTEM --out FILE.html");
    app::check_page_path("--animate", command.animate);
    if (command.animate == "-" && (command.out.empty() || command.out == "-"))
      throw InvalidInput("--animate - and the CSV would both go to standard output: give --out FILE.csv");
    app::refuse_same_file("--animate", command.animate, "--out", command.out);
    app::refuse_same_file("--animate", command.animate, "--controls", command.controls);
    if (model_file) app::refuse_same_file("--animate", command.animate, "the model file", command.system);
    const auto resolved = app::resolve_run(system, command.method, overrides, command.controls);
    drawing = app::system_drawing(system, resolved.values);
    frames.emplace(app::output_rows(schedule));
  }
  app::CsvOutput out(command.out, checkpoint ? &*checkpoint : nullptr);
  out.expect_rows(app::output_rows(schedule));
  app::ProgressLine progress("mechint run " + printable_line(command.system, 60), schedule.t_end, !command.quiet);
  app::WatchedRows rows(out, &progress, frames ? &*frames : nullptr);
  app::run_system(system, command.method, overrides, schedule, rows, command.controls);
  progress.clear();
  if (frames) {
    // The page first: if it cannot be written, the run fails whole and leaves no CSV either.
    frames->finish();
    app::write_animation_page(command.animate, *drawing, *frames, "mechint run " + printable_line(command.system, 200),
                              "--animate");
  }
  out.commit();
  return 0;
}

int view_run(const cli::ViewCommand& command) {
  app::Overrides overrides;
  for (const auto& a : command.assignments) app::parse_assignment(a, overrides);
  app::check_page_path("--out", command.out);
  app::refuse_same_file("--out", command.out, "the CSV", command.csv);
  // The CSV first: a file that is not a run's is refused before a model file is compiled for it.
  const app::AnimationFrames frames = app::read_run_csv(command.csv);
  const auto opened = app::open_system(command.system);
  const app::SystemEntry& system = *opened;
  const auto values = app::ParameterValues::resolve(system.parameters(overrides), overrides, system.name);
  const app::Drawing drawing = app::system_drawing(system, values);
  app::write_animation_page(command.out, drawing, frames,
                            printable_line(command.csv, 200) + " (" + printable_line(command.system, 200) + ")");
  return 0;
}

}  // namespace

int fail(ExitCode code, const std::string& message) {
  std::cerr << "mechint: " << (code == ExitCode::kInternalError ? "internal error (please report): " : "error: ")
            << printable_line(message) << "\n";
  return static_cast<int>(code);
}

/// Standard output, flushed: a closed pipe or a full disk is exit 4 with one line, not a silent loss.
int finish_output(int status) {
  if (status != 0) return status;  // one line: the error already said
  errno = 0;
  std::cout.flush();
  if (std::cout) return status;
  return fail(ExitCode::kIoError,
              std::string("cannot write to standard output") + (errno ? std::string(": ") + std::strerror(errno) : ""));
}

int run_command(int argc, char** argv);

int main(int argc, char** argv) {
  app::install_interrupt_handler();
  // A closed pipe (mechint ... | head -1) is a write error that the output reports (exit 4), not a
  // silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  // Notices ("compiled MODEL ...") are held back until the command has succeeded: a command that
  // fails after compiling a model prints one line, its error (DESIGN §4).
  std::vector<std::string> notices;
  set_notice_sink([&notices](const std::string& line) { notices.push_back(line); });
  const int status = finish_output(run_command(argc, argv));
  set_notice_sink({});
  if (status == 0)
    for (const auto& line : notices) std::cerr << line << '\n';
  return status;
}

/// `mechint sweep`, alone or as one rank of `mpirun -n K mechint sweep ...` (cli/mpi_ranks.hpp). A
/// refusal before the members run is every rank's; rank 0 alone prints it and returns its exit code,
/// the others return 0 (a rank ending non-zero first makes mpirun stop rank 0, perhaps before it has
/// said why). An error while the members run stops the whole job (app/sweep.cpp).
int sweep(const cli::SweepCommand& c) {
  const std::unique_ptr<app::SweepRanks> ranks = cli::mpi_ranks_if_launched();
  const unsigned threads = c.threads == 0 && ranks ? cli::default_threads(*ranks) : c.threads;
  // A rank > 0 that is done holds no file: the SIGTERM mpirun sends it when rank 0 ends with a
  // refusal is not an interruption to report (it would print a second line after rank 0's).
  const auto done_on_this_rank = [&] {
    if (!ranks || ranks->rank() == 0) return;
    // Ignored rather than blocked: MPI's own threads would take a blocked signal to the handler.
    std::signal(SIGTERM, SIG_IGN);
    std::signal(SIGINT, SIG_IGN);
  };
  try {
    app::sweep_command(c.sweep_file, c.out_dir, threads, !c.quiet, std::cerr, {}, ranks.get());
    done_on_this_rank();
    return 0;
  } catch (const mechint::Error& e) {
    if (!ranks) throw;
    done_on_this_rank();
    return ranks->rank() == 0 ? fail(e.exit_code(), e.what()) : 0;
  }
}

int run_command(int argc, char** argv) {
  try {
    const cli::Command command = cli::parse_command_line(argc, argv);
    switch (command.kind) {
      case cli::Command::Kind::kHelp:
        std::cout << command.help;
        return 0;
      case cli::Command::Kind::kList:
        return list_everything();
      case cli::Command::Kind::kRun:
        return run_system(command.run);
      case cli::Command::Kind::kReproduce:
        app::reproduce_experiments(command.reproduce.experiment, command.reproduce.out_dir, std::cerr,
                                   !command.reproduce.quiet);
        return 0;
      case cli::Command::Kind::kOptimize:
        app::optimize_command(command.optimize.problem_file, command.optimize.out_dir, command.optimize.verbose,
                              !command.optimize.quiet, std::cerr);
        return 0;
      case cli::Command::Kind::kView:
        return view_run(command.view);
      case cli::Command::Kind::kSweep:
        return sweep(command.sweep);
      case cli::Command::Kind::kCheck:
        std::cout << model_file::describe_model_file(command.check.model_file);
        return 0;
    }
    return fail(ExitCode::kInternalError, "unknown command kind");
  } catch (...) {
    const app::ErrorReport report = app::report_of(std::current_exception());  // the one table
    return fail(report.exit, report.message);
  }
}
