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
/// D12 Ld ~ M/h). All storage is fixed-size and lives in the solver: a solve never allocates.

#include <cmath>

#include <Eigen/LU>

#include "mechint/discrete/del_derivatives.hpp"
#include "mechint/solve/newton_options.hpp"

namespace mechint {

template <DiscreteMechanicalSystem S>
class DelNewtonSolver {
 public:
  static constexpr int n = S::kDim;
  static constexpr int k = S::kNumConstraints;
  static constexpr int nk = n + k;

  explicit DelNewtonSolver(NewtonOptions options = {}) : options_(options) {}

  const NewtonOptions& options() const { return options_; }

  /// Solves for q_next (in: first guess, out: solution) and lambda (out: λ_k).
  /// `dg_k` is Dg(q_k), computed once per step by the caller.
  NewtonStats solve(const S& system, double h, const VecD<n>& q_k, const VecD<n>& p_k,
                    const Mat<k, n>& dg_k, VecD<n>& q_next, VecD<k>& lambda) {
    NewtonStats stats = options_.variant == NewtonVariant::kFull
                            ? solve_full(system, h, q_k, p_k, dg_k, q_next)
                            : solve_simplified(system, h, q_k, p_k, dg_k, q_next);
    if constexpr (k > 0) lambda = nu_ / h;
    return stats;
  }

 private:
  NewtonStats solve_full(const S& system, double h, const VecD<n>& q_k, const VecD<n>& p_k,
                         const Mat<k, n>& dg_k, VecD<n>& q_next) {
    NewtonStats stats;
    const double residual_scale = 1.0 + (h * p_k).template lpNorm<Eigen::Infinity>();
    nu_.setZero();
    for (int it = 0; it < options_.max_iterations; ++it) {
      discrete_lagrangian_d1_d12(system, q_k, q_next, h, d1_, d12_);
      evaluate_residual(system, h, p_k, dg_k, q_next);
      stats.iterations = it;
      stats.residual_norm = residual_.template lpNorm<Eigen::Infinity>();
      if (!std::isfinite(stats.residual_norm)) return stats;
      if (stats.residual_norm <= options_.residual_tolerance * residual_scale) {
        stats.converged = true;
        break;
      }
      factor_jacobian(h, dg_k);
      ++stats.jacobian_evaluations;
      delta_.noalias() = lu_.solve(residual_);
      if (!delta_.allFinite()) return stats;
      q_next -= delta_.template head<n>();
      if constexpr (k > 0) nu_ -= delta_.template tail<k>();
      stats.iterations = it + 1;
      const double step = delta_.template head<n>().template lpNorm<Eigen::Infinity>();
      if (step <= options_.step_tolerance * (1.0 + q_next.template lpNorm<Eigen::Infinity>())) {
        stats.converged = true;
        break;
      }
    }
    // The next solve (full or simplified) must not reuse a factorization it did not make.
    factored_h_ = 0.0;
    return stats;
  }

  /// Simplified Newton (001 §5): the factorization of the last refresh is reused while the updates
  /// contract by at least `refresh_contraction`. With contraction θ the distance to the solution
  /// after an update Δ is about θ/(1 − θ)·‖Δ‖ (Hairer & Wanner, IV.8), which is what is tested
  /// against the step tolerance.
  NewtonStats solve_simplified(const S& system, double h, const VecD<n>& q_k, const VecD<n>& p_k,
                               const Mat<k, n>& dg_k, VecD<n>& q_next) {
    NewtonStats stats;
    const double residual_scale = 1.0 + (h * p_k).template lpNorm<Eigen::Infinity>();
    nu_.setZero();
    double previous_step = 0.0;
    bool factored_here = false;  // factorization made at the current iterate
    for (int it = 0; it < options_.max_iterations; ++it) {
      const bool refresh = factored_h_ != h;
      if (refresh)
        discrete_lagrangian_d1_d12(system, q_k, q_next, h, d1_, d12_);
      else
        d1_ = discrete_lagrangian_d1(system, q_k, q_next, h);
      evaluate_residual(system, h, p_k, dg_k, q_next);
      stats.iterations = it;
      stats.residual_norm = residual_.template lpNorm<Eigen::Infinity>();
      if (!std::isfinite(stats.residual_norm)) break;
      if (stats.residual_norm <= options_.residual_tolerance * residual_scale) {
        stats.converged = true;
        break;
      }
      if (refresh) {
        factor_jacobian(h, dg_k);
        factored_h_ = h;
        ++stats.jacobian_evaluations;
      }
      factored_here = refresh;
      delta_.noalias() = lu_.solve(residual_);
      if (!delta_.allFinite()) break;
      q_next -= delta_.template head<n>();
      if constexpr (k > 0) nu_ -= delta_.template tail<k>();
      stats.iterations = it + 1;
      const double step = delta_.template head<n>().template lpNorm<Eigen::Infinity>();
      const double tolerance = options_.step_tolerance * (1.0 + q_next.template lpNorm<Eigen::Infinity>());
      if (it > 0) {
        const double theta = step / previous_step;
        if (theta < 1.0 && theta / (1.0 - theta) * step <= tolerance) {
          stats.converged = true;
          break;
        }
        // Convergence too slow for this Jacobian: refresh it at the next iterate.
        if (theta > options_.refresh_contraction) factored_h_ = 0.0;
      } else if (factored_here && step <= tolerance) {
        // A Jacobian evaluated at this very iterate: a full Newton step, same test as full Newton.
        stats.converged = true;
        break;
      }
      previous_step = step;
    }
    // A failed solve leaves no stale factorization behind.
    if (!stats.converged) factored_h_ = 0.0;
    return stats;
  }

  void evaluate_residual(const S& system, double h, const VecD<n>& p_k, const Mat<k, n>& dg_k,
                         const VecD<n>& q_next) {
    constraints_and_jacobian(system, q_next, g_next_, dg_next_);
    residual_.template head<n>() = h * (p_k + d1_);
    if constexpr (k > 0) {
      residual_.template head<n>().noalias() += dg_k.transpose() * nu_;
      residual_.template tail<k>() = g_next_;
    }
  }

  /// Bordered Jacobian at the current iterate (d12_, dg_next_ evaluated there), factored.
  void factor_jacobian(double h, const Mat<k, n>& dg_k) {
    jacobian_.template topLeftCorner<n, n>() = h * d12_;
    if constexpr (k > 0) {
      jacobian_.template topRightCorner<n, k>() = dg_k.transpose();
      jacobian_.template bottomLeftCorner<k, n>() = dg_next_;
      jacobian_.template bottomRightCorner<k, k>().setZero();
    }
    lu_.compute(jacobian_);
  }

  NewtonOptions options_;
  VecD<n> d1_;
  Mat<n, n> d12_;
  VecD<k> g_next_;
  Mat<k, n> dg_next_;
  VecD<k> nu_;
  VecD<nk> residual_;
  VecD<nk> delta_;
  Mat<nk, nk> jacobian_;
  Eigen::PartialPivLU<Mat<nk, nk>> lu_{nk};
  /// Step size of the factorization in lu_, or 0 when there is none to reuse.
  double factored_h_ = 0.0;
};

}  // namespace mechint
