// vi-trapezoid composed (compose=yoshida4|suzuki4|kahan-li6|kahan-li8, DESIGN §10) and its explicit
// path: on a model with L = ½ q̇ᵀM q̇ − V(q), M constant, the trapezoid rule in momentum form is the
// Störmer–Verlet method and steps without Newton (kernel/galerkin_integrator.hpp: the methods' explicit
// step, or the model's own, model_kernels.h separable_step, taken with the step check off), all on the
// built-ins' kernels compiled once in the library. What is asserted, each against something independent:
//   - the observed order (log-ratios over three step sizes) of every composition on the Kepler problem
//     (explicit steps), the double pendulum (Newton: its mass matrix depends on the angles) and the
//     restricted three-body problem (Newton: the Coriolis term),
//     against references by rk78 at tight tolerances on the Euler–Lagrange ODE computed here;
//   - the explicit steps are the Newton path's root to round-off, plain and composed, and the root of
//     the trapezoid rule's discrete Euler–Lagrange equations solved by Newton (the variational
//     integrator, kernel/kernel_variational_integrator.hpp), and the model's own explicit step is the
//     methods'; they are taken exactly where the Lagrangian is separable, and only in momentum form;
//   - the explicit step map is symplectic (its Jacobian by differences, with a non-symplectic
//     control), and the exact linearisation of the stage equations at its steps is, to round-off;
//   - energy bounded over a long explicit run; an explicit step, the methods' or the model's, allocates
//     nothing.
// Kepler's gradient and Hessian are checked against their closed forms on the model calculus the AD
// kernels are built from (model/lagrangian_calculus.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

#include "counting_allocator.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/model/lagrangian_calculus.hpp"
#include "mechint/systems/double_pendulum.hpp"
#include "mechint/systems/harmonic_oscillator.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint {
namespace {

using kernel::Composition;
using kernel::KernelGalerkinIntegrator;
using kernel::KernelModel;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::Vector;
using systems::DoublePendulum;
using systems::HarmonicOscillator;
using systems::Kepler;
using systems::ThreeBody;

struct Case {
  std::shared_ptr<const KernelModel> model;
  Vector q0, v0;
  double t_end;
};

Case kepler_case() {
  VecD<2> q0, v0;
  Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  return {kernel::ModelAdapter<Kepler>::kernels(Kepler{1.0}), q0, v0, 10.0};
}

Case double_pendulum_case() {
  return {kernel::ModelAdapter<DoublePendulum>::kernels(DoublePendulum{}), Eigen::Vector2d(0.3, 0.45),
          Eigen::Vector2d(0.2, -0.4), 10.0};
}

/// The restricted three-body problem in the rotating frame (its Coriolis term makes L not separable:
/// Newton), the start and span of the Galerkin rules' order test.
Case three_body_case() {
  return {kernel::ModelAdapter<ThreeBody>::kernels(ThreeBody{}), Eigen::Vector2d(0.5, 0.0), Eigen::Vector2d(0.0, 0.9),
          32.0};
}

/// q at t_end·k/4 (k = 1..4) by rk78 at rtol = atol = 1e-15 on the Euler–Lagrange ODE.
std::vector<Vector> reference(const Case& c) {
  const kernel::KernelEulerLagrangeOde ode(*c.model, nullptr);
  kernel::KernelRk78 rk(ode, c.t_end / 64, RungeKuttaTolerances{1e-15, 1e-15});
  rk.start_from_velocity(c.q0, c.v0);
  std::vector<Vector> q;
  for (int k = 1; k <= 4; ++k) {
    const double t = c.t_end * k / 4;
    while (rk.time() < t) rk.step_toward(t);
    q.emplace_back(rk.q());
  }
  return q;
}

/// vi-trapezoid composed with `comp`, as the command line runs it (the 2-stage Lobatto rule).
std::unique_ptr<KernelGalerkinIntegrator> trapezoid(const Case& c, double h, const Composition& comp,
                                                    bool allow_explicit = true) {
  auto vi = std::make_unique<KernelGalerkinIntegrator>(*c.model, kernel::lobatto_tableau(2), h, comp,
                                                       NewtonOptions{.step_tolerance = 1e-15});
  vi->allow_explicit_steps(allow_explicit);
  vi->start_from_velocity(c.q0, c.v0);
  return vi;
}

/// The largest error in q at the four reference times (one time alone can sit where the leading
/// error term happens to vanish). `steps` is a multiple of 4.
double error_over_run(const Case& c, const Composition& comp, int steps, const std::vector<Vector>& q_ref,
                      bool expect_explicit) {
  auto vi = trapezoid(c, c.t_end / steps, comp);
  EXPECT_EQ(vi->explicit_steps(), expect_explicit);
  double worst = 0.0;
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < steps / 4; ++i) vi->step();
    worst = std::max(worst, (vi->q() - q_ref[k]).lpNorm<Eigen::Infinity>());
  }
  return worst;
}

struct Scheme {
  const char* name;
  int order;
};
constexpr Scheme kSchemes[] = {{"none", 2}, {"yoshida4", 4}, {"suzuki4", 4}, {"kahan-li6", 6}, {"kahan-li8", 8}};

/// The observed order over N, 1.5 N and 2.25 N steps (N a multiple of 16): both log-ratios within
/// ±0.2 of the stated order, the finest error far above the reference's. N is, per problem and
/// scheme, inside the asymptotic range (found by a scan over step counts, docs/methods.md).
void expect_order(const Case& c, const std::vector<int>& coarsest, bool expect_explicit, const char* problem) {
  const std::vector<Vector> q_ref = reference(c);
  ASSERT_EQ(coarsest.size(), std::size(kSchemes));
  for (std::size_t k = 0; k < coarsest.size(); ++k) {
    const Scheme& s = kSchemes[k];
    const int n = coarsest[k];
    ASSERT_EQ(n % 16, 0);
    const Composition comp = kernel::composition_named(s.name);
    const int steps[3] = {n, n * 3 / 2, n * 9 / 4};
    double e[3];
    for (int i = 0; i < 3; ++i) e[i] = error_over_run(c, comp, steps[i], q_ref, expect_explicit);
    const double p1 = std::log(e[0] / e[1]) / std::log(1.5), p2 = std::log(e[1] / e[2]) / std::log(1.5);
    std::printf("%s %s: N = %d, errors %.2e %.2e %.2e, observed orders %.2f %.2f\n", problem, s.name, n, e[0], e[1],
                e[2], p1, p2);
    EXPECT_GT(e[2], 5e-13) << problem << " " << s.name << ": the finest error is too close to round-off";
    EXPECT_NEAR(p1, s.order, 0.2) << problem << " " << s.name << " errors " << e[0] << " " << e[1] << " " << e[2];
    EXPECT_NEAR(p2, s.order, 0.2) << problem << " " << s.name << " errors " << e[0] << " " << e[1] << " " << e[2];
  }
}

// The coarsest step counts, in kSchemes' order: none, yoshida4, suzuki4, kahan-li6, kahan-li8.
TEST(TrapezoidComposeOrder, KeplerExplicit) {
  expect_order(kepler_case(), {256, 400, 272, 128, 128}, true, "kepler");
}

TEST(TrapezoidComposeOrder, DoublePendulumNewton) {
  expect_order(double_pendulum_case(), {608, 400, 272, 272, 128}, false, "double pendulum");
}

TEST(TrapezoidComposeOrder, RestrictedThreeBodyNewton) {
  expect_order(three_body_case(), {1152, 512, 256, 256, 384}, false, "three-body");
}

// ---- the explicit path ------------------------------------------------------------------------------

TEST(ExplicitTrapezoid, KeplerGradientAndHessianAreTheClosedForm) {
  // Kepler's L evaluates 1/|q| on first-order jets in one division (systems/kepler.hpp): its
  // gradient (first-order jets) and Hessian (jets of jets, the generic arithmetic) against
  // L_q = −μq/r³ and L_qq = μ(3qqᵀ/r⁵ − I/r³).
  const Kepler kepler{1.3};
  for (const auto& [q, v] : {std::pair{VecD<2>(0.5, 0.0), VecD<2>(0.0, 1.7)}, std::pair{VecD<2>(-1.2, 0.7), VecD<2>(0.3, -0.4)}}) {
    const double r = q.norm();
    const VecD<2> l_q = -kepler.mu / (r * r * r) * q;
    const Mat<2, 2> l_qq = kepler.mu * (3.0 * q * q.transpose() / std::pow(r, 5) - Mat<2, 2>::Identity() / (r * r * r));
    EXPECT_LE((lagrangian_dq(kepler, q, v) - l_q).lpNorm<Eigen::Infinity>(), 1e-15 * (1.0 + l_q.norm()));
    const LagrangianDerivatives<2> d = lagrangian_second_derivatives(kepler, q, v);
    EXPECT_LE((d.q - l_q).lpNorm<Eigen::Infinity>(), 1e-14);
    EXPECT_LE((d.qq - l_qq).lpNorm<Eigen::Infinity>(), 1e-13);
    EXPECT_LE((d.v - v).lpNorm<Eigen::Infinity>(), 1e-15);
    EXPECT_TRUE(d.qv.isZero(0.0));
    EXPECT_TRUE(d.vv.isIdentity(0.0));
    EXPECT_NEAR(kepler.lagrangian<double>(q, v), 0.5 * v.squaredNorm() + kepler.mu / r, 1e-15);
  }
}

double state_difference(const Vector& q1, const Vector& p1, const Vector& q2, const Vector& p2) {
  return std::max((q1 - q2).lpNorm<Eigen::Infinity>(), (p1 - p2).lpNorm<Eigen::Infinity>());
}

TEST(ExplicitTrapezoid, TakenExactlyWhereTheLagrangianIsSeparable) {
  const auto flag = [](const Case& c) { return trapezoid(c, 0.01, Composition{})->explicit_steps(); };
  EXPECT_TRUE(flag(kepler_case()));
  EXPECT_TRUE(flag({kernel::ModelAdapter<HarmonicOscillator>::kernels(HarmonicOscillator{1.0, 4.0}),
                    Vector::Constant(1, 1.0), Vector::Constant(1, 0.5), 1.0}));
  EXPECT_FALSE(flag(double_pendulum_case()));  // M(θ)
  // The rotating frame's gyroscopic term: L_qv ≠ 0.
  EXPECT_FALSE(flag({kernel::ModelAdapter<ThreeBody>::kernels(ThreeBody{}), Eigen::Vector2d(0.5, 0.0),
                     Eigen::Vector2d(0.0, 0.9), 1.0}));
  // Another tableau than the trapezoid rule's keeps Newton.
  const Case k = kepler_case();
  KernelGalerkinIntegrator gauss(*k.model, kernel::gauss_tableau(1), 0.01);
  gauss.start_from_velocity(k.q0, k.v0);
  EXPECT_FALSE(gauss.explicit_steps());
  // On the kernels the command line runs (kernels_for_runs, which for Kepler also supply the rules'
  // discrete derivatives): vi-trapezoid in momentum form is the 2-stage Lobatto rule, explicit on
  // Kepler; in position form it is the variational integrator, whose step is a Newton solve; the
  // double pendulum not.
  const auto kepler_runs = kernel::ModelAdapter<Kepler>::kernels_for_runs(Kepler{1.0});
  KernelGalerkinIntegrator momentum(*kepler_runs, kernel::lobatto_tableau(2), 0.01);
  momentum.start_from_velocity(k.q0, k.v0);
  EXPECT_TRUE(momentum.explicit_steps());
  KernelVariationalIntegrator position(*kepler_runs, Rule::kTrapezoid, 0.01, {}, DelForm::kPosition);
  position.start_from_velocity(k.q0, k.v0);
  position.step();
  EXPECT_GT(position.last_newton_stats().iterations, 0);
  const auto pendulum_runs = kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(DoublePendulum{});
  KernelGalerkinIntegrator pendulum(*pendulum_runs, kernel::lobatto_tableau(2), 0.01);
  pendulum.start_from_velocity(Eigen::Vector2d(0.3, 0.45), Eigen::Vector2d(0.2, -0.4));
  EXPECT_FALSE(pendulum.explicit_steps());
}

TEST(ExplicitTrapezoid, SameTrajectoryAsTheNewtonPathToRoundOff) {
  // 1000 steps of h = 0.05 (8 orbits of e = 0.5, pericentre passages included): the explicit
  // steps against Newton on the same equations at a tolerance of 1e-15, plain and composed. A
  // difference of round-off in one step moves the orbit's phase, which then grows linearly: ~1e-14
  // per step, 1e-11 after the 1000.
  const Case c = kepler_case();
  for (const Scheme& s : kSchemes) {
    const Composition comp = kernel::composition_named(s.name);
    auto fast = trapezoid(c, 0.05, comp, true), newton = trapezoid(c, 0.05, comp, false);
    ASSERT_TRUE(fast->explicit_steps());
    ASSERT_FALSE(newton->explicit_steps());
    double worst = 0.0;
    for (int i = 0; i < 1000; ++i) {
      fast->step(), newton->step();
      worst = std::max(worst, state_difference(fast->q(), fast->p(), newton->q(), newton->p()));
    }
    EXPECT_LE(worst, 1e-10) << s.name;
    EXPECT_GT(newton->last_newton_stats().iterations, 0) << s.name;
    EXPECT_EQ(fast->last_newton_stats().iterations, 0) << s.name;
  }
  // The plain explicit step against the trapezoid rule's discrete Euler–Lagrange equations solved by
  // Newton (the variational integrator: other unknowns, q1, and other equations than the stages'),
  // and against the model's own explicit step (separable_step, taken with the step check off).
  auto fast = trapezoid(c, 0.05, Composition{});
  KernelVariationalIntegrator newton(*c.model, Rule::kTrapezoid, 0.05, NewtonOptions{.step_tolerance = 1e-15});
  newton.start_from_velocity(c.q0, c.v0);
  StepCheckOptions off;
  off.enabled = false;
  KernelGalerkinIntegrator model_path(*c.model, kernel::lobatto_tableau(2), 0.05, Composition{}, {}, off);
  model_path.start_from_velocity(c.q0, c.v0);
  ASSERT_TRUE(fast->explicit_steps());
  ASSERT_FALSE(fast->model_takes_explicit_steps());
  ASSERT_TRUE(model_path.model_takes_explicit_steps());
  double worst = 0.0, worst_model = 0.0;
  for (int i = 0; i < 1000; ++i) {
    fast->step(), newton.step(), model_path.step();
    worst = std::max(worst, state_difference(fast->q(), fast->p(), newton.q(), newton.p()));
    worst_model = std::max(worst_model, state_difference(fast->q(), fast->p(), model_path.q(), model_path.p()));
  }
  EXPECT_LE(worst, 1e-10);
  EXPECT_LE(worst_model, 1e-10);
}

double symplecticity_defect(const Eigen::MatrixXd& m) {
  const int n = static_cast<int>(m.rows()) / 2;
  Eigen::MatrixXd omega = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  omega.topRightCorner(n, n).setIdentity();
  omega.bottomLeftCorner(n, n) = -Eigen::MatrixXd::Identity(n, n);
  // Coefficient-wise products: at 4 x 4 Eigen's blocked product kernel buys nothing, and its
  // instantiation was a fifth of this file's compile time.
  const Eigen::MatrixXd omega_m = omega.lazyProduct(m);
  return (m.transpose().lazyProduct(omega_m) - omega).lpNorm<Eigen::Infinity>() / std::max(1.0, m.squaredNorm());
}

/// The Jacobian of a step map (q, p) ↦ (q1, p1) by central differences (step 1e-6).
template <class Map>
Eigen::MatrixXd differenced_jacobian(const Vector& q0, const Vector& p0, Map&& map) {
  const int n = static_cast<int>(q0.size());
  const double d = 1e-6;
  Eigen::MatrixXd jac(2 * n, 2 * n);
  for (int col = 0; col < 2 * n; ++col) {
    Vector end[2];
    for (int side = 0; side < 2; ++side) {
      Vector q = q0, p = p0;
      (col < n ? q[col] : p[col - n]) += side ? d : -d;
      end[side] = map(q, p);
    }
    jac.col(col) = (end[1] - end[0]) / (2 * d);
  }
  return jac;
}

TEST(ExplicitTrapezoid, StepMapIsSymplectic) {
  const Case c = kepler_case();
  const double h = 0.05;
  Vector q0 = c.q0, p0;
  {
    auto vi = trapezoid(c, h, Composition{});
    p0 = vi->p();
  }
  for (const Scheme& s : kSchemes) {
    const Composition comp = kernel::composition_named(s.name);
    const auto explicit_map = [&](const Vector& q, const Vector& p) {
      KernelGalerkinIntegrator vi(*c.model, kernel::lobatto_tableau(2), h, comp);
      vi.start_from_momentum(q, p);
      EXPECT_TRUE(vi.explicit_steps());
      vi.step();
      Vector end(4);
      end << vi.q(), vi.p();
      return end;
    };
    // Differences reach the defect to their own truncation and rounding, ~1e-9 here.
    EXPECT_LE(symplecticity_defect(differenced_jacobian(q0, p0, explicit_map)), 1e-8) << s.name;
    // The exact linearisation of the same step (the stage equations at its root) to round-off.
    KernelGalerkinIntegrator vi(*c.model, kernel::lobatto_tableau(2), h, comp);
    vi.start_from_momentum(q0, p0);
    EXPECT_LE(symplecticity_defect(vi.step_with_jacobian()), 1e-13) << s.name;
  }
  // Control: the explicit Euler map of the same vector field is not symplectic, and the measure says so.
  const auto euler = [&](const Vector& q, const Vector& p) {
    Vector force(2);
    c.model->gradient(q, p, nullptr, &force, nullptr);
    Vector end(4);
    end << q + h * p, p + h * force;
    return end;
  };
  EXPECT_GT(symplecticity_defect(differenced_jacobian(q0, p0, euler)), 1e-4);
}

TEST(ExplicitTrapezoid, EnergyBoundedOverALongRun) {
  // Kepler, e = 0.5, 50 steps per period, 2000 periods, kahan-li8: the largest energy error of the
  // last tenth no larger than twice that of the first tenth (a drift would make it ~10x larger).
  const Case c = kepler_case();
  const double period = 2 * std::numbers::pi;
  const int per_period = 50, periods = 2000, steps = per_period * periods;
  auto vi = trapezoid(c, period / per_period, kernel::composition_named("kahan-li8"));
  ASSERT_TRUE(vi->explicit_steps());
  const auto energy = [&] { return 0.5 * vi->p().squaredNorm() - 1.0 / vi->q().norm(); };
  const double e0 = energy();
  double first = 0.0, last = 0.0;
  for (int i = 1; i <= steps; ++i) {
    vi->step();
    if (i <= steps / 10) first = std::max(first, std::abs(energy() - e0));
    if (i > steps - steps / 10) last = std::max(last, std::abs(energy() - e0));
  }
  EXPECT_LE(last, 2 * first + 1e-13);
  EXPECT_LT(first, 1e-4);
}

TEST(ExplicitTrapezoid, StepsAllocateNothing) {
  const Case c = kepler_case();
  for (const Scheme& s : kSchemes) {
    auto vi = trapezoid(c, 0.05, kernel::composition_named(s.name));
    vi->step();
    const long before = g_allocations.load();
    for (int i = 0; i < 200; ++i) vi->step();
    EXPECT_EQ(g_allocations.load(), before) << s.name;
  }
  // The model's own explicit step (separable_step, taken with the step check off).
  StepCheckOptions off;
  off.enabled = false;
  KernelGalerkinIntegrator vi(*c.model, kernel::lobatto_tableau(2), 0.05, Composition{}, {}, off);
  vi.start_from_velocity(c.q0, c.v0);
  ASSERT_TRUE(vi.model_takes_explicit_steps());
  vi.step();
  const long before = g_allocations.load();
  for (int i = 0; i < 200; ++i) vi.step();
  EXPECT_EQ(g_allocations.load(), before) << "the model's own step";
}

}  // namespace
}  // namespace mechint
