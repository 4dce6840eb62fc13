#include "app/error_report.hpp"

#include <filesystem>
#include <new>

#include "mechint/core/format.hpp"

namespace mechint::app {

ErrorReport report_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    return {e.exit_code(), e.what()};
  } catch (const std::filesystem::filesystem_error& e) {
    // A file operation (an experiment's, a sweep's): the path, not the library's wording.
    return {ExitCode::kIoError, "cannot access " + quote_for_message(e.path1().string(), 200) + ": " + e.code().message()};
  } catch (const std::bad_alloc&) {
    return {ExitCode::kNumericalFailure, "out of memory"};
  } catch (const std::exception& e) {
    return {ExitCode::kInternalError, e.what()};
  } catch (...) {
    return {ExitCode::kInternalError, "an exception that is not a std::exception"};
  }
}

std::string described(const ErrorReport& report) {
  return report.exit == ExitCode::kInternalError ? "internal error (please report): " + report.message : report.message;
}

}  // namespace mechint::app
