#pragma once
/// \file
/// Continuous Legendre transform and energy of a model, by forward-mode AD of its Lagrangian.
///
/// For a constrained model the velocity recovered from a momentum is the one tangent to the
/// constraint manifold: solve  ∂L/∂q̇(q, v) + Dg(q)^T μ = p,  Dg(q) v = 0  (the normal component
/// of p is the constraint impulse and carries no kinetic energy). The discrete momenta
/// p_k⁺ = D2 Ld(q_{k−1}, q_k) and p_k⁻ = −D1 Ld(q_k, q_{k+1}) differ only by Dg(q_k)^T λ_k, so both give
/// the same velocity and energy.

#include <limits>

#include <Eigen/LU>

#include "mechint/core/autodiff.hpp"
#include "mechint/model/lagrangian_derivatives.hpp"
#include "mechint/model/lagrangian_model.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint {

/// ∂L/∂q̇ (q, v): the momentum conjugate to q.
template <LagrangianModel M>
VecD<M::kDim> lagrangian_dv(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& v) {
  constexpr int n = M::kDim;
  if constexpr (HasLagrangianDerivatives<M>) {
    LagrangianDerivatives<n> d;
    model.lagrangian_derivatives(q, v, d);
    return d.v;
  } else {
    return model.template lagrangian<Jet<n>>(lift_constant<Jet<n>, n>(q), seed_gradient<n>(v)).v;
  }
}

/// ∂²L/∂q̇² (q, v).
template <LagrangianModel M>
Mat<M::kDim, M::kDim> lagrangian_dvdv(const M& model, const VecD<M::kDim>& q,
                                      const VecD<M::kDim>& v) {
  constexpr int n = M::kDim;
  if constexpr (HasLagrangianDerivatives<M>) {
    LagrangianDerivatives<n> d;
    model.lagrangian_derivatives(q, v, d);
    return d.vv;
  } else {
    Vec<Jet2<n>, n> vj;
    for (int i = 0; i < n; ++i) vj[i] = Jet2<n>(Jet<n>(v[i], i), i);
    const Jet2<n> l = model.template lagrangian<Jet2<n>>(lift_constant<Jet2<n>, n>(q), vj);
    Mat<n, n> hess;
    for (int i = 0; i < n; ++i) hess.row(i) = l.v[i].v.transpose();
    return hess;
  }
}

/// Energy E = ∂L/∂q̇ · q̇ − L.
template <LagrangianModel M>
double energy(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& v) {
  return lagrangian_dv(model, q, v).dot(v) - model.template lagrangian<double>(q, v);
}

/// Constraint Jacobian Dg(q) of a model.
template <LagrangianModel M>
Mat<M::kNumConstraints, M::kDim> model_constraint_jacobian(const M& model,
                                                           const VecD<M::kDim>& q) {
  constexpr int n = M::kDim;
  constexpr int k = M::kNumConstraints;
  Mat<k, n> dg;
  if constexpr (k > 0) {
    const Vec<Jet<n>, k> gj = model_constraints<M, Jet<n>>(model, seed_gradient<n>(q));
    for (int r = 0; r < k; ++r) dg.row(r) = gj[r].v.transpose();
  }
  return dg;
}

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
  } problem{model, q, p, model_constraint_jacobian(model, q), v_guess};
  NewtonSolver<n + k> newton;
  newton.solve(problem, {.max_iterations = 20});
  // As the plain iteration did, a residual or update with NaN or infinity poisons the result.
  if (newton.last_stop() == NewtonStop::kNonFinite)
    problem.v.setConstant(std::numeric_limits<double>::quiet_NaN());
  return problem.v;
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
