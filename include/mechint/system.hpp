#pragma once
/// \file
/// The C++ API of the engine (DESIGN §3): what the command line runs, from a program. A system is
/// opened by what a user names (a built-in's name, a model file `.toml`) or made from a model struct
/// templated on the scalar, whose L is differentiated once by automatic differentiation (the Ceres
/// `AutoDiffCostFunction` pattern: the struct stays in the program, the methods are compiled once in
/// the library `mechint::mechint`). Every method, its options, the step checks and the CSV columns
/// are those of `mechint run`: a run here gives the rows the command line writes, bit for bit.
///
///     mechint::System duffing = mechint::System::from_model(Duffing{}, {{"q1", 1.0}});
///     mechint::Trajectory tr = duffing.run({.method = "vi-gauss8", .h = 0.05, .t_end = 100.0});
///     std::span<const double> x = tr["q1"], e = tr["energy"];
///
/// Failures throw mechint::Error (core/errors.hpp): what() is one line, exit_code() the command
/// line's (2 bad input, 3 numerical failure, 4 input/output).

#include <concepts>
#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "mechint/core/errors.hpp"

namespace mechint {

namespace kernel {
class KernelModel;
}
namespace app {
struct SystemEntry;
class SteppingSession;
}  // namespace app

/// A setting, as `--set NAME=VALUE` gives it: a number or a string (a named start, a choice).
/// Numbers are passed exactly (their shortest round-trip text).
class Setting {
 public:
  template <class T>
    requires(std::is_arithmetic_v<T> && !std::same_as<T, bool>)
  Setting(T number) : text_(number_text(static_cast<double>(number))) {}  // NOLINT: implicit by design
  Setting(const char* text) : text_(text) {}                             // NOLINT
  Setting(std::string text) : text_(std::move(text)) {}                  // NOLINT
  Setting(std::string_view text) : text_(text) {}                        // NOLINT

  /// The value as the command line would read it.
  const std::string& text() const { return text_; }

 private:
  static std::string number_text(double value);
  std::string text_;
};

/// Settings by name: a system's parameters and start values, or a method's options.
using Settings = std::map<std::string, Setting>;

/// What `mechint run` takes besides the system, in this order (DESIGN §3).
struct RunOptions {
  std::string method = {};    ///< empty: the system's default method
  double h = 0.0;             ///< 0: the system's default step (a model file's `h`, else 0.01)
  double t_end = 10.0;        ///< the command line's default
  double output_every = 0.0;  ///< 0: every step
  Settings options = {};      ///< the method's options (as --set: newton_tol, adapt, compose, ...)
  /// A checkpoint file (as --checkpoint; empty: none): the run saves its state there as it goes and
  /// its rows to `checkpoint + ".rows"`, both removed when it completes (docs/cpp-api.md).
  std::string checkpoint = {};
  double checkpoint_every = 0.0;  ///< run time between checkpoints (--checkpoint-every); 0: a tenth of t_end
  /// A checkpoint to continue from (as --resume; empty: none), with the same system, settings and
  /// options otherwise: the run returns every row, those saved before the checkpoint read back from
  /// its rows file, and keeps saving to it. `checkpoint`, if given too, must name the same file.
  std::string resume = {};
};

/// Columns of numbers by name: a run's rows (a Trajectory) or a sweep's summary.
class Table {
 public:
  Table() = default;
  Table(std::vector<std::string> columns, std::vector<std::vector<double>> values,
        std::map<std::string, std::vector<std::string>> text = {});

  /// The column names, in order (a run's: the CSV header of DESIGN §4). Of a temporary table, a copy.
  const std::vector<std::string>& columns() const& { return columns_; }
  std::vector<std::string> columns() && { return std::move(columns_); }
  std::size_t rows() const { return columns_.empty() ? 0 : values_.front().size(); }
  bool has(const std::string& column) const;
  /// The column's values; throws InvalidInput naming the columns for an unknown name. A text
  /// column (a sweep's status) reads as NaN here: text() gives its cells. The span views the table:
  /// of a temporary table it would dangle, so keep the table (`auto tr = system.run(...)`).
  std::span<const double> operator[](const std::string& column) const&;
  std::span<const double> operator[](const std::string& column) const&& = delete;
  /// The cells of a column as written (empty for a column that is numbers only).
  const std::vector<std::string>& text(const std::string& column) const&;
  const std::vector<std::string>& text(const std::string& column) const&& = delete;
  /// Row `i` across the columns.
  std::vector<double> row(std::size_t i) const;

 private:
  std::size_t index_of(const std::string& column) const;
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> values_;
  std::map<std::string, std::vector<std::string>> text_;
};

/// The rows of a run, as `mechint run` writes them.
class Trajectory : public Table {
 public:
  using Table::Table;
};

/// One method stepping one system by a caller's own loop: the state after each step is the row
/// run() writes at that step, bit for bit. Not thread-safe: one thread steps an Integrator.
class Integrator {
 public:
  Integrator(Integrator&&) noexcept;
  Integrator& operator=(Integrator&&) noexcept;
  ~Integrator();

  /// Restarts from q0 and q̇0 (sizes: the system's coordinates). Throws InvalidStart for a start the
  /// model refuses (off a constraint, behind a wall; the previous state is kept).
  void start(const std::vector<double>& q0, const std::vector<double>& qdot0);
  /// Takes `n` steps (an adaptive method: steps of its own choosing).
  void step(long n = 1);
  /// Holds the controls `u` from the next step on (a system with control inputs).
  void set_controls(const std::vector<double>& u);

  double t() const;
  long steps() const;                    ///< steps taken since the start
  Eigen::VectorXd q() const;             ///< the configuration
  Eigen::VectorXd p() const;             ///< the canonical momenta (empty where the method has none)
  Eigen::VectorXd velocity() const;      ///< q̇ (empty where the method has none)
  double energy() const;
  Eigen::VectorXd momenta() const;       ///< the Noether momenta of the model's symmetries
  Eigen::VectorXd multipliers() const;   ///< the constraints' multipliers λ
  /// The columns of a run's row and the current row (what run() writes at this step).
  const std::vector<std::string>& columns() const;
  std::vector<double> row() const;

 private:
  friend class System;
  explicit Integrator(std::unique_ptr<app::SteppingSession> session);
  std::unique_ptr<app::SteppingSession> session_;
};

/// A system with its settings: the built-in models, a model file, or a model struct of one's own.
class System {
 public:
  /// A built-in's name (`mechint list`) or a model file (`.toml`), with settings as `--set` gives
  /// them: parameters, start values, a named start, controls held constant, and options of the
  /// method (`newton_tol`, checked against the method when a run chooses it). Names that exist
  /// nowhere and values out of range throw InvalidInput here.
  static System open(const std::string& name_or_path, const Settings& settings = {});

  /// A model struct (docs/adding-a-system.md: `kDim`, `kNumConstraints`, `kNumSymmetries` and
  /// `lagrangian` templated on the scalar; optional constraints, walls, forces). Its coordinates are
  /// named q1..qn and their rates q1_dot..qn_dot: `settings` gives their start values (default 0).
  /// Its kernels are made here, by AD, once; every method then runs on them.
  template <class Model>
  static System from_model(Model model, const Settings& settings = {});

  /// Runs the system as `mechint run` does (with `checkpoint` or `resume`: as `mechint run --out FILE
  /// --checkpoint`/`--resume` does, the rows returned being those FILE receives). A system made from a
  /// model struct or kernels has no checkpoints: a checkpoint cannot tell one struct from another.
  Trajectory run(const RunOptions& options = {}) const;
  /// An integrator of `method` (empty: the default) with step `h` (0: the default) and the method's
  /// options, started from the system's start values.
  Integrator integrator(const std::string& method = {}, double h = 0.0, const Settings& options = {}) const;

  const std::string& name() const;
  /// The methods offered to this system, default first where mechint lists it.
  std::vector<std::string> methods() const;
  std::string default_method() const;
  /// The names a setting may have (parameters, start values, controls).
  std::vector<std::string> parameters() const;

  /// A system made of derivative kernels (what from_model builds); coordinates named q1..qn.
  static System from_kernels(std::shared_ptr<const kernel::KernelModel> kernels, const Settings& settings = {});

 private:
  System(std::shared_ptr<const app::SystemEntry> entry, Settings settings);
  std::shared_ptr<const app::SystemEntry> entry_;
  Settings settings_;
  std::string source_;  ///< what open() was given (a built-in's name, a file); empty for a model struct
};

/// Runs the sweep file `file` (DESIGN §9) on `threads` threads (0: one per hardware thread) into
/// `out_dir` (empty: a temporary directory, removed after) and returns its summary.csv: one row per
/// member, its `status` a text column.
Table sweep(const std::string& file, unsigned threads = 0, const std::string& out_dir = {});

/// A solved optimal control problem (DESIGN §7), as `mechint optimize` reports it.
struct OptimalControlResult {
  std::string status;      ///< Ipopt's status ("Solve_Succeeded", ...)
  double cost = 0.0;       ///< J = Σ h·w·|u_k|²
  int iterations = 0;      ///< Ipopt's iterations
  std::string method;      ///< the discrete Lagrangian of the transcription
  /// trajectory.csv: t, the coordinates, the controls u1 … um and energy at the nodes t_k = k h,
  /// k = 0 … N (u_k holds over [t_k, t_{k+1}); the last node repeats the last step's).
  Table trajectory;
  /// controls.csv: t_k and the controls held over step k, k = 0 … N − 1.
  Table controls;
  /// results.json's text (DESIGN §7 keys first).
  std::string results_json;
};

/// Solves the optimal control problem of the problem file `problem_file` (TOML, DESIGN §7) by DMOC
/// and, when `out_dir` is not empty, writes trajectory.csv, controls.csv, results.json and report.md
/// there as `mechint optimize --out` does (the directory replaced whole, once complete). Throws
/// InvalidInput for a problem that cannot be transcribed, NumericalFailure for one Ipopt does not
/// solve.
OptimalControlResult optimize(const std::string& problem_file, const std::string& out_dir = {});

}  // namespace mechint

#include "mechint/system_from_model.txx"
