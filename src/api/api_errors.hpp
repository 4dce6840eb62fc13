#pragma once
/// \file
/// The C++ API throws mechint::Error only (DESIGN §3): what the standard library throws on the way
/// becomes the error of its exit code in the one table (app/error_report.hpp) — a file operation's
/// an IoError, running out of memory a NumericalFailure. Anything else is a bug of mechint and
/// passes as it came.

#include <exception>

#include "app/error_report.hpp"
#include "mechint/core/errors.hpp"

namespace mechint::api {

template <class F>
decltype(auto) with_mechint_errors(F&& f) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (...) {
    const app::ErrorReport report = app::report_of(std::current_exception());
    if (report.exit == ExitCode::kIoError) throw IoError(report.message);
    if (report.exit == ExitCode::kNumericalFailure) throw NumericalFailure(report.message);
    throw;
  }
}

}  // namespace mechint::api
