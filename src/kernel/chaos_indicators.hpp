#pragma once
/// \file
/// Chaos indicators from a deviation vector carried along a run by the exact tangent map of the
/// step (DESIGN §9, docs/chaos-indicators.md): MEGNO ⟨Y⟩ (Cincotta & Simó 2000), the maximal
/// Lyapunov exponent estimate and the fast Lyapunov indicator (Froeschlé, Lega & Gonczi 1997).
///
/// With ℓ(t) = ln(|δ(t)|/|δ(0)|) and τ = t − t0 the time since the start,
///
///     Y(τ) = (2/τ) ∫_0^τ s dℓ(s),   ⟨Y⟩(τ) = (1/τ) ∫_0^τ Y(s) ds,   λ(τ) = ℓ(τ)/τ,   FLI(τ) = sup_{s≤τ} ℓ(s).
///
/// ⟨Y⟩ → 0 for an isochronous linear motion (the harmonic oscillator), → 2 for quasi-periodic
/// motion (|δ| grows linearly), and ≈ λτ/2 for chaotic motion (|δ| grows as e^{λτ}).
///
/// Discretely, a step from τ_{k−1} to τ_k stretches the deviation by Δℓ_k = ln(|δ_k|/|δ_{k−1}|);
/// ∫ s dℓ over the step is taken as Δℓ_k (τ_{k−1} + τ_k)/2 (exact when ℓ is linear over the step)
/// and ∫ Y ds by the trapezoid rule, both second order in h. The deviation is renormalised to unit
/// length after every step, so that it neither overflows (chaos) nor underflows: only the sums
/// above are kept.

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

class ChaosIndicators {
 public:
  /// A run starting at t0 (the indicators are 0 there).
  void restart(double t0);
  /// A step to time t that stretched the deviation by exp(log_growth).
  void add_step(double t, double log_growth);

  double megno() const;
  double lyapunov() const;
  /// The fast Lyapunov indicator: the largest ℓ so far (over the steps' ends).
  double fli() const { return fli_; }
  /// ℓ: the log of the deviation's total growth since the start.
  double log_growth() const { return ell_; }

  template <class Archive>
  void checkpoint_state(Archive& a) {
    a(t0_), a(tau_), a(ell_), a(weighted_), a(y_), a(y_integral_), a(fli_);
  }

 private:
  double t0_ = 0.0, tau_ = 0.0;
  double ell_ = 0.0;         ///< ℓ(τ)
  double weighted_ = 0.0;    ///< ∫_0^τ s dℓ(s)
  double y_ = 0.0;           ///< Y(τ)
  double y_integral_ = 0.0;  ///< ∫_0^τ Y(s) ds
  double fli_ = 0.0;         ///< sup ℓ
};

/// The deviation every run starts its indicators from: a fixed unit vector of `size` components,
/// pseudo-random (mt19937_64 from a fixed seed, its raw output mapped to [−1, 1) by hand, so that it
/// is the same on every platform) — a deterministic start that no model's symmetry singles out.
Vector initial_deviation(int size);

}  // namespace mechint::kernel
