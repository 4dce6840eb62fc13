#pragma once
/// \file
/// The one Newton solver of mechint: every implicit piece (the DEL step, the energy–momentum step,
/// the Störmer–Verlet stages, the Legendre transforms, the projection onto the constraint manifold,
/// Kepler's equation) runs this loop and keeps only what is its own: the assembly of its residual
/// and Jacobian, how an update is applied, and its stopping rule.
///
/// One iteration at the iterate x_i:
///
///   1. `problem.assemble(R, J)`: R(x_i), and J = ∂R/∂x (x_i) when `J` is not null (the solver asks
///      for it only when it is going to factor it); every entry is written;
///   2. a non-finite entry of R stops the solve (`NewtonStop::kNonFinite`);
///   3. `problem.converged_on_residual(state)` (optional member; never by default);
///   4. J is factored (partial-pivoting LU: Eigen's for a fixed size, RuntimeLu for a runtime size,
///      which does not allocate above 16 unknowns) — at every iterate for full Newton, only when
///      there is no usable factorization for simplified Newton;
///   5. Δ = J⁻¹R; a non-finite Δ stops the solve (singular J, iterates out of the domain);
///   6. `problem.update(Δ)` applies x_{i+1} = x_i − Δ (or the problem's image of it: a minimum-norm
///      correction, a subset of the unknowns) and returns the norm of Δ its tests use;
///   7. `problem.converged_on_update(state)`;
///   8. simplified Newton: when the updates contract by less than `refresh_contraction`
///      (θ = ‖Δ_i‖/‖Δ_{i−1}‖ > refresh_contraction) the factorization is dropped and J is evaluated
///      at the next iterate.
///
/// The ready-made tests below cover the rules the pieces use: the update test ‖Δ‖ ≤ tol·(1 + ‖x‖),
/// the contraction estimate θ/(1 − θ)·‖Δ‖ ≤ tol of simplified Newton, and the round-off stall (the
/// update stopped shrinking while already below an absolute tolerance).
///
/// Storage lives in the solver object, fixed-size or sized once at construction: a solve never
/// allocates. A simplified solve that converged leaves its factorization for the next solve; the
/// owner drops it with `discard_factorization()` when the equations change (another step size).

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <concepts>

#include <Eigen/LU>

#include "mechint/core/linear_algebra.hpp"
#include "mechint/core/state_archive.hpp"
#include "mechint/solve/newton_options.hpp"
#include "mechint/solve/runtime_lu.hpp"

namespace mechint {

/// How the iteration runs; the tolerances belong to the problem's convergence tests.
struct NewtonPolicy {
  NewtonVariant variant = NewtonVariant::kFull;
  /// Updates before the solve gives up (`NewtonStop::kMaxIterations`).
  int max_iterations = 25;
  /// Simplified Newton: refresh the Jacobian when ‖Δ_i‖ / ‖Δ_{i−1}‖ exceeds this.
  double refresh_contraction = 0.25;

  static NewtonPolicy from(const NewtonOptions& options) {
    return {options.variant, options.max_iterations, options.refresh_contraction};
  }
};

/// Why the last solve stopped.
enum class NewtonStop {
  kConverged,
  kNonFinite,      ///< a residual or an update with NaN or infinity
  kMaxIterations,  ///< `max_iterations` updates without convergence
};

/// What the convergence tests see.
struct NewtonIterate {
  /// Index of the iterate the residual was evaluated at (0: the first guess).
  int iteration = 0;
  /// ‖R‖∞ at that iterate.
  double residual_norm = 0.0;
  /// Norm of the update just applied, as `problem.update` measured it (converged_on_update only).
  double update_norm = 0.0;
  /// Norm of the update before it (0 for the first update).
  double previous_update_norm = 0.0;
  /// The update was computed from a Jacobian evaluated at this iterate (a full Newton step).
  bool fresh_jacobian = false;

  /// θ = ‖Δ_i‖ / ‖Δ_{i−1}‖, meaningful from the second update on.
  double contraction() const { return update_norm / previous_update_norm; }
};

/// A problem the solver can run: R and J into fixed-size objects, the update, the update test.
template <class P, int N>
concept NewtonProblem = requires(P& p, VecD<N>& r, Mat<N, N>* j, const VecD<N>& delta,
                                 const NewtonIterate& state) {
  p.assemble(r, j);
  { p.update(delta) } -> std::convertible_to<double>;
  { p.converged_on_update(state) } -> std::convertible_to<bool>;
};

// ---- ready-made convergence tests -------------------------------------------------------------

/// ‖Δ‖ ≤ tol·(1 + ‖x‖): after a full Newton step the error is far below the update (quadratic
/// convergence), so the iterate is at the solution to round-off.
inline bool update_below(const NewtonIterate& state, double tolerance, double x_norm) {
  return state.update_norm <= tolerance * (1.0 + x_norm);
}

/// Simplified Newton (Hairer & Wanner, IV.8): with contraction θ the distance to the solution after
/// an update Δ is about θ/(1 − θ)·‖Δ‖. Needs two updates.
inline bool contraction_estimate_below(const NewtonIterate& state, double tolerance) {
  if (state.iteration == 0) return false;
  const double theta = state.contraction();
  return theta < 1.0 && theta / (1.0 - theta) * state.update_norm <= tolerance;
}

/// Round-off stall: the update no longer shrinks (‖Δ_i‖ > ratio·‖Δ_{i−1}‖) and is already below an
/// absolute tolerance, so further iterations only move the iterate within its rounding.
inline bool stalled_at_roundoff(const NewtonIterate& state, double tolerance, double ratio = 0.25) {
  return state.iteration > 0 && state.update_norm > ratio * state.previous_update_norm &&
         state.update_norm <= tolerance;
}

/// Simplified Newton iterates on to round-off: until an update is zero or stops halving while below
/// this fraction of the update tolerance (and not below 16ε), the point where its updates are
/// rounding noise — the rule of Hairer, Lubich & Wanner (GNI VIII.6) for the fixed-point iteration
/// of implicit Runge–Kutta methods. Full Newton's quadratic convergence takes an update of 1e-10 to
/// an error of about 1e-20, below rounding; a linear iteration stopped earlier, even where its
/// estimated distance to the root was a few ε, leaves an error of one sign in every step: the energy
/// and the Noether momenta of a symplectic rule then drift (vi-gauss8 on Kepler with
/// newton=simplified stopped at its tolerance: energy 9e-10 over 4·10⁵ steps where full Newton keeps
/// 7e-13; the composed midpoint rule stopped at 4ε: angular momentum 1e-11 over 4·10⁴ steps where full
/// Newton keeps 6e-13; docs/conventions.md).
inline constexpr double kSimplifiedNewtonStall = 1e-3;

/// The update test of each variant, relative to `scale` (1 + the unknowns' size): ‖Δ‖ ≤ tol·scale
/// after a Newton step (full Newton, or simplified Newton's update from a Jacobian evaluated at that
/// very iterate); for simplified Newton's other updates, a zero update or a round-off stall (updates
/// no longer halving, below kSimplifiedNewtonStall·tol·scale). An update that is not noise and does not
/// contract fast enough makes the solver refresh the Jacobian (`refresh_contraction`), and the next
/// update is a Newton step again.
inline bool update_converged(const NewtonIterate& state, NewtonVariant variant, double tolerance, double scale = 1.0) {
  if (variant == NewtonVariant::kFull || state.fresh_jacobian) return state.update_norm <= tolerance * scale;
  const double noise = std::max(kSimplifiedNewtonStall * tolerance, 16.0 * std::numeric_limits<double>::epsilon()) * scale;
  return state.update_norm == 0.0 || stalled_at_roundoff(state, noise, 0.5);
}

// ---- the solver ---------------------------------------------------------------------------------

template <int N>
class NewtonSolver {
 public:
  using Vector = VecD<N>;
  using Matrix = Mat<N, N>;

  NewtonSolver()
    requires(N != Eigen::Dynamic)
  = default;
  /// A solver of `size` unknowns: the runtime-sized methods (src/kernel/) size it once, so that a
  /// solve allocates nothing, as for a fixed size.
  explicit NewtonSolver(int size)
    requires(N == Eigen::Dynamic)
      : residual_(size), delta_(size), jacobian_(size, size), lu_(size) {}

  /// Runs Newton from the problem's current iterate. Returns the iterations (updates applied), the
  /// residual norm of the last evaluation, the Jacobians factored, and whether a test passed.
  ///
  /// Inlined into its caller, one loop per variant: a small system's step is a few hundred
  /// instructions, and an out-of-line solve with a runtime variant cost it ~20 % (1-link chain,
  /// docs/performance-history.md "Inlining the Newton solve").
  template <class Problem>
    requires NewtonProblem<Problem, N>
  [[gnu::always_inline]] NewtonStats solve(Problem& problem, const NewtonPolicy& policy = {}) {
    return policy.variant == NewtonVariant::kSimplified ? iterate<true>(problem, policy)
                                                        : iterate<false>(problem, policy);
  }

  NewtonStop last_stop() const { return stop_; }
  /// A factorization a simplified solve may reuse.
  bool has_factorization() const { return factored_; }
  /// Drops the kept factorization (the equations changed, e.g. another step size).
  void discard_factorization() { factored_ = false; }

  /// The kept factorization is the solver's only memory between solves (core/state_archive.hpp):
  /// its Jacobian is stored and factored again on reading, which gives the same factors bit for bit.
  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(factored_);
    if (!factored_) return;
    a(jacobian_);
    if constexpr (std::is_same_v<Archive, StateReader>) lu_.compute(jacobian_);
  }

 private:
  /// The iteration of `solve` for one variant (simplified: Jacobian kept while the updates contract).
  template <bool simplified, class Problem>
  [[gnu::always_inline]] NewtonStats iterate(Problem& problem, const NewtonPolicy& policy) {
    NewtonStats stats;
    stop_ = NewtonStop::kMaxIterations;
    NewtonIterate state;
    for (int it = 0; it < policy.max_iterations; ++it) {
      const bool refresh = !simplified || !factored_;
      problem.assemble(residual_, refresh ? &jacobian_ : nullptr);
      stats.iterations = it;
      stats.residual_norm = residual_.template lpNorm<Eigen::Infinity>();
      state.iteration = it;
      state.residual_norm = stats.residual_norm;
      state.fresh_jacobian = refresh;
      if (!residual_.allFinite()) {
        stop_ = NewtonStop::kNonFinite;
        break;
      }
      if constexpr (requires { { problem.converged_on_residual(state) } -> std::convertible_to<bool>; }) {
        if (problem.converged_on_residual(state)) {
          stats.converged = true;
          break;
        }
      }
      if (refresh) {
        lu_.compute(jacobian_);
        factored_ = true;
        ++stats.jacobian_evaluations;
      }
      if constexpr (N == Eigen::Dynamic) lu_.solve(residual_, delta_);
      else delta_.noalias() = lu_.solve(residual_);
      if (!delta_.allFinite()) {
        stop_ = NewtonStop::kNonFinite;
        break;
      }
      state.update_norm = problem.update(delta_);
      stats.iterations = it + 1;
      if (it == 0) stats.first_update_norm = state.update_norm;
      if (it == 1) stats.first_contraction = state.contraction();
      if (problem.converged_on_update(state)) {
        stats.converged = true;
        break;
      }
      // Convergence too slow for this Jacobian: refresh it at the next iterate.
      if (simplified && it > 0 && state.contraction() > policy.refresh_contraction) factored_ = false;
      state.previous_update_norm = state.update_norm;
    }
    if (stats.converged) stop_ = NewtonStop::kConverged;
    // Only a converged simplified solve leaves its factorization for the next one.
    if (!simplified || !stats.converged) factored_ = false;
    return stats;
  }

  // Written in full by every assembly (R) and every solve (Δ), so left uninitialised: a solver
  // built on the stack for one small solve costs nothing to construct.
  Vector residual_;
  Vector delta_;
  Matrix jacobian_;
  std::conditional_t<N == Eigen::Dynamic, RuntimeLu, Eigen::PartialPivLU<Matrix>> lu_{N == Eigen::Dynamic ? 0 : N};
  bool factored_ = false;
  NewtonStop stop_ = NewtonStop::kMaxIterations;
};

}  // namespace mechint
