#pragma once
// The pendulum chain PendulumChain<N> (systems/pendulum_chain.hpp) by automatic differentiation of
// its Lagrangian alone: value, gradient and Hessian of L over (q, v) and of each rule's Ld over
// (q0, q1) on jets of jets, and a kernel table (model_kernels.h) whose L derivatives are those jets.
// The formulation the hand-derived chain kernels (kernel::pendulum_chain_model) and the struct's own
// hand-written derivatives are checked against (test_pendulum_chain, test_kernel_integrators).
#include <memory>
#include <type_traits>

#include "kernel/discrete_rules.hpp"
#include "kernel/kernel_model.hpp"
#include "mechint/core/autodiff.hpp"
#include "mechint/core/linear_algebra.hpp"
#include "mechint/systems/pendulum_chain.hpp"

namespace mechint::vi_test {

/// Value, gradient and Hessian over z = (a, b) (2N variables) of f(a, b) on jets of jets. The jet
/// vectors live on the heap: at 30 links a jet of jets is 30 kB.
template <int N, class F>
double value_gradient_hessian(const VecD<N>& a, const VecD<N>& b, F f, VecD<2 * N>& grad, Mat<2 * N, 2 * N>& hess) {
  constexpr int m = 2 * N;
  auto aj = std::make_unique<Vec<Jet2<m>, N>>(), bj = std::make_unique<Vec<Jet2<m>, N>>();
  for (int i = 0; i < N; ++i) {
    (*aj)[i] = Jet2<m>(Jet<m>(a[i], i), i);
    (*bj)[i] = Jet2<m>(Jet<m>(b[i], N + i), N + i);
  }
  const Jet2<m> l = f(*aj, *bj);
  for (int i = 0; i < m; ++i) {
    grad[i] = l.v[i].a;
    hess.row(i) = l.v[i].v.transpose();
  }
  return l.a.a;
}

/// L, its gradient and its Hessian over (q, v) by AD of PendulumChain<N>::lagrangian.
template <int N>
double lagrangian_by_ad(const systems::PendulumChain<N>& model, const VecD<N>& q, const VecD<N>& v, VecD<2 * N>& grad,
                        Mat<2 * N, 2 * N>& hess) {
  return value_gradient_hessian<N>(
      q, v, [&](const auto& qj, const auto& vj) { return model.lagrangian(qj, vj); }, grad, hess);
}

/// Ld of a rule (Ld includes h, the earlier point first: kernel/discrete_rules.hpp) on any scalar.
template <int N, class T>
T discrete_lagrangian(const systems::PendulumChain<N>& model, kernel::Rule rule, double h, const Vec<T, N>& q0,
                      const Vec<T, N>& q1) {
  Vec<T, N> mid, v;
  for (int i = 0; i < N; ++i) {
    mid[i] = 0.5 * (q0[i] + q1[i]);
    v[i] = (q1[i] - q0[i]) / h;
  }
  switch (rule) {
    case kernel::Rule::kMidpoint:
      return h * model.lagrangian(mid, v);
    case kernel::Rule::kTrapezoid:
      return 0.5 * h * (model.lagrangian(q0, v) + model.lagrangian(q1, v));
    case kernel::Rule::kFirstOrder:
      break;
  }
  return h * model.lagrangian(q1, v);
}

/// The gradient (D1 Ld, D2 Ld) and Hessian of a rule's Ld over (q0, q1) by AD.
template <int N>
void discrete_derivatives_by_ad(const systems::PendulumChain<N>& model, kernel::Rule rule, double h, const VecD<N>& q0,
                                const VecD<N>& q1, VecD<2 * N>& grad, Mat<2 * N, 2 * N>& hess) {
  value_gradient_hessian<N>(
      q0, q1,
      [&](const auto& a, const auto& b) {
        using T = typename std::decay_t<decltype(a)>::Scalar;
        return discrete_lagrangian<N, T>(model, rule, h, a, b);
      },
      grad, hess);
}

/// The chain with every derivative of L by AD, as a kernel table (model_kernels.h): the kernel
/// engine composes its discrete derivatives from these as from the hand-derived ones.
template <int N>
int ad_lagrangian_kernel(const void* context, const double* q, const double* v, double* value, double* l_q,
                         double* l_v, double* l_qq, double* l_qv, double* l_vv) {
  const auto& model = *static_cast<const systems::PendulumChain<N>*>(context);
  VecD<2 * N> grad;
  Mat<2 * N, 2 * N> hess;
  const double l = lagrangian_by_ad<N>(model, Eigen::Map<const VecD<N>>(q), Eigen::Map<const VecD<N>>(v), grad, hess);
  using RowMap = Eigen::Map<Eigen::Matrix<double, N, N, Eigen::RowMajor>>;
  if (value) *value = l;
  if (l_q) Eigen::Map<VecD<N>>{l_q} = grad.template head<N>();
  if (l_v) Eigen::Map<VecD<N>>{l_v} = grad.template tail<N>();
  if (l_qq) RowMap{l_qq} = hess.template topLeftCorner<N, N>();
  if (l_qv) RowMap{l_qv} = hess.template topRightCorner<N, N>();
  if (l_vv) RowMap{l_vv} = hess.template bottomRightCorner<N, N>();
  return MECHINT_KERNEL_OK;
}

template <int N>
kernel::KernelModel ad_chain_model(const systems::PendulumChain<N>& chain) {
  const auto owner = std::make_shared<const systems::PendulumChain<N>>(chain);
  mechint_model_kernels table{};
  table.abi_version = MECHINT_KERNEL_ABI_VERSION;
  table.struct_size = sizeof table;
  table.dim = N;
  table.context = owner.get();
  table.lagrangian = &ad_lagrangian_kernel<N>;
  return kernel::KernelModel(table, owner);
}

}  // namespace mechint::vi_test
