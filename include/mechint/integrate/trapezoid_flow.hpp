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

#include <string_view>

#include "mechint/model/legendre.hpp"
#include "mechint/analysis/modified_hamiltonian.hpp"
#include "mechint/discrete/discrete_system.hpp"
#include "mechint/integrate/one_step_flow.hpp"
#include "mechint/solve/del_newton.hpp"

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
    p1 = discrete_lagrangian_d2(system_, q0, q1, h);
    const VecD<n> v = (q1 - q0) / h;
    r.discrete_energy = 0.5 * (energy(model(), q0, v) + energy(model(), q1, v));
    r.converged = p1.allFinite();
    return r;
  }

  double modified_hamiltonian(const VecD<n>& q, const VecD<n>& p, double h) const {
    return modified_hamiltonian_trapezoid(model(), q, p, h);
  }

  const M& model() const { return system_.continuous_model(); }

  /// The solver's kept factorization (simplified Newton), its only memory between steps.
  template <class Archive>
  void checkpoint_state(Archive& a) {
    solver_.checkpoint_state(a);
  }

 private:
  System system_;
  DelNewtonSolver<System> solver_;
};

}  // namespace mechint
