#pragma once
/// \file
/// The start checks of a kernel model's holonomic constraints, on runtime sizes: model/start_on_manifold.hpp's
/// (q0 within 1e-9 of g = 0 relative to the configuration's size, q̇0 tangent within 1e-9), shared by
/// the integrators of src/kernel/.

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

/// Refuses (InvalidStart) a q0 off g(q0) = 0, or where g is not defined, and, when `qdot0` is given, a
/// q̇0 off Dg(q0) q̇0 = 0. Returns Dg(q0) (k x n; 0 x n without constraints).
RowMatrix check_start_on_constraints(const KernelModel& model, const Vector& q0, const Vector* qdot0);

}  // namespace mechint::kernel
