#pragma once
/// \file
/// Newton's method on the bordered (KKT) system of the constrained discrete Euler–Lagrange
/// equations in momentum form.
///
/// Given (q_k, p_k) solve for (q_{k+1}, λ_k) (DESIGN §1, 000 eqs. 4.4–4.6 with p_k = D2 Ld(q_{k−1}, q_k)):
///
///     p_k + D1 Ld(q_k, q_{k+1}) + Dg(q_k)^T λ_k = 0,     g(q_{k+1}) = 0.
///
/// Row scaling as 000 eqs. 4.15–4.18: the momentum rows are multiplied by h and the unknown
/// multiplier is ν = h·λ, so the Jacobian
///
///     [ h·D12 Ld(q_k, q_{k+1})   Dg(q_k)^T ]
///     [ Dg(q_{k+1})              0         ]          (000 eq. 4.14, scaled)
///
/// has entries of the size of the mass matrix and of Dg, independent of h (our Ld contains h, so
/// D12 Ld ~ M/h). The iteration is the generic one of solve/newton.hpp (full or simplified Newton,
/// `NewtonOptions::variant`); this file assembles the system and states the stopping rule: the
/// residual ‖R‖∞ ≤ residual_tolerance·(1 + ‖h p_k‖∞), or the update ‖Δq‖∞ ≤ step_tolerance·(1 + ‖q‖∞)
/// (for simplified Newton through the contraction estimate θ/(1 − θ)·‖Δq‖). All storage is
/// fixed-size and lives in the solver: a solve never allocates.
///
/// Forced systems (discrete/discrete_forces.hpp): the momentum rows carry the left discrete force,
/// h·(p_k + D1 Ld + f⁻_k) + Dg(q_k)ᵀν, and the Jacobian block is h·(D12 Ld + ∂f⁻_k/∂q_{k+1}), the
/// latter by forward AD (exact). The step's control and time come in a `StepForcing`; for an
/// unforced system the assembly is, at compile time, the one above.

#include <cmath>
#include <type_traits>

#include "mechint/discrete/del_derivatives.hpp"
#include "mechint/discrete/discrete_forces.hpp"
#include "mechint/solve/newton.hpp"
#include "mechint/solve/newton_options.hpp"

namespace mechint {

template <DiscreteMechanicalSystem S>
class DelNewtonSolver {
 public:
  static constexpr int n = S::kDim;
  static constexpr int k = S::kNumConstraints;
  static constexpr int nk = n + k;
  static constexpr bool kForced = ForcedDiscreteSystem<S>;
  using Forcing = ForcingOf<S>;

  explicit DelNewtonSolver(NewtonOptions options = {}) : options_(options) {}

  const NewtonOptions& options() const { return options_; }

  /// What a simplified-Newton solver keeps between steps (core/state_archive.hpp).
  template <class Archive>
  void checkpoint_state(Archive& a) {
    newton_.checkpoint_state(a);
    a(factored_h_);
  }

  /// Solves for q_next (in: first guess, out: solution) and lambda (out: λ_k). Inlined into the
  /// step, as NewtonSolver::solve is (solve/newton.hpp).
  /// `dg_k` is Dg(q_k), computed once per step by the caller.
  [[gnu::always_inline]] NewtonStats solve(const S& system, double h, const VecD<n>& q_k, const VecD<n>& p_k,
                                           const Mat<k, n>& dg_k, VecD<n>& q_next, VecD<k>& lambda)
    requires(!kForced)
  {
    return solve(system, h, q_k, p_k, dg_k, NoForcing{}, q_next, lambda);
  }

  /// The same with the step's control u_k and start time t_k (forced systems; `NoForcing{}` otherwise).
  [[gnu::always_inline]] NewtonStats solve(const S& system, double h, const VecD<n>& q_k, const VecD<n>& p_k,
                                           const Mat<k, n>& dg_k, const Forcing& forcing, VecD<n>& q_next,
                                           VecD<k>& lambda) {
    // The kept factorization (simplified Newton) belongs to one step size.
    if (factored_h_ != h) newton_.discard_factorization();
    nu_.setZero();
    Problem problem{*this, system, h, q_k, p_k, dg_k, forcing, q_next,
                    1.0 + (h * p_k).template lpNorm<Eigen::Infinity>()};
    const NewtonStats stats = newton_.solve(problem, NewtonPolicy::from(options_));
    factored_h_ = newton_.has_factorization() ? h : 0.0;
    if constexpr (k > 0) lambda = nu_ / h;
    return stats;
  }

 private:
  /// The row-scaled bordered DEL system at one step; the unknowns are (q_{k+1}, ν).
  struct Problem {
    DelNewtonSolver& s;
    const S& system;
    double h;
    const VecD<n>& q_k;
    const VecD<n>& p_k;
    const Mat<k, n>& dg_k;
    const Forcing& forcing;
    VecD<n>& q_next;
    double residual_scale;  // 1 + ‖h·p_k‖∞

    /// R = [h(p_k + D1 Ld) + Dg(q_k)ᵀν ; g(q_{k+1})], J = [[h D12 Ld, Dg(q_k)ᵀ], [Dg(q_{k+1}), 0]]:
    /// D1 and D12 from one nested-AD evaluation when J is asked for, D1 alone otherwise. Forced:
    /// f⁻_k added to the momentum rows and ∂f⁻_k/∂q_{k+1} to their Jacobian block.
    void assemble(VecD<nk>& r, Mat<nk, nk>* j) {
      if (j)
        discrete_lagrangian_d1_d12(system, q_k, q_next, h, s.d1_, s.d12_);
      else
        s.d1_ = discrete_lagrangian_d1(system, q_k, q_next, h);
      constraints_and_jacobian(system, q_next, s.g_next_, s.dg_next_);
      if constexpr (kForced) {
        if (j) {
          discrete_force_minus_and_jacobian(system, q_k, q_next, forcing, h, s.forces_.f_minus,
                                            s.forces_.df_minus);
          s.d12_ += s.forces_.df_minus;
        } else {
          VecD<n> f_plus;
          discrete_forces(system, q_k, q_next, forcing, h, s.forces_.f_minus, f_plus);
        }
        r.template head<n>() = h * (p_k + s.d1_ + s.forces_.f_minus);
      } else {
        r.template head<n>() = h * (p_k + s.d1_);
      }
      if constexpr (k > 0) {
        r.template head<n>().noalias() += dg_k.transpose() * s.nu_;
        r.template tail<k>() = s.g_next_;
      }
      if (j) {
        j->template topLeftCorner<n, n>() = h * s.d12_;
        if constexpr (k > 0) {
          j->template topRightCorner<n, k>() = dg_k.transpose();
          j->template bottomLeftCorner<k, n>() = s.dg_next_;
          j->template bottomRightCorner<k, k>().setZero();
        }
      }
    }
    double update(const VecD<nk>& delta) {
      q_next -= delta.template head<n>();
      if constexpr (k > 0) s.nu_ -= delta.template tail<k>();
      return delta.template head<n>().template lpNorm<Eigen::Infinity>();
    }
    bool converged_on_residual(const NewtonIterate& state) const {
      return state.residual_norm <= s.options_.residual_tolerance * residual_scale;
    }
    /// ‖Δq‖∞ ≤ step_tolerance·(1 + ‖q_{k+1}‖∞), through the contraction estimate for simplified Newton.
    bool converged_on_update(const NewtonIterate& state) const {
      return update_converged(state, s.options_.variant, s.options_.step_tolerance,
                              1.0 + q_next.template lpNorm<Eigen::Infinity>());
    }
  };

  /// f⁻_k and ∂f⁻_k/∂q_{k+1} at the current iterate (forced systems only).
  struct ForceTerms {
    VecD<n> f_minus;
    Mat<n, n> df_minus;
  };
  struct NoForceTerms {};

  NewtonOptions options_;
  NewtonSolver<nk> newton_;
  [[no_unique_address]] std::conditional_t<kForced, ForceTerms, NoForceTerms> forces_;
  VecD<n> d1_;
  Mat<n, n> d12_;
  VecD<k> g_next_;
  Mat<k, n> dg_next_;
  VecD<k> nu_;
  /// Step size of the factorization kept by newton_, or 0 when there is none to reuse.
  double factored_h_ = 0.0;
};

}  // namespace mechint
