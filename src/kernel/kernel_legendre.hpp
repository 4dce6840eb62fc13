#pragma once
/// \file
/// The inverse Legendre transform on a kernel model: the velocity v tangent to the constraint
/// manifold with ∂L/∂v(q, v) + Dg(q)ᵀμ = p and Dg(q) v = 0 (model/legendre.hpp's
/// velocity_from_momentum, runtime-sized). Diagnostics only (the velocity and energy columns): it
/// allocates.

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

/// Newton from `guess`; a vector of NaN when the model is not defined on the way.
Vector tangent_velocity(const KernelModel& model, const Vector& q, const Vector& p, const Vector& guess);

/// The same transform onto the velocities v with A v = 0 for a given constraint matrix A (k x n):
/// ∂L/∂v(q, v) + Aᵀμ = p. tangent_velocity is it with A = Dg(q); a nonholonomic model's A(q) gives
/// the velocity in its distribution.
Vector velocity_in_kernel_of(const KernelModel& model, const Vector& q, const Vector& p, const RowMatrix& a,
                             const Vector& guess);

/// E = ∂L/∂v·v − L at (q, v); NaN outside the model's domain.
double kernel_energy(const KernelModel& model, const Vector& q, const Vector& v);

}  // namespace mechint::kernel
