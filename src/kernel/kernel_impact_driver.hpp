#pragma once
/// \file
/// Elastic impacts on a kernel model (004 §III-B), compiled once for every model with walls
/// φ(q) ≥ 0 (model_kernels.h, `unilateral`). The driver steps with the flow Φ_h (kernel_flows.hpp) on
/// the uniform grid t_j = t0 + j h. When a full step would leave the feasible set (φ_c(q̂_{j+1}) < 0
/// for some c, 004 eqs. 19–20) it
///  1. finds the fraction α ∈ [0, 1] of the step at which the partial step Φ_{αh}(q_j, p_j) =
///     (q_i, p⁻) reaches the contact configuration φ_c(q_i) = 0 (eqs. 21–22): a bracketed scalar
///     root in α (TOMS 748), each evaluation solving the partial step, so q_i and α come out
///     together; with several walls the earliest crossing wins;
///  2. applies p⁺ = p⁻ + λ∇φ_c(q_i) (eq. 23) with λ from the impact law (integrate/impact_laws.hpp:
///     ctec, dtec, mhc with windowed medians);
///  3. finishes with Φ_{(1−α)h}(q_i, p⁺) back on the grid (eq. 24). If that rest step leaves the
///     feasible set again, 1–3 repeat inside the rest of the step (a second crossing is searched
///     with φ_c/α, which removes the root at the contact point itself).
/// An unconstrained model with walls; a start with φ(q0) < 0 is refused (`InvalidStart`).
///
/// Each step's H(q, p) is held to the previous step's (kernel/energy_jump_check.hpp): an explicit
/// Störmer–Verlet step across a pole of the potential lands on the other branch with its energy far
/// off, and is refused rather than written (the impacts are elastic: H is continuous across them to
/// the method's error).
///
/// Only the impact count and the last impact are kept (the command line's setting, memory flat in
/// the length of the run). A step never allocates: the MHC windows are sized at construction.

#include <memory>
#include <vector>

#include "kernel/energy_jump_check.hpp"
#include "kernel/kernel_flows.hpp"
#include "kernel/kernel_hamiltonian.hpp"
#include "mechint/core/state_archive.hpp"
#include "mechint/integrate/impact_laws.hpp"

namespace mechint::kernel {

/// One resolved impact (integrate/impact_driver.hpp's ImpactRecord).
struct KernelImpactRecord {
  long step = 0;        ///< index j + 1 of the grid step that contains the impact
  double time = 0.0;    ///< t_i
  double alpha = 0.0;   ///< (t_i − t_j)/h
  double lambda = 0.0;  ///< p⁺ = p⁻ + λ∇φ
  int constraint = 0;   ///< which φ_c
  double energy_before = 0.0, energy_after = 0.0;
  double htilde_before = 0.0, htilde_after = 0.0;
  Vector q, p_before, p_after;
};

class KernelImpactDriver {
 public:
  /// `flow`: the method's flow (kernel_flows.hpp). `options.record_impacts` is ignored (only the last
  /// impact is kept); `options.composition` composes the flow when the walls are off.
  KernelImpactDriver(const KernelModel& model, Flow flow, double h, ImpactOptions options = {},
                     NewtonOptions newton = {});
  KernelImpactDriver(const KernelImpactDriver&) = delete;
  KernelImpactDriver& operator=(const KernelImpactDriver&) = delete;

  /// Start at (q0, p0), p0 the canonical momentum; `InvalidStart` outside the feasible set.
  void start(const Vector& q0, const Vector& p0, double t0 = 0.0);
  /// Start from velocities: p0 = ∂L/∂v(q0, q̇0).
  void start_from_velocity(const Vector& q0, const Vector& qdot0, double t0 = 0.0);
  /// One step of size h, resolving every impact inside it.
  void step();

  const Vector& q() const { return q_; }
  const Vector& p() const { return p_; }
  double time() const { return t_; }
  long step_index() const { return step_index_; }
  double step_size() const { return h_; }
  const KernelModel& model() const { return *model_; }
  long impact_count() const { return impact_count_; }
  /// The last impact (valid when impact_count() > 0).
  const KernelImpactRecord& last_impact() const { return last_impact_; }
  ModifiedHamiltonianKind modified_hamiltonian_kind() const { return kind_; }

  /// H(q_j, p_j), H_p(q_j, p_j), H̃(q_j, p_j, h) of the driver's kind, Noether momentum p·ξ_i(q).
  double energy() const;
  Vector velocity() const;
  double htilde() const { return htilde(q_, p_); }
  double momentum(int i) const;

  /// The state, the impacts counted, the last impact and the MHC window (core/state_archive.hpp).
  template <class Archive>
  void checkpoint_state(Archive& a) {
    energy_jumps_.reset();  // a resumed state has no previous step to compare with
    a(q_), a(p_), a(t0_), a(t_), a(step_index_), a(impact_count_);
    KernelImpactRecord& r = last_impact_;
    a(r.step), a(r.time), a(r.alpha), a(r.lambda), a(r.constraint), a(r.energy_before), a(r.energy_after);
    a(r.htilde_before), a(r.htilde_after), a(r.q), a(r.p_before), a(r.p_after);
    a(history_), a(history_count_), a(history_head_);
  }

 private:
  /// Partial steps shorter than this fraction of h are skipped (state unchanged).
  static constexpr double kNegligible = 1e-12;

  StepResult checked_step(const Vector& q, const Vector& p, double tau, Vector& q1, Vector& p1, double t_seg);
  StepResult composed_step(const Vector& q, const Vector& p, double tau, Vector& q1, Vector& p1, double t_seg);
  bool feasible(const Vector& q) const;
  bool locate(const Vector& q, const Vector& p, double tau, const Vector& q_end, int contact, double& alpha, int& c,
              double t_seg);
  double crossing(const Vector& q, const Vector& p, double tau, int k, bool on_contact, double phi0, double phi_end,
                  double t_seg);
  double resolve(const Vector& qi, const Vector& pm, double e_before, double rest, int c, double time);
  double stable_before(const Vector& qi, const Vector& pm);
  double stable_after(const Vector& qi, const Vector& pp, double rest);
  void remember_htilde();
  /// The step's energy against the previous step's (the file comment); not for a forced model.
  void judge_energy();
  double htilde(const Vector& q, const Vector& p) const;
  double hamiltonian(const Vector& q, const Vector& p) const;
  /// φ(q) into `phi`, ∇φ_c(q) into `gradient` when c ≥ 0; DomainError where the walls are not defined.
  void walls(const Vector& q, Vector& phi, int c = -1, Vector* gradient = nullptr) const;

  const KernelModel* model_;
  int n_, m_;
  std::unique_ptr<KernelFlow> flow_;
  double h_;
  ImpactOptions options_;
  ModifiedHamiltonianKind kind_;
  long window_before_steps_ = 1, window_after_steps_ = 1;
  Vector q_, p_;
  double t0_ = 0.0, t_ = 0.0;
  long step_index_ = 0;
  KernelImpactRecord last_impact_;
  long impact_count_ = 0;
  std::vector<double> history_, scratch_;
  std::size_t history_count_ = 0, history_head_ = 0;
  // Workspace (sized once; mutable: the const diagnostics evaluate through it).
  mutable KernelHamiltonian hamiltonian_;
  EnergyJumpCheck energy_jumps_;
  mutable Vector phi_, phi0_, phi_end_, xi_;
  mutable RowMatrix dphi_;
  Vector q_seg_, p_seg_, q1_, p1_, qi_, pm_, grad_, pp_, qa_, pa_, qb_, pb_, qc_, pc_, qd_, pd_;
};

}  // namespace mechint::kernel
