#pragma once
/// \file
/// The trapezoid variational integrator (004 eq. 16, `vi-trapezoid`) as a momentum-form one-step
/// map Φ_h(q0, p0) = (q1, p1) for any step size h (004 §III-A):
///
///     p0 + D1 Ld(q0, q1, h) = 0   (solved for q1 by the core's Newton solver),
///     p1 = D2 Ld(q0, q1, h).
///
/// This is the same computation as `VariationalIntegrator<DiscreteSystem<M, TrapezoidRule>>`
/// (integrate/variational_integrator.hpp), but with the step size an argument, as the partial steps
/// of the impact driver need. The discrete energy of a step is
/// −D3 Ld(q0, q1, h) = ½[E(q0, v) + E(q1, v)], v = (q1 − q0)/h (differentiate Ld = h/2 [L(q0, v) +
/// L(q1, v)] in h at fixed q0, q1: dv/dh = −v/h); for L = ½vᵀMv − V it is 004's expression in §III-C.
///
/// A short step (the partial steps αh of the impact driver, α as small as 1e-12) cannot take its
/// velocity as (q1 − q0)/h: the difference keeps only the digits of q1 − q0, and D2 Ld and −D3 Ld
/// lose the rest (a step of 1e-14 gave p off by 1e-3). When ‖q1 − q0‖∞ < 1e-4·(1 + ‖q0‖∞), v is
/// instead solved from the DEL equation itself, ½[L_v(q0, v) + L_v(q1, v)] − h/2 L_q(q0, v) = p0
/// (Newton from (q1 − q0)/h, Jacobian ½[L_vv(q0, v) + L_vv(q1, v)] − h/2 L_qv(q0, v)), and the
/// momentum taken as p1 = p0 + h/2 [L_q(q0, v) + L_q(q1, v)] — the same p1 = D2 Ld at the root,
/// with v only ever multiplied by h. `is_short_trapezoid_step` and `short_step_velocity` below.

#include <cmath>
#include <string_view>

#include "mechint/model/legendre.hpp"
#include "mechint/analysis/modified_hamiltonian.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/integrate/one_step_flow.hpp"
#include "mechint/solve/del_newton.hpp"
#include "mechint/solve/newton.hpp"

namespace mechint {

template <LagrangianModel M>
  requires(M::kNumConstraints == 0)
class TrapezoidFlow {
 public:
  static constexpr int kDim = M::kDim;
  static constexpr int n = M::kDim;
  static constexpr std::string_view kName = TrapezoidRule::kName;
  static constexpr ModifiedHamiltonianKind kModifiedHamiltonian = ModifiedHamiltonianKind::kTrapezoidVi;
  using Model = M;
  using System = DiscreteSystem<M, TrapezoidRule>;

  explicit TrapezoidFlow(M model, NewtonOptions options = {})
      : system_(std::move(model)), solver_(options) {}

  StepResult step(const VecD<n>& q0, const VecD<n>& p0, double h, VecD<n>& q1, VecD<n>& p1) {
    StepResult r;
    LagrangianDerivatives<n> l;
    q1 = q0 + h * velocity_and_derivatives_from_momentum(model(), q0, p0, l);
    const Mat<0, n> no_constraints;
    VecD<0> no_multipliers;
    const NewtonStats stats = solver_.solve(system_, h, q0, p0, no_constraints, q1, no_multipliers);
    r.iterations = stats.iterations;
    r.residual_norm = stats.residual_norm;
    if (!stats.converged || !q1.allFinite()) return r;
    VecD<n> v = (q1 - q0) / h;
    if (is_short_trapezoid_step(q0, q1)) {
      if (!short_step_velocity(q0, q1, p0, h, v)) return r;
      p1 = p0 + 0.5 * h * (lagrangian_second_derivatives(model(), q0, v).q +
                           lagrangian_second_derivatives(model(), q1, v).q);
    } else {
      p1 = discrete_lagrangian_d2(system_, q0, q1, h);
    }
    r.discrete_energy = 0.5 * (energy(model(), q0, v) + energy(model(), q1, v));
    r.converged = p1.allFinite() && std::isfinite(r.discrete_energy);
    return r;
  }

  double modified_hamiltonian(const VecD<n>& q, const VecD<n>& p, double h) const {
    return modified_hamiltonian_trapezoid(model(), q, p, h);
  }

  const M& model() const { return system_.continuous_model(); }

  /// Whether q1 − q0 is too short to give the step's velocity by division (see the file comment).
  static bool is_short_trapezoid_step(const VecD<n>& q0, const VecD<n>& q1) {
    return (q1 - q0).template lpNorm<Eigen::Infinity>() < 1e-4 * (1.0 + q0.template lpNorm<Eigen::Infinity>());
  }

  /// The solver's kept factorization (simplified Newton), its only memory between steps.
  template <class Archive>
  void checkpoint_state(Archive& a) {
    solver_.checkpoint_state(a);
  }

 private:
  /// v of a short step from ½[L_v(q0, v) + L_v(q1, v)] − h/2 L_q(q0, v) = p0 (file comment).
  bool short_step_velocity(const VecD<n>& q0, const VecD<n>& q1, const VecD<n>& p0, double h, VecD<n>& v) const {
    struct Velocity {
      const M& model;
      const VecD<n>& q0;
      const VecD<n>& q1;
      const VecD<n>& p0;
      double h;
      VecD<n>& v;
      void assemble(VecD<n>& r, Mat<n, n>* j) const {
        const LagrangianDerivatives<n> a = lagrangian_second_derivatives(model, q0, v);
        const LagrangianDerivatives<n> b = lagrangian_second_derivatives(model, q1, v);
        r = 0.5 * (a.v + b.v) - 0.5 * h * a.q - p0;
        if (j) *j = 0.5 * (a.vv + b.vv) - 0.5 * h * a.qv;
      }
      double update(const VecD<n>& delta) {
        v -= delta;
        return delta.template lpNorm<Eigen::Infinity>();
      }
      bool converged_on_update(const NewtonIterate& state) const {
        return update_below(state, 1e-14, v.template lpNorm<Eigen::Infinity>());
      }
    } problem{model(), q0, q1, p0, h, v};
    NewtonSolver<n> newton;
    return newton.solve(problem, {.max_iterations = 10}).converged && v.allFinite();
  }

  System system_;
  DelNewtonSolver<System> solver_;
};

}  // namespace mechint
