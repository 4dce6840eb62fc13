#include "kernel/kernel_legendre.hpp"

#include <limits>

#include "mechint/solve/newton.hpp"

namespace mechint::kernel {
namespace {

/// [∂L/∂v − p + Aᵀμ ; A v] = 0 in (v, μ), Jacobian [[L_vv, Aᵀ], [A, 0]].
struct TangentVelocity {
  const KernelModel& model;
  const Vector& q;
  const Vector& p;
  const RowMatrix& dg;
  Vector l_v;
  RowMatrix l_vv;
  Vector v;
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

}  // namespace

Vector tangent_velocity(const KernelModel& model, const Vector& q, const Vector& p, const Vector& guess) {
  const int n = model.dim(), k = model.num_constraints();
  RowMatrix dg = RowMatrix::Zero(k, n);
  if (k > 0 && !model.constraints(q, nullptr, &dg)) dg.setConstant(std::numeric_limits<double>::quiet_NaN());
  return velocity_in_kernel_of(model, q, p, dg, guess);
}

Vector velocity_in_kernel_of(const KernelModel& model, const Vector& q, const Vector& p, const RowMatrix& a,
                             const Vector& guess) {
  const int n = model.dim(), k = static_cast<int>(a.rows());
  TangentVelocity problem{model, q, p, a, Vector(n), RowMatrix(n, n), guess};
  NewtonSolver<Eigen::Dynamic> newton(n + k);
  newton.solve(problem, {.max_iterations = 20});
  if (newton.last_stop() == NewtonStop::kNonFinite) problem.v.setConstant(std::numeric_limits<double>::quiet_NaN());
  return problem.v;
}

double kernel_energy(const KernelModel& model, const Vector& q, const Vector& v) {
  double value = 0.0;
  Vector l_v(model.dim());
  if (!model.gradient(q, v, &value, nullptr, &l_v)) return std::numeric_limits<double>::quiet_NaN();
  return l_v.dot(v) - value;
}

}  // namespace mechint::kernel
