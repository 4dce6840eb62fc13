#pragma once
/// \file
/// What the impact driver asks of a one-step method in momentum form, and what one step reports.
///
/// A flow maps (q0, p0) to (q1, p1) = Φ_h(q0, p0) for any step size h (full steps, and the partial
/// steps αh and (1−α)h of 004 §III-B), and knows its own truncated modified Hamiltonian H̃ and the
/// discrete energy −D3 Ld of a step (the quantity DTEC conserves, 004 eq. 25):
///
///   static constexpr int kDim;  using Model = ...;  static constexpr std::string_view kName;
///   StepResult step(const VecD<n>& q0, const VecD<n>& p0, double h, VecD<n>& q1, VecD<n>& p1);
///   double modified_hamiltonian(const VecD<n>& q, const VecD<n>& p, double h) const;
///   const Model& model() const;

#include <concepts>
#include <string_view>

#include "mechint/core/linear_algebra.hpp"

namespace mechint {

/// Outcome of one step of a flow.
struct StepResult {
  bool converged = false;
  double residual_norm = 0.0;  ///< of the last Newton iteration
  int iterations = 0;          ///< Newton iterations, all stages
  /// −D3 Ld(q0, q1, h): the energy of the extended (space–time) discrete Lagrangian of the step,
  /// 004 §III-C. ½[E(q0, v) + E(q1, v)] for the trapezoid rule, ½[H(q0, p½) + H(q1, p½)] for the
  /// generalized Störmer–Verlet method.
  double discrete_energy = 0.0;
};

template <class F>
concept OneStepFlow = requires(F& f, const F& cf, const VecD<F::kDim>& q, VecD<F::kDim>& out) {
  { F::kDim } -> std::convertible_to<int>;
  { F::kName } -> std::convertible_to<std::string_view>;
  { f.step(q, q, 0.1, out, out) } -> std::same_as<StepResult>;
  { cf.modified_hamiltonian(q, q, 0.1) } -> std::convertible_to<double>;
  { cf.model() };
};

}  // namespace mechint
