#pragma once
/// \file
/// `adapt=sundman` (DESIGN §10): a variational rule — a Galerkin rule, composed or not — run at a
/// fixed step h in the fictive time τ of the Sundman-transformed model (sundman_transformation.hpp),
/// so that the physical steps dt = h·s(q) shrink where s does (close to a body) and the map stays
/// symplectic in τ. An adaptive stepper of the run loop (integrate/stepper.hpp, `step_toward`).
///
/// Rows at the requested physical times. The trajectory's own steps land on no particular time;
/// a row at time T between two of them, t_k < T < t_{k+1}, is the state of one step from t_k of
/// the adjusted fictive size θh that ends at T (θ by the Illinois variant of regula falsi on
/// t(θ) − T, bracketed by θ = 0 and 1; t(θ) is smooth and nearly linear, so a few steps suffice).
/// `Landing::kAside` takes that step aside: the trajectory goes on from t_{k+1} unchanged, its
/// steps all of size h (the rows' states are those of a method of the same order; the trajectory
/// is exactly that of the fixed fictive step). `Landing::kInline` continues the trajectory from the
/// row's state (the adjusted step is one of its steps). docs/adaptive-steps.md compares the two.
///
/// The state reported (q, p, velocity, energy, momenta, multipliers) is that of the row: the
/// physical velocity v = w/s(q) from the fictive w, the multipliers λ = λ̃/s(q).

#include <memory>

#include "kernel/galerkin_integrator.hpp"
#include "kernel/physical_time_guard.hpp"
#include "kernel/sundman_transformation.hpp"

namespace mechint::kernel {

class KernelSundmanIntegrator {
 public:
  enum class Landing { kAside, kInline };

  /// `base` must declare a time scale (SundmanTransformation's conditions); h is the fictive step.
  KernelSundmanIntegrator(std::shared_ptr<const KernelModel> base, GalerkinTableau tableau, double h,
                          Composition composition = {}, NewtonOptions options = {}, StepCheckOptions check = {},
                          Landing landing = Landing::kAside);
  KernelSundmanIntegrator(const KernelSundmanIntegrator&) = delete;
  KernelSundmanIntegrator& operator=(const KernelSundmanIntegrator&) = delete;

  /// Starts at physical time t0 from (q0, q̇0); the energy level E0 of the transformation is the
  /// start's energy. Throws InvalidStart when s(q0) is not positive and finite.
  void start_from_velocity(const Vector& q0, const Vector& qdot0, double t0 = 0.0);

  /// One step of its own toward physical time t (never past it; exactly t once reached). Throws
  /// NumericalFailure where the time scale is not positive and finite at a stage or at the step's
  /// end, or where the physical time stalls (PhysicalTimeGuard).
  void step_toward(double t);

  // ---- state of the row (the stepper contract) -------------------------------------------------
  double time() const { return showing_aside_ ? landed_t_ : main_->time(); }
  long step_index() const { return steps_; }
  const KernelModel& model() const { return transformation_.base(); }
  const Vector& q() const { return row().q(); }
  const Vector& p() const { return row().p(); }
  Vector velocity() const;
  double energy() const;
  double momentum(int i) const { return row().momentum(i); }
  Vector lambda() const;
  Vector constraint_residual() const { return row().constraint_residual(); }
  double discrete_work(int) const { return 0.0; }  // no forces
  Vector control() const { return Vector(); }      // no controls
  /// The fictive step h and the physical step of the trajectory's last step.
  double fictive_step() const { return h_; }
  double last_physical_step() const { return last_dt_; }
  const KernelGalerkinIntegrator& trajectory() const { return *main_; }

  template <class Archive>
  void checkpoint_state(Archive& a) {
    double e0 = transformation_.energy_level();
    a(e0);
    transformation_.set_energy_level(e0);
    main_->checkpoint_state(a), aside_->checkpoint_state(a);
    a(previous_q_), a(previous_p_), a(previous_t_), a(landed_t_), a(steps_), a(last_dt_), a(showing_aside_);
  }

 private:
  const KernelGalerkinIntegrator& row() const { return showing_aside_ ? *aside_ : *main_; }
  /// The state at T from the trajectory's previous step (t_{k} < T < t_{k+1}).
  void land(double t);
  double aside_step(double theta);
  /// integrator.step(), a failure caused by the time scale named as such.
  void take_step(KernelGalerkinIntegrator& integrator);
  double scale_at(const Vector& q) const;
  /// Refuses (NumericalFailure) a step end where the transformation's own error drives the motion:
  /// the fictive force −(E − E0)∇s of an energy error E − E0, seen in physical time as
  /// −(E − E0)∇s/s, stronger than the model's ∂L/∂q. Near a zero of s that force turns the motion
  /// back (s = x: the orbit came back mirrored, exit 0); on a resolved run it is O(h^p) of ∂L/∂q.
  void check_transformation_error();

  SundmanTransformation transformation_;
  double h_;
  Landing landing_;
  std::unique_ptr<KernelGalerkinIntegrator> main_, aside_;
  Vector previous_q_, previous_p_;
  double previous_t_ = 0.0, last_dt_ = 0.0;
  double landed_t_ = 0.0;  ///< the row's time T while the aside step shows (its state is at T to round-off)
  long steps_ = 0;
  bool showing_aside_ = false;
  /// The time scale and the physical time's progress after every step (not checkpointed: a resumed
  /// run's guard starts again from its first step).
  PhysicalTimeGuard guard_;
  Vector scale_gradient_, force_, physical_velocity_;  ///< check_transformation_error's workspace
};

}  // namespace mechint::kernel
