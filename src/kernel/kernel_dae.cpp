#include "kernel/kernel_dae.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include <Eigen/LU>
#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "kernel/kernel_legendre.hpp"
#include "kernel/start_checks.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"

namespace mechint::kernel {

namespace {

/// Absolute tolerance on the algebraic λ, μ in Newton's convergence test (kernel_dae.hpp).
constexpr double kAlgebraicAtol = 1e-8;

void check(int flag, const char* what) {
  if (flag < 0) throw NumericalFailure("SUNDIALS IDA: " + std::string(what) + " failed with flag " + std::to_string(flag));
}

}  // namespace

/// The SUNDIALS objects of one integration.
struct KernelDaeStepper::Sundials {
  SUNContext context = nullptr;
  N_Vector yy = nullptr, yp = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver solver = nullptr;
  void* memory = nullptr;
  ~Sundials() {
    if (memory) IDAFree(&memory);
    if (solver) SUNLinSolFree(solver);
    if (matrix) SUNMatDestroy(matrix);
    if (yy) N_VDestroy(yy);
    if (yp) N_VDestroy(yp);
    if (context) SUNContext_Free(&context);
  }
};

KernelDaeStepper::KernelDaeStepper(const KernelModel& model, double h0, Tolerances tolerances)
    : model_(&model), n_(model.dim()), k_(model.num_constraints()), h0_(h0), tolerances_(tolerances), values_(n_) {
  if (k_ == 0 || !model.has_constraint_curvature())
    throw InvalidInput("dae integrates models with holonomic constraints");
  if (model.forced()) throw InvalidInput("dae integrates unforced models");
  g_.setZero(k_);
  dg_.setZero(k_, n_);
  for (Vector* w : {&q_work_, &v_work_, &q_before_, &q_after_}) w->setZero(n_);
}

KernelDaeStepper::~KernelDaeStepper() = default;

bool KernelDaeStepper::residual(const double* y, const double* yp, double* f) const {
  const int n = n_, k = k_;
  const Eigen::Map<const Vector> q(y, n), v(y + n, n), lambda(y + 2 * n, k), mu(y + 2 * n + k, k);
  const Eigen::Map<const Vector> qd(yp, n), vd(yp + n, n);
  Eigen::Map<Vector> out(f, 2 * n + 2 * k);
  // The maps copied into the model's argument type (Vector), in storage sized once.
  q_work_ = q;
  v_work_ = v;
  if (!model_->velocity_hessians(q_work_, v_work_, values_.q, values_.qv, values_.vv) ||
      !model_->constraints(q_work_, &g_, &dg_))
    return false;
  // Each product on its own (noalias): in a longer expression Eigen would evaluate it into a temporary.
  out.segment(0, n) = qd - v;
  out.segment(0, n).noalias() -= dg_.transpose() * mu;
  out.segment(n, n).noalias() = values_.vv * vd;
  out.segment(n, n).noalias() += values_.qv.transpose() * v;
  out.segment(n, n) -= values_.q;
  out.segment(n, n).noalias() -= dg_.transpose() * lambda;
  out.segment(2 * n, k) = g_;
  out.segment(2 * n + k, k).noalias() = dg_ * v;
  return true;
}

void KernelDaeStepper::start_from_velocity(const Vector& q0, const Vector& qdot0, double t0) {
  if (!q0.allFinite() || !qdot0.allFinite()) throw InvalidStart("initial data contain NaN or infinity");
  const RowMatrix dg = check_start_on_constraints(*model_, q0, &qdot0);
  const int n = n_, k = k_, size = 2 * n + 2 * k;
  // Consistent start: μ = 0, q̇ = v, and (v̇, λ) from [[L_vv, −Gᵀ], [G, 0]] (v̇, λ) = (L_q − L_qvᵀ v, −g''[v, v]).
  LagrangianValues l(n);
  if (!model_->lagrangian(q0, qdot0, l)) throw InvalidStart("the model is not defined at the start (outside its domain)");
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n + k, n + k);
  a.topLeftCorner(n, n) = l.vv;
  a.topRightCorner(n, k) = -dg.transpose();
  a.bottomLeftCorner(k, n) = dg;
  Eigen::VectorXd b(n + k);
  b.head(n) = l.q - l.qv.transpose() * qdot0;
  RowMatrix curvature(n, n);
  Vector unit = Vector::Zero(k);
  for (int i = 0; i < k; ++i) {  // g_i''[v, v] = vᵀ ∂²g_i/∂q² v: the curvature with λ = e_i
    unit.setZero();
    unit[i] = 1.0;
    if (!model_->constraint_curvature(q0, unit, curvature)) throw InvalidStart("the constraints are not defined at the start");
    b[n + i] = -qdot0.dot(curvature * qdot0);
  }
  const Eigen::VectorXd solution = a.fullPivLu().solve(b);

  ida_ = std::make_unique<Sundials>();
  Sundials& s = *ida_;
  check(SUNContext_Create(nullptr, &s.context), "SUNContext_Create");
  s.yy = N_VNew_Serial(size, s.context);
  s.yp = N_VNew_Serial(size, s.context);
  N_Vector id = N_VNew_Serial(size, s.context), atol = N_VNew_Serial(size, s.context);
  Eigen::Map<Vector> y(N_VGetArrayPointer(s.yy), size), yp(N_VGetArrayPointer(s.yp), size);
  y.setZero();
  yp.setZero();
  y.segment(0, n) = q0;
  y.segment(n, n) = qdot0;
  y.segment(2 * n, k) = solution.tail(k);
  yp.segment(0, n) = qdot0;
  yp.segment(n, n) = solution.head(n);
  for (int i = 0; i < size; ++i) {
    const bool differential = i < 2 * n;  // q, v; λ, μ are algebraic, out of the error test
    NV_Ith_S(id, i) = differential ? 1.0 : 0.0;
    NV_Ith_S(atol, i) = differential ? tolerances_.atol : std::max(tolerances_.atol, kAlgebraicAtol);
  }
  s.memory = IDACreate(s.context);
  if (s.memory == nullptr) throw NumericalFailure("SUNDIALS IDA: IDACreate failed");
  const auto residual = [](sunrealtype, N_Vector yy, N_Vector ypp, N_Vector rr, void* self) -> int {
    // A positive return is IDA's recoverable error: it retries with a smaller step.
    return static_cast<const KernelDaeStepper*>(self)->residual(N_VGetArrayPointer(yy), N_VGetArrayPointer(ypp),
                                                                 N_VGetArrayPointer(rr))
               ? 0
               : 1;
  };
  check(IDAInit(s.memory, residual, t0, s.yy, s.yp), "IDAInit");
  check(IDASVtolerances(s.memory, tolerances_.rtol, atol), "IDASVtolerances");
  check(IDASetUserData(s.memory, this), "IDASetUserData");
  check(IDASetId(s.memory, id), "IDASetId");
  check(IDASetSuppressAlg(s.memory, SUNTRUE), "IDASetSuppressAlg");
  check(IDASetMaxNumSteps(s.memory, 100000000L), "IDASetMaxNumSteps");
  check(IDASetInitStep(s.memory, h0_), "IDASetInitStep");
  N_VDestroy(id);
  N_VDestroy(atol);
  s.matrix = SUNDenseMatrix(size, size, s.context);
  s.solver = SUNLinSol_Dense(s.yy, s.matrix, s.context);
  check(IDASetLinearSolver(s.memory, s.solver, s.matrix), "IDASetLinearSolver");
  t_ = t0;
}

void KernelDaeStepper::step_toward(double t_out) {
  double t_return = t_;
  q_before_ = q();
  const int flag = IDASolve(ida_->memory, t_out, &t_return, ida_->yy, ida_->yp, IDA_NORMAL);
  if (flag < 0)
    throw NumericalFailure("IDA failed (flag " + std::to_string(flag) + ") at t = " + format_number(t_return) +
                           "; loosen the tolerances or check the start");
  t_ = t_return;
  if (model_->has_step_check()) {
    q_after_ = q();
    model_->check_step(q_before_, q_after_, t_);
  }
}

long KernelDaeStepper::step_index() const {
  long steps = 0;
  if (ida_) IDAGetNumSteps(ida_->memory, &steps);
  return steps;
}

Eigen::Map<const Vector> KernelDaeStepper::q() const { return {N_VGetArrayPointer(ida_->yy), n_}; }
Eigen::Map<const Vector> KernelDaeStepper::velocity() const { return {N_VGetArrayPointer(ida_->yy) + n_, n_}; }
Eigen::Map<const Vector> KernelDaeStepper::lambda() const { return {N_VGetArrayPointer(ida_->yy) + 2 * n_, k_}; }

Vector KernelDaeStepper::dae_residual() const {
  if (!ida_) throw std::logic_error("KernelDaeStepper: not started");
  Vector f(2 * n_ + 2 * k_);
  if (!residual(N_VGetArrayPointer(ida_->yy), N_VGetArrayPointer(ida_->yp), f.data()))
    throw DomainError("the DAE residual is not defined at t = " + format_number(t_));
  return f;
}

Vector KernelDaeStepper::constraint_residual() const {
  Vector g(k_);
  if (!model_->constraints(Vector(q()), &g, nullptr)) g.setConstant(std::numeric_limits<double>::quiet_NaN());
  return g;
}

double KernelDaeStepper::energy() const { return kernel_energy(*model_, Vector(q()), Vector(velocity())); }

double KernelDaeStepper::momentum(int i) const {
  const Vector q = this->q(), v = velocity();
  Vector l_v(n_), xi(n_);
  if (!model_->gradient(q, v, nullptr, nullptr, &l_v) || !model_->symmetry(i, q, xi))
    return std::numeric_limits<double>::quiet_NaN();
  return l_v.dot(xi);
}

}  // namespace mechint::kernel
