// Forced variational integrators (discrete Lagrange–d'Alembert principle, docs/forces.md), checked
// against independent references: the exact energy decay rate c/m of the damped oscillator, the forced
// Noether theorem, and Runge–Kutta–Fehlberg 7(8) at tight tolerance on the forced Euler–Lagrange ODE.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mechint/mechint.hpp"
#include "mechint/integrate/odeint_baselines.hpp"
#include "mechint/systems/cart_pole.hpp"
#include "mechint/systems/damped_harmonic_oscillator.hpp"
#include "mechint/systems/damped_pendulum.hpp"
#include "mechint/systems/low_thrust_spacecraft.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using systems::CartPole;
using systems::DampedHarmonicOscillator;
using systems::DampedPendulum;
using systems::LowThrustSpacecraft;

/// The Cartesian spherical pendulum with linear drag R = ½ c |q̇|²: a constrained model with a
/// symmetry (rotation about z) and a force, whose J_z decays by the drag's torque.
struct DampedSphericalPendulum : systems::SphericalPendulum {
  double damping = 0.01;
  template <class T>
  T rayleigh_dissipation(const Vec<T, 3>&, const Vec<T, 3>& v) const {
    return 0.5 * damping * squared_norm(v);
  }
};

/// A pendulum driven by an explicitly time-dependent torque and damped, without controls: checks
/// that each rule evaluates f at its own quadrature times.
struct DrivenPendulum {
  static constexpr int kDim = 1;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  static constexpr int kNumControls = 0;
  template <class T>
  T lagrangian(const Vec<T, 1>& q, const Vec<T, 1>& v) const {
    using std::cos;
    return 0.5 * v[0] * v[0] + 9.81 * cos(q[0]);
  }
  template <class T>
  Vec<T, 1> generalized_force(const Vec<T, 1>&, const Vec<T, 1>& v, const Vec<T, 0>&, double t) const {
    return Vec<T, 1>(1.5 * std::cos(3.0 * t) - 0.2 * v[0]);
  }
};

static_assert(ForcedModel<DampedHarmonicOscillator> && HasRayleighDissipation<DampedHarmonicOscillator>);
static_assert(HasGeneralizedForces<DampedPendulum> && !HasRayleighDissipation<DampedPendulum>);
static_assert(!ForcedModel<systems::SphericalPendulum> && ForcedModel<DampedSphericalPendulum>);
static_assert(!ForcedDiscreteSystem<DiscreteSystem<systems::SphericalPendulum, MidpointRule>>);
static_assert(ForcedDiscreteSystem<DiscreteSystem<CartPole, TrapezoidRule>>);

// ---- the pieces -------------------------------------------------------------------------------

TEST(ForcedPieces, RayleighForceIsMinusTheVelocityGradient) {
  const DampedSphericalPendulum model;
  const VecD<3> q(0.6, 0.0, -0.8), v(0.3, -1.2, 0.5);
  const VecD<3> f = model_generalized_force<DampedSphericalPendulum, double>(model, q, v, Vec<double, 0>(), 0.0);
  EXPECT_LT((f + model.damping * v).norm(), 1e-15);
}

/// ∂f⁻/∂q_{k+1} by AD against central differences (the oracle), on the nonlinear thrust force.
template <class Rule>
void check_force_jacobian() {
  using S = DiscreteSystem<LowThrustSpacecraft, Rule>;
  const S system(LowThrustSpacecraft{});
  const VecD<2> q0(1.0, 0.1), q1(0.98, 0.2);
  const StepForcing<2> forcing{VecD<2>(0.3, -0.7), 0.4};
  const double h = 0.1;
  VecD<2> f_minus, f_plus;
  Mat<2, 2> jac;
  discrete_force_minus_and_jacobian(system, q0, q1, forcing, h, f_minus, jac);
  for (int j = 0; j < 2; ++j) {
    const double e = 1e-6;
    VecD<2> a = q1, b = q1, fa, fb, unused;
    a[j] += e;
    b[j] -= e;
    discrete_forces(system, q0, a, forcing, h, fa, unused);
    discrete_forces(system, q0, b, forcing, h, fb, unused);
    EXPECT_LT(((fa - fb) / (2 * e) - jac.col(j)).norm(), 1e-9) << Rule::kName;
  }
}

TEST(ForcedPieces, ForceJacobianMatchesFiniteDifferences) {
  check_force_jacobian<MidpointRule>();
  check_force_jacobian<TrapezoidRule>();
  check_force_jacobian<FirstOrderRule>();
}

TEST(ForcedPieces, DiscreteForcesAreTheRulesQuadratures) {
  // Damping −c q̇ and a torque u: all three rules reduce to closed forms at v = (q1 − q0)/h.
  const DampedPendulum model{.mass = 1.0, .length = 1.0, .gravity = 9.81, .damping = 0.3};
  const VecD<1> q0(0.2), q1(0.25), u(0.7);
  const double h = 0.1, t0 = 1.0, v = (q1[0] - q0[0]) / h, f = 0.7 - 0.3 * v;
  VecD<1> fm, fp;
  MidpointRule::discrete_forces(model, q0, q1, u, t0, h, fm, fp);
  EXPECT_DOUBLE_EQ(fm[0], 0.5 * h * f);
  EXPECT_DOUBLE_EQ(fp[0], 0.5 * h * f);
  TrapezoidRule::discrete_forces(model, q0, q1, u, t0, h, fm, fp);
  EXPECT_DOUBLE_EQ(fm[0], 0.5 * h * f);
  EXPECT_DOUBLE_EQ(fp[0], 0.5 * h * f);
  FirstOrderRule::discrete_forces(model, q0, q1, u, t0, h, fm, fp);
  EXPECT_EQ(fm[0], 0.0);
  EXPECT_DOUBLE_EQ(fp[0], h * f);
}

// ---- energy decay of the damped oscillator ---------------------------------------------------

/// Least-squares slope of log E against t over every step: the averaged decay rate, insensitive to
/// the oscillation of the energy within each period.
struct DecayFit {
  double st = 0, se = 0, stt = 0, ste = 0;
  long count = 0;
  void add(double t, double energy) {
    const double e = std::log(energy);
    st += t, se += e, stt += t * t, ste += t * e, ++count;
  }
  double rate() const { return -(count * ste - st * se) / (count * stt - st * st); }
};

constexpr double kZeta = 1e-4;  // light damping: e^{-12.6} of the energy left after 1e4 periods
constexpr long kPeriods = 10000;

DampedHarmonicOscillator light_damping() { return {.mass = 1.0, .stiffness = 1.0, .damping = 2.0 * kZeta}; }

template <class Rule>
double vi_decay_rate(int steps_per_period) {
  const auto model = light_damping();
  const double h = 2.0 * M_PI / model.damped_frequency() / steps_per_period;
  VariationalIntegrator integ(DiscreteSystem<DampedHarmonicOscillator, Rule>(model), h);
  integ.start_from_velocity(VecD<1>(1.0), VecD<1>(0.0));
  DecayFit fit;
  fit.add(0.0, integ.energy());
  for (long s = 0; s < kPeriods * steps_per_period; ++s) {
    integ.step();
    fit.add(integ.time(), integ.energy());
  }
  return fit.rate();
}

double rk4_decay_rate(int steps_per_period) {
  const auto model = light_damping();
  const double h = 2.0 * M_PI / model.damped_frequency() / steps_per_period;
  RungeKutta4Stepper<DampedHarmonicOscillator> rk(EulerLagrangeOde<DampedHarmonicOscillator>(model), h);
  rk.start_from_velocity(VecD<1>(1.0), VecD<1>(0.0));
  DecayFit fit;
  fit.add(0.0, rk.energy());
  for (long s = 0; s < kPeriods * steps_per_period; ++s) {
    rk.step();
    fit.add(rk.time(), rk.energy());
  }
  return fit.rate();
}

TEST(ForcedEnergyDecay, DampedOscillatorFollowsTheExactDecayRate) {
  const auto model = light_damping();
  const double exact = model.energy_decay_rate();  // c/m
  const double mid10 = vi_decay_rate<MidpointRule>(10) / exact - 1.0;
  const double mid20 = vi_decay_rate<MidpointRule>(20) / exact - 1.0;
  const double trap10 = vi_decay_rate<TrapezoidRule>(10) / exact - 1.0;
  const double rk10 = rk4_decay_rate(10) / exact - 1.0;
  std::printf("energy decay rate, relative error against c/m over %ld periods:\n"
              "  vi-midpoint  10 steps/period %.4e, 20 steps/period %.4e (ratio %.3f)\n"
              "  vi-trapezoid 10 steps/period %.4e\n  rk4          10 steps/period %.4e\n",
              kPeriods, mid10, mid20, mid10 / mid20, trap10, rk10);
  // Midpoint: the forced DEL equation of m q̈ + c q̇ + k q = 0 is its bilinear (Tustin) transform, whose
  // roots z = (1 + hs/2)/(1 − hs/2) decay at 2γ/(1 + (ω_d h/2)²) + O(γ³h²): the rate is low by
  // (ω_d h/2)²/(1 + (ω_d h/2)²), 9.0% at 10 steps per period, and second order in h.
  const double b2 = std::pow(M_PI / 10.0, 2);
  EXPECT_NEAR(mid10, -b2 / (1.0 + b2), 2e-3);
  EXPECT_LT(std::abs(mid10), b2);
  EXPECT_NEAR(std::log2(mid10 / mid20), 2.0, 0.2);
  // Trapezoid: the product of the roots is (1 − γh)/(1 + γh) whatever k is, so the decay rate is
  // exact up to O((γh)²) ≈ 1e-9; what is left is the fit's sensitivity to the O(h²) energy wobble.
  EXPECT_LT(std::abs(trap10), 1e-4);
  // RK4 adds its own dissipation, (ωh)⁶/72 per step, several times the physical one at ζ = 1e-4.
  EXPECT_GT(std::abs(rk10), 2.0 * std::abs(mid10));
}

// ---- forced Noether balance -----------------------------------------------------------------

template <class Integrator>
double worst_balance(Integrator& integ, long steps, double scale) {
  double worst = 0.0;
  for (long s = 0; s < steps; ++s) {
    integ.step();
    worst = std::max(worst, std::abs(integ.noether_balance(0)) / scale);
  }
  return worst;
}

/// Low-thrust spiral: tangential and radial thrust as functions of time, 20 orbits of period 2π.
template <class Rule>
void check_spacecraft_balance(DelForm form) {
  const double h = 2.0 * M_PI / 200.0;
  VariationalIntegrator integ(DiscreteSystem<LowThrustSpacecraft, Rule>(LowThrustSpacecraft{}), h, {}, form);
  integ.set_control_law([](double t) { return VecD<2>(2e-3 * std::cos(t), 1e-3 * (1.0 + 0.5 * std::sin(0.3 * t))); });
  integ.start_from_velocity(VecD<2>(1.0, 0.0), VecD<2>(0.0, 1.0));
  const double j0 = integ.momentum(0);
  const double worst = worst_balance(integ, 4000, std::abs(j0));
  std::printf("%-15s %s form: |J - J0 - W|/|J0| <= %.2e over 4000 steps, J changed by %.4f (work %.4f)\n",
              std::string(Rule::kName).c_str(), form == DelForm::kMomentum ? "momentum" : "position", worst,
              integ.momentum(0) - j0, integ.discrete_work(0));
  EXPECT_LE(worst, 1e-12);
  // The balance is not vacuous: the thrust changed the angular momentum by far more than round-off.
  EXPECT_GT(std::abs(integ.discrete_work(0)), 0.05);
}

TEST(ForcedNoether, SpacecraftAngularMomentumChangesByTheDiscreteWork) {
  for (DelForm form : {DelForm::kMomentum, DelForm::kPosition}) {
    check_spacecraft_balance<MidpointRule>(form);
    check_spacecraft_balance<TrapezoidRule>(form);
    check_spacecraft_balance<FirstOrderRule>(form);
  }
}

/// Constrained: the damped Cartesian spherical pendulum, J_z against the drag's discrete work.
template <class Rule>
void check_spherical_balance(DelForm form) {
  VariationalIntegrator integ(DiscreteSystem<DampedSphericalPendulum, Rule>(DampedSphericalPendulum{}), 0.01, {},
                              form);
  integ.start_from_velocity(VecD<3>(0.6, 0.0, -0.8), VecD<3>(0.0, 1.0, 0.0));
  const double j0 = integ.momentum(0);
  double worst = 0.0, worst_g = 0.0;
  for (long s = 0; s < 20000; ++s) {
    integ.step();
    worst = std::max(worst, std::abs(integ.noether_balance(0)) / std::abs(j0));
    worst_g = std::max(worst_g, std::abs(integ.constraint_residual()[0]));
  }
  std::printf("%-15s %s form: |Jz - Jz0 - W|/|Jz0| <= %.2e, |g| <= %.1e over 20000 steps, Jz %.4f -> %.4f\n",
              std::string(Rule::kName).c_str(), form == DelForm::kMomentum ? "momentum" : "position", worst, worst_g,
              j0, integ.momentum(0));
  EXPECT_LE(worst, 1e-12);
  EXPECT_LE(worst_g, 1e-12);
  // Linear drag on the bob is the only torque about z: J_z(t) = J_z(0) e^{−ct/m} exactly (c = 0.01, t = 200).
  EXPECT_NEAR(integ.momentum(0) / j0 / std::exp(-0.01 * 200.0) - 1.0, 0.0, 1e-3);
}

TEST(ForcedNoether, DampedSphericalPendulumJzWithConstraint) {
  for (DelForm form : {DelForm::kMomentum, DelForm::kPosition}) {
    check_spherical_balance<MidpointRule>(form);
    check_spherical_balance<TrapezoidRule>(form);
  }
}

TEST(ForcedNoether, OtherStartsAndBothFormsAgree) {
  // From two points, the forced momentum and position forms are the same recurrence; the source
  // procedure's start (fine steps under the same control law) also closes the balance.
  using S = DiscreteSystem<LowThrustSpacecraft, TrapezoidRule>;
  const auto law = [](double t) { return VecD<2>(2e-3 * std::cos(t), 1e-3); };
  const double h = 2.0 * M_PI / 200.0;
  const VecD<2> q_prev(std::cos(-h), std::sin(-h)), q0(1.0, 0.0);
  VariationalIntegrator momentum_form(S(LowThrustSpacecraft{}), h, {}, DelForm::kMomentum);
  VariationalIntegrator position_form(S(LowThrustSpacecraft{}), h, {}, DelForm::kPosition);
  VariationalIntegrator source_start(S(LowThrustSpacecraft{}), h, {}, DelForm::kMomentum);
  for (auto* integ : {&momentum_form, &position_form, &source_start}) integ->set_control_law(law);
  momentum_form.start_from_two_points(q_prev, q0);
  position_form.start_from_two_points(q_prev, q0);
  source_start.start_source_procedure(q0, VecD<2>(0.0, 1.0), h / 4.0);
  for (int s = 0; s < 2000; ++s) {
    momentum_form.step();
    position_form.step();
    source_start.step();
  }
  EXPECT_LT((momentum_form.q() - position_form.q()).norm(), 1e-11);
  EXPECT_LT((momentum_form.p() - position_form.p()).norm(), 1e-11);
  for (auto* integ : {&momentum_form, &position_form, &source_start}) {
    EXPECT_LT(std::abs(integ->noether_balance(0)), 1e-12);
    EXPECT_GT(std::abs(integ->discrete_work(0)), 0.05);
  }
}

TEST(ForcedNoether, CartMomentumChangesByTheImpulseOfTheForce) {
  // ξ = (1, 0) and f = (u, 0): the midpoint's work per step is (h/2)u + (h/2)u = h u exactly.
  const double h = 0.01;
  VariationalIntegrator integ(DiscreteSystem<CartPole, MidpointRule>(CartPole{}), h);
  integ.start_from_velocity(VecD<2>(0.0, 0.3), VecD<2>(0.0, 0.0));
  const double p0 = integ.momentum(0);
  double impulse = 0.0;
  for (int s = 0; s < 1000; ++s) {
    const double u = 2.0 * std::sin(0.01 * s);
    integ.set_control(VecD<1>(u));
    integ.step();
    impulse += h * u;
    EXPECT_NEAR(integ.discrete_work(0), impulse, 1e-13);
  }
  EXPECT_NEAR(integ.momentum(0) - p0, impulse, 1e-12);
  EXPECT_NEAR(integ.noether_balance(0), 0.0, 1e-12);
}

// ---- order of convergence against rk78 ------------------------------------------------------

/// Final-time position error of the forced VI at h against rk78 (rtol = atol = 1e-13) on the forced
/// Euler–Lagrange ODE, for the model under the control law u(t).
template <class Rule, class Model, class Law>
std::vector<double> convergence_errors(const Model& model, Law law, const VecD<Model::kDim>& q0,
                                       const VecD<Model::kDim>& v0, double t_end, std::vector<double> steps) {
  using Ode = EulerLagrangeOde<Model>;
  typename Ode::State x = Ode::pack(q0, v0);
  integrate_runge_kutta(Ode(model, law), RungeKuttaMethod::kRk78, x, 0.0, 1e-3, t_end, 1,
                        RungeKuttaTolerances{1e-13, 1e-13}, [](const auto&, double) {});
  const VecD<Model::kDim> q_ref = Ode::position(x);
  std::vector<double> errors;
  for (double h : steps) {
    VariationalIntegrator integ(DiscreteSystem<Model, Rule>(model), h);
    if constexpr (Model::kNumControls > 0) integ.set_control_law(law);
    integ.start_from_velocity(q0, v0);
    const long n = std::lround(t_end / h);
    for (long s = 0; s < n; ++s) integ.step();
    errors.push_back((integ.q() - q_ref).norm());
  }
  return errors;
}

template <class Rule, class Model, class Law>
void check_order(const char* what, const Model& model, Law law, const VecD<Model::kDim>& q0,
                 const VecD<Model::kDim>& v0, double expected_order) {
  const std::vector<double> e = convergence_errors<Rule>(model, law, q0, v0, 5.0, {0.05, 0.025, 0.0125, 0.00625});
  std::printf("%-15s %-36s errors %.3e %.3e %.3e %.3e, log2 ratios %.3f %.3f %.3f\n",
              std::string(Rule::kName).c_str(), what, e[0], e[1], e[2], e[3], std::log2(e[0] / e[1]),
              std::log2(e[1] / e[2]), std::log2(e[2] / e[3]));
  for (int i = 0; i + 1 < 4; ++i) EXPECT_NEAR(std::log2(e[i] / e[i + 1]), expected_order, 0.2) << what << " " << i;
}

TEST(ForcedConvergence, SecondOrderWithAControlLawAndATimeDependentForce) {
  const DampedPendulum pendulum{.mass = 1.0, .length = 1.0, .gravity = 9.81, .damping = 0.1};
  const auto torque = [](double t) { return VecD<1>(0.8 * std::sin(2.0 * t)); };
  check_order<MidpointRule>("damped pendulum, torque u(t)", pendulum, torque, VecD<1>(1.0), VecD<1>(0.0), 2.0);
  check_order<TrapezoidRule>("damped pendulum, torque u(t)", pendulum, torque, VecD<1>(1.0), VecD<1>(0.0), 2.0);
  check_order<FirstOrderRule>("damped pendulum, torque u(t)", pendulum, torque, VecD<1>(1.0), VecD<1>(0.0), 1.0);
  const auto none = [](double) { return Vec<double, 0>(); };
  check_order<MidpointRule>("pendulum, force f(q, v, t)", DrivenPendulum{}, none, VecD<1>(0.5), VecD<1>(0.0), 2.0);
  check_order<TrapezoidRule>("pendulum, force f(q, v, t)", DrivenPendulum{}, none, VecD<1>(0.5), VecD<1>(0.0), 2.0);
  const auto thrust = [](double t) { return VecD<2>(0.05 * std::cos(t), 0.1 * std::sin(0.5 * t)); };
  check_order<MidpointRule>("spacecraft, thrust u(t)", LowThrustSpacecraft{}, thrust, VecD<2>(1.0, 0.0),
                            VecD<2>(0.0, 1.1), 2.0);
  check_order<TrapezoidRule>("spacecraft, thrust u(t)", LowThrustSpacecraft{}, thrust, VecD<2>(1.0, 0.0),
                             VecD<2>(0.0, 1.1), 2.0);
}

TEST(ForcedConvergence, DampedOscillatorAgainstItsClosedForm) {
  // Strong damping (ζ = 0.125), Rayleigh force: both second-order rules against q(t) in closed form.
  const DampedHarmonicOscillator model{.mass = 1.0, .stiffness = 4.0, .damping = 0.5};
  const auto error = [&]<class Rule>(double h) {
    VariationalIntegrator integ(DiscreteSystem<DampedHarmonicOscillator, Rule>(model), h);
    integ.start_from_velocity(VecD<1>(1.0), VecD<1>(0.0));
    for (long s = 0, n = std::lround(4.0 / h); s < n; ++s) integ.step();
    return std::abs(integ.q()[0] - model.exact_position(1.0, 0.0, 4.0));
  };
  for (double h : {0.04, 0.02, 0.01}) {
    const double mid = std::log2(error.template operator()<MidpointRule>(h) / error.template operator()<MidpointRule>(h / 2));
    const double trap =
        std::log2(error.template operator()<TrapezoidRule>(h) / error.template operator()<TrapezoidRule>(h / 2));
    std::printf("damped oscillator closed form, h = %.3f -> h/2: log2 ratios midpoint %.3f, trapezoid %.3f\n", h, mid,
                trap);
    EXPECT_NEAR(mid, 2.0, 0.2) << h;
    EXPECT_NEAR(trap, 2.0, 0.2) << h;
  }
}

}  // namespace
}  // namespace mechint
