// The one table from a failure to its exit code and line (app/error_report.hpp), which the command
// line, the sweep's members and ranks and the C++ API read.
#include <gtest/gtest.h>

#include <filesystem>
#include <new>
#include <stdexcept>
#include <system_error>

#include "app/error_report.hpp"

namespace mechint::app {
namespace {

template <class E>
ErrorReport report_of_thrown(const E& e) {
  return report_of(std::make_exception_ptr(e));
}

TEST(ErrorReport, MechintsErrorsKeepTheirExitCodeAndLine) {
  EXPECT_EQ(report_of_thrown(InvalidInput("bad")).exit, 2);
  EXPECT_EQ(report_of_thrown(InvalidInput("bad")).message, "bad");
  EXPECT_EQ(report_of_thrown(InvalidStart("off the constraint")).exit, 2);
  EXPECT_EQ(report_of_thrown(NumericalFailure("Newton")).exit, 3);
  EXPECT_EQ(report_of_thrown(DomainError("collision")).exit, 3);
  EXPECT_EQ(report_of_thrown(IoError("disk full")).exit, 4);
  EXPECT_EQ(described(report_of_thrown(IoError("disk full"))), "disk full");
}

TEST(ErrorReport, WhatTheStandardLibraryThrowsIsMappedOnce) {
  const ErrorReport file = report_of_thrown(std::filesystem::filesystem_error(
      "remove", std::filesystem::path("/a/b"), std::make_error_code(std::errc::permission_denied)));
  EXPECT_EQ(file.exit, ExitCode::kIoError);
  EXPECT_NE(file.message.find("'/a/b'"), std::string::npos) << file.message;
  EXPECT_EQ(report_of_thrown(std::bad_alloc()).exit, ExitCode::kNumericalFailure);
  EXPECT_EQ(report_of_thrown(std::bad_alloc()).message, "out of memory");
  const ErrorReport bug = report_of_thrown(std::logic_error("an index out of range"));
  EXPECT_EQ(bug.exit, ExitCode::kInternalError);
  EXPECT_EQ(described(bug), "internal error (please report): an index out of range");
  EXPECT_EQ(report_of(std::make_exception_ptr(42)).exit, ExitCode::kInternalError);
}

}  // namespace
}  // namespace mechint::app
