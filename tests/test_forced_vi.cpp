// Forced variational integrators (discrete Lagrange–d'Alembert principle, docs/forces.md) on the
// kernel engine: the models' AD kernels (kernel/model_adapter.hpp; the built-ins' as their runs use
// them) under the kernel variational integrator, with the rules' discrete forces and the Runge–Kutta
// baselines on the same kernels. Checked against independent references: the exact energy decay rate
// c/m of the damped oscillator, the forced Noether theorem, and Runge–Kutta–Fehlberg 7(8) at tight
// tolerance on the forced Euler–Lagrange ODE.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "kernel/builtin_model_kernels.hpp"  // the built-ins' kernels, linked to (this file's own: made here)
#include "kernel/discrete_rules.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "mechint/systems/cart_pole.hpp"
#include "mechint/systems/damped_harmonic_oscillator.hpp"
#include "mechint/systems/damped_pendulum.hpp"
#include "mechint/systems/low_thrust_spacecraft.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using kernel::ControlLaw;
using kernel::KernelModel;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::RowMatrix;
using kernel::Vector;
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

// What the model layer declares, on which the AD backend bases a model's force kernels (the
// concepts of model/forces.hpp and of the fixed-size discrete systems; checked at compile time).
static_assert(ForcedModel<DampedHarmonicOscillator> && HasRayleighDissipation<DampedHarmonicOscillator>);
static_assert(HasGeneralizedForces<DampedPendulum> && !HasRayleighDissipation<DampedPendulum>);
static_assert(!ForcedModel<systems::SphericalPendulum> && ForcedModel<DampedSphericalPendulum>);
static_assert(!ForcedDiscreteSystem<DiscreteSystem<systems::SphericalPendulum, MidpointRule>>);
static_assert(ForcedDiscreteSystem<DiscreteSystem<CartPole, TrapezoidRule>>);

/// The kernels a run of a built-in integrates on (compiled in its system's source).
template <class Model>
std::shared_ptr<const KernelModel> kernels_of(const Model& model) {
  return kernel::ModelAdapter<Model>::kernels_for_runs(model);
}

/// The kernels of this file's own models, instantiated here: L's and the forces' alone, the rules
/// composed from them by the methods (kernel/discrete_rules.hpp) — half the compile time of
/// kernels_for_runs' nested AD of each rule, and the other path of the rules beside the built-ins'
/// supplied ones.
template <class Model>
std::shared_ptr<const KernelModel> own_kernels(const Model& model) {
  return kernel::ModelAdapter<Model>::kernels(model);
}

const char* name_of(Rule rule) {
  switch (rule) {
    case Rule::kMidpoint: return "vi-midpoint";
    case Rule::kTrapezoid: return "vi-trapezoid";
    case Rule::kFirstOrder: return "vi-first-order";
  }
  return "?";
}

// ---- the pieces -------------------------------------------------------------------------------

TEST(ForcedPieces, KernelsAreForcedExactlyWhereTheModelIs) {
  EXPECT_TRUE(own_kernels(DampedSphericalPendulum{})->forced());
  EXPECT_FALSE(kernels_of(systems::SphericalPendulum{})->forced());
  EXPECT_TRUE(kernels_of(DampedHarmonicOscillator{})->forced());
  EXPECT_EQ(kernels_of(CartPole{})->num_controls(), 1);
}

TEST(ForcedPieces, RayleighForceIsMinusTheVelocityGradient) {
  const DampedSphericalPendulum model;
  const auto kernels = own_kernels(model);
  const Vector q = VecD<3>(0.6, 0.0, -0.8), v = VecD<3>(0.3, -1.2, 0.5);
  Vector f(3);
  ASSERT_TRUE(kernels->forces(q, v, Vector(0), 0.0, f, nullptr, nullptr));
  EXPECT_LT((f + model.damping * v).norm(), 1e-15);
}

/// ∂f⁻/∂q_{k+1} by AD against central differences (the oracle), on the nonlinear thrust force.
void check_force_jacobian(Rule rule) {
  const auto kernels = kernels_of(LowThrustSpacecraft{});
  kernel::DiscreteRule discrete(*kernels, rule);
  const Vector q0 = VecD<2>(1.0, 0.1), q1 = VecD<2>(0.98, 0.2), u = VecD<2>(0.3, -0.7);
  const double t0 = 0.4, h = 0.1;
  Vector f_minus(2), f_plus(2);
  RowMatrix jac(2, 2);
  ASSERT_TRUE(discrete.forces(q0, q1, u, t0, h, f_minus, f_plus, &jac));
  for (int j = 0; j < 2; ++j) {
    const double e = 1e-6;
    Vector a = q1, b = q1, fa(2), fb(2), unused(2);
    a[j] += e;
    b[j] -= e;
    ASSERT_TRUE(discrete.forces(q0, a, u, t0, h, fa, unused, nullptr));
    ASSERT_TRUE(discrete.forces(q0, b, u, t0, h, fb, unused, nullptr));
    EXPECT_LT(((fa - fb) / (2 * e) - jac.col(j)).norm(), 1e-9) << name_of(rule);
  }
}

TEST(ForcedPieces, ForceJacobianMatchesFiniteDifferences) {
  check_force_jacobian(Rule::kMidpoint);
  check_force_jacobian(Rule::kTrapezoid);
  check_force_jacobian(Rule::kFirstOrder);
}

TEST(ForcedPieces, DiscreteForcesAreTheRulesQuadratures) {
  // Damping −c q̇ and a torque u: all three rules reduce to closed forms at v = (q1 − q0)/h.
  const auto kernels = kernels_of(DampedPendulum{.mass = 1.0, .length = 1.0, .gravity = 9.81, .damping = 0.3});
  const Vector q0 = Vector::Constant(1, 0.2), q1 = Vector::Constant(1, 0.25), u = Vector::Constant(1, 0.7);
  const double h = 0.1, t0 = 1.0, v = (q1[0] - q0[0]) / h, f = 0.7 - 0.3 * v;
  Vector fm(1), fp(1);
  const auto forces = [&](Rule rule) {
    kernel::DiscreteRule discrete(*kernels, rule);
    ASSERT_TRUE(discrete.forces(q0, q1, u, t0, h, fm, fp, nullptr)) << name_of(rule);
  };
  forces(Rule::kMidpoint);
  EXPECT_DOUBLE_EQ(fm[0], 0.5 * h * f);
  EXPECT_DOUBLE_EQ(fp[0], 0.5 * h * f);
  forces(Rule::kTrapezoid);
  EXPECT_DOUBLE_EQ(fm[0], 0.5 * h * f);
  EXPECT_DOUBLE_EQ(fp[0], 0.5 * h * f);
  forces(Rule::kFirstOrder);
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

double vi_decay_rate(Rule rule, int steps_per_period) {
  const auto model = light_damping();
  const auto kernels = kernels_of(model);
  const double h = 2.0 * M_PI / model.damped_frequency() / steps_per_period;
  KernelVariationalIntegrator integ(*kernels, rule, h);
  integ.start_from_velocity(Vector::Constant(1, 1.0), Vector::Constant(1, 0.0));
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
  const auto kernels = kernels_of(model);
  const double h = 2.0 * M_PI / model.damped_frequency() / steps_per_period;
  kernel::KernelRk4 rk(kernel::KernelEulerLagrangeOde(*kernels, nullptr), h);
  rk.start_from_velocity(Vector::Constant(1, 1.0), Vector::Constant(1, 0.0));
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
  const double mid10 = vi_decay_rate(Rule::kMidpoint, 10) / exact - 1.0;
  const double mid20 = vi_decay_rate(Rule::kMidpoint, 20) / exact - 1.0;
  const double trap10 = vi_decay_rate(Rule::kTrapezoid, 10) / exact - 1.0;
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

/// J_0, from which the integrator counts its forced Noether balance J − J_0 − W (read right after
/// the start): ⟨p_0, ξ(q_0)⟩ for the momentum p_0 its first step starts from. In momentum form that
/// is p() of the start; in position form it is the discrete momentum D2 Ld(q_{−1}, q_0) + f⁺ of the
/// start's two points (after a start from the velocity, q_{−1} = q_0 − h q̇_0, whose p() before the
/// first step is the Legendre transform of q̇_0 instead), the controls of the step before the start
/// sampled at its midpoint.
double balance_origin(const KernelVariationalIntegrator& integ, Rule rule, DelForm form, const ControlLaw& law) {
  if (form == DelForm::kMomentum) return integ.momentum(0);
  const KernelModel& model = integ.model();
  const int n = model.dim();
  const double h = integ.step_size(), t = integ.time();
  kernel::DiscreteRule discrete(model, rule);
  Vector p(n), f_minus(n), f_plus(n), xi(n), u = Vector::Zero(model.num_controls());
  if (law) law(t - 0.5 * h, u);
  EXPECT_TRUE(discrete.d2(integ.q_previous(), integ.q(), h, p));
  if (model.forced()) {
    EXPECT_TRUE(discrete.forces(integ.q_previous(), integ.q(), u, t - h, h, f_minus, f_plus, nullptr));
    p += f_plus;
  }
  EXPECT_TRUE(model.symmetry(0, integ.q(), xi));
  return p.dot(xi);
}

/// J − J_0 − W: zero by the forced Noether theorem.
double noether_balance(const KernelVariationalIntegrator& integ, double j_start) {
  return integ.momentum(0) - j_start - integ.discrete_work(0);
}

double worst_balance(KernelVariationalIntegrator& integ, double j_start, long steps, double scale) {
  double worst = 0.0;
  for (long s = 0; s < steps; ++s) {
    integ.step();
    worst = std::max(worst, std::abs(noether_balance(integ, j_start)) / scale);
  }
  return worst;
}

/// Low-thrust spiral: tangential and radial thrust as functions of time, 20 orbits of period 2π.
void check_spacecraft_balance(Rule rule, DelForm form) {
  const auto kernels = kernels_of(LowThrustSpacecraft{});
  const double h = 2.0 * M_PI / 200.0;
  KernelVariationalIntegrator integ(*kernels, rule, h, {}, form);
  const ControlLaw law = [](double t, Vector& u) {
    u[0] = 2e-3 * std::cos(t);
    u[1] = 1e-3 * (1.0 + 0.5 * std::sin(0.3 * t));
  };
  integ.set_control_law(law);
  integ.start_from_velocity(VecD<2>(1.0, 0.0), VecD<2>(0.0, 1.0));
  const double j0 = integ.momentum(0), j_start = balance_origin(integ, rule, form, law);
  const double worst = worst_balance(integ, j_start, 4000, std::abs(j0));
  std::printf("%-15s %s form: |J - J0 - W|/|J0| <= %.2e over 4000 steps, J changed by %.4f (work %.4f)\n",
              name_of(rule), form == DelForm::kMomentum ? "momentum" : "position", worst, integ.momentum(0) - j0,
              integ.discrete_work(0));
  EXPECT_LE(worst, 1e-12);
  // The balance is not vacuous: the thrust changed the angular momentum by far more than round-off.
  EXPECT_GT(std::abs(integ.discrete_work(0)), 0.05);
}

TEST(ForcedNoether, SpacecraftAngularMomentumChangesByTheDiscreteWork) {
  for (DelForm form : {DelForm::kMomentum, DelForm::kPosition}) {
    check_spacecraft_balance(Rule::kMidpoint, form);
    check_spacecraft_balance(Rule::kTrapezoid, form);
    check_spacecraft_balance(Rule::kFirstOrder, form);
  }
}

/// Constrained: the damped Cartesian spherical pendulum, J_z against the drag's discrete work.
void check_spherical_balance(Rule rule, DelForm form) {
  const auto kernels = own_kernels(DampedSphericalPendulum{});
  KernelVariationalIntegrator integ(*kernels, rule, 0.01, {}, form);
  integ.start_from_velocity(VecD<3>(0.6, 0.0, -0.8), VecD<3>(0.0, 1.0, 0.0));
  const double j0 = integ.momentum(0), j_start = balance_origin(integ, rule, form, nullptr);
  double worst = 0.0, worst_g = 0.0;
  for (long s = 0; s < 20000; ++s) {
    integ.step();
    worst = std::max(worst, std::abs(noether_balance(integ, j_start)) / std::abs(j0));
    worst_g = std::max(worst_g, std::abs(integ.constraint_residual()[0]));
  }
  std::printf("%-15s %s form: |Jz - Jz0 - W|/|Jz0| <= %.2e, |g| <= %.1e over 20000 steps, Jz %.4f -> %.4f\n",
              name_of(rule), form == DelForm::kMomentum ? "momentum" : "position", worst, worst_g, j0,
              integ.momentum(0));
  EXPECT_LE(worst, 1e-12);
  EXPECT_LE(worst_g, 1e-12);
  // Linear drag on the bob is the only torque about z: J_z(t) = J_z(0) e^{−ct/m} exactly (c = 0.01, t = 200).
  EXPECT_NEAR(integ.momentum(0) / j0 / std::exp(-0.01 * 200.0) - 1.0, 0.0, 1e-3);
}

TEST(ForcedNoether, DampedSphericalPendulumJzWithConstraint) {
  for (DelForm form : {DelForm::kMomentum, DelForm::kPosition}) {
    check_spherical_balance(Rule::kMidpoint, form);
    check_spherical_balance(Rule::kTrapezoid, form);
  }
}

TEST(ForcedNoether, OtherStartsAndBothFormsAgree) {
  // From two points, the forced momentum and position forms are the same recurrence; the source
  // procedure's start (fine steps under the same control law) also closes the balance.
  const auto kernels = kernels_of(LowThrustSpacecraft{});
  const ControlLaw law = [](double t, Vector& u) {
    u[0] = 2e-3 * std::cos(t);
    u[1] = 1e-3;
  };
  const double h = 2.0 * M_PI / 200.0;
  const Vector q_prev = VecD<2>(std::cos(-h), std::sin(-h)), q0 = VecD<2>(1.0, 0.0);
  KernelVariationalIntegrator momentum_form(*kernels, Rule::kTrapezoid, h, {}, DelForm::kMomentum);
  KernelVariationalIntegrator position_form(*kernels, Rule::kTrapezoid, h, {}, DelForm::kPosition);
  KernelVariationalIntegrator source_start(*kernels, Rule::kTrapezoid, h, {}, DelForm::kMomentum);
  for (auto* integ : {&momentum_form, &position_form, &source_start}) integ->set_control_law(law);
  momentum_form.start_from_two_points(q_prev, q0);
  position_form.start_from_two_points(q_prev, q0);
  source_start.start_source_procedure(q0, VecD<2>(0.0, 1.0), h / 4.0);
  const double j_momentum = balance_origin(momentum_form, Rule::kTrapezoid, DelForm::kMomentum, law);
  const double j_position = balance_origin(position_form, Rule::kTrapezoid, DelForm::kPosition, law);
  const double j_source = balance_origin(source_start, Rule::kTrapezoid, DelForm::kMomentum, law);
  for (int s = 0; s < 2000; ++s) {
    momentum_form.step();
    position_form.step();
    source_start.step();
  }
  EXPECT_LT((momentum_form.q() - position_form.q()).norm(), 1e-11);
  EXPECT_LT((momentum_form.p() - position_form.p()).norm(), 1e-11);
  for (auto [integ, j_start] : {std::pair{&momentum_form, j_momentum}, std::pair{&position_form, j_position},
                                std::pair{&source_start, j_source}}) {
    EXPECT_LT(std::abs(noether_balance(*integ, j_start)), 1e-12);
    EXPECT_GT(std::abs(integ->discrete_work(0)), 0.05);
  }
}

TEST(ForcedNoether, CartMomentumChangesByTheImpulseOfTheForce) {
  // ξ = (1, 0) and f = (u, 0): the midpoint's work per step is (h/2)u + (h/2)u = h u exactly.
  const auto kernels = kernels_of(CartPole{});
  const double h = 0.01;
  KernelVariationalIntegrator integ(*kernels, Rule::kMidpoint, h);
  integ.start_from_velocity(VecD<2>(0.0, 0.3), VecD<2>(0.0, 0.0));
  const double p0 = integ.momentum(0);
  double impulse = 0.0;
  for (int s = 0; s < 1000; ++s) {
    const double u = 2.0 * std::sin(0.01 * s);
    integ.set_control(Vector::Constant(1, u));
    integ.step();
    impulse += h * u;
    EXPECT_NEAR(integ.discrete_work(0), impulse, 1e-13);
  }
  EXPECT_NEAR(integ.momentum(0) - p0, impulse, 1e-12);
  EXPECT_NEAR(noether_balance(integ, p0), 0.0, 1e-12);
}

// ---- order of convergence against rk78 ------------------------------------------------------

/// Final-time position error of the forced VI at h against rk78 (rtol = atol = 1e-13) on the forced
/// Euler–Lagrange ODE of the same kernels, under the control law u(t) (none: null).
std::vector<double> convergence_errors(Rule rule, const KernelModel& kernels, const ControlLaw& law,
                                       const Vector& q0, const Vector& v0, double t_end, std::vector<double> steps) {
  kernel::KernelRk78 reference(kernel::KernelEulerLagrangeOde(kernels, law), 1e-3, RungeKuttaTolerances{1e-13, 1e-13});
  reference.start_from_velocity(q0, v0);
  while (reference.time() < t_end) reference.step_toward(t_end);
  const Vector q_ref = reference.q();
  std::vector<double> errors;
  for (double h : steps) {
    KernelVariationalIntegrator integ(kernels, rule, h);
    if (law) integ.set_control_law(law);
    integ.start_from_velocity(q0, v0);
    const long n = std::lround(t_end / h);
    for (long s = 0; s < n; ++s) integ.step();
    errors.push_back((integ.q() - q_ref).norm());
  }
  return errors;
}

void check_order(Rule rule, const char* what, const KernelModel& kernels, const ControlLaw& law, const Vector& q0,
                 const Vector& v0, double expected_order) {
  const std::vector<double> e = convergence_errors(rule, kernels, law, q0, v0, 5.0, {0.05, 0.025, 0.0125, 0.00625});
  std::printf("%-15s %-36s errors %.3e %.3e %.3e %.3e, log2 ratios %.3f %.3f %.3f\n", name_of(rule), what, e[0],
              e[1], e[2], e[3], std::log2(e[0] / e[1]), std::log2(e[1] / e[2]), std::log2(e[2] / e[3]));
  for (int i = 0; i + 1 < 4; ++i) EXPECT_NEAR(std::log2(e[i] / e[i + 1]), expected_order, 0.2) << what << " " << i;
}

TEST(ForcedConvergence, SecondOrderWithAControlLawAndATimeDependentForce) {
  const auto pendulum = kernels_of(DampedPendulum{.mass = 1.0, .length = 1.0, .gravity = 9.81, .damping = 0.1});
  const ControlLaw torque = [](double t, Vector& u) { u[0] = 0.8 * std::sin(2.0 * t); };
  const Vector one = Vector::Constant(1, 1.0), half = Vector::Constant(1, 0.5), rest = Vector::Zero(1);
  check_order(Rule::kMidpoint, "damped pendulum, torque u(t)", *pendulum, torque, one, rest, 2.0);
  check_order(Rule::kTrapezoid, "damped pendulum, torque u(t)", *pendulum, torque, one, rest, 2.0);
  check_order(Rule::kFirstOrder, "damped pendulum, torque u(t)", *pendulum, torque, one, rest, 1.0);
  const auto driven = own_kernels(DrivenPendulum{});
  check_order(Rule::kMidpoint, "pendulum, force f(q, v, t)", *driven, nullptr, half, rest, 2.0);
  check_order(Rule::kTrapezoid, "pendulum, force f(q, v, t)", *driven, nullptr, half, rest, 2.0);
  const auto spacecraft = kernels_of(LowThrustSpacecraft{});
  const ControlLaw thrust = [](double t, Vector& u) {
    u[0] = 0.05 * std::cos(t);
    u[1] = 0.1 * std::sin(0.5 * t);
  };
  check_order(Rule::kMidpoint, "spacecraft, thrust u(t)", *spacecraft, thrust, VecD<2>(1.0, 0.0),
              VecD<2>(0.0, 1.1), 2.0);
  check_order(Rule::kTrapezoid, "spacecraft, thrust u(t)", *spacecraft, thrust, VecD<2>(1.0, 0.0),
              VecD<2>(0.0, 1.1), 2.0);
}

TEST(ForcedConvergence, DampedOscillatorAgainstItsClosedForm) {
  // Strong damping (ζ = 0.125), Rayleigh force: both second-order rules against q(t) in closed form.
  const DampedHarmonicOscillator model{.mass = 1.0, .stiffness = 4.0, .damping = 0.5};
  const auto kernels = kernels_of(model);
  const auto error = [&](Rule rule, double h) {
    KernelVariationalIntegrator integ(*kernels, rule, h);
    integ.start_from_velocity(Vector::Constant(1, 1.0), Vector::Constant(1, 0.0));
    for (long s = 0, n = std::lround(4.0 / h); s < n; ++s) integ.step();
    return std::abs(integ.q()[0] - model.exact_position(1.0, 0.0, 4.0));
  };
  for (double h : {0.04, 0.02, 0.01}) {
    const double mid = std::log2(error(Rule::kMidpoint, h) / error(Rule::kMidpoint, h / 2));
    const double trap = std::log2(error(Rule::kTrapezoid, h) / error(Rule::kTrapezoid, h / 2));
    std::printf("damped oscillator closed form, h = %.3f -> h/2: log2 ratios midpoint %.3f, trapezoid %.3f\n", h, mid,
                trap);
    EXPECT_NEAR(mid, 2.0, 0.2) << h;
    EXPECT_NEAR(trap, 2.0, 0.2) << h;
  }
}

}  // namespace
}  // namespace mechint
