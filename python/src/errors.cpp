#include "errors.hpp"

#include <cmath>
#include <filesystem>
#include <new>
#include <string>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/impact_laws.hpp"
#include "mechint/integrate/step_check.hpp"
#include "mechint/solve/newton_options.hpp"

namespace py = pybind11;

namespace mechint::python {
namespace {

/// The classes of mechint._errors, kept for the life of the interpreter (never released: the
/// translator may run during its shutdown).
struct ErrorClasses {
  py::handle numerical_failure, newton_failure, rejected_step, impact_failure, domain_error;
};

ErrorClasses& classes() {
  static ErrorClasses c;
  return c;
}

py::object optional_number(double x) { return std::isnan(x) ? py::none() : py::object(py::float_(x)); }

/// Raises `type(message, step=…, time=…, residual=…)`.
void raise_failure(py::handle type, const char* what, const FailureLocation& where) {
  const std::string message = printable_line(what);
  py::object step = where.step < 0 ? py::none() : py::object(py::int_(where.step));
  py::object error = type(message, py::arg("step") = step, py::arg("time") = optional_number(where.time),
                          py::arg("residual") = optional_number(where.residual));
  PyErr_SetObject(type.ptr(), error.ptr());
}

}  // namespace

void register_error_translator(py::module_ module) {
  ErrorClasses& c = classes();
  c.numerical_failure = py::object(module.attr("NumericalFailure")).release();
  c.newton_failure = py::object(module.attr("NewtonFailure")).release();
  c.rejected_step = py::object(module.attr("RejectedStep")).release();
  c.impact_failure = py::object(module.attr("ImpactFailure")).release();
  c.domain_error = py::object(module.attr("DomainError")).release();

  py::register_exception_translator([](std::exception_ptr p) {
    const ErrorClasses& c = classes();
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Interrupted&) {
      // Python's own signal check (PyErr_CheckSignals) stopped the run and left its exception set.
      if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const InvalidInput& e) {
      PyErr_SetString(PyExc_ValueError, printable_line(e.what()).c_str());
    } catch (const NewtonFailure& e) {
      raise_failure(c.newton_failure, e.what(), e.location());
    } catch (const RejectedStep& e) {
      raise_failure(c.rejected_step, e.what(), e.location());
    } catch (const ImpactFailure& e) {
      raise_failure(c.impact_failure, e.what(), e.location());
    } catch (const NumericalFailure& e) {
      raise_failure(c.numerical_failure, e.what(), e.location());
    } catch (const DomainError& e) {
      raise_failure(c.domain_error, e.what(), e.location());
    } catch (const IoError& e) {
      PyErr_SetString(PyExc_OSError, printable_line(e.what()).c_str());
    } catch (const std::filesystem::filesystem_error& e) {
      // As the command line: name the path, not the library's wording.
      const std::string message =
          "cannot access " + quote_for_message(e.path1().string(), 200) + ": " + e.code().message();
      PyErr_SetString(PyExc_OSError, printable_line(message).c_str());
    }
  });
}

}  // namespace mechint::python
