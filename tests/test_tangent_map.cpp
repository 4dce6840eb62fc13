// The exact tangent map of a variational step (kernel/galerkin_integrator.hpp, track_deviation):
// a deviation δ = (δq, δp) carried along a run. What is asserted, each against something
// independent:
//   - one step of the carried deviation equals central differences of the step map along δ (to
//     1e-7 relative) on the pendulum chain (generated kernels), the Kepler problem and the forced
//     cart-pole, for the second- and higher-order rules and a composition;
//   - over many steps, the carried deviation equals the product of the step Jacobians
//     (step_with_jacobian, assembled column by column) applied to δ0 — two formulations;
//   - the step Jacobian is symplectic to round-off, and the same measure of a Runge–Kutta step map
//     (RK4, by central differences) is not: a control that the measure can fail;
//   - with holonomic constraints (the Lobatto rules, multipliers and momentum projection linearised):
//     one step equals central differences along a deviation tangent to the constrained phase space,
//     many steps equal the product of step Jacobians, and the symplectic form of two tangent vectors
//     is kept to round-off, on the spherical and the double spherical pendulum;
//   - carrying the deviation allocates nothing;
//   - the Runge–Kutta baselines (rk4, rk78, dopri5) carry δ by the variational equations of the ODE in
//     (q, p) (kernel/kernel_runge_kutta.hpp): over a run it equals central differences of rk4's flow
//     along δ (to 1e-7 relative) on the same three models and a damped pendulum (a force that
//     depends on the velocity), rk78 and dopri5 at a tight tolerance agree, the
//     motion is bit for bit that of the run without δ (rk4), and a step allocates nothing.
#include <gtest/gtest.h>

#include <cmath>

#include "counting_allocator.hpp"
#include "kernel/chain_kernels.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/kernel_legendre.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/systems/cart_pole.hpp"
#include "mechint/systems/damped_pendulum.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using kernel::GalerkinTableau;
using kernel::KernelGalerkinIntegrator;
using kernel::KernelModel;
using kernel::Vector;

struct Case {
  const char* name;
  std::shared_ptr<const KernelModel> model;
  Vector q0, v0;
  double h;
  bool forced = false;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  VecD<2> q0, v0;
  systems::Kepler::pericentre_start(1.0, 1.0, 0.6, q0, v0);
  all.push_back({"kepler", kernel::ModelAdapter<systems::Kepler>::kernels(systems::Kepler{1.0}), q0, v0, 0.05});
  auto chain = std::make_shared<const KernelModel>(kernel::pendulum_chain_model(5, 1.0, 1.0, 9.81));
  Vector th(5), om(5);
  th << 0.4, -0.2, 0.3, 0.1, -0.5;
  om << 0.0, 0.3, -0.2, 0.5, 0.1;
  all.push_back({"chain-5", chain, th, om, 0.01});
  all.push_back({"cart-pole (forced)", kernel::ModelAdapter<systems::CartPole>::kernels(systems::CartPole{}),
                 Eigen::Vector2d(0.1, 0.5), Eigen::Vector2d(0.2, -0.3), 0.02, true});
  return all;
}

struct Method {
  const char* name;
  GalerkinTableau tableau;
  kernel::Composition composition;
};

std::vector<Method> methods() {
  const auto none = kernel::composition_named("none");
  return {{"vi-midpoint (gauss s=1)", kernel::gauss_tableau(1), none},
          {"vi-trapezoid (lobatto s=2)", kernel::lobatto_tableau(2), none},
          {"vi-gauss6", kernel::gauss_tableau(3), none},
          {"vi-lobatto4", kernel::lobatto_tableau(3), none},
          {"vi-midpoint compose=yoshida4", kernel::gauss_tableau(1), kernel::composition_named("yoshida4")}};
}

/// l (sin θ cos φ, sin θ sin φ, −cos θ) and the velocity of angle rates (θ', φ').
void on_sphere(double l, double theta, double phi, double theta_dot, double phi_dot, Eigen::Ref<Vector> q,
               Eigen::Ref<Vector> v) {
  q << l * std::sin(theta) * std::cos(phi), l * std::sin(theta) * std::sin(phi), -l * std::cos(theta);
  v << l * (std::cos(theta) * std::cos(phi) * theta_dot - std::sin(theta) * std::sin(phi) * phi_dot),
      l * (std::cos(theta) * std::sin(phi) * theta_dot + std::sin(theta) * std::cos(phi) * phi_dot),
      l * std::sin(theta) * theta_dot;
}

std::vector<Case> constrained_cases() {
  std::vector<Case> all;
  Vector q(3), v(3);
  on_sphere(1.0, 1.1, 0.3, 0.4, 1.5, q, v);
  all.push_back({"spherical pendulum", kernel::ModelAdapter<systems::SphericalPendulum>::kernels({}), q, v, 0.02});
  const systems::DoubleSphericalPendulum dsp;
  Vector q6(6), v6(6), relative(3), relative_v(3);
  on_sphere(dsp.l1, 0.9, 0.2, 0.3, 0.8, q6.head(3), v6.head(3));
  on_sphere(dsp.l2, 1.6, -0.7, -0.5, 1.1, relative, relative_v);
  q6.tail(3) = q6.head(3) + relative;
  v6.tail(3) = v6.head(3) + relative_v;
  all.push_back({"double spherical pendulum", kernel::ModelAdapter<systems::DoubleSphericalPendulum>::kernels(dsp), q6,
                 v6, 0.01});
  return all;
}

std::vector<Method> lobatto_methods() {
  const auto none = kernel::composition_named("none");
  return {{"vi-trapezoid (lobatto s=2)", kernel::lobatto_tableau(2), none},
          {"vi-lobatto4", kernel::lobatto_tableau(3), none},
          {"vi-lobatto6", kernel::lobatto_tableau(4), none}};
}

/// Every model with every rule that applies to it: the unconstrained ones with every rule and a
/// composition, the constrained ones with the Lobatto rules.
std::vector<std::pair<Case, Method>> pairs() {
  std::vector<std::pair<Case, Method>> all;
  for (const Case& c : cases())
    for (const Method& m : methods()) all.emplace_back(c, m);
  for (const Case& c : constrained_cases())
    for (const Method& m : lobatto_methods()) all.emplace_back(c, m);
  return all;
}

void apply_control(const Case& c, KernelGalerkinIntegrator& vi) {
  if (c.forced) vi.set_control_law([](double t, Vector& u) { u[0] = 2.0 * std::sin(3.0 * t); });
}

/// (q, p) after one step from (q, p) at time t0, solved to Newton's tightest tolerance.
Vector step_map(const Case& c, const Method& m, const Vector& q, const Vector& p, double t0) {
  KernelGalerkinIntegrator x(*c.model, m.tableau, c.h, m.composition, NewtonOptions{.step_tolerance = 1e-15});
  apply_control(c, x);
  x.start_from_momentum(q, p, t0);
  x.step();
  Vector z(2 * q.size());
  z << x.q(), x.p();
  return z;
}

TEST(TangentMap, OneStepEqualsDifferencesOfTheStepMap) {
  // The deviation is carried by the Jacobian of Newton's last iterate (within its tolerance of the
  // converged stages): checked at the tolerance runs use and at the tightest, both Newton variants.
  const NewtonOptions newtons[] = {NewtonOptions{}, NewtonOptions{.step_tolerance = 1e-15},
                                   NewtonOptions{.variant = NewtonVariant::kSimplified}};
  for (const NewtonOptions& newton : newtons)
    for (const auto& [c, m] : pairs()) {
      const int n = c.model->dim();
      KernelGalerkinIntegrator vi(*c.model, m.tableau, c.h, m.composition, newton);
      apply_control(c, vi);
      vi.start_from_velocity(c.q0, c.v0);
      for (int i = 0; i < 6; ++i) vi.step();
      // A deviation tangent to the (constrained) phase space: the image of any by one step, so that
      // the differences below start from states the start checks accept.
      vi.track_deviation(kernel::initial_deviation(2 * n));
      vi.step();  // away from the start, at t0 = 7h
      const Vector q = vi.q(), p = vi.p(), delta = vi.deviation();
      const double t0 = vi.time();
      vi.track_deviation(delta);
      // Restarting the indicators does not restart the run: the step below is the run's 8th.
      vi.step();
      const double d = 1e-5;
      const Vector plus = step_map(c, m, q + d * delta.head(n), p + d * delta.tail(n), t0);
      const Vector minus = step_map(c, m, q - d * delta.head(n), p - d * delta.tail(n), t0);
      const Vector difference = (plus - minus) / (2 * d);
      // The carried deviation is renormalised; its stretch is the indicators' log-growth.
      const Vector carried = vi.deviation() * std::exp(vi.indicators().log_growth());
      EXPECT_LE((carried - difference).norm(), 1e-7 * difference.norm()) << c.name << " " << m.name;
    }
}

TEST(TangentMap, ManyStepsEqualTheProductOfStepJacobians) {
  for (const auto& [c, m] : pairs()) {
      KernelGalerkinIntegrator tracked(*c.model, m.tableau, c.h, m.composition);
      KernelGalerkinIntegrator jacobians(*c.model, m.tableau, c.h, m.composition);
      apply_control(c, tracked);
      apply_control(c, jacobians);
      tracked.start_from_velocity(c.q0, c.v0);
      jacobians.start_from_velocity(c.q0, c.v0);
      const Vector delta0 = kernel::initial_deviation(2 * c.model->dim());
      tracked.track_deviation(delta0);
      Vector product = delta0;
      for (int i = 0; i < 200; ++i) {
        tracked.step();
        product = jacobians.step_with_jacobian() * product;
      }
      // The same trajectory (the same steps), so the same linearisations.
      ASSERT_EQ((tracked.q() - jacobians.q()).norm(), 0.0) << c.name << " " << m.name;
      EXPECT_NEAR(tracked.indicators().log_growth(), std::log(product.norm()), 1e-11) << c.name << " " << m.name;
      EXPECT_LE((tracked.deviation() - product / product.norm()).norm(), 1e-11) << c.name << " " << m.name;
    }
}

double symplecticity_defect(const Eigen::MatrixXd& m) {
  const Eigen::Index n = m.rows() / 2;
  Eigen::MatrixXd omega = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  omega.topRightCorner(n, n).setIdentity();
  omega.bottomLeftCorner(n, n) = -Eigen::MatrixXd::Identity(n, n);
  return (m.transpose() * omega * m - omega).lpNorm<Eigen::Infinity>() / std::max(1.0, m.squaredNorm());
}

TEST(TangentMap, SymplecticForTheVariationalRulesNotForRk4) {
  const Case c = cases()[1];  // the chain: L = ½ vᵀM(q)v − V(q), momentum p = M(q)v
  for (const Method& m : methods()) {
    KernelGalerkinIntegrator vi(*c.model, m.tableau, 0.05, m.composition);
    vi.start_from_velocity(c.q0, c.v0);
    for (int i = 0; i < 3; ++i) vi.step();
    EXPECT_LE(symplecticity_defect(vi.step_with_jacobian()), 1e-12) << m.name;
  }
  // RK4 on the Euler–Lagrange ODE in (q, v), its step map's Jacobian in (q, p) by central differences
  // (accurate to about 1e-9): not symplectic, by far more than the differences' error.
  const kernel::KernelEulerLagrangeOde ode(*c.model, nullptr);
  const int n = c.model->dim();
  const auto to_qp = [&](const Vector& q, const Vector& v) {
    kernel::LagrangianValues l(n);
    c.model->lagrangian(q, v, l);
    Vector z(2 * n);
    z << q, l.v;
    return z;
  };
  const auto rk4_step = [&](const Vector& z) {
    const Vector v = kernel::tangent_velocity(*c.model, z.head(n), z.tail(n), Vector::Zero(n));
    kernel::KernelRk4 rk(ode, 0.05);
    rk.start_from_velocity(z.head(n), v);
    rk.step();
    return to_qp(rk.q(), rk.velocity());
  };
  const Vector z0 = to_qp(c.q0, c.v0);
  Eigen::MatrixXd jac(2 * n, 2 * n);
  const double d = 1e-6;
  for (int col = 0; col < 2 * n; ++col) {
    Vector e = Vector::Zero(2 * n);
    e[col] = d;
    jac.col(col) = (rk4_step(z0 + e) - rk4_step(z0 - e)) / (2 * d);
  }
  EXPECT_GT(symplecticity_defect(jac), 1e-6);
}

TEST(TangentMap, CarryingTheDeviationAllocatesNothing) {
  for (const auto& [c, m] : pairs())
      for (NewtonVariant variant : {NewtonVariant::kFull, NewtonVariant::kSimplified}) {
        KernelGalerkinIntegrator vi(*c.model, m.tableau, c.h, m.composition, NewtonOptions{.variant = variant});
        apply_control(c, vi);
        vi.start_from_velocity(c.q0, c.v0);
        vi.track_deviation(kernel::initial_deviation(2 * c.model->dim()));
        vi.step();
        const long before = g_allocations.load();
        for (int i = 0; i < 30; ++i) vi.step();
        EXPECT_EQ(g_allocations.load(), before) << c.name << " " << m.name;
      }
}

/// max |ω(M a, M b) − ω(a, b)| over the columns a, b of `tangent`, relative to their size.
double symplectic_form_change(const Eigen::MatrixXd& m, const Eigen::MatrixXd& tangent) {
  const Eigen::Index n = m.rows() / 2;
  Eigen::MatrixXd omega = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  omega.topRightCorner(n, n).setIdentity();
  omega.bottomLeftCorner(n, n) = -Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd image = m * tangent;
  return (image.transpose() * omega * image - tangent.transpose() * omega * tangent).lpNorm<Eigen::Infinity>() /
         std::max(1.0, image.squaredNorm());
}

TEST(TangentMapWithConstraints, KeepsTheSymplecticFormOnTheConstrainedPhaseSpace) {
  for (const Case& c : constrained_cases())
    for (const Method& m : lobatto_methods()) {
      KernelGalerkinIntegrator vi(*c.model, m.tableau, c.h, m.composition);
      vi.start_from_velocity(c.q0, c.v0);
      for (int i = 0; i < 3; ++i) vi.step();
      // The columns of one step's Jacobian are tangent to the constrained phase space at the state it
      // reaches (2(n − k) of them independent); the next step must keep ω on them. In the ambient
      // (q, p) space the same Jacobian is not symplectic: its normal directions are projected out.
      const Eigen::MatrixXd tangent = vi.step_with_jacobian();
      const Eigen::MatrixXd next = vi.step_with_jacobian();
      EXPECT_LE(symplectic_form_change(next, tangent), 1e-12) << c.name << " " << m.name;
      EXPECT_GT(symplecticity_defect(next), 1e-6) << c.name << " " << m.name;
    }
}

TEST(TangentMap, RefusedForABadDeviation) {
  const Case c = cases()[0];
  KernelGalerkinIntegrator vi(*c.model, kernel::gauss_tableau(2), 0.05);
  vi.start_from_velocity(c.q0, c.v0);
  EXPECT_THROW(vi.track_deviation(Vector::Zero(4)), InvalidInput);
  EXPECT_THROW(vi.track_deviation(Vector::Ones(3)), InvalidInput);
  Vector nan = Vector::Ones(4);
  nan[2] = std::nan("");
  EXPECT_THROW(vi.track_deviation(nan), InvalidInput);
}

// ---- the Runge–Kutta baselines: the variational equations of the ODE --------------------------------

/// The case's ODE, under the cart-pole's control law when it is forced.
kernel::KernelEulerLagrangeOde case_ode(const Case& c) {
  kernel::ControlLaw law;
  if (c.forced) law = [](double t, Vector& u) { u[0] = 2.0 * std::sin(3.0 * t); };
  return kernel::KernelEulerLagrangeOde(*c.model, law);
}

/// The unconstrained cases, and a damped pendulum (f = u − c θ̇: a force Jacobian f_v ≠ 0, which the
/// cart-pole's pushes do not have).
std::vector<Case> runge_kutta_cases() {
  std::vector<Case> all = cases();
  systems::DampedPendulum damped;
  damped.damping = 0.3;
  all.push_back({"damped pendulum (forced)", kernel::ModelAdapter<systems::DampedPendulum>::kernels(damped),
                 Vector::Constant(1, 2.5), Vector::Constant(1, 0.4), 0.02, true});
  return all;
}

/// (q, p = ∂L/∂v) of (q, v).
Vector to_qp(const KernelModel& model, const Vector& q, const Vector& v) {
  kernel::LagrangianValues l(model.dim());
  model.lagrangian(q, v, l);
  Vector z(2 * q.size());
  z << q, l.v;
  return z;
}

TEST(TangentMapRungeKutta, VariationalEquationsEqualDifferencesOfTheFlow) {
  for (const Case& c : runge_kutta_cases()) {
    const int n = c.model->dim();
    const double h = c.h / 10;  // rk4's own error far below the differences'
    const int steps = static_cast<int>(std::lround(1.0 / h));
    const kernel::KernelEulerLagrangeOde ode = case_ode(c);
    const Vector delta0 = kernel::initial_deviation(2 * n);
    // (q, p) after `steps` steps of rk4 from (q, p) = z.
    const auto flow = [&](const Vector& z) {
      const Vector v = kernel::tangent_velocity(*c.model, z.head(n), z.tail(n), c.v0);
      kernel::KernelRk4 rk(ode, h);
      rk.start_from_velocity(z.head(n), v);
      for (int i = 0; i < steps; ++i) rk.step();
      return to_qp(*c.model, rk.q(), rk.velocity());
    };
    const Vector z0 = to_qp(*c.model, c.q0, c.v0);
    const double d = 1e-6;
    const Vector differences = (flow(z0 + d * delta0) - flow(z0 - d * delta0)) / (2 * d);

    kernel::KernelRk4 rk(ode, h), plain(ode, h);
    rk.start_from_velocity(c.q0, c.v0);
    plain.start_from_velocity(c.q0, c.v0);
    rk.track_deviation(delta0);
    for (int i = 0; i < steps; ++i) rk.step(), plain.step();
    const Vector carried = std::exp(rk.indicators().log_growth()) * rk.deviation();
    EXPECT_LE((carried - differences).norm(), 1e-7 * differences.norm()) << c.name;
    // The motion is the one without the deviation, bit for bit (the same arithmetic on q and v).
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(rk.q()[i], plain.q()[i]) << c.name;
      EXPECT_EQ(rk.velocity()[i], plain.velocity()[i]) << c.name;
    }
    // The adaptive methods at a tight tolerance carry the same deviation (their own steps): rk78, and
    // dopri5 stepped without its dense output.
    const auto adaptive_carried = [&]<class Rk>(Rk rk) {
      rk.start_from_velocity(c.q0, c.v0);
      rk.track_deviation(delta0);
      while (rk.time() < steps * h) rk.step_toward(steps * h);
      return Vector(std::exp(rk.indicators().log_growth()) * rk.deviation());
    };
    const RungeKuttaTolerances tight{1e-13, 1e-15};
    const Vector carried78 = adaptive_carried(kernel::KernelRk78(ode, h, tight));
    EXPECT_LE((carried78 - differences).norm(), 1e-7 * differences.norm()) << c.name << " rk78";
    const Vector carried5 = adaptive_carried(kernel::KernelDopri5Stepped(ode, h, tight));
    EXPECT_LE((carried5 - differences).norm(), 1e-7 * differences.norm()) << c.name << " dopri5";
  }
}

TEST(TangentMapRungeKutta, CarryingTheDeviationAllocatesNothing) {
  for (const Case& c : runge_kutta_cases()) {
    const kernel::KernelEulerLagrangeOde ode = case_ode(c);
    kernel::KernelRk4 rk4(ode, c.h);
    rk4.start_from_velocity(c.q0, c.v0);
    rk4.track_deviation(kernel::initial_deviation(2 * c.model->dim()));
    rk4.step();  // Odeint sizes its stages at the first step
    long before = g_allocations.load();
    for (int i = 0; i < 30; ++i) rk4.step();
    EXPECT_EQ(g_allocations.load(), before) << c.name << " rk4";
    kernel::KernelRk78 rk78(ode, c.h, RungeKuttaTolerances{});
    rk78.start_from_velocity(c.q0, c.v0);
    rk78.track_deviation(kernel::initial_deviation(2 * c.model->dim()));
    rk78.step_toward(c.h);
    before = g_allocations.load();
    for (int i = 2; i < 30; ++i) rk78.step_toward(i * c.h);
    EXPECT_EQ(g_allocations.load(), before) << c.name << " rk78";
  }
}

TEST(TangentMapRungeKutta, RefusedForABadDeviationOrAfterTheFirstStep) {
  const Case c = cases()[0];
  kernel::KernelRk4 rk(case_ode(c), 0.01);
  rk.start_from_velocity(c.q0, c.v0);
  EXPECT_THROW(rk.track_deviation(Vector::Zero(4)), InvalidInput);
  EXPECT_THROW(rk.track_deviation(Vector::Ones(3)), InvalidInput);
  rk.step();
  EXPECT_THROW(rk.track_deviation(Vector::Ones(4)), InvalidInput);
  EXPECT_FALSE(rk.tracks_deviation());
}

}  // namespace
}  // namespace mechint
