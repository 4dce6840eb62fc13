#include "cli/arguments.hpp"

#include <CLI/CLI.hpp>

#include "app/parameters.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::cli {

Command parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"mechint: variational integrators for mechanical systems"};
  app.require_subcommand(1);
  app.add_subcommand("list", "systems, methods and experiments, one line each");

  Command command;
  auto* run = app.add_subcommand("run", "integrate one system and write CSV");
  // The times are read as text and parsed like every other number (app::parse_real): CLI11 would
  // take an empty value as 0 and report its own messages.
  std::string h = "0.01", t_end = "10", output_every = "0";
  run->add_option("system", command.run.system, "system name (see mechint list), model file (FILE.toml) or robot (FILE.urdf)")
      ->required();
  auto* method_option =
      run->add_option("--method", command.run.method, "integration method (default: the system's, see mechint list)");
  auto* h_option = run->add_option("--h", h, "step size (default: the model file's h, else 0.01)")
                       ->capture_default_str();
  run->add_option("--t-end", t_end, "final time, a multiple of h")->capture_default_str();
  run->add_option("--output-every", output_every, "time between output rows, a multiple of h (0: every step)")
      ->capture_default_str();
  run->add_option("--set", command.run.assignments,
                  "NAME=VALUE: a parameter, an initial value, a control or a method option")
      ->take_all();
  auto* controls_option = run->add_option(
      "--controls", command.run.controls,
      "CSV file t,<control names>: piecewise-constant controls of a system with control inputs");
  auto* out_option = run->add_option("--out", command.run.out, "CSV file (default or -: standard output)");
  std::string checkpoint, checkpoint_every, resume;
  auto* checkpoint_option =
      run->add_option("--checkpoint", checkpoint, "save the run's state to this file as it goes (needs --out FILE)");
  auto* every_option = run->add_option("--checkpoint-every", checkpoint_every,
                                       "run time between checkpoints (default: a tenth of t_end)");
  run->add_flag("--quiet", command.run.quiet, "no progress line (shown only when stderr is a terminal)");
  auto* animate_option = run->add_option("--animate", command.run.animate,
                                         "also write an animated page of the run (FILE.html, docs/animations.md)");
  auto* resume_option =
      run->add_option("--resume", resume, "continue the run saved in this checkpoint (the same command line)");

  auto* reproduce = app.add_subcommand("reproduce", "reproduce an experiment of the source documents");
  reproduce->add_option("experiment", command.reproduce.experiment, "experiment name or all")->required();
  reproduce->add_option("--out", command.reproduce.out_dir, "output directory (new, empty, or a previous output of "
                                                            "the same experiment)")
      ->capture_default_str();
  reproduce->add_flag("--quiet", command.reproduce.quiet, "no progress line (shown only when stderr is a terminal)");

  auto* check = app.add_subcommand("check", "check a model file or a robot's URDF and print what mechint derives from it");
  check->add_option("model_file", command.check.model_file, "model file (FILE.toml, docs/model-files.md) or URDF (FILE.urdf, docs/robots.md)")
      ->required();

  auto* optimize = app.add_subcommand("optimize", "solve an optimal control problem by DMOC (docs/optimal-control.md)");
  optimize->add_option("problem_file", command.optimize.problem_file, "problem file (PROBLEM.toml)")->required();
  auto* optimize_out = optimize->add_option(
      "--out", command.optimize.out_dir,
      "output directory (new, empty, or a previous output of optimize; default: results.json on standard output)");
  optimize->add_flag("--verbose", command.optimize.verbose, "show the optimizer's log (instead of the progress line)");
  optimize->add_flag("--quiet", command.optimize.quiet,
                     "no progress line of the optimizer's iterations (shown only when stderr is a terminal)");

  auto* sweep = app.add_subcommand("sweep", "run the members of a sweep file on every core into one summary (docs/sweeps.md)");
  sweep->add_option("sweep_file", command.sweep.sweep_file, "sweep file (SWEEP.toml)")->required();
  sweep->add_option("--out", command.sweep.out_dir,
                    "output directory (new, empty, or that of the same sweep, which it finishes)")
      ->capture_default_str();
  std::string threads;
  auto* threads_option =
      sweep->add_option("--threads", threads, "threads running members (default: one per hardware thread)");
  sweep->add_flag("--quiet", command.sweep.quiet, "no progress line (shown only when stderr is a terminal)");

  auto* view = app.add_subcommand("view", "write the animated page of a run's CSV (docs/animations.md)");
  view->add_option("csv", command.view.csv, "CSV written by mechint run")->required();
  view->add_option("--system", command.view.system, "the system of the run (name, model file or URDF)")->required();
  view->add_option("--set", command.view.assignments, "NAME=VALUE: a parameter of the run, as given to run")
      ->take_all();
  view->add_option("--out", command.view.out, "the page to write (FILE.html)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    command.kind = Command::Kind::kHelp;
    command.help = app.help();
    return command;
  } catch (const CLI::CallForAllHelp&) {
    command.kind = Command::Kind::kHelp;
    command.help = app.help("", CLI::AppFormatMode::All);
    return command;
  } catch (const CLI::ParseError& e) {
    // CLI11's message quotes what the user typed: keep it on one printable line.
    throw InvalidInput(printable_line(e.what()));
  }
  if (app.got_subcommand("list")) {
    command.kind = Command::Kind::kList;
  } else if (app.got_subcommand("check")) {
    command.kind = Command::Kind::kCheck;
    if (command.check.model_file.empty()) throw InvalidInput("check: the model file name is empty");
  } else if (app.got_subcommand("optimize")) {
    command.kind = Command::Kind::kOptimize;
    if (command.optimize.problem_file.empty()) throw InvalidInput("optimize: the problem file name is empty");
    if (optimize_out->count() > 0 && command.optimize.out_dir.empty())
      throw InvalidInput("optimize --out: the directory name is empty");
  } else if (app.got_subcommand("sweep")) {
    command.kind = Command::Kind::kSweep;
    if (command.sweep.sweep_file.empty()) throw InvalidInput("sweep: the sweep file name is empty");
    if (command.sweep.out_dir.empty()) throw InvalidInput("sweep --out: the directory name is empty");
    if (threads_option->count() > 0) {
      const double n = app::parse_real("--threads", threads);
      if (!(n >= 1.0 && n <= 4096.0) || n != static_cast<double>(static_cast<unsigned>(n)))
        throw InvalidInput("--threads must be a whole number from 1 to 4096, got " + quote_for_message(threads));
      command.sweep.threads = static_cast<unsigned>(n);
    }
  } else if (app.got_subcommand("view")) {
    command.kind = Command::Kind::kView;
    if (command.view.csv.empty()) throw InvalidInput("view: the CSV file name is empty");
    if (command.view.system.empty()) throw InvalidInput("view --system: the system name is empty");
    if (command.view.out.empty()) throw InvalidInput("view --out: the file name is empty");
  } else if (app.got_subcommand("reproduce")) {
    command.kind = Command::Kind::kReproduce;
    if (command.reproduce.out_dir.empty()) throw InvalidInput("reproduce --out: the directory name is empty");
  } else {
    command.kind = Command::Kind::kRun;
    auto& s = command.run.schedule;
    s.h = app::parse_real("--h", h);
    command.run.h_given = h_option->count() > 0;
    s.t_end = app::parse_real("--t-end", t_end);
    s.output_every = app::parse_real("--output-every", output_every);
    s.validate();
    if (controls_option->count() > 0 && command.run.controls.empty())
      throw InvalidInput("--controls: the file name is empty");
    // An empty value is a mistake (an unset shell variable), not a request for the default.
    if (out_option->count() > 0 && command.run.out.empty())
      throw InvalidInput("--out: the file name is empty (use - for standard output)");
    if (animate_option->count() > 0 && command.run.animate.empty())
      throw InvalidInput("--animate: the file name is empty");
    if (method_option->count() > 0 && command.run.method.empty())
      throw InvalidInput("--method: the method name is empty (mechint list shows the methods)");
    if (every_option->count() > 0 && checkpoint_option->count() == 0 && resume_option->count() == 0)
      throw InvalidInput("--checkpoint-every needs --checkpoint FILE");
    if (checkpoint_option->count() > 0 && resume_option->count() > 0 && checkpoint != resume)
      throw InvalidInput("--checkpoint and --resume name different files: a resumed run keeps saving to the file it "
                         "resumes from");
    if (checkpoint_option->count() > 0 || resume_option->count() > 0) {
      app::CheckpointRequest request;
      request.resume = resume_option->count() > 0;
      request.path = request.resume ? resume : checkpoint;
      if (request.path.empty()) throw InvalidInput(request.resume ? "--resume: the file name is empty"
                                                                  : "--checkpoint: the file name is empty");
      request.every = every_option->count() > 0 ? app::parse_real("--checkpoint-every", checkpoint_every)
                                                : s.t_end / 10.0;
      if (!(request.every > 0.0))
        throw InvalidInput("--checkpoint-every must be a positive time, got " + format_number(request.every));
      command.run.checkpoint = request;
    }
  }
  return command;
}

}  // namespace mechint::cli
