#include "kernel/kernel_runge_kutta.hpp"

#include "mechint/solve/runtime_lu.hpp"

#include <algorithm>
#include <limits>

namespace mechint::kernel {

struct KernelEulerLagrangeOde::Workspace {
  explicit Workspace(const KernelModel& model)
      : l(model.dim()), q(model.dim()), v(model.dim()), rhs(model.dim()), a(model.dim()), f(model.dim()),
        u(Vector::Zero(model.num_controls())), dq(model.dim()), dp(model.dim()), dv(model.dim()), vv(model.dim(), model.dim()),
        f_q(model.dim(), model.dim()), f_v(model.dim(), model.dim()), lu(model.dim()) {}
  LagrangianValues l;
  Vector q, v, rhs, a, f, u;
  Vector dq, dp, dv;  // the deviation (δq, δp) and δv
  Eigen::MatrixXd vv;
  RowMatrix f_q, f_v;
  RuntimeLu lu;
};

KernelEulerLagrangeOde::KernelEulerLagrangeOde(const KernelModel& model, ControlLaw law)
    : model_(&model), law_(std::move(law)), work_(std::make_shared<Workspace>(model)) {}

void KernelEulerLagrangeOde::operator()(const State& x, State& dxdt, double t) const {
  const int n = model_->dim();
  Workspace& w = *work_;
  w.q = Eigen::Map<const Vector>(x.data(), n);
  w.v = Eigen::Map<const Vector>(x.data() + n, n);
  const bool deviation = x.size() == 4 * static_cast<std::size_t>(n);
  Eigen::Map<Vector> dq(dxdt.data(), n), dv(dxdt.data() + n, n);
  dq = w.v;
  bool defined = model_->lagrangian(w.q, w.v, w.l);
  if (defined) {
    // d/dt L_v = L_vv v' + L_qvᵀ v = L_q + f.
    w.rhs.noalias() = w.l.q - w.l.qv.transpose() * w.v;
    if (model_->forced()) {
      if (law_) law_(t, w.u);
      defined = deviation ? model_->forces(w.q, w.v, w.u, t, w.f, &w.f_q, &w.f_v)
                          : model_->forces(w.q, w.v, w.u, t, w.f, nullptr, nullptr);
      w.rhs += w.f;
    }
  }
  if (!defined) {
    std::fill(dxdt.begin() + n, dxdt.end(), std::numeric_limits<double>::quiet_NaN());
    return;
  }
  w.vv = w.l.vv;
  w.lu.compute(w.vv);
  w.lu.solve(w.rhs, w.a);
  dv = w.a;
  if (!deviation) return;
  // The variational equations in (δq, δp) (kernel_runge_kutta.hpp): δv = L_vv⁻¹(δp − L_qvᵀ δq),
  // δq' = δv, δp' = (L_qq + f_q) δq + (L_qv + f_v) δv.
  w.dq = Eigen::Map<const Vector>(x.data() + 2 * n, n);
  w.dp = Eigen::Map<const Vector>(x.data() + 3 * n, n);
  w.rhs = w.dp;
  w.rhs.noalias() -= w.l.qv.transpose() * w.dq;
  w.lu.solve(w.rhs, w.dv);
  Eigen::Map<Vector> d_dq(dxdt.data() + 2 * n, n), d_dp(dxdt.data() + 3 * n, n);
  d_dq = w.dv;
  d_dp.noalias() = w.l.qq * w.dq;
  d_dp.noalias() += w.l.qv * w.dv;
  if (model_->forced()) {
    d_dp.noalias() += w.f_q * w.dq;
    d_dp.noalias() += w.f_v * w.dv;
  }
}

bool KernelEulerLagrangeOde::power(const Vector& q, const Vector& v, double t, double& power) const {
  Workspace& w = *work_;
  if (law_) law_(t, w.u);
  if (!model_->forces(q, v, w.u, t, w.f, nullptr, nullptr)) return false;
  power = w.f.dot(v);
  return true;
}

}  // namespace mechint::kernel
