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

/// ℓ_c(τ) and ℓ'_c(τ) of the Lagrange basis over `nodes`.
void lagrange_basis(const std::vector<double>& nodes, double tau, std::vector<double>& value, std::vector<double>& slope) {
  const std::size_t count = nodes.size();
  value.assign(count, 0.0);
  slope.assign(count, 0.0);
  for (std::size_t c = 0; c < count; ++c) {
    double product = 1.0;
    for (std::size_t d = 0; d < count; ++d)
      if (d != c) product *= (tau - nodes[d]) / (nodes[c] - nodes[d]);
    value[c] = product;
    for (std::size_t e = 0; e < count; ++e) {
      if (e == c) continue;
      double term = 1.0 / (nodes[c] - nodes[e]);
      for (std::size_t d = 0; d < count; ++d)
        if (d != c && d != e) term *= (tau - nodes[d]) / (nodes[c] - nodes[d]);
      slope[c] += term;
    }
  }
}

}  // namespace

DmocRule dmoc_rule(Rule rule) {
  // The straight line: q = a q_k + b q_{k+1}, q̇ = (q_{k+1} − q_k)/h.
  const auto line = [](double weight, double time, double a, double b) {
    return DmocRule::Point{weight, time, {a, b}, {-1.0, 1.0}};
  };
  switch (rule) {
    case Rule::kMidpoint: return {{}, {line(1.0, 0.5, 0.5, 0.5)}};
    case Rule::kTrapezoid: return {{}, {line(0.5, 0.0, 1.0, 0.0), line(0.5, 1.0, 0.0, 1.0)}};
    case Rule::kFirstOrder: return {{}, {line(1.0, 1.0, 0.0, 1.0)}};
  }
  throw std::invalid_argument("unknown rule");
}

DmocRule dmoc_rule(const GalerkinTableau& tableau) {
  const int s = tableau.stages;
  if (s < 1) throw std::invalid_argument("a Galerkin rule needs at least one stage");
  DmocRule rule;
  for (int i = 1; i < s; ++i) rule.interior_times.push_back(static_cast<double>(i) / s);
  std::vector<double> nodes{0.0, 1.0};
  nodes.insert(nodes.end(), rule.interior_times.begin(), rule.interior_times.end());
  for (int j = 0; j < s; ++j) {
    DmocRule::Point point{tableau.b[j], tableau.c[j], {}, {}};
    lagrange_basis(nodes, tableau.c[j], point.value, point.slope);
    rule.points.push_back(std::move(point));
  }
  return rule;
}

KernelDmocTranscription::KernelDmocTranscription(const KernelModel& model, DmocRule rule, optimal::DmocProblem problem)
    : model_(&applicable(model)),
      rule_(std::move(rule)),
      problem_(std::move(problem)),
      layout_(problem_, model.dim(), model.num_controls(), rule_.interior_times),
      n_(model.dim()),
      m_(model.num_controls()),
      Y_(rule_.num_points() * n_),
      K_(Y_ + m_),
      h_(problem_.step()),
      ws_(n_, m_, static_cast<int>(rule_.interior_times.size())) {
  for (const DmocRule::Point& p : rule_.points) {
    if (static_cast<int>(p.value.size()) != rule_.num_points() || static_cast<int>(p.slope.size()) != rule_.num_points())
      throw std::invalid_argument("a DMOC rule's point has not one coefficient per control point");
    maps_.push_back(point_map(p));
  }
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
  layout_.fill_interior_points(guess_);
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

/// q = Σ_c ℓ_c Q_c, q̇ = (Σ_c ℓ'_c Q_c)/h: for the straight line a q_k + b q_{k+1} and (q_{k+1} − q_k)/h,
/// in that arithmetic.
void KernelDmocTranscription::point_of(const DmocRule::Point& p, const Vector& y, Vector& q, Vector& v) const {
  const int n = n_;
  q = p.value[0] * y.head(n);
  v = p.slope[0] * y.head(n);
  for (int c = 1; c < rule_.num_points(); ++c) {
    q += p.value[static_cast<std::size_t>(c)] * y.segment(c * n, n);
    v += p.slope[static_cast<std::size_t>(c)] * y.segment(c * n, n);
  }
  v /= h_;
}

Eigen::MatrixXd KernelDmocTranscription::point_map(const DmocRule::Point& p) const {
  const int n = n_;
  Eigen::MatrixXd map = Eigen::MatrixXd::Zero(2 * n, Y_);
  for (int c = 0; c < rule_.num_points(); ++c)
    for (int i = 0; i < n; ++i) {
      map(i, c * n + i) = p.value[static_cast<std::size_t>(c)];
      map(n + i, c * n + i) = p.slope[static_cast<std::size_t>(c)] / h_;
    }
  return map;
}

void KernelDmocTranscription::outside_domain(int node) const {
  throw DomainError("the model is not defined on the way (at node " + std::to_string(node) + ")");
}

KernelDmocTranscription::Workspace::Workspace(int n, int m, int interior)
    : y((2 + interior) * n), u(m), q(n), v(n), f(n), mu(n), weighted(n), zero(Vector::Zero(n)), gradient(2 * n),
      ld_gradient((2 + interior) * n), w((2 + interior) * n), direction(2 * n), dq(n), dv(n), l(n), f_q(n, n),
      f_v(n, n), f_u(n, m), third(2 * n, 2 * n), forces(2 * n + m, 2 * n + m), hessian(2 * n, 2 * n),
      product(2 * n, (2 + interior) * n), ld_hessian((2 + interior) * n, (2 + interior) * n), force_z(n, 2 * n),
      force_y(n, (2 + interior) * n), to_point(Eigen::MatrixXd::Zero(2 * n + m, (2 + interior) * n + m)),
      product_k(2 * n + m, (2 + interior) * n + m), r((2 + interior) * n), dr((2 + interior) * n, (2 + interior) * n + m),
      hk((2 + interior) * n + m, (2 + interior) * n + m) {
  to_point.bottomRightCorner(m, m).setIdentity();
}

void KernelDmocTranscription::load_step(const Eigen::Ref<const Eigen::VectorXd>& x, int k) const {
  const int n = n_, interior = Y_ - 2 * n_;
  ws_.y.head(n) = x.segment(q_index(k), n);
  ws_.y.segment(n, n) = x.segment(q_index(k + 1), n);
  if (interior > 0) ws_.y.tail(interior) = x.segment(layout_.interior_index(k), interior);
  ws_.u = x.segment(u_index(k), m_);
}

void KernelDmocTranscription::step_residuals(const Eigen::Ref<const Eigen::VectorXd>& x, int k, bool jacobians) const {
  Workspace& ws = ws_;
  const int n = n_, m = m_, Y = Y_;
  load_step(x, k);
  ws.r.setZero();
  if (jacobians) ws.dr.setZero();
  for (std::size_t j = 0; j < rule_.points.size(); ++j) {
    const DmocRule::Point& p = rule_.points[j];
    const Eigen::MatrixXd& map = maps_[j];
    point_of(p, ws.y, ws.q, ws.v);
    const double t = (k + p.time) * h_;
    // Ld's gradient: h w Pᵀ ∇L(z); its Hessian h w Pᵀ ∇²L(z) P.
    const bool defined = jacobians ? model_->lagrangian(ws.q, ws.v, ws.l) : model_->gradient(ws.q, ws.v, nullptr, &ws.l.q, &ws.l.v);
    if (!defined) outside_domain(k);
    ws.gradient << ws.l.q, ws.l.v;
    ws.ld_gradient.noalias() = map.transpose() * ws.gradient;
    ws.r += (h_ * p.weight) * ws.ld_gradient;
    if (!model_->forces(ws.q, ws.v, ws.u, t, ws.f, jacobians ? &ws.f_q : nullptr, jacobians ? &ws.f_v : nullptr))
      outside_domain(k);
    // The force's virtual work at the point, h w f·δq(τ_j), on each control point's row block.
    for (int c = 0; c < rule_.num_points(); ++c)
      ws.r.segment(c * n, n) += (h_ * (p.weight * p.value[static_cast<std::size_t>(c)])) * ws.f;
    if (!jacobians) continue;
    ws.hessian << ws.l.qq, ws.l.qv, ws.l.qv.transpose(), ws.l.vv;
    ws.product.noalias() = ws.hessian * map;
    ws.ld_hessian.noalias() = map.transpose() * ws.product;
    ws.dr.leftCols(Y) += (h_ * p.weight) * ws.ld_hessian;
    if (!model_->forces_second(ws.q, ws.v, ws.u, t, nullptr, &ws.f_u, nullptr)) outside_domain(k);
    ws.force_z << ws.f_q, ws.f_v;
    ws.force_y.noalias() = ws.force_z * map;
    for (int c = 0; c < rule_.num_points(); ++c) {
      const double weight = h_ * (p.weight * p.value[static_cast<std::size_t>(c)]);
      ws.dr.block(c * n, 0, n, Y) += weight * ws.force_y;
      ws.dr.block(c * n, Y, n, m) += weight * ws.f_u;
    }
  }
}

void KernelDmocTranscription::step_hessian(const Eigen::Ref<const Eigen::VectorXd>& x, int k) const {
  Workspace& ws = ws_;
  const int n = n_, Y = Y_;
  load_step(x, k);
  ws.hk.setZero();
  for (std::size_t j = 0; j < rule_.points.size(); ++j) {
    const DmocRule::Point& p = rule_.points[j];
    const Eigen::MatrixXd& map = maps_[j];
    point_of(p, ws.y, ws.q, ws.v);
    const double t = (k + p.time) * h_;
    ws.direction.noalias() = map * ws.w;
    ws.dq = ws.direction.head(n);
    ws.dv = ws.direction.tail(n);
    if (!model_->lagrangian_third(ws.q, ws.v, ws.dq, ws.dv, ws.third)) outside_domain(k);
    ws.product.noalias() = ws.third * map;
    ws.ld_hessian.noalias() = map.transpose() * ws.product;
    ws.hk.topLeftCorner(Y, Y) += (h_ * p.weight) * ws.ld_hessian;
    // The force's multiplier at the point: Σ_c w ℓ_c(τ_j) w_c over the control points' rows, times h.
    ws.weighted = (p.weight * p.value[0]) * ws.w.head(n);
    for (int c = 1; c < rule_.num_points(); ++c)
      ws.weighted += (p.weight * p.value[static_cast<std::size_t>(c)]) * ws.w.segment(c * n, n);
    ws.mu = h_ * ws.weighted;
    if (!model_->forces_second(ws.q, ws.v, ws.u, t, &ws.mu, nullptr, &ws.forces)) outside_domain(k);
    ws.to_point.topLeftCorner(2 * n, Y) = map;
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
  const int interior = Y_ - 2 * n;
  for (int k = 0; k < N; ++k) {
    step_residuals(x, k, /*jacobians=*/false);
    c.segment(k * n, n) += ws_.r.head(n);
    c.segment((k + 1) * n, n) += ws_.r.segment(n, n);
    if (interior > 0) c.segment(layout_.interior_row(k), interior) = ws_.r.tail(interior);
  }
  load_end(x);
  if (!model_->gradient(ws_.q, ws_.v, nullptr, nullptr, &ws_.l.v)) outside_domain(N);
  c.segment(N * n, n) -= ws_.l.v;
}

void KernelDmocTranscription::constraint_jacobian(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                  Eigen::Ref<Eigen::VectorXd> values) const {
  values.setZero();
  const int N = problem_.steps, n = n_;
  for (int k = 0; k < N; ++k) {
    step_residuals(x, k, /*jacobians=*/true);
    layout_.add_step_jacobian(k, ws_.dr, values);
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
  const int interior = Y_ - 2 * n;
  for (int k = 0; k < N; ++k) {
    // The multipliers of the step's rows: node k's, node k+1's, its interior equations'.
    ws_.w.head(n) = lambda.segment(k * n, n);
    ws_.w.segment(n, n) = lambda.segment((k + 1) * n, n);
    if (interior > 0) ws_.w.tail(interior) = lambda.segment(layout_.interior_row(k), interior);
    step_hessian(x, k);
    for (int i = 0; i < m_; ++i) hk(Y_ + i, Y_ + i) += 2.0 * sigma * h_ * problem_.effort;
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
    p[static_cast<std::size_t>(k)] = -ws_.r.head(n_);
    if (k + 1 == N) p[static_cast<std::size_t>(N)] = ws_.r.segment(n_, n_);
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
