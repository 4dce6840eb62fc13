#pragma once
/// \file
/// The generalized Störmer–Verlet method in Hamiltonian form (the Lobatto IIIA–IIIB pair), for any
/// hyperregular Lagrangian, H from the Legendre transform (model/hamiltonian.hpp):
///
///     p½ = p0 − h/2 · H_q(q0, p½)                      (implicit in p½)
///     q1 = q0 + h/2 · (H_p(q0, p½) + H_p(q1, p½))       (implicit in q1)
///     p1 = p½ − h/2 · H_q(q1, p½)                       (explicit)
///
/// Both implicit stages are solved by Newton with the exact Jacobians I + h/2·H_qp and
/// I − h/2·H_pq. With a constant mass matrix H_p(q, p) = M⁻¹p does not depend on q, the second stage
/// is explicit, and the method is the trapezoid variational integrator of 004 eq. 16; with a
/// configuration-dependent M the two differ at O(h³) per step. The method is variational as well: its
/// discrete Lagrangian is the extremum of h/2·[L(q0, V0) + L(q1, V1)] over q1 = q0 + h/2 (V0 + V1),
/// whose energy −D3 Ld = ½[H(q0, p½) + H(q1, p½)] (envelope theorem) is the discrete energy DTEC uses.
///
/// Its truncated modified Hamiltonian is 004's printed H̃ (analysis/modified_hamiltonian.hpp).
/// Fixed-size storage: a step never allocates.

#include <cmath>
#include <string_view>

#include "mechint/analysis/modified_hamiltonian.hpp"
#include "mechint/integrate/one_step_flow.hpp"
#include "mechint/solve/newton.hpp"
#include "mechint/solve/newton_options.hpp"

namespace mechint {

template <LagrangianModel M>
  requires(M::kNumConstraints == 0)
class StormerVerletFlow {
 public:
  static constexpr int kDim = M::kDim;
  static constexpr int n = M::kDim;
  static constexpr std::string_view kName = "stormer-verlet";
  static constexpr ModifiedHamiltonianKind kModifiedHamiltonian = ModifiedHamiltonianKind::kStormerVerlet;
  using Model = M;

  explicit StormerVerletFlow(M model, NewtonOptions options = {})
      : model_(std::move(model)), options_(options) {}

  StepResult step(const VecD<n>& q0, const VecD<n>& p0, double h, VecD<n>& q1, VecD<n>& p1) {
    StepResult r;
    const double half = 0.5 * h;
    // Stage 1: p½ + h/2 H_q(q0, p½) = p0.
    VecD<n> ph = p0;
    HamiltonianDerivatives<n> d0 = hamiltonian_derivatives(model_, q0, ph);
    if (!newton(r, ph, [&](VecD<n>& f, Mat<n, n>& j) {
          d0 = hamiltonian_derivatives(model_, q0, ph, d0.v);
          f = ph - p0 + half * d0.hq;
          j = Mat<n, n>::Identity() + half * d0.hqp;
        }))
      return r;
    d0 = hamiltonian_derivatives(model_, q0, ph, d0.v);
    // Stage 2: q1 − h/2 H_p(q1, p½) = q0 + h/2 H_p(q0, p½).
    const VecD<n> rhs = q0 + half * d0.hp;
    q1 = q0 + h * d0.hp;
    HamiltonianDerivatives<n> d1 = d0;
    if (!newton(r, q1, [&](VecD<n>& f, Mat<n, n>& j) {
          d1 = hamiltonian_derivatives(model_, q1, ph, d1.v);
          f = q1 - half * d1.hp - rhs;
          j = Mat<n, n>::Identity() - half * d1.hqp.transpose();
        }))
      return r;
    d1 = hamiltonian_derivatives(model_, q1, ph, d1.v);
    // Stage 3.
    p1 = ph - half * d1.hq;
    r.discrete_energy = 0.5 * (d0.value + d1.value);
    r.converged = p1.allFinite() && q1.allFinite();
    return r;
  }

  double modified_hamiltonian(const VecD<n>& q, const VecD<n>& p, double h) const {
    return modified_hamiltonian_stormer_verlet(model_, q, p, h);
  }

  const M& model() const { return model_; }

  /// The solver's kept factorization (simplified Newton), its only memory between steps.
  template <class Archive>
  void checkpoint_state(Archive& a) {
    newton_.checkpoint_state(a);
  }

 private:
  /// Newton on f(x) = 0 (solve/newton.hpp); `eval(f, j)` evaluates the residual and Jacobian at
  /// the current x. Stops when ‖f‖∞ ≤ residual_tolerance·(1 + ‖x‖∞) or after an update
  /// ‖Δx‖∞ ≤ step_tolerance·(1 + ‖x‖∞).
  template <class Eval>
  bool newton(StepResult& r, VecD<n>& x, Eval&& eval) {
    struct Stage {
      VecD<n>& x;
      Eval& eval;
      const NewtonOptions& o;
      void assemble(VecD<n>& f, Mat<n, n>* j) { eval(f, *j); }
      double update(const VecD<n>& dx) {
        x -= dx;
        return dx.template lpNorm<Eigen::Infinity>();
      }
      bool converged_on_residual(const NewtonIterate& state) const {
        return state.residual_norm <= o.residual_tolerance * (1.0 + x.template lpNorm<Eigen::Infinity>());
      }
      bool converged_on_update(const NewtonIterate& state) const {
        return update_below(state, o.step_tolerance, x.template lpNorm<Eigen::Infinity>());
      }
    } stage{x, eval, options_};
    NewtonPolicy policy = NewtonPolicy::from(options_);
    policy.variant = NewtonVariant::kFull;
    const NewtonStats stats = newton_.solve(stage, policy);
    r.residual_norm = stats.residual_norm;
    r.iterations += stats.iterations;
    return stats.converged;
  }

  M model_;
  NewtonOptions options_;
  NewtonSolver<n> newton_;
};

}  // namespace mechint
