#pragma once
/// \file
/// The inverse Legendre transform on a kernel model: the velocity v tangent to the constraint
/// manifold with ∂L/∂v(q, v) + Dg(q)ᵀμ = p and Dg(q) v = 0 (model/legendre.hpp's
/// velocity_from_momentum, runtime-sized). Diagnostics (the velocity and energy columns of every
/// output row) and starts: the free functions allocate their workspace, a `LegendreWorkspace` holds
/// it for an integrator's rows.

#include "kernel/kernel_model.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint::kernel {

/// Newton from `guess`; a vector of NaN when the model is not defined on the way.
Vector tangent_velocity(const KernelModel& model, const Vector& q, const Vector& p, const Vector& guess);

/// The same transform onto the velocities v with A v = 0 for a given constraint matrix A (k x n):
/// ∂L/∂v(q, v) + Aᵀμ = p. tangent_velocity is it with A = Dg(q); a nonholonomic model's A(q) gives
/// the velocity in its distribution.
Vector velocity_in_kernel_of(const KernelModel& model, const Vector& q, const Vector& p, const RowMatrix& a,
                             const Vector& guess);

/// The inverse Legendre transform with its storage sized once for a model: what an integrator's
/// output rows use (one row asks for the velocity, and the energy of that velocity), so a row costs
/// the transform's arithmetic and no allocation. The same arithmetic as tangent_velocity.
class LegendreWorkspace {
 public:
  explicit LegendreWorkspace(const KernelModel& model);
  /// tangent_velocity(model, q, p, guess); the result lives until the next call.
  const Vector& tangent_velocity(const Vector& q, const Vector& p, const Vector& guess);
  /// E at (q, v), as kernel_energy.
  double energy(const Vector& q, const Vector& v);

 private:
  const KernelModel* model_;
  RowMatrix dg_, l_vv_;
  Vector l_v_, v_;
  NewtonSolver<Eigen::Dynamic> newton_;
};

/// E = ∂L/∂v·v − L at (q, v); NaN outside the model's domain.
double kernel_energy(const KernelModel& model, const Vector& q, const Vector& v);

}  // namespace mechint::kernel
