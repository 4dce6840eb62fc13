#include "kernel/discrete_rules.hpp"

#include <stdexcept>
#include <string>

namespace mechint::kernel {

namespace {

/// out_ij = f(ij, ji) over a row-major n x n matrix, ij = i·n + j and ji = j·n + i: the D12 Ld sums
/// of L's Hessian blocks and their transposes, written as one loop over plain arrays (as Eigen's
/// expression would evaluate them entry by entry, the same arithmetic in the same order) — the
/// expression over runtime-sized, transposed operands cost a short chain's step more than its sums.
template <int N, class Entry>
void fill_entries(RowMatrix& out, Eigen::Index runtime_n, Entry entry) {
  const Eigen::Index n = N == Eigen::Dynamic ? runtime_n : N;
  out.resize(n, n);  // sized once by the caller: no allocation
  double* const d = out.data();
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) d[i * n + j] = entry(i * n + j, j * n + i);
}

}  // namespace

DiscreteRule::DiscreteRule(const KernelModel& model, Rule rule)
    : model_(&model), rule_(rule), a_(model.dim()), b_(model.dim()), point_(model.dim()), velocity_(model.dim()),
      force_(model.dim()), gradient_a_(model.dim()), gradient_b_(model.dim()), momentum_a_(model.dim()),
      momentum_b_(model.dim()), force_q_(model.dim(), model.dim()), force_v_(model.dim(), model.dim()),
      code_(rule_code(rule)), supplied_(model.supplies_discrete_rule(code_)),
      steps_itself_(model.supplies_discrete_step(code_)) {}

int DiscreteRule::rule_code(Rule rule) {
  switch (rule) {
    case Rule::kMidpoint: return MECHINT_RULE_MIDPOINT;
    case Rule::kTrapezoid: return MECHINT_RULE_TRAPEZOID;
    case Rule::kFirstOrder: return MECHINT_RULE_FIRST_ORDER;
  }
  return -1;
}

/// One body for every size: `N` is the dimension as a compile-time constant (the short models' fast
/// path, kernel_variational_integrator.hpp) or Eigen::Dynamic; the vectors are seen through maps of
/// that size, so the arithmetic and its order are the same either way.
template <int N>
bool DiscreteRule::composed_d1(const Vector& q0, const Vector& q1, double h, Vector& d1, RowMatrix* d12) {
  using V = Eigen::Matrix<double, N, 1>;
  using ConstMap = Eigen::Map<const V>;
  const Eigen::Index n = model_->dim();
  const ConstMap x0(q0.data(), n), x1(q1.data(), n);
  Eigen::Map<V> velocity(velocity_.data(), n), out(d1.data(), n);
  velocity = (x1 - x0) / h;
  switch (rule_) {
    case Rule::kMidpoint:
      Eigen::Map<V>(point_.data(), n) = 0.5 * (x0 + x1);
      if (d12) {
        if (!model_->lagrangian(point_, velocity_, a_)) return false;
        // D1 = h/2 L_q − L_v, D12 = h/4 L_qq + ½ L_qv − ½ L_qvᵀ − L_vv / h.
        out = 0.5 * h * ConstMap(a_.q.data(), n) - ConstMap(a_.v.data(), n);
        const double* qq = a_.qq.data();
        const double* qv = a_.qv.data();
        const double* vv = a_.vv.data();
        const double c = 0.25 * h;
        fill_entries<N>(*d12, n, [&](Eigen::Index ij, Eigen::Index ji) { return c * qq[ij] + 0.5 * qv[ij] - 0.5 * qv[ji] - vv[ij] / h; });
        return true;
      }
      if (!model_->gradient(point_, velocity_, nullptr, &gradient_a_, &momentum_a_)) return false;
      out = 0.5 * h * ConstMap(gradient_a_.data(), n) - ConstMap(momentum_a_.data(), n);
      return true;
    case Rule::kTrapezoid:
      if (d12) {
        if (!model_->lagrangian(q0, velocity_, a_) || !model_->lagrangian(q1, velocity_, b_)) return false;
        // D1 = h/2 L_q(a) − ½ (L_v(a) + L_v(b)), D12 = ½ L_qv(a) − ½ L_qv(b)ᵀ − (L_vv(a) + L_vv(b)) / 2h.
        out = 0.5 * h * ConstMap(a_.q.data(), n) - 0.5 * (ConstMap(a_.v.data(), n) + ConstMap(b_.v.data(), n));
        const double* qv_a = a_.qv.data();
        const double* qv_b = b_.qv.data();
        const double* vv_a = a_.vv.data();
        const double* vv_b = b_.vv.data();
        const double two_h = 2.0 * h;
        fill_entries<N>(*d12, n, [&](Eigen::Index ij, Eigen::Index ji) {
          return 0.5 * qv_a[ij] - 0.5 * qv_b[ji] - (vv_a[ij] + vv_b[ij]) / two_h;
        });
        return true;
      }
      if (!model_->gradient(q0, velocity_, nullptr, &gradient_a_, &momentum_a_) ||
          !model_->gradient(q1, velocity_, nullptr, nullptr, &momentum_b_))
        return false;
      out = 0.5 * h * ConstMap(gradient_a_.data(), n) -
            0.5 * (ConstMap(momentum_a_.data(), n) + ConstMap(momentum_b_.data(), n));
      return true;
    case Rule::kFirstOrder:
      if (d12) {
        if (!model_->lagrangian(q1, velocity_, b_)) return false;
        // D1 = −L_v, D12 = −L_qvᵀ − L_vv / h.
        out = -ConstMap(b_.v.data(), n);
        const double* qv = b_.qv.data();
        const double* vv = b_.vv.data();
        fill_entries<N>(*d12, n, [&](Eigen::Index ij, Eigen::Index ji) { return -qv[ji] - vv[ij] / h; });
        return true;
      }
      if (!model_->gradient(q1, velocity_, nullptr, nullptr, &momentum_b_)) return false;
      out = -ConstMap(momentum_b_.data(), n);
      return true;
  }
  return false;
}

template <int N>
bool DiscreteRule::composed_d2(const Vector& q0, const Vector& q1, double h, Vector& d2) {
  using V = Eigen::Matrix<double, N, 1>;
  using ConstMap = Eigen::Map<const V>;
  const Eigen::Index n = model_->dim();
  const ConstMap x0(q0.data(), n), x1(q1.data(), n);
  const ConstMap l_q_a(gradient_a_.data(), n), l_q_b(gradient_b_.data(), n), l_v_a(momentum_a_.data(), n),
      l_v_b(momentum_b_.data(), n);
  Eigen::Map<V> out(d2.data(), n);
  Eigen::Map<V>(velocity_.data(), n) = (x1 - x0) / h;
  switch (rule_) {
    case Rule::kMidpoint:  // D2 = h/2 L_q + L_v
      Eigen::Map<V>(point_.data(), n) = 0.5 * (x0 + x1);
      if (!model_->gradient(point_, velocity_, nullptr, &gradient_a_, &momentum_a_)) return false;
      out = 0.5 * h * l_q_a + l_v_a;
      return true;
    case Rule::kTrapezoid:  // D2 = h/2 L_q(b) + ½ (L_v(a) + L_v(b))
      if (!model_->gradient(q0, velocity_, nullptr, nullptr, &momentum_a_) ||
          !model_->gradient(q1, velocity_, nullptr, &gradient_b_, &momentum_b_))
        return false;
      out = 0.5 * h * l_q_b + 0.5 * (l_v_a + l_v_b);
      return true;
    case Rule::kFirstOrder:  // D2 = h L_q + L_v
      if (!model_->gradient(q1, velocity_, nullptr, &gradient_b_, &momentum_b_)) return false;
      out = h * l_q_b + l_v_b;
      return true;
  }
  return false;
}

template <int N>
bool DiscreteRule::composed_forces(const Vector& q0, const Vector& q1, const Vector& u, double t0, double h,
                                   Vector& f_minus, Vector& f_plus, RowMatrix* df_minus) {
  using V = Eigen::Matrix<double, N, 1>;
  using M = Eigen::Matrix<double, N, N, Eigen::RowMajor>;
  using ConstMap = Eigen::Map<const V>;
  const Eigen::Index n = model_->dim();
  const ConstMap x0(q0.data(), n), x1(q1.data(), n), force(force_.data(), n);
  Eigen::Map<V> minus(f_minus.data(), n), plus(f_plus.data(), n);
  const auto jacobian = [&](const RowMatrix& a) { return Eigen::Map<const M>(a.data(), n, n); };
  Eigen::Map<V>(velocity_.data(), n) = (x1 - x0) / h;
  RowMatrix* f_q = df_minus ? &force_q_ : nullptr;
  RowMatrix* f_v = df_minus ? &force_v_ : nullptr;
  switch (rule_) {
    case Rule::kMidpoint:
      // f⁻ = f⁺ = h/2 f(q_{k+½}, v, u, t0 + h/2); ∂f⁻/∂q1 = h/2 (f_q / 2 + f_v / h).
      Eigen::Map<V>(point_.data(), n) = 0.5 * (x0 + x1);
      if (!model_->forces(point_, velocity_, u, t0 + 0.5 * h, force_, f_q, f_v)) return false;
      minus = 0.5 * h * force;
      plus = minus;
      if (df_minus) Eigen::Map<M>(df_minus->data(), n, n).noalias() = 0.25 * h * jacobian(force_q_) + 0.5 * jacobian(force_v_);
      return true;
    case Rule::kTrapezoid:
      // f⁻ = h/2 f(q0, v, u, t0), f⁺ = h/2 f(q1, v, u, t0 + h); ∂f⁻/∂q1 = ½ f_v(q0, v).
      // f_q(q0) does not enter: a jet over v alone.
      if (!model_->forces(q0, velocity_, u, t0, force_, nullptr, f_v)) return false;
      minus = 0.5 * h * force;
      if (df_minus) Eigen::Map<M>(df_minus->data(), n, n).noalias() = 0.5 * jacobian(force_v_);
      if (!model_->forces(q1, velocity_, u, t0 + h, force_, nullptr, nullptr)) return false;
      plus = 0.5 * h * force;
      return true;
    case Rule::kFirstOrder:
      // f⁻ = 0, f⁺ = h f(q1, v, u, t0 + h).
      minus.setZero();
      if (df_minus) df_minus->setZero();
      if (!model_->forces(q1, velocity_, u, t0 + h, force_, nullptr, nullptr)) return false;
      plus = h * force;
      return true;
  }
  return false;
}

MECHINT_DISCRETE_RULE_SIZED(, Eigen::Dynamic)
MECHINT_DISCRETE_RULE_SIZED(, 1)
MECHINT_DISCRETE_RULE_SIZED(, 2)
MECHINT_DISCRETE_RULE_SIZED(, 3)
MECHINT_DISCRETE_RULE_SIZED(, 4)

}  // namespace mechint::kernel
