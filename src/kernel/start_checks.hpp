#pragma once
/// \file
/// The start checks of a kernel model's holonomic constraints, on runtime sizes: model/start_on_manifold.hpp's
/// (q0 within 1e-9 of g = 0 relative to the configuration's size, q̇0 tangent within 1e-9), shared by
/// the integrators of src/kernel/.

#include <string>
#include <vector>

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

/// Refuses (InvalidStart) a q0 off g(q0) = 0, or where g is not defined, and, when `qdot0` is given, a
/// q̇0 off Dg(q0) q̇0 = 0. Returns Dg(q0) (k x n; 0 x n without constraints).
RowMatrix check_start_on_constraints(const KernelModel& model, const Vector& q0, const Vector* qdot0);

/// The largest magnitude of an initial angle: at 1e7 rad consecutive doubles are 1.9e-9 rad apart.
inline constexpr double kLargestAngle = 1e7;

/// Refuses (InvalidStart, exit 2) a start whose coordinates have lost their precision
/// (docs/trustworthy-runs.md, "Starts"): an angle of the Lagrangian — a coordinate L depends on 2π-periodically, found by evaluating L and
/// ∂L/∂q at the start with that coordinate reduced to (−π, π] and shifted by ±2π — beyond
/// kLargestAngle. A pendulum released at th1 = 1e17 rad otherwise stays frozen with exit 0: its
/// doubles are 16 rad apart. `names` names the coordinates in the message.
void check_start_precision(const KernelModel& model, const Vector& q0, const Vector& qdot0,
                           const std::vector<std::string>& names);

}  // namespace mechint::kernel
