#include "kernel/kernel_dmoc.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "kernel/kernel_legendre.hpp"
#include "mechint/core/errors.hpp"

namespace mechint::kernel {

namespace {

/// `model`, when DMOC applies to it; throws std::invalid_argument otherwise.
const KernelModel& applicable(const KernelModel& model) {
  if (model.num_controls() < 1 || !model.forced()) throw std::invalid_argument("DMOC needs a model with control inputs");
  if (model.num_constraints() > 0)
    throw std::invalid_argument("DMOC of models with holonomic constraints is not implemented");
  if (!model.supplies_optimal_control_kernels())
    throw std::invalid_argument("the model's kernels do not supply the third derivatives optimal control needs");
  return model;
}

}  // namespace

KernelDmocTranscription::KernelDmocTranscription(const KernelModel& model, Rule rule, optimal::DmocProblem problem)
    : model_(&applicable(model)),
      rule_(rule),
      problem_(std::move(problem)),
      layout_(problem_, model.dim(), model.num_controls()),
      n_(model.dim()),
      m_(model.num_controls()),
      K_(2 * n_ + m_),
      h_(problem_.step()),
      ws_(n_, m_) {
  switch (rule_) {
    case Rule::kMidpoint: points_ = {{0.5, 0.5, 1.0, 0.5, 0.5, 0.5}}; break;
    case Rule::kTrapezoid: points_ = {{1.0, 0.0, 0.5, 0.0, 0.5, 0.0}, {0.0, 1.0, 0.5, 1.0, 0.0, 0.5}}; break;
    case Rule::kFirstOrder: points_ = {{0.0, 1.0, 1.0, 1.0, 0.0, 1.0}}; break;
  }
  for (const Point& p : points_) maps_.push_back(point_map(p));
  p_start_.resize(n_);
  if (!model.gradient(problem_.q_start, problem_.v_start, nullptr, nullptr, &p_start_) || !p_start_.allFinite())
    throw std::invalid_argument("the model is not defined at the start");
  guess_ = layout_.interpolation_guess(problem_);
}

void KernelDmocTranscription::set_initial_guess(const std::vector<Vector>& q, const std::vector<Vector>& u,
                                                const Vector& v_end) {
  if (static_cast<int>(q.size()) != problem_.steps + 1 || static_cast<int>(u.size()) != problem_.steps)
    throw std::invalid_argument("initial guess: expected N+1 configurations and N controls");
  for (int k = 0; k <= problem_.steps; ++k) guess_.segment(q_index(k), n_) = q[k];
  for (int k = 0; k < problem_.steps; ++k) guess_.segment(u_index(k), m_) = u[k];
  guess_.segment(v_end_index(), n_) = v_end;
}

double KernelDmocTranscription::objective(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  double j = 0.0;
  for (int k = 0; k < problem_.steps; ++k) j += x.segment(u_index(k), m_).squaredNorm();
  return h_ * problem_.effort * j;
}

void KernelDmocTranscription::objective_gradient(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                 Eigen::Ref<Eigen::VectorXd> g) const {
  g.setZero();
  for (int k = 0; k < problem_.steps; ++k)
    g.segment(u_index(k), m_) = (2.0 * h_ * problem_.effort) * x.segment(u_index(k), m_);
}

void KernelDmocTranscription::point_of(const Point& p, const Vector& q0, const Vector& q1, Vector& q, Vector& v) const {
  q = p.a * q0 + p.b * q1;
  v = (q1 - q0) / h_;
}

Eigen::MatrixXd KernelDmocTranscription::point_map(const Point& p) const {
  const int n = n_;
  Eigen::MatrixXd map = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  for (int i = 0; i < n; ++i) {
    map(i, i) = p.a;
    map(i, n + i) = p.b;
    map(n + i, i) = -1.0 / h_;
    map(n + i, n + i) = 1.0 / h_;
  }
  return map;
}

void KernelDmocTranscription::outside_domain(int node) const {
  throw DomainError("the model is not defined on the way (at node " + std::to_string(node) + ")");
}

KernelDmocTranscription::Workspace::Workspace(int n, int m)
    : q0(n), q1(n), u(m), q(n), v(n), f(n), lambda_a(n), lambda_b(n), mu(n), zero(Vector::Zero(n)), gradient(2 * n),
      ld_gradient(2 * n), w(2 * n), direction(2 * n), dq(n), dv(n), l(n), f_q(n, n), f_v(n, n), f_u(n, m),
      third(2 * n, 2 * n), forces(2 * n + m, 2 * n + m), hessian(2 * n, 2 * n), product(2 * n, 2 * n),
      ld_hessian(2 * n, 2 * n), force_z(n, 2 * n), force_y(n, 2 * n), to_point(Eigen::MatrixXd::Zero(2 * n + m, 2 * n + m)),
      product_k(2 * n + m, 2 * n + m), da(n, 2 * n + m), db(n, 2 * n + m), hk(2 * n + m, 2 * n + m),
      a(n), b(n) {
  to_point.bottomRightCorner(m, m).setIdentity();
}

void KernelDmocTranscription::load_step(const Eigen::Ref<const Eigen::VectorXd>& x, int k) const {
  ws_.q0 = x.segment(q_index(k), n_);
  ws_.q1 = x.segment(q_index(k + 1), n_);
  ws_.u = x.segment(u_index(k), m_);
}

void KernelDmocTranscription::step_residuals(const Eigen::Ref<const Eigen::VectorXd>& x, int k, bool jacobians) const {
  Workspace& ws = ws_;
  const int n = n_, m = m_;
  load_step(x, k);
  ws.a.setZero();
  ws.b.setZero();
  if (jacobians) {
    ws.da.setZero();
    ws.db.setZero();
  }
  for (std::size_t j = 0; j < points_.size(); ++j) {
    const Point& p = points_[j];
    const Eigen::MatrixXd& map = maps_[j];
    point_of(p, ws.q0, ws.q1, ws.q, ws.v);
    const double t = (k + p.tau) * h_;
    // Ld's gradient: h w Pᵀ ∇L(z); its Hessian h w Pᵀ ∇²L(z) P.
    const bool defined = jacobians ? model_->lagrangian(ws.q, ws.v, ws.l) : model_->gradient(ws.q, ws.v, nullptr, &ws.l.q, &ws.l.v);
    if (!defined) outside_domain(k);
    ws.gradient << ws.l.q, ws.l.v;
    ws.ld_gradient.noalias() = map.transpose() * ws.gradient;
    ws.a += (h_ * p.weight) * ws.ld_gradient.head(n);
    ws.b += (h_ * p.weight) * ws.ld_gradient.tail(n);
    if (!model_->forces(ws.q, ws.v, ws.u, t, ws.f, jacobians ? &ws.f_q : nullptr, jacobians ? &ws.f_v : nullptr))
      outside_domain(k);
    ws.a += (h_ * p.alpha) * ws.f;
    ws.b += (h_ * p.beta) * ws.f;
    if (!jacobians) continue;
    ws.hessian << ws.l.qq, ws.l.qv, ws.l.qv.transpose(), ws.l.vv;
    ws.product.noalias() = ws.hessian * map;
    ws.ld_hessian.noalias() = map.transpose() * ws.product;
    ws.da.leftCols(2 * n) += (h_ * p.weight) * ws.ld_hessian.topRows(n);
    ws.db.leftCols(2 * n) += (h_ * p.weight) * ws.ld_hessian.bottomRows(n);
    if (!model_->forces_second(ws.q, ws.v, ws.u, t, nullptr, &ws.f_u, nullptr)) outside_domain(k);
    ws.force_z << ws.f_q, ws.f_v;
    ws.force_y.noalias() = ws.force_z * map;
    ws.da.leftCols(2 * n) += (h_ * p.alpha) * ws.force_y;
    ws.db.leftCols(2 * n) += (h_ * p.beta) * ws.force_y;
    ws.da.rightCols(m) += (h_ * p.alpha) * ws.f_u;
    ws.db.rightCols(m) += (h_ * p.beta) * ws.f_u;
  }
}

void KernelDmocTranscription::step_hessian(const Eigen::Ref<const Eigen::VectorXd>& x, int k,
                                           const Eigen::Ref<const Eigen::VectorXd>& lambda_a,
                                           const Eigen::Ref<const Eigen::VectorXd>& lambda_b) const {
  Workspace& ws = ws_;
  const int n = n_;
  load_step(x, k);
  ws.w << lambda_a, lambda_b;
  ws.hk.setZero();
  for (std::size_t j = 0; j < points_.size(); ++j) {
    const Point& p = points_[j];
    const Eigen::MatrixXd& map = maps_[j];
    point_of(p, ws.q0, ws.q1, ws.q, ws.v);
    const double t = (k + p.tau) * h_;
    ws.direction.noalias() = map * ws.w;
    ws.dq = ws.direction.head(n);
    ws.dv = ws.direction.tail(n);
    if (!model_->lagrangian_third(ws.q, ws.v, ws.dq, ws.dv, ws.third)) outside_domain(k);
    ws.product.noalias() = ws.third * map;
    ws.ld_hessian.noalias() = map.transpose() * ws.product;
    ws.hk.topLeftCorner(2 * n, 2 * n) += (h_ * p.weight) * ws.ld_hessian;
    ws.mu = h_ * (p.alpha * lambda_a + p.beta * lambda_b);
    if (!model_->forces_second(ws.q, ws.v, ws.u, t, &ws.mu, nullptr, &ws.forces)) outside_domain(k);
    ws.to_point.topLeftCorner(2 * n, 2 * n) = map;
    ws.product_k.noalias() = ws.forces * ws.to_point;
    ws.hk.noalias() += ws.to_point.transpose() * ws.product_k;
  }
}

void KernelDmocTranscription::load_end(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  ws_.q = x.segment(q_index(problem_.steps), n_);
  ws_.v = x.segment(v_end_index(), n_);
}

void KernelDmocTranscription::constraints(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> c) const {
  const int N = problem_.steps, n = n_;
  c.segment(0, n) = p_start_;
  for (int k = 1; k <= N; ++k) c.segment(k * n, n).setZero();
  for (int k = 0; k < N; ++k) {
    step_residuals(x, k, /*jacobians=*/false);
    c.segment(k * n, n) += ws_.a;
    c.segment((k + 1) * n, n) += ws_.b;
  }
  load_end(x);
  if (!model_->gradient(ws_.q, ws_.v, nullptr, nullptr, &ws_.l.v)) outside_domain(N);
  c.segment(N * n, n) -= ws_.l.v;
}

void KernelDmocTranscription::constraint_jacobian(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                  Eigen::Ref<Eigen::VectorXd> values) const {
  values.setZero();
  const int N = problem_.steps, n = n_;
  const RowMatrix& da = ws_.da;
  const RowMatrix& db = ws_.db;
  for (int k = 0; k < N; ++k) {
    step_residuals(x, k, /*jacobians=*/true);
    layout_.add_step_jacobian(k, da, db, values);
  }
  // c_N's last term: −∂L/∂q̇(q_N, v_N), differentiated in (q_N, v_N): −[L_qvᵀ, L_vv].
  load_end(x);
  LagrangianValues& l = ws_.l;
  if (!model_->lagrangian(ws_.q, ws_.v, l)) outside_domain(N);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      values[layout_.end_jacobian_slots()[i * 2 * n + j]] -= l.qv(j, i);
      values[layout_.end_jacobian_slots()[i * 2 * n + n + j]] -= l.vv(i, j);
    }
}

void KernelDmocTranscription::lagrangian_hessian(const Eigen::Ref<const Eigen::VectorXd>& x, double sigma,
                                                 const Eigen::Ref<const Eigen::VectorXd>& lambda,
                                                 Eigen::Ref<Eigen::VectorXd> values) const {
  values.setZero();
  const int N = problem_.steps, n = n_;
  RowMatrix& hk = ws_.hk;
  for (int k = 0; k < N; ++k) {
    step_hessian(x, k, lambda.segment(k * n, n), lambda.segment((k + 1) * n, n));
    for (int i = 0; i < m_; ++i) hk(2 * n + i, 2 * n + i) += 2.0 * sigma * h_ * problem_.effort;
    layout_.add_step_hessian(k, hk, values);
  }
  // −λ_N·∂L/∂q̇(q_N, v_N): minus the Hessian of L's derivative along (0, λ_N).
  load_end(x);
  ws_.dv = lambda.segment(N * n, n);
  RowMatrix& he = ws_.third;
  if (!model_->lagrangian_third(ws_.q, ws_.v, ws_.zero, ws_.dv, he)) outside_domain(N);
  layout_.subtract_end_hessian(he, values);
}

std::vector<Vector> KernelDmocTranscription::momenta(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const int N = problem_.steps;
  std::vector<Vector> p(static_cast<std::size_t>(N) + 1);
  for (int k = 0; k < N; ++k) {
    step_residuals(x, k, /*jacobians=*/false);
    p[static_cast<std::size_t>(k)] = -ws_.a;
    if (k + 1 == N) p[static_cast<std::size_t>(N)] = ws_.b;
  }
  return p;
}

std::vector<double> KernelDmocTranscription::energies(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const std::vector<Vector> p = momenta(x);
  const int N = problem_.steps;
  std::vector<double> e(p.size());
  for (int k = 0; k <= N; ++k) {
    const Vector q = x.segment(q_index(k), n_);
    // The Newton of the inverse Legendre transform starts from the node's difference quotient.
    const Vector guess = k < N ? Vector((x.segment(q_index(k + 1), n_) - q) / h_) : Vector(x.segment(v_end_index(), n_));
    const Vector v = tangent_velocity(*model_, q, p[static_cast<std::size_t>(k)], guess);
    e[static_cast<std::size_t>(k)] = kernel_energy(*model_, q, v);
  }
  return e;
}

}  // namespace mechint::kernel
