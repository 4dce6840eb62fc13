#pragma once
/// \file
/// A kernel model's separable kinetic energy (model/separable_lagrangian.hpp's test on its kernels):
/// L = ½ vᵀM v + b·v − V(q), M and b constant. The trapezoid rule (Lobatto IIIA–IIIB with two stages)
/// in momentum form is then the explicit Störmer–Verlet method: the Galerkin integrator's explicit
/// sub-step (galerkin_integrator.hpp) and the impact driver's flows (kernel_flows.hpp) both take it
/// through separable_drift and separable_kick below, or, where the model supplies it, as the model's
/// own step (model_separable_step).

#include <optional>

#include "kernel/kernel_model.hpp"
#include "kernel/separable_arithmetic.hpp"

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

  /// The form the step applies M⁻¹ and b in (kernel/separable_arithmetic.hpp).
  SeparableForm form() const {
    if (unit) return {MECHINT_MASS_UNIT, nullptr, nullptr};
    if (diagonal) return {MECHINT_MASS_DIAGONAL, inverse_diagonal.data(), linear.data()};
    return {MECHINT_MASS_FULL, mass_inverse.data(), linear.data()};
  }
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
/// store-forwarding stall on the step's chain of dependent operations (docs/performance-history.md).
template <int N>
void separable_drift(const SeparableKinetics& k, const Vector& q0, const Vector& p0, const Vector& force0, double h,
                     Vector& mass_velocity, Vector& v, Vector& q1) {
  if constexpr (N == Eigen::Dynamic) {  // above the fixed sizes: in the buffers, allocating nothing
    separable_velocity<N>(k.form(), p0, force0, h, mass_velocity, v);
    q1 = q0 + h * v;
  } else {
    using V = Eigen::Matrix<double, N, 1>;
    const int n = static_cast<int>(q0.size());
    V mv, velocity;
    separable_velocity<N>(k.form(), V(Eigen::Map<const V>(p0.data(), n)), V(Eigen::Map<const V>(force0.data(), n)), h,
                          mv, velocity);
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
  add_half_kicks(p, Eigen::Map<const V>(force0.data(), n), Eigen::Map<const V>(force1.data(), n), h);
}

/// Whether the model takes the whole explicit step itself (model_kernels.h, separable_step).
inline bool supplies_separable_step(const KernelModel& model) { return model.table().separable_step != nullptr; }

/// The model's own explicit step (only when supplies_separable_step): q1, v, f1, p1 from q0, p0 and
/// f0 = L_q(q0), written only when the model is defined at q1 (false otherwise, nothing written). q1
/// may be q0 and p1 may be p0.
inline bool model_separable_step(const KernelModel& model, const SeparableKinetics& k, double h, const Vector& q0,
                                 const Vector& p0, const Vector& f0, Vector& q1, Vector& v, Vector& f1, Vector& p1) {
  const mechint_model_kernels& t = model.table();
  const SeparableForm form = k.form();
  return t.separable_step(t.context, form.mass_form, form.inverse_mass, form.linear, h, q0.data(), p0.data(),
                          f0.data(), q1.data(), v.data(), f1.data(), p1.data()) == MECHINT_KERNEL_OK;
}

}  // namespace mechint::kernel
