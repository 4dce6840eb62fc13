#pragma once
/// \file
/// The errors of mechint, each tied to one exit code of the command line (DESIGN §4):
///
/// | class              | std base                | exit | meaning                                          |
/// |--------------------|-------------------------|------|--------------------------------------------------|
/// | `InvalidInput`     | `std::invalid_argument` | 2    | arguments, parameters, model or problem files   |
/// | `NumericalFailure` | `std::runtime_error`    | 3    | Newton, an impact law, a non-finite value, ...  |
/// | `DomainError`      | `std::domain_error`     | 3    | the state left the model's domain (collision)  |
/// | `IoError`          | `std::runtime_error`    | 4    | cannot write, disk full                          |
///
/// Every one of them is also a `mechint::Error`, so a front end maps any of them to its exit code
/// with one `catch (const mechint::Error&)`; library users who prefer the standard hierarchy can
/// catch `std::invalid_argument` or `std::runtime_error` as before. Subclasses (`InvalidStart`,
/// `NewtonFailure`, `ImpactFailure`, ...) add what a caller needs to react; every exit-3 error
/// carries where it happened (`FailureLocation`: step, time, residual), filled in by the one run loop
/// (integrate/run_loop.hpp) when the code that threw did not know it.
/// Any other exception reaching the command line is a bug of mechint and exits 1. `Interrupted`
/// (exit 130) is raised by a front end's interrupt check, not by the numerics.

#include <limits>
#include <stdexcept>
#include <string>

namespace mechint {

/// Exit codes of the `mechint` command, the same for every subcommand (DESIGN §4). Unscoped, so that
/// a program compares `e.exit_code() == 2` as DESIGN §3 writes it; its names are spelled
/// `ExitCode::kBadInput` all the same.
enum ExitCode : int {
  kSuccess = 0,
  kInternalError = 1,  ///< an exception mechint did not expect: a bug, please report it
  kBadInput = 2,
  kNumericalFailure = 3,
  kIoError = 4,
  kInterrupted = 130,  ///< SIGINT; SIGTERM gives 143
};

/// The one base of mechint's errors: a message of one line and the exit code it maps to.
class Error {
 public:
  virtual ~Error() = default;
  virtual const char* what() const noexcept = 0;
  virtual ExitCode exit_code() const noexcept = 0;
};

namespace detail {
/// An error that is both a `StdBase` (for code catching the standard hierarchy) and a `mechint::Error`.
template <class StdBase, ExitCode kCode>
class ErrorWithCode : public StdBase, public Error {
 public:
  explicit ErrorWithCode(const std::string& message) : StdBase(message) {}
  const char* what() const noexcept override { return StdBase::what(); }
  ExitCode exit_code() const noexcept override { return kCode; }
};
}  // namespace detail

/// Unusable input: an unknown name, a malformed or out-of-range value, an option that does not
/// apply, an inconsistent start. Exit code 2.
class InvalidInput : public detail::ErrorWithCode<std::invalid_argument, ExitCode::kBadInput> {
 public:
  using ErrorWithCode::ErrorWithCode;
};

/// Initial data that an integrator cannot start from: non-finite, off the constraint manifold,
/// a velocity that is not tangent to it, a start behind a wall. Exit code 2.
class InvalidStart : public InvalidInput {
 public:
  using InvalidInput::InvalidInput;
};

/// Where a run failed, as far as it is known: the index of the step that could not be taken (or
/// whose result was refused), the time it was to reach (for an adaptive method, whose next step is
/// unknown, the time it started from), and the residual of the equations that were not solved
/// (Newton's; NaN where there is none). step < 0: not known.
struct FailureLocation {
  long step = -1;
  double time = std::numeric_limits<double>::quiet_NaN();
  double residual = std::numeric_limits<double>::quiet_NaN();
};

namespace detail {
/// An exit-3 error: its message and where it happened.
template <class StdBase>
class LocatedFailure : public ErrorWithCode<StdBase, ExitCode::kNumericalFailure> {
 public:
  explicit LocatedFailure(const std::string& message, FailureLocation where = {})
      : ErrorWithCode<StdBase, ExitCode::kNumericalFailure>(message), where_(where) {}
  const FailureLocation& location() const noexcept { return where_; }
  /// Records the step and time if the thrower did not (the run loop calls this on its way out).
  void locate(long step, double time) noexcept {
    if (where_.step < 0) {
      where_.step = step;
      where_.time = time;
    }
  }

 private:
  FailureLocation where_;
};
}  // namespace detail

/// The numerics could not continue: Newton did not converge, an impact law has no solution, a
/// value became non-finite, an adaptive method's step underflowed. Exit code 3.
class NumericalFailure : public detail::LocatedFailure<std::runtime_error> {
 public:
  using LocatedFailure::LocatedFailure;
};

/// The state left the model's domain: a collision with a singular point of the potential, a
/// non-finite configuration. Exit code 3 during a run (a start there is refused as InvalidStart).
class DomainError : public detail::LocatedFailure<std::domain_error> {
 public:
  using LocatedFailure::LocatedFailure;
};

/// A file could not be written or read. Exit code 4.
class IoError : public detail::ErrorWithCode<std::runtime_error, ExitCode::kIoError> {
 public:
  using ErrorWithCode::ErrorWithCode;
};

/// A run stopped on request: Ctrl-C seen by a front end's interrupt check between steps (the Python
/// module's, RowWriter::poll in app/row_writer.hpp). Exit code 130.
class Interrupted : public detail::ErrorWithCode<std::runtime_error, ExitCode::kInterrupted> {
 public:
  using ErrorWithCode::ErrorWithCode;
};

}  // namespace mechint
