#pragma once
/// \file
/// The rows of a run collected as doubles (no Python object per row) and handed to NumPy without a
/// copy; and the run's interrupt check: Ctrl-C stops a run whose GIL is released.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <chrono>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "app/row_writer.hpp"

namespace mechint::python {

/// A RowWriter (app/row_writer.hpp) that keeps every row in one row-major buffer. Its poll() takes the
/// GIL about every 50 ms to let Python run its signal handlers; a KeyboardInterrupt (or any exception
/// a handler raises) stops the run with Interrupted, the exception left set for the caller.
class ArrayRows final : public app::RowWriter {
 public:
  /// `expected_rows`: rows to reserve room for (0: unknown).
  explicit ArrayRows(std::size_t expected_rows = 0) : expected_rows_(expected_rows) {}

  void header(const std::vector<std::string>& columns) override;
  void row(const std::vector<double>& values) override;
  void poll(double t) override;

  const std::vector<std::string>& columns() const { return columns_; }
  /// The rows as a (rows × columns) float64 array that takes over the buffer (call with the GIL held).
  pybind11::array_t<double> take_array();

 private:
  std::size_t expected_rows_;
  std::vector<std::string> columns_;
  std::vector<double> values_;
  std::chrono::steady_clock::time_point last_check_ = std::chrono::steady_clock::now();
};

/// Checks for a pending Ctrl-C (takes the GIL); throws Interrupted with the Python exception left set.
void check_python_signals();

/// A (size,) float64 array of an Eigen vector (copied).
pybind11::array_t<double> to_array(const Eigen::VectorXd& v);

}  // namespace mechint::python
