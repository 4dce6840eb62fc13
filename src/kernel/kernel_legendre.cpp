#include "kernel/kernel_legendre.hpp"

#include <limits>

namespace mechint::kernel {
namespace {

/// [∂L/∂v − p + Aᵀμ ; A v] = 0 in (v, μ), Jacobian [[L_vv, Aᵀ], [A, 0]].
struct TangentVelocity {
  const KernelModel& model;
  const Vector& q;
  const Vector& p;
  const RowMatrix& dg;
  Vector& l_v;
  RowMatrix& l_vv;
  Vector& v;
  void assemble(Eigen::VectorXd& r, Eigen::MatrixXd* a) {
    const int n = static_cast<int>(v.size()), k = static_cast<int>(dg.rows());
    if (!model.velocity_derivatives(q, v, l_v, l_vv)) {  // L_v and L_vv only, as model/legendre.hpp
      r.setConstant(std::numeric_limits<double>::quiet_NaN());
      return;
    }
    a->topLeftCorner(n, n) = l_vv;
    if (k > 0) {
      a->topRightCorner(n, k) = dg.transpose();
      a->bottomLeftCorner(k, n) = dg;
      a->bottomRightCorner(k, k).setZero();
      r.tail(k) = dg * v;
    }
    r.head(n) = l_v - p;
  }
  double update(const Eigen::VectorXd& delta) {
    v -= delta.head(v.size());
    return delta.head(v.size()).lpNorm<Eigen::Infinity>();
  }
  bool converged_on_update(const NewtonIterate& state) const {
    return update_below(state, 1e-14, v.lpNorm<Eigen::Infinity>());
  }
};

/// Newton on `problem` from its v; v becomes NaN where the model is not defined on the way.
void solve_tangent_velocity(TangentVelocity& problem, NewtonSolver<Eigen::Dynamic>& newton) {
  newton.solve(problem, {.max_iterations = 20});
  if (newton.last_stop() == NewtonStop::kNonFinite) problem.v.setConstant(std::numeric_limits<double>::quiet_NaN());
}

/// Dg(q) (k x n, NaN where the model is not defined) into `dg`, sized by the caller.
void constraint_jacobian(const KernelModel& model, const Vector& q, RowMatrix& dg) {
  if (model.num_constraints() > 0 && !model.constraints(q, nullptr, &dg))
    dg.setConstant(std::numeric_limits<double>::quiet_NaN());
}

}  // namespace

Vector tangent_velocity(const KernelModel& model, const Vector& q, const Vector& p, const Vector& guess) {
  LegendreWorkspace workspace(model);
  return workspace.tangent_velocity(q, p, guess);
}

Vector velocity_in_kernel_of(const KernelModel& model, const Vector& q, const Vector& p, const RowMatrix& a,
                             const Vector& guess) {
  const int n = model.dim(), k = static_cast<int>(a.rows());
  Vector l_v(n), v = guess;
  RowMatrix l_vv(n, n);
  TangentVelocity problem{model, q, p, a, l_v, l_vv, v};
  NewtonSolver<Eigen::Dynamic> newton(n + k);
  solve_tangent_velocity(problem, newton);
  return v;
}

LegendreWorkspace::LegendreWorkspace(const KernelModel& model)
    : model_(&model), dg_(RowMatrix::Zero(model.num_constraints(), model.dim())), l_vv_(model.dim(), model.dim()),
      l_v_(model.dim()), v_(model.dim()), newton_(model.dim() + model.num_constraints()) {}

const Vector& LegendreWorkspace::tangent_velocity(const Vector& q, const Vector& p, const Vector& guess) {
  constraint_jacobian(*model_, q, dg_);
  v_ = guess;
  TangentVelocity problem{*model_, q, p, dg_, l_v_, l_vv_, v_};
  solve_tangent_velocity(problem, newton_);
  return v_;
}

double LegendreWorkspace::energy(const Vector& q, const Vector& v) {
  double energy = 0.0, size = 0.0;
  return model_->energy_from_gradient(q, v, energy, size, l_v_) ? energy : std::numeric_limits<double>::quiet_NaN();
}

double kernel_energy(const KernelModel& model, const Vector& q, const Vector& v) {
  double energy = 0.0, size = 0.0;
  Vector l_v(model.dim());
  return model.energy_from_gradient(q, v, energy, size, l_v) ? energy : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace mechint::kernel
