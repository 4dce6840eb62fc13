#include "kernel/kernel_runge_kutta.hpp"

#include "mechint/solve/runtime_lu.hpp"

#include <limits>

namespace mechint::kernel {

struct KernelEulerLagrangeOde::Workspace {
  explicit Workspace(const KernelModel& model)
      : l(model.dim()), q(model.dim()), v(model.dim()), rhs(model.dim()), a(model.dim()), f(model.dim()),
        u(model.num_controls()), vv(model.dim(), model.dim()), lu(model.dim()) {}
  LagrangianValues l;
  Vector q, v, rhs, a, f, u;
  Eigen::MatrixXd vv;
  RuntimeLu lu;
};

KernelEulerLagrangeOde::KernelEulerLagrangeOde(const KernelModel& model, ControlLaw law)
    : model_(&model), law_(std::move(law)), work_(std::make_shared<Workspace>(model)) {}

void KernelEulerLagrangeOde::operator()(const State& x, State& dxdt, double t) const {
  const int n = model_->dim();
  Workspace& w = *work_;
  w.q = Eigen::Map<const Vector>(x.data(), n);
  w.v = Eigen::Map<const Vector>(x.data() + n, n);
  Eigen::Map<Vector> dq(dxdt.data(), n), dv(dxdt.data() + n, n);
  dq = w.v;
  bool defined = model_->lagrangian(w.q, w.v, w.l);
  if (defined) {
    // d/dt L_v = L_vv v' + L_qvᵀ v = L_q + f.
    w.rhs.noalias() = w.l.q - w.l.qv.transpose() * w.v;
    if (model_->forced()) {
      if (law_) law_(t, w.u);
      defined = model_->forces(w.q, w.v, w.u, t, w.f, nullptr, nullptr);
      w.rhs += w.f;
    }
  }
  if (!defined) {
    dv.setConstant(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  w.vv = w.l.vv;
  w.lu.compute(w.vv);
  w.lu.solve(w.rhs, w.a);
  dv = w.a;
}

}  // namespace mechint::kernel
