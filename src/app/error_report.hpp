#pragma once
/// \file
/// The one table from a failure to what a front end says of it (DESIGN §3, §4): mechint's errors
/// (core/errors.hpp) carry their exit code; what the standard library throws is mapped here, once —
/// a file operation's error is input/output (4) naming the path, running out of memory a numerical
/// failure (3, the run asked for more than there is), anything else a bug of mechint (1). The command
/// line, the sweep's members and ranks, and the C++ API read it; Python maps the same classes to its
/// exceptions (python/src/errors.cpp; std::bad_alloc is pybind11's MemoryError).

#include <exception>
#include <string>

#include "mechint/core/errors.hpp"

namespace mechint::app {

struct ErrorReport {
  ExitCode exit = ExitCode::kInternalError;
  std::string message;  ///< one line, as the error gave it (exit 1: without the "internal error" prefix)
};

/// The exit code and message of `error` (not null).
ErrorReport report_of(const std::exception_ptr& error);

/// The message a front end prints or records for `report`: exit 1 says it is a bug to report.
std::string described(const ErrorReport& report);

}  // namespace mechint::app
