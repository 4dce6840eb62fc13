#pragma once
/// \file
/// What every run's rows share: angles wrapped for output, and the refusal of a non-finite row. The
/// recorder itself is src/methods/started_kernel_stepper.hpp's (every run is on kernels); its column order (DESIGN §4):
/// t, coordinates, [velocities], [canonical momenta], energy, [htilde], Noether momenta,
/// [their discrete work, e.g. Jz_work], [constraint_residual, lambda1..k], [controls u1..um]
/// (DESIGN §6; the forced columns are docs/forces.md's), [impacts] (a run with walls: the impacts
/// resolved so far, docs/impacts.md).

#include <cmath>
#include <string>
#include <vector>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::app {

/// x wrapped to (-pi, pi].
inline double wrap_angle(double x) {
  constexpr double kTwoPi = 2.0 * M_PI;
  return x - kTwoPi * std::ceil((x - M_PI) / kTwoPi);
}

/// Stops a run whose row at output time t (step `step`) holds a non-finite value: NumericalFailure
/// naming the column and the time. No NaN reaches an output file.
inline void require_finite_row(const std::vector<std::string>& columns, const std::vector<double>& row, long step,
                               double t) {
  for (std::size_t i = 0; i < row.size(); ++i)
    if (!std::isfinite(row[i]))
      throw NumericalFailure("non-finite " + columns[i] + " at t = " + format_number(t) + " (step " +
                                 std::to_string(step) + "); reduce the step size or check the parameters",
                             FailureLocation{step, t});
}

}  // namespace mechint::app
