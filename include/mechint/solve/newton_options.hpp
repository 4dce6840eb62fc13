#pragma once
/// \file
/// Options, statistics and the typed failure of the Newton solver of the DEL equations.

#include <stdexcept>
#include <string>

#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint {

/// Which Newton iteration solves the DEL equations.
enum class NewtonVariant {
  /// The exact Jacobian (D12 Ld by nested AD, Dg) is evaluated and factored at every iterate:
  /// quadratic convergence, the most derivative work per iteration.
  kFull,
  /// The simplified Newton method that 001 §5 suggests: the factored Jacobian is kept over the
  /// iterations and over the following steps, and only the residual (first derivatives) is
  /// evaluated; it is refreshed at the current iterate when the contraction of the updates exceeds
  /// `refresh_contraction`, or when the step size changes. Linear convergence, cheaper iterations.
  kSimplified,
};

/// Stopping rules of Newton's method on the (row-scaled) DEL system.
struct NewtonOptions {
  NewtonVariant variant = NewtonVariant::kFull;
  /// Simplified Newton: refresh the Jacobian when ‖Δ_i‖ / ‖Δ_{i−1}‖ exceeds this.
  double refresh_contraction = 0.25;
  /// Converged when the scaled residual ‖R‖∞ ≤ residual_tolerance · (1 + ‖h·p_k‖∞) ...
  double residual_tolerance = 1e-15;
  /// ... or when the last update ‖Δq‖∞ ≤ step_tolerance · (1 + ‖q‖∞). Newton converges
  /// quadratically, so after an update of 1e-10 the residual is at round-off.
  double step_tolerance = 1e-10;
  /// Iterations before giving up with `NewtonFailure`.
  int max_iterations = 25;
};

/// Parses "full" or "simplified"; throws std::invalid_argument otherwise.
inline NewtonVariant parse_newton_variant(const std::string& name) {
  if (name == "full") return NewtonVariant::kFull;
  if (name == "simplified") return NewtonVariant::kSimplified;
  throw InvalidInput("unknown Newton variant " + quote_for_message(name) + " (known: full, simplified)");
}

/// What one solve did.
struct NewtonStats {
  int iterations = 0;
  /// ‖R‖∞ of the scaled residual at the last evaluation.
  double residual_norm = 0.0;
  bool converged = false;
  /// Jacobians evaluated and factored during the solve (one per iteration for full Newton).
  int jacobian_evaluations = 0;
  /// ‖Δ_0‖, the first update (in the problem's norm), and θ_1 = ‖Δ_1‖/‖Δ_0‖, the contraction of
  /// the first two (0 when the solve stopped before a second update): how far the first guess was
  /// from the solution, and whether Newton was in its region of contraction from the start.
  double first_update_norm = 0.0;
  double first_contraction = 0.0;
};

/// Thrown when the DEL equations cannot be solved at a step: the step is too large for Newton to
/// converge, the Jacobian is singular, or the iterates left the domain of the model.
class NewtonFailure : public NumericalFailure {
 public:
  NewtonFailure(long step_index, double time, double residual_norm, int iterations)
      : NumericalFailure(describe(step_index, time, residual_norm, iterations),
                         FailureLocation{step_index, time, residual_norm}),
        step_index_(step_index),
        time_(time),
        residual_norm_(residual_norm),
        iterations_(iterations) {}

  long step_index() const { return step_index_; }
  double time() const { return time_; }
  double residual_norm() const { return residual_norm_; }
  int iterations() const { return iterations_; }

 private:
  static std::string describe(long step, double t, double res, int it) {
    return "Newton did not converge at step " + std::to_string(step) + " (t = " + format_number(t) +
           "): residual " + format_number(res) + " after " + std::to_string(it) +
           " iterations; reduce the step size";
  }
  long step_index_;
  double time_;
  double residual_norm_;
  int iterations_;
};

}  // namespace mechint
