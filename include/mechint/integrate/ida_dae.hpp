#pragma once
/// \file
/// The DAE baseline (`--method dae`): the GGL formulation of constrained_dae.hpp integrated by
/// SUNDIALS IDA (variable-order, variable-step BDF; libsundials-dev). It plays the role MEXX plays in
/// 003 §3.1: an adaptive, error-controlled solver that keeps the constraints but conserves neither
/// energy nor momentum.
///
/// Error control: IDA's weighted RMS norm with `rtol`, `atol` on q and v; λ and μ are
/// algebraic and excluded from the local error test (IDASetSuppressAlg), as recommended for
/// index-2 variables, with an absolute weight of at least kAlgebraicAtol in Newton's test. Linear algebra: IDA's dense direct solver with its difference-quotient
/// Jacobian ∂F/∂y + c_j ∂F/∂ẏ (the residual itself is exact, from AD of L and g).

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "mechint/model/legendre.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/model/start_on_manifold.hpp"
#include "mechint/core/format.hpp"
#include "mechint/integrate/constrained_dae.hpp"

namespace mechint {

/// Tolerances of the DAE baseline (DESIGN §2; issue defaults).
struct DaeTolerances {
  double rtol = 1e-8;
  double atol = 1e-10;
};

/// Integrates a ConstrainedDae with IDA from a consistent start. Owns the SUNDIALS objects.
template <class Dae>
class IdaIntegrator {
 public:
  static constexpr int kSize = Dae::kSize;
  /// Absolute tolerance on the algebraic λ, μ (Newton's convergence test only).
  static constexpr double kAlgebraicAtol = 1e-8;
  using State = typename Dae::State;

  /// `h0` is IDA's first step (it then chooses its own).
  IdaIntegrator(const Dae& dae, const VecD<Dae::n>& q0, const VecD<Dae::n>& v0, double t0, double h0,
                DaeTolerances tol, long max_steps = 100000000L)
      : dae_(dae), t_(t0) {
    check(SUNContext_Create(nullptr, &ctx_), "SUNContext_Create");
    yy_ = N_VNew_Serial(kSize, ctx_);
    yp_ = N_VNew_Serial(kSize, ctx_);
    N_Vector id = N_VNew_Serial(kSize, ctx_);
    N_Vector atol = N_VNew_Serial(kSize, ctx_);
    State y, yp;
    dae_.consistent_start(q0, v0, y, yp);
    for (int i = 0; i < kSize; ++i) {
      const bool differential = i < 2 * Dae::n;  // q, v; λ, μ are algebraic
      NV_Ith_S(yy_, i) = y[i];
      NV_Ith_S(yp_, i) = yp[i];
      NV_Ith_S(id, i) = differential ? 1.0 : 0.0;
      // λ and μ are out of the error test; their weights only enter Newton's convergence test,
      // where round-off in the constraint rows, amplified by c_j ~ 1/h, must not stall the
      // iteration at tight tolerances (measured: a stall at rtol = 1e-10 with atol = 1e-12 on λ, μ).
      NV_Ith_S(atol, i) = differential ? tol.atol : std::max(tol.atol, kAlgebraicAtol);
    }
    mem_ = IDACreate(ctx_);
    if (mem_ == nullptr) throw NumericalFailure("SUNDIALS IDA: IDACreate failed");
    check(IDAInit(mem_, &IdaIntegrator::residual, t0, yy_, yp_), "IDAInit");
    check(IDASVtolerances(mem_, tol.rtol, atol), "IDASVtolerances");
    check(IDASetUserData(mem_, const_cast<Dae*>(&dae_)), "IDASetUserData");
    check(IDASetId(mem_, id), "IDASetId");
    check(IDASetSuppressAlg(mem_, SUNTRUE), "IDASetSuppressAlg");
    check(IDASetMaxNumSteps(mem_, max_steps), "IDASetMaxNumSteps");
    check(IDASetInitStep(mem_, h0), "IDASetInitStep");
    N_VDestroy(id);
    N_VDestroy(atol);
    a_ = SUNDenseMatrix(kSize, kSize, ctx_);
    ls_ = SUNLinSol_Dense(yy_, a_, ctx_);
    check(IDASetLinearSolver(mem_, ls_, a_), "IDASetLinearSolver");
  }
  IdaIntegrator(const IdaIntegrator&) = delete;
  IdaIntegrator& operator=(const IdaIntegrator&) = delete;
  ~IdaIntegrator() {
    IDAFree(&mem_);
    SUNLinSolFree(ls_);
    SUNMatDestroy(a_);
    N_VDestroy(yy_);
    N_VDestroy(yp_);
    SUNContext_Free(&ctx_);
  }

  /// Advances to `t_out` (IDA interpolates its own steps there); throws naming the time on failure.
  void advance_to(double t_out) {
    double t_ret = t_;
    const int flag = IDASolve(mem_, t_out, &t_ret, yy_, yp_, IDA_NORMAL);
    if (flag < 0)
      throw NumericalFailure("IDA failed (flag " + std::to_string(flag) + ") at t = " + format_number(t_ret) +
                             "; loosen the tolerances or check the start");
    t_ = t_ret;
  }

  double time() const { return t_; }
  State state() const {
    State y;
    for (int i = 0; i < kSize; ++i) y[i] = NV_Ith_S(yy_, i);
    return y;
  }
  VecD<Dae::n> q() const { return Dae::position(state()); }
  VecD<Dae::n> v() const { return Dae::velocity(state()); }
  VecD<Dae::k> lambda() const { return Dae::multiplier(state()); }
  /// Internal steps IDA has taken so far.
  long steps() const {
    long nst = 0;
    IDAGetNumSteps(mem_, &nst);
    return nst;
  }

 private:
  static int residual(sunrealtype, N_Vector yy, N_Vector yp, N_Vector rr, void* user) {
    static_cast<const Dae*>(user)->residual(N_VGetArrayPointer(yy), N_VGetArrayPointer(yp),
                                             N_VGetArrayPointer(rr));
    return 0;
  }
  static void check(int flag, const char* what) {
    if (flag < 0) throw NumericalFailure("SUNDIALS IDA: " + std::string(what) + " failed with flag " + std::to_string(flag));
  }

  Dae dae_;
  double t_;
  SUNContext ctx_ = nullptr;
  N_Vector yy_ = nullptr, yp_ = nullptr;
  SUNMatrix a_ = nullptr;
  SUNLinearSolver ls_ = nullptr;
  void* mem_ = nullptr;
};

/// The DAE baseline of a constrained model as an adaptive stepper (integrate/stepper.hpp):
/// `step_toward(t)` lets IDA advance to t with its own internal steps (IDA_NORMAL), so an output
/// time never constrains IDA's step sizes. The multipliers are the continuous λ of
/// d/dt ∂L/∂q̇ − ∂L/∂q = Dgᵀλ, not the per-step impulses of the variational integrator.
template <LagrangianModel M>
  requires(M::kNumConstraints > 0)
class DaeStepper {
 public:
  static constexpr int n = M::kDim;
  static constexpr int k = M::kNumConstraints;
  using Model = M;
  /// `h0` is IDA's first step.
  DaeStepper(M model, double h0, DaeTolerances tol) : dae_(std::move(model)), h0_(h0), tol_(tol) {}

  /// Start from (q0, q̇0) on the constraint manifold; IDA's λ, μ are completed consistently.
  void start_from_velocity(const VecD<n>& q0, const VecD<n>& v0, double t0 = 0.0) {
    if (!q0.allFinite() || !v0.allFinite()) throw InvalidStart("initial data contain NaN or infinity");
    const auto dg = constraint_jacobian(model(), q0);
    check_start_position(model_constraints<M, double>(model(), q0), dg, q0);
    check_start_velocity(dg, v0);
    ida_ = std::make_unique<IdaIntegrator<ConstrainedDae<M>>>(dae_, q0, v0, t0, h0_, tol_);
  }

  void step_toward(double t_out) { ida_->advance_to(t_out); }

  double time() const { return ida_->time(); }
  /// IDA's internal steps so far.
  long step_index() const { return ida_->steps(); }
  const M& model() const { return dae_.model(); }
  VecD<n> q() const { return ida_->q(); }
  VecD<n> velocity() const { return ida_->v(); }
  VecD<k> lambda() const { return ida_->lambda(); }
  VecD<k> constraint_residual() const { return model_constraints<M, double>(model(), q()); }
  double energy() const { return mechint::energy(model(), q(), velocity()); }
  double momentum(int i) const {
    const VecD<n> q = this->q();
    return noether_momentum(model(), i, q, lagrangian_dv(model(), q, velocity()));
  }
  const IdaIntegrator<ConstrainedDae<M>>& integrator() const { return *ida_; }

 private:
  ConstrainedDae<M> dae_;
  double h0_;
  DaeTolerances tol_;
  std::unique_ptr<IdaIntegrator<ConstrainedDae<M>>> ida_;
};

}  // namespace mechint
