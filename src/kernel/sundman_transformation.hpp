#pragma once
/// \file
/// The Sundman time transformation of a kernel model (DESIGN §10, `adapt=sundman`), as another
/// kernel model: the methods run on it unchanged, at a fixed step h in the fictive time τ, and stay
/// symplectic there.
///
/// With dt = s(q) dτ and an energy level E0, the Poincaré-transformed Hamiltonian K = s(q)(H − E0)
/// (Hairer 1997; Hairer, Lubich & Wanner VIII.2) has on its level set K = 0 the motions of H with
/// energy E0 in the time τ. Its Legendre transform is the Lagrangian on the same configuration space
///
///     L̃(q, w) = s(q) [L(q, w/s(q)) + E0],      w = dq/dτ = s(q) v,
///
/// regular when L is, with the same momentum p = ∂L̃/∂w = ∂L/∂v(q, v): a step of the transformed
/// model maps (q, p) as the original's would, at the physical step h·s. Its derivatives, from L's
/// and s's (v = w/s, E = v·L_v − L, E_q = L_qv v − L_q, c = v·L_vv v; g = ∇s, S = ∇²s):
///
///     L̃_q  = s L_q − (E − E0) g
///     L̃_w  = L_v
///     L̃_qq = s L_qq − E_q gᵀ − g E_qᵀ − (E − E0) S + (c/s) g gᵀ
///     L̃_qw = L_qv − g (L_vv v)ᵀ/s
///     L̃_ww = L_vv / s
///
/// Holonomic constraints g(q) = 0 and the symmetry generators are the model's own (time does not
/// enter them); a multiplier of the transformed model is s·λ. The physical time is the extended
/// system's own coordinate, t' = s(q): a Runge–Kutta method advances it by h Σ b_i s(Q_i) over its
/// stages (KernelGalerkinIntegrator::set_time_scale). Models with forces or nonholonomic
/// constraints are not transformed (their forces depend on t and v, not on τ).
///
/// Evaluations write into the transformation's own workspace: one transformed model per integrator,
/// one thread at a time (as each integrator is).

#include <memory>

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

class SundmanTransformation {
 public:
  /// Throws InvalidInput when `base` declares no time scale, has forces or nonholonomic constraints.
  explicit SundmanTransformation(std::shared_ptr<const KernelModel> base);
  ~SundmanTransformation();
  SundmanTransformation(const SundmanTransformation&) = delete;
  SundmanTransformation& operator=(const SundmanTransformation&) = delete;

  const KernelModel& base() const;
  /// The transformed model L̃ (alive as long as this object).
  const KernelModel& model() const { return *model_; }
  /// E0, the energy of the motion (the start's energy; 0 until set).
  void set_energy_level(double e0);
  double energy_level() const;
  /// Whether an evaluation since clear_refused_scale() met a time scale that is not positive and
  /// finite (the transformed model is not defined there), and the value it met: what turns a failed
  /// Newton solve into the message that names the time scale.
  bool refused_scale(double& s) const;
  void clear_refused_scale();

  struct Context;  ///< the kernels' context (sundman_transformation.cpp)

 private:
  std::unique_ptr<Context> context_;
  std::unique_ptr<KernelModel> model_;
};

}  // namespace mechint::kernel
