#pragma once
/// \file
/// mechint's errors as Python exceptions (DESIGN §8): InvalidInput → ValueError with the command
/// line's one-line message, IoError → OSError, the exit-3 class → mechint.NumericalFailure and its
/// subclasses (python/mechint/_errors.py) with `step`, `time` and `residual`, Interrupted →
/// KeyboardInterrupt (the one Python's signal check raised).

#include <pybind11/pybind11.h>

namespace mechint::python {

/// Registers the translator; `classes` is the module mechint._errors, whose exception classes it raises.
void register_error_translator(pybind11::module_ classes);

}  // namespace mechint::python
