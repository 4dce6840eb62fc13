#pragma once
/// \file
/// A kernel model's separable kinetic energy (model/separable_lagrangian.hpp's test on its kernels):
/// L = ½ vᵀM v + b·v − V(q), M and b constant. The trapezoid rule (Lobatto IIIA–IIIB with two stages)
/// in momentum form is then the explicit Störmer–Verlet method: the Galerkin integrator's explicit
/// sub-step (galerkin_integrator.hpp) and the impact driver's flows (kernel_flows.hpp) both take it
/// through separable_drift and separable_kick below.

#include <optional>

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

/// The constant terms of a separable Lagrangian: M, M⁻¹ (n x n) and b = ∂L/∂v(q, 0); M⁻¹'s diagonal
/// apart when M is diagonal (point masses, Kepler's M = I), where the drift scales instead of
/// multiplying by a matrix.
struct SeparableKinetics {
  RowMatrix mass;
  RowMatrix mass_inverse;
  Vector linear;
  bool diagonal = false;
  Vector inverse_diagonal;
  /// M = I and b = 0 (Kepler, N bodies of unit mass): v = p + h/2 f, two operations fewer on the
  /// step's chain, and the same numbers (x − 0 and 1·x are x exactly).
  bool unit = false;
};

/// M⁻¹ and b when the model is found separable around (q0, v0); nothing otherwise, and for a model
/// with constraints or forces (which the explicit form does not cover). Allocates (once, at a start).
std::optional<SeparableKinetics> separable_kinetics(const KernelModel& model, const Vector& q0, const Vector& v0);

// The trapezoid rule's DEL equation in momentum form, p0 + D1 Ld(q0, q1) = 0, solved in closed form
// (004 eq. 16 with L_qv = 0 and L_vv = M): L_q does not depend on v, so with f(q) = L_q(q, ·)
//     M v = p0 + h/2 f(q0) − b,   q1 = q0 + h v,   p1 = D2 Ld = p0 + h/2 f(q0) + h/2 f(q1).
// In two parts, since f(q1) is the model's to evaluate in between; at size N (kernel/sized_newton.hpp's
// at_short_size), allocating nothing. `p1` may be `p0`.

/// M v into `mass_velocity`, v into `v`, q1 into `q1`. At a fixed size the values are formed in
/// registers and stored once: stored entry by entry and loaded again as a pair for q1, v cost a
/// store-forwarding stall on the step's chain of dependent operations (docs/performance.md). With M
/// diagonal, v_i = (M⁻¹)_ii mv_i, which M⁻¹ mv's sum gives too (its other terms are zeros added), so
/// both paths agree bit for bit.
template <int N>
void separable_drift(const SeparableKinetics& k, const Vector& q0, const Vector& p0, const Vector& force0, double h,
                     Vector& mass_velocity, Vector& v, Vector& q1) {
  using V = Eigen::Matrix<double, N, 1>;
  using MassInverse = Eigen::Map<const Eigen::Matrix<double, N, N, Eigen::RowMajor>>;
  const int n = static_cast<int>(q0.size());
  const auto momentum = Eigen::Map<const V>(p0.data(), n) + (0.5 * h) * Eigen::Map<const V>(force0.data(), n) -
                        Eigen::Map<const V>(k.linear.data(), n);
  if constexpr (N == Eigen::Dynamic) {  // above the fixed sizes: in the buffers, allocating nothing
    Eigen::Map<V> mv(mass_velocity.data(), n), velocity(v.data(), n);
    mv = momentum;
    if (k.diagonal)
      velocity = Eigen::Map<const V>(k.inverse_diagonal.data(), n).cwiseProduct(mv);
    else
      velocity.noalias() = MassInverse(k.mass_inverse.data(), n, n) * mv;
    Eigen::Map<V>(q1.data(), n) = Eigen::Map<const V>(q0.data(), n) + h * velocity;
  } else if (k.unit) {
    const V mv = Eigen::Map<const V>(p0.data(), n) + (0.5 * h) * Eigen::Map<const V>(force0.data(), n);
    Eigen::Map<V>(mass_velocity.data(), n) = mv;
    Eigen::Map<V>(v.data(), n) = mv;
    Eigen::Map<V>(q1.data(), n) = Eigen::Map<const V>(q0.data(), n) + h * mv;
  } else {
    const V mv = momentum;
    V velocity;
    if (k.diagonal)
      velocity = Eigen::Map<const V>(k.inverse_diagonal.data(), n).cwiseProduct(mv);
    else
      velocity.noalias() = MassInverse(k.mass_inverse.data(), n, n) * mv;
    Eigen::Map<V>(mass_velocity.data(), n) = mv;
    Eigen::Map<V>(v.data(), n) = velocity;
    Eigen::Map<V>(q1.data(), n) = Eigen::Map<const V>(q0.data(), n) + h * velocity;
  }
}

/// p1 from p0 and the forces at both ends.
template <int N>
void separable_kick(const Vector& p0, const Vector& force0, const Vector& force1, double h, Vector& p1) {
  using V = Eigen::Matrix<double, N, 1>;
  const int n = static_cast<int>(p0.size());
  Eigen::Map<V> p(p1.data(), n);
  if (&p1 != &p0) p = Eigen::Map<const V>(p0.data(), n);
  p += (0.5 * h) * Eigen::Map<const V>(force0.data(), n);
  p += (0.5 * h) * Eigen::Map<const V>(force1.data(), n);
}

}  // namespace mechint::kernel
