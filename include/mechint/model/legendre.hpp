#pragma once
/// \file
/// Continuous Legendre transform of a model: the velocity of a momentum, the energy of a state
/// (q, p) and its Noether momenta. The derivatives of L it uses are those of
/// model/lagrangian_calculus.hpp; the Hamiltonian is model/hamiltonian.hpp.
///
/// Two inversions of p = ∂L/∂q̇(q, v), each with the stopping rule its users need:
///
/// * `velocity_from_momentum` (any model): for a constrained model the velocity recovered is the
///   one tangent to the constraint manifold: solve  ∂L/∂q̇(q, v) + Dg(q)^T μ = p,  Dg(q) v = 0 (the
///   normal component of p is the constraint impulse and carries no kinetic energy). The discrete
///   momenta p_k⁺ = D2 Ld(q_{k−1}, q_k) and p_k⁻ = −D1 Ld(q_k, q_{k+1}) differ only by Dg(q_k)^T λ_k, so
///   both give the same velocity and energy. A non-finite input yields a NaN velocity (the callers
///   check what they write).
/// * `velocity_and_derivatives_from_momentum` (unconstrained models): also returns L's second
///   derivatives at the solution, and throws NumericalFailure when Newton does not converge.

#include <limits>

#include "mechint/core/errors.hpp"
#include "mechint/model/constraint_derivatives.hpp"
#include "mechint/model/lagrangian_calculus.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint {

/// Tangent velocity v with ∂L/∂q̇(q, v) + Dg^T μ = p, Dg v = 0, by Newton from `v_guess`
/// (one iteration is exact for a Lagrangian quadratic in the velocities).
///
/// The residual is [∂L/∂q̇(q, v) − p ; Dg v], the Jacobian [[∂²L/∂q̇², Dgᵀ], [Dg, 0]]: each update
/// solves for the increment of v and for the whole multiplier (μ is eliminated, not iterated). Stops
/// when ‖Δv‖∞ ≤ 1e-14·(1 + ‖v‖∞), or after 20 updates with the last iterate.
template <LagrangianModel M>
VecD<M::kDim> velocity_from_momentum(const M& model, const VecD<M::kDim>& q,
                                     const VecD<M::kDim>& p,
                                     VecD<M::kDim> v_guess = VecD<M::kDim>::Zero()) {
  constexpr int n = M::kDim;
  constexpr int k = M::kNumConstraints;
  struct TangentVelocity {
    const M& model;
    const VecD<n>& q;
    const VecD<n>& p;
    Mat<k, n> dg;
    VecD<n> v;
    void assemble(VecD<n + k>& r, Mat<n + k, n + k>* a) const {
      a->template topLeftCorner<n, n>() = lagrangian_dvdv(model, q, v);
      if constexpr (k > 0) {
        a->template topRightCorner<n, k>() = dg.transpose();
        a->template bottomLeftCorner<k, n>() = dg;
        a->template bottomRightCorner<k, k>().setZero();
      }
      r.template head<n>() = lagrangian_dv(model, q, v) - p;
      if constexpr (k > 0) r.template tail<k>() = dg * v;
    }
    double update(const VecD<n + k>& delta) {
      v -= delta.template head<n>();
      return delta.template head<n>().template lpNorm<Eigen::Infinity>();
    }
    bool converged_on_update(const NewtonIterate& state) const {
      return update_below(state, 1e-14, v.template lpNorm<Eigen::Infinity>());
    }
  } problem{model, q, p, constraint_jacobian(model, q), v_guess};
  NewtonSolver<n + k> newton;
  newton.solve(problem, {.max_iterations = 20});
  // As the plain iteration did, a residual or update with NaN or infinity poisons the result.
  if (newton.last_stop() == NewtonStop::kNonFinite)
    problem.v.setConstant(std::numeric_limits<double>::quiet_NaN());
  return problem.v;
}

/// Unconstrained models: velocity v with ∂L/∂v(q, v) = p, and L's second derivatives there (the
/// Hamiltonian and the modified Hamiltonians need both). Newton on R = ∂L/∂v(q, v) − p,
/// J = L_vv, from `v`: converged when ‖R‖∞ ≤ 1e-14·(1 + ‖p‖∞) or after an update
/// ‖Δv‖∞ ≤ 1e-12·(1 + ‖v‖∞). Throws NumericalFailure when it does not converge in 30 updates
/// (L not hyperregular near this point).
template <LagrangianModel M>
VecD<M::kDim> velocity_and_derivatives_from_momentum(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& p,
                                   LagrangianDerivatives<M::kDim>& l,
                                   VecD<M::kDim> v = VecD<M::kDim>::Zero()) {
  constexpr int n = M::kDim;
  struct Legendre {
    const M& model;
    const VecD<n>& q;
    const VecD<n>& p;
    LagrangianDerivatives<n>& l;
    VecD<n>& v;
    double scale;
    bool l_at_v = false;  // l holds the derivatives at the current v
    void assemble(VecD<n>& r, Mat<n, n>* j) {
      l = lagrangian_second_derivatives(model, q, v);
      l_at_v = true;
      r = l.v - p;
      if (j) *j = l.vv;
    }
    double update(const VecD<n>& delta) {
      v -= delta;
      l_at_v = false;
      return delta.template lpNorm<Eigen::Infinity>();
    }
    bool converged_on_residual(const NewtonIterate& state) const { return state.residual_norm <= scale; }
    bool converged_on_update(const NewtonIterate& state) const {
      return update_below(state, 1e-12, v.template lpNorm<Eigen::Infinity>());
    }
  } problem{model, q, p, l, v, 1e-14 * (1.0 + p.template lpNorm<Eigen::Infinity>())};
  NewtonSolver<n> newton;
  if (!newton.solve(problem, {.max_iterations = 30}).converged)
    throw NumericalFailure("Legendre transform: no velocity found for the given momentum (the Lagrangian is not regular here)");
  if (!problem.l_at_v) l = lagrangian_second_derivatives(model, q, v);
  return v;
}

/// Energy of the state (q, p), p a (possibly discrete) momentum.
template <LagrangianModel M>
double energy_from_momentum(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& p) {
  return energy(model, q, velocity_from_momentum(model, q, p));
}

/// Noether momentum ⟨p, ξ_i(q)⟩ of symmetry i (000 §3.3; the multiplier term vanishes because
/// ξ is tangent to the constraint manifold).
template <LagrangianModel M>
double noether_momentum(const M& model, int i, const VecD<M::kDim>& q, const VecD<M::kDim>& p) {
  return p.dot(model_symmetry_generator(model, i, q));
}

}  // namespace mechint
