#include "arrays.hpp"

#include <unistd.h>

#include <memory>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace py = pybind11;

namespace mechint::python {

void ArrayRows::header(const std::vector<std::string>& columns) {
  columns_ = columns;
  // Refused before the first step: a run whose rows cannot fit would otherwise grow until the
  // machine's memory is gone. Half the physical memory is the most one array may take.
  const double bytes = static_cast<double>(expected_rows_) * static_cast<double>(columns.size()) * sizeof(double);
  const double memory = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  if (memory > 0 && bytes > 0.5 * memory)
    throw InvalidInput("run: the output would hold " + format_number(static_cast<double>(expected_rows_)) + " rows of " +
                       std::to_string(columns.size()) + " columns (" + format_number(bytes / 1e9) +
                       " GB), more than half of this machine's memory (" + format_number(memory / 1e9) +
                       " GB): raise output_every, shorten t_end, or use the command line's --out FILE");
  // A bound on the reservation: a run with sparse output must not reserve for every step.
  constexpr std::size_t kMaxReserved = std::size_t{1} << 27;  // doubles: 1 GiB
  if (expected_rows_ > 0 && expected_rows_ * columns.size() <= kMaxReserved)
    values_.reserve(expected_rows_ * columns.size());
}

void ArrayRows::row(const std::vector<double>& values) {
  values_.insert(values_.end(), values.begin(), values.end());
}

void ArrayRows::poll(double /*t*/) {
  // steady_clock::now() costs tens of nanoseconds, the GIL microseconds: both rarely.
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < std::chrono::milliseconds(50)) return;
  last_check_ = now;
  check_python_signals();
}

void check_python_signals() {
  const py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw Interrupted("interrupted");
}

py::array_t<double> ArrayRows::take_array() {
  const std::size_t width = columns_.size();
  const std::size_t rows = width == 0 ? 0 : values_.size() / width;
  auto* buffer = new std::vector<double>(std::move(values_));
  values_.clear();
  py::capsule owner(buffer, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  return py::array_t<double>({rows, width}, {width * sizeof(double), sizeof(double)}, buffer->data(), owner);
}

py::array_t<double> to_array(const Eigen::VectorXd& v) {
  py::array_t<double> a(v.size());
  std::copy(v.data(), v.data() + v.size(), a.mutable_data());
  return a;
}

}  // namespace mechint::python
