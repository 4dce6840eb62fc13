#pragma once
/// \file
/// The DAE baseline (`--method dae`) on a kernel model: the constrained Euler–Lagrange equations as
/// a stabilised index-2 DAE in the Gear–Gupta–Leimkuhler (GGL) form, integrated by SUNDIALS IDA
/// (variable-order, variable-step BDF), over runtime sizes. It plays the role MEXX plays in 003 §3.1:
/// an adaptive, error-controlled solver that keeps the constraints but conserves neither energy nor
/// momentum. Unknowns y = (q, v, λ, μ), G = Dg(q):
///
///     q̇ − v − Gᵀμ = 0                  (GGL: μ = 0 on exact solutions; it projects q̇ back onto
///                                        the velocity constraint)
///     L_vv v̇ + L_qvᵀ v − L_q − Gᵀλ = 0  (d/dt ∂L/∂v − ∂L/∂q = Gᵀλ, cf. 000 eq. 4.4)
///     g(q) = 0,   G v = 0              (both constraint levels: neither q nor v drifts)
///
/// q and v are differential, λ and μ algebraic: excluded from IDA's local error test
/// (IDASetSuppressAlg, as recommended for index-2 variables), with an absolute weight of at least
/// kAlgebraicAtol in Newton's test.
/// every term from the model's kernels (L's gradient and Hessian blocks, g and Dg; the consistent
/// start's g''[v, v] from the constraints' curvature). IDA advances to each output time with its own
/// steps (`step_toward`); its Jacobian is its difference quotient of this exact residual.

#include <memory>

#include "kernel/kernel_model.hpp"

namespace mechint::kernel {

class KernelDaeStepper {
 public:
  struct Tolerances {
    double rtol = 1e-8;
    double atol = 1e-10;
  };
  /// `h0` is IDA's first step. The model must have holonomic constraints and their curvature.
  KernelDaeStepper(const KernelModel& model, double h0, Tolerances tolerances);
  ~KernelDaeStepper();
  KernelDaeStepper(const KernelDaeStepper&) = delete;
  KernelDaeStepper& operator=(const KernelDaeStepper&) = delete;

  /// Start from (q0, q̇0) on the constraint manifold; λ, μ and (q̇, v̇) completed consistently.
  void start_from_velocity(const Vector& q0, const Vector& qdot0, double t0 = 0.0);
  /// IDA to t_out (it interpolates its own steps there); NumericalFailure naming the time on failure.
  void step_toward(double t_out);

  double time() const { return t_; }
  /// IDA's internal steps so far.
  long step_index() const;
  const KernelModel& model() const { return *model_; }
  Eigen::Map<const Vector> q() const;
  Eigen::Map<const Vector> velocity() const;
  /// λ of d/dt ∂L/∂q̇ − ∂L/∂q = Gᵀλ (continuous multipliers, not a step's impulses).
  Eigen::Map<const Vector> lambda() const;
  Vector constraint_residual() const;
  /// The whole GGL residual F(y, ẏ) (size 2n + 2k, rows as above) at IDA's current y and ẏ: after a
  /// start, the consistent start's (zero to round-off); after `step_toward`, at IDA's interpolated
  /// values at the output time. Throws DomainError where the model is not defined.
  Vector dae_residual() const;
  double energy() const;
  double momentum(int i) const;

 private:
  struct Sundials;
  /// F(y, ẏ) into f (all of size 2n + 2k); false where the model is not defined.
  bool residual(const double* y, const double* yp, double* f) const;

  const KernelModel* model_;
  int n_, k_;
  double h0_;
  Tolerances tolerances_;
  double t_ = 0.0;
  std::unique_ptr<Sundials> ida_;
  // Workspace of the residual (sized once).
  mutable LagrangianValues values_;
  mutable Vector g_, q_work_, v_work_;
  Vector q_before_, q_after_;  ///< an advance's ends, for the model's step check
  mutable RowMatrix dg_;
};

}  // namespace mechint::kernel
