#include "kernel/kernel_hamiltonian.hpp"

#include <limits>

#include <Eigen/LU>

namespace mechint::kernel {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// R = ∂L/∂v(q, v) − p, J = L_vv (model/legendre.hpp's `velocity_and_derivatives_from_momentum`), in
/// the solver's storage: of size N on the fast path of short models, runtime-sized otherwise.
template <int N>
struct Legendre {
  using V = Eigen::Matrix<double, N, 1>;
  const KernelModel& model;
  const Vector& q;
  const Vector& p;
  LagrangianValues& l;
  Vector& v;
  double scale;
  bool l_at_v = false;  // l.v and l.vv are at the current v
  template <class Residual, class Jacobian>
  void assemble(Residual& r, Jacobian* j) {
    // L_v and L_vv alone: a jet over v with q held (a quarter of the whole Hessian's entries).
    l_at_v = model.velocity_derivatives(q, v, l.v, l.vv);
    if (!l_at_v) {
      r.setConstant(kNaN);
      return;
    }
    const int n = static_cast<int>(v.size());
    r = Eigen::Map<const V>(l.v.data(), n) - Eigen::Map<const V>(p.data(), n);
    if (j) *j = Eigen::Map<const Eigen::Matrix<double, N, N, Eigen::RowMajor>>(l.vv.data(), n, n);
  }
  template <class Delta>
  double update(const Delta& delta) {
    Eigen::Map<V>(v.data(), v.size()) -= delta;
    l_at_v = false;
    return delta.template lpNorm<Eigen::Infinity>();
  }
  bool converged_on_residual(const NewtonIterate& state) const { return state.residual_norm <= scale; }
  bool converged_on_update(const NewtonIterate& state) const {
    return update_below(state, 1e-12, v.lpNorm<Eigen::Infinity>());
  }
};

}  // namespace

KernelHamiltonian::KernelHamiltonian(const KernelModel& model)
    : model_(&model), n_(model.dim()), l_(model.dim()), lu_(model.dim()), newton_(sized_newton(model.dim())) {
  if (model.num_constraints() != 0) throw std::logic_error("the Hamiltonian on kernels is for unconstrained models");
  for (Vector* x : {&v_, &hq_, &zero_, &column_, &unit_, &a_, &work_, &solved_q_, &solved_p_, &offset_}) x->setZero(n_);
  for (RowMatrix* x : {&hpp_, &hqp_, &hqq_, &qv_hpp_}) x->setZero(n_, n_);
  vv_.setZero(n_, n_);
}

void KernelHamiltonian::set_separable(std::optional<SeparableKinetics> kinetics) {
  separable_ = std::move(kinetics);
  solved_from_zero_ = false;
}

void KernelHamiltonian::separable_velocity(const Vector& p) {
  at_short_size(n_, [&]<int N>() {
    using V = Eigen::Matrix<double, N, 1>;
    Eigen::Map<V> offset(offset_.data(), n_);
    offset = Eigen::Map<const V>(p.data(), n_) - Eigen::Map<const V>(separable_->linear.data(), n_);
    Eigen::Map<V>(v_.data(), n_).noalias() =
        Eigen::Map<const Eigen::Matrix<double, N, N, Eigen::RowMajor>>(separable_->mass_inverse.data(), n_, n_) * offset;
  });
}

bool KernelHamiltonian::velocity(const Vector& q, const Vector& p, const Vector& guess) {
  // A row asks for H and then H̃ at the same (q, p), both from v = 0: the second solve is the first's.
  const bool from_zero = &guess == &zero_;
  if (from_zero && solved_from_zero_ && q == solved_q_ && p == solved_p_) return true;
  solved_from_zero_ = false;
  bool converged = true;
  if (separable_) {
    separable_velocity(p);
    l_.v = p;
    l_.vv = separable_->mass;
  } else {
    v_ = guess;
    const double scale = 1e-14 * (1.0 + p.lpNorm<Eigen::Infinity>());
    converged = std::visit(
        [&]<int N>(NewtonSolver<N>& newton) {
          Legendre<N> problem{*model_, q, p, l_, v_, scale};
          return newton.solve(problem, {.max_iterations = 30}).converged;
        },
        newton_);
  }
  if (!converged) {
    value_ = kNaN;
    return false;
  }
  // L's value at the solution, alone (H = p·v − L).
  if (!model_->gradient(q, v_, &l_.value, nullptr, nullptr)) {
    value_ = kNaN;
    return false;
  }
  value_ = p.dot(v_) - l_.value;
  if (!std::isfinite(value_)) return false;
  if (from_zero) {
    solved_q_ = q;
    solved_p_ = p;
    solved_from_zero_ = true;
  }
  return true;
}

bool KernelHamiltonian::second_derivatives_at_velocity(const Vector& q) {
  const double value = l_.value;
  if (!model_->lagrangian(q, v_, l_)) return false;
  l_.value = value;
  return true;
}

bool KernelHamiltonian::blocks(const Vector& q, const Vector& p, const Vector& guess) {
  if (!separable_) return velocity(q, p, guess) && second_derivatives_at_velocity(q);
  // One evaluation of every block and the value at v = M⁻¹(p − b).
  solved_from_zero_ = false;
  separable_velocity(p);
  if (!model_->lagrangian(q, v_, l_, /*with_value=*/true)) {
    value_ = kNaN;
    return false;
  }
  value_ = p.dot(v_) - l_.value;
  return std::isfinite(value_);
}

bool KernelHamiltonian::derivatives(const Vector& q, const Vector& p, const Vector& guess) {
  if (!blocks(q, p, guess)) return false;
  // At fixed size for 1–4 coordinates (kernel/sized_newton.hpp's cut): for the double pendulum the
  // runtime-sized LU, column solves and products were a fifth of a stormer-verlet run.
  return at_short_size(n_, [&]<int N>() {
    using M = Eigen::Matrix<double, N, N, Eigen::RowMajor>;
    Eigen::Map<M> hpp(hpp_.data(), n_, n_), hqp(hqp_.data(), n_, n_), hqq(hqq_.data(), n_, n_),
        qv_hpp(qv_hpp_.data(), n_, n_);
    const Eigen::Map<const M> l_qv(l_.qv.data(), n_, n_), l_qq(l_.qq.data(), n_, n_);
    if (separable_) {
      hpp = Eigen::Map<const M>(separable_->mass_inverse.data(), n_, n_);
    } else {
      // H_pp = L_vv⁻¹, column by column (the LU Eigen's at every size: runtime_lu.hpp), made exactly
      // symmetric as model/hamiltonian.hpp does.
      if constexpr (N == Eigen::Dynamic) {
        vv_ = l_.vv;
        lu_.compute(vv_);
        for (int j = 0; j < n_; ++j) {
          unit_.setZero();
          unit_[j] = 1.0;
          lu_.solve(unit_, column_);
          hpp_.col(j) = column_;
        }
      } else {
        const Eigen::PartialPivLU<Eigen::Matrix<double, N, N>> lu(Eigen::Matrix<double, N, N>(Eigen::Map<const M>(l_.vv.data())));
        for (int j = 0; j < N; ++j) hpp.col(j) = lu.solve(Eigen::Matrix<double, N, 1>::Unit(j));
      }
      for (int i = 0; i < n_; ++i)
        for (int j = i + 1; j < n_; ++j) hpp(i, j) = hpp(j, i) = 0.5 * (hpp(i, j) + hpp(j, i));
    }
    Eigen::Map<Eigen::Matrix<double, N, 1>>(hq_.data(), n_) = -Eigen::Map<const Eigen::Matrix<double, N, 1>>(l_.q.data(), n_);
    qv_hpp.noalias() = l_qv * hpp;
    hqp = -qv_hpp;
    hqq = -l_qq;
    hqq.noalias() += qv_hpp * l_qv.transpose();
    return hpp.allFinite() && hqq.allFinite();
  });
}

double KernelHamiltonian::value(const Vector& q, const Vector& p) {
  return velocity(q, p, zero_) ? value_ : kNaN;
}

double KernelHamiltonian::modified(ModifiedHamiltonianKind kind, const Vector& q, const Vector& p, double h) {
  if (kind == ModifiedHamiltonianKind::kStormerVerlet) {
    // H + h²/24 (2 H_qq(H_p, H_p) + 2 H_qp(H_p, H_q) − H_pp(H_q, H_q)), 004 §III-A.
    if (!derivatives(q, p, zero_)) return kNaN;
    work_.noalias() = hqq_ * v_;
    double correction = 2.0 * v_.dot(work_);
    work_.noalias() = hqp_ * hq_;
    correction += 2.0 * v_.dot(work_);
    work_.noalias() = hpp_ * hq_;
    correction -= hq_.dot(work_);
    return value_ + h * h / 24.0 * correction;
  }
  // H − h² B, B = L_qq(v, v)/12 + L_q·a/12 − L_qv(v, a)/12 − L_vv(a, a)/24, a the Euler–Lagrange
  // acceleration L_vv⁻¹(L_q − L_qvᵀ v) (analysis/modified_hamiltonian.hpp).
  if (!blocks(q, p, zero_)) return kNaN;
  return at_short_size(n_, [&]<int N>() {
    using V = Eigen::Matrix<double, N, 1>;
    using M = Eigen::Matrix<double, N, N, Eigen::RowMajor>;
    const Eigen::Map<const V> v(v_.data(), n_), l_q(l_.q.data(), n_);
    const Eigen::Map<const M> l_qq(l_.qq.data(), n_, n_), l_qv(l_.qv.data(), n_, n_), l_vv(l_.vv.data(), n_, n_);
    Eigen::Map<V> column(column_.data(), n_), a(a_.data(), n_), work(work_.data(), n_);
    column = l_q;
    column.noalias() -= l_qv.transpose() * v;
    if (separable_) {
      a.noalias() = Eigen::Map<const M>(separable_->mass_inverse.data(), n_, n_) * column;
    } else {
      vv_ = l_.vv;
      lu_.compute(vv_);
      lu_.solve(column_, a_);
    }
    // The products into the workspace, not inside dot(): there Eigen may evaluate a runtime-sized one
    // into a temporary of its own.
    work.noalias() = l_qq * v;
    double b = v.dot(work) / 12.0 + l_q.dot(a) / 12.0;
    work.noalias() = l_qv * a;
    b -= v.dot(work) / 12.0;
    work.noalias() = l_vv * a;
    b -= a.dot(work) / 24.0;
    return value_ - h * h * b;
  });
}

}  // namespace mechint::kernel
