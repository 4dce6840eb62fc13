// A model that supplies the variational rules' discrete derivatives itself (model_kernels.h,
// `discrete_rules`): the built-ins' AD discrete Lagrangians (kernel::ModelAdapter<M>::
// kernels_with_discrete_rules) against the same rules composed by the methods from L's derivatives
// (kernel/discrete_rules.hpp) — two formulations, a jet of jets over (q0, q1) against the Hessian of L
// over (q, v) — and the dispatch: what a model supplies is what the methods take. The kernel
// integrator's steps on both tables are Kepler's midpoint step in closed form, and a forced short
// model's steps follow on both tables, or are the damped oscillator's discrete flow in closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <random>

#include <Eigen/LU>

#include "kernel/discrete_rules.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/core/autodiff.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/linear_algebra.hpp"
#include "mechint/model/forces.hpp"
#include "mechint/solve/newton_options.hpp"
#include "mechint/systems/acrobot.hpp"
#include "mechint/systems/damped_harmonic_oscillator.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/low_thrust_spacecraft.hpp"
#include "mechint/systems/rigid_body.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint {
namespace {

using kernel::DiscreteRule;
using kernel::KernelModel;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::RowMatrix;
using kernel::Vector;

constexpr Rule kRules[] = {Rule::kMidpoint, Rule::kTrapezoid, Rule::kFirstOrder};

double scaled_difference(const Eigen::MatrixXd& got, const Eigen::MatrixXd& expected) {
  return (got - expected).norm() / (1.0 + expected.norm());
}

/// D1, D2, D12 Ld and, for a forced model, f⁻, f⁺, ∂f⁻/∂q1 of every rule at random nearby (q0, q1):
/// supplied by the model's AD discrete Lagrangian, and composed from L's derivatives.
template <class M>
void expect_supplied_rules_match_composed(const M& model, const VecD<M::kDim>& centre, double spread,
                                          std::mt19937& random) {
  constexpr int n = M::kDim;
  const auto supplied = kernel::ModelAdapter<M>::kernels_with_discrete_rules(model);
  const auto composed = kernel::ModelAdapter<M>::kernels(model);
  ASSERT_TRUE(supplied->supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  ASSERT_FALSE(composed->supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  std::uniform_real_distribution<double> offset(-spread, spread), velocity(-1.0, 1.0);
  const double h = 0.03;
  for (int trial = 0; trial < 4; ++trial) {
    Vector q0(n), q1(n), u(composed->num_controls());
    for (int i = 0; i < n; ++i) q0[i] = centre[i] + offset(random), q1[i] = q0[i] + h * velocity(random);
    for (int i = 0; i < u.size(); ++i) u[i] = velocity(random);
    for (Rule rule : kRules) {
      DiscreteRule a(*supplied, rule), b(*composed, rule);
      Vector d1_a(n), d1_b(n), d2_a(n), d2_b(n);
      RowMatrix d12_a(n, n), d12_b(n, n);
      ASSERT_TRUE(a.d1(q0, q1, h, d1_a, &d12_a) && b.d1(q0, q1, h, d1_b, &d12_b));
      ASSERT_TRUE(a.d2(q0, q1, h, d2_a) && b.d2(q0, q1, h, d2_b));
      const std::string where = "rule " + std::to_string(static_cast<int>(rule)) + ", trial " + std::to_string(trial);
      EXPECT_LT(scaled_difference(d1_a, d1_b), 1e-12) << where;
      EXPECT_LT(scaled_difference(d2_a, d2_b), 1e-12) << where;
      EXPECT_LT(scaled_difference(d12_a, d12_b), 1e-12) << where;
      // D1 without D12 (the confirmation's half steps, the position form) is the same D1.
      Vector d1_alone(n);
      ASSERT_TRUE(a.d1(q0, q1, h, d1_alone, nullptr));
      EXPECT_LT(scaled_difference(d1_alone, d1_a), 1e-15) << where;
      if (composed->forced()) {
        Vector fm_a(n), fp_a(n), fm_b(n), fp_b(n);
        RowMatrix dfm_a(n, n), dfm_b(n, n);
        ASSERT_TRUE(a.forces(q0, q1, u, 0.4, h, fm_a, fp_a, &dfm_a) && b.forces(q0, q1, u, 0.4, h, fm_b, fp_b, &dfm_b));
        EXPECT_LT(scaled_difference(fm_a, fm_b), 1e-13) << where;
        EXPECT_LT(scaled_difference(fp_a, fp_b), 1e-13) << where;
        EXPECT_LT(scaled_difference(dfm_a, dfm_b), 1e-13) << where;
        EXPECT_GT(fm_b.norm() + fp_b.norm(), 1e-6) << where;  // the forces are not zero here
      }
    }
  }
}

TEST(DiscreteKernels, SuppliedRulesMatchThoseComposedFromTheLagrangian) {
  std::mt19937 random(20261128);
  // Kepler's hand-shortened first-order jet, the rotating frame's gyroscopic terms, a forced model
  // with a control and a q-dependent mass matrix, Rayleigh dissipation, constraints in 6 coordinates.
  expect_supplied_rules_match_composed(systems::Kepler{1.3}, VecD<2>(0.8, -0.4), 0.2, random);
  expect_supplied_rules_match_composed(systems::ThreeBody{}, VecD<2>(0.5, 0.1), 0.1, random);
  expect_supplied_rules_match_composed(systems::Acrobot{}, VecD<2>(1.0, -0.5), 1.0, random);
  systems::DampedHarmonicOscillator damped;
  damped.damping = 0.7;
  expect_supplied_rules_match_composed(damped, VecD<1>(0.6), 0.5, random);
  VecD<6> dsp;
  dsp << 2.8, 0.1, -2.9, 5.0, 0.2, -3.5;
  expect_supplied_rules_match_composed(systems::DoubleSphericalPendulum{}, dsp, 0.3, random);
}

/// L's gradient asked for one block alone (the energy of the step check and of the output rows asks
/// for L_v only) is that block of the whole gradient: a jet over those n variables, the others held.
template <class M>
void expect_gradient_blocks_match(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& v) {
  const auto kernels = kernel::ModelAdapter<M>::kernels(model);
  constexpr int n = M::kDim;
  const Vector x = q, w = v;
  Vector l_q(n), l_v(n), q_alone(n), v_alone(n);
  double value = 0.0, value_with_v = 0.0;
  ASSERT_TRUE(kernels->gradient(x, w, &value, &l_q, &l_v));
  ASSERT_TRUE(kernels->gradient(x, w, nullptr, &q_alone, nullptr));
  ASSERT_TRUE(kernels->gradient(x, w, &value_with_v, nullptr, &v_alone));
  EXPECT_LT(scaled_difference(q_alone, l_q), 1e-14);
  EXPECT_LT(scaled_difference(v_alone, l_v), 1e-14);
  EXPECT_EQ(value_with_v, value);
  EXPECT_GT(l_q.norm(), 1e-3);  // neither block is trivially zero here
  EXPECT_GT(l_v.norm(), 1e-3);
}

TEST(DiscreteKernels, GradientBlocksAloneAreThoseOfTheWholeGradient) {
  expect_gradient_blocks_match(systems::Kepler{1.3}, VecD<2>(0.8, -0.4), VecD<2>(0.3, 1.1));
  expect_gradient_blocks_match(systems::ThreeBody{}, VecD<2>(0.5, 0.1), VecD<2>(-0.2, 0.9));
  expect_gradient_blocks_match(systems::Acrobot{}, VecD<2>(1.0, -0.5), VecD<2>(0.7, -1.2));
}

/// The energy kernel (one directional derivative of L along v) against E = L_v·v − L from the
/// gradient kernel, and the size of its terms; and a table without the kernel computes the same.
template <class M>
void expect_energy_kernel_matches_gradient(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& v) {
  constexpr int n = M::kDim;
  const auto kernels = kernel::ModelAdapter<M>::kernels(model);
  const Vector x = q, w = v;
  double value = 0.0;
  Vector l_v(n), workspace(n);
  ASSERT_TRUE(kernels->gradient(x, w, &value, nullptr, &l_v));
  const double expected = l_v.dot(w) - value, expected_size = std::abs(l_v.dot(w)) + std::abs(value);
  double energy = 0.0, size = 0.0;
  ASSERT_TRUE(kernels->energy(x, w, energy, size, workspace));
  EXPECT_NEAR(energy, expected, 1e-14 * expected_size);
  EXPECT_NEAR(size, expected_size, 1e-14 * expected_size);
  EXPECT_GT(std::abs(energy), 1e-3);
  // The same table without the kernel: the fallback of KernelModel::energy.
  mechint_model_kernels table = kernels->table();
  table.energy = nullptr;
  const KernelModel without(table, nullptr);
  double fallback = 0.0, fallback_size = 0.0;
  ASSERT_TRUE(without.energy(x, w, fallback, fallback_size, workspace));
  EXPECT_EQ(fallback, expected);
  EXPECT_EQ(fallback_size, expected_size);
}

TEST(DiscreteKernels, EnergyKernelIsTheEnergyOfTheGradient) {
  expect_energy_kernel_matches_gradient(systems::Kepler{1.3}, VecD<2>(0.8, -0.4), VecD<2>(0.3, 1.1));
  expect_energy_kernel_matches_gradient(systems::ThreeBody{}, VecD<2>(0.5, 0.1), VecD<2>(-0.2, 0.9));
  expect_energy_kernel_matches_gradient(systems::Acrobot{}, VecD<2>(1.0, -0.5), VecD<2>(0.7, -1.2));
  // Kepler's closed form, E = |v|²/2 − μ/|q|.
  const auto kepler = kernel::ModelAdapter<systems::Kepler>::kernels(systems::Kepler{1.3});
  const Vector q = Eigen::Vector2d(0.8, -0.4), v = Eigen::Vector2d(0.3, 1.1);
  Vector workspace(2);
  double energy = 0.0, size = 0.0;
  ASSERT_TRUE(kepler->energy(q, v, energy, size, workspace));
  EXPECT_NEAR(energy, 0.5 * v.squaredNorm() - 1.3 / q.norm(), 1e-15);
}

/// The Euler–Lagrange blocks asked for without L_qq (the DAE's residual: nested first-order AD) are
/// those of the whole second-order expansion.
template <class M>
void expect_velocity_hessians_match(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& v) {
  const auto kernels = kernel::ModelAdapter<M>::kernels(model);
  constexpr int n = M::kDim;
  const Vector x = q, w = v;
  kernel::LagrangianValues whole(n);
  ASSERT_TRUE(kernels->lagrangian(x, w, whole));
  Vector l_q(n);
  RowMatrix l_qv(n, n), l_vv(n, n);
  ASSERT_TRUE(kernels->velocity_hessians(x, w, l_q, l_qv, l_vv));
  EXPECT_LT(scaled_difference(l_q, whole.q), 1e-14);
  EXPECT_LT(scaled_difference(l_qv, whole.qv), 1e-14);
  EXPECT_LT(scaled_difference(l_vv, whole.vv), 1e-14);
  EXPECT_GT(whole.qv.norm(), 1e-3);  // the mixed block is not trivially zero here
}

TEST(DiscreteKernels, VelocityHessiansAreThoseOfTheWholeHessian) {
  // A q-dependent mass matrix (L_qv ≠ 0), the quaternions' rotational energy, the rotating frame.
  expect_velocity_hessians_match(systems::Acrobot{}, VecD<2>(1.0, -0.5), VecD<2>(0.7, -1.2));
  VecD<4> quaternion, rate;
  quaternion << 0.9, 0.3, -0.2, 0.1;
  rate << 0.1, -0.4, 1.3, 0.8;
  expect_velocity_hessians_match(systems::RigidBody{}, quaternion, rate);
  expect_velocity_hessians_match(systems::ThreeBody{}, VecD<2>(0.5, 0.1), VecD<2>(-0.2, 0.9));
}

/// f asked for alone (a Runge–Kutta stage, the rules' force at q1) or with one Jacobian (the
/// trapezoid rule's f_v at q0) is the f of both (in double, to the last bit; by a smaller jet,
/// bitwise), and each Jacobian is the one of both and the central difference of f (the oracle).
template <class M>
void expect_force_blocks_match(const M& model, const VecD<M::kDim>& q, const VecD<M::kDim>& v, double t) {
  const auto kernels = kernel::ModelAdapter<M>::kernels(model);
  ASSERT_TRUE(kernels->forced());
  constexpr int n = M::kDim;
  Vector u(kernels->num_controls());
  for (int i = 0; i < u.size(); ++i) u[i] = 0.3 - 0.5 * i;
  const Vector x = q, w = v;
  Vector f(n), f_alone(n), f_with_q(n), f_with_v(n);
  RowMatrix f_q(n, n), f_v(n, n), q_alone(n, n), v_alone(n, n);
  ASSERT_TRUE(kernels->forces(x, w, u, t, f, &f_q, &f_v));
  ASSERT_TRUE(kernels->forces(x, w, u, t, f_alone, nullptr, nullptr));
  ASSERT_TRUE(kernels->forces(x, w, u, t, f_with_q, &q_alone, nullptr));
  ASSERT_TRUE(kernels->forces(x, w, u, t, f_with_v, nullptr, &v_alone));
  // A jet's quotient is f·(1/g), the double one f/g: equal up to the last bit.
  EXPECT_LT(scaled_difference(f_alone, f), 1e-15);
  EXPECT_EQ(f_with_q, f);
  EXPECT_EQ(f_with_v, f);
  EXPECT_LT(scaled_difference(q_alone, f_q), 1e-15);
  EXPECT_LT(scaled_difference(v_alone, f_v), 1e-15);
  RowMatrix dq(n, n), dv(n, n);
  const double e = 1e-6;
  for (int j = 0; j < n; ++j) {
    Vector plus(n), minus(n), xp = x, xm = x, wp = w, wm = w;
    xp[j] += e, xm[j] -= e, wp[j] += e, wm[j] -= e;
    ASSERT_TRUE(kernels->forces(xp, w, u, t, plus, nullptr, nullptr) &&
                kernels->forces(xm, w, u, t, minus, nullptr, nullptr));
    dq.col(j) = (plus - minus) / (2 * e);
    ASSERT_TRUE(kernels->forces(x, wp, u, t, plus, nullptr, nullptr) &&
                kernels->forces(x, wm, u, t, minus, nullptr, nullptr));
    dv.col(j) = (plus - minus) / (2 * e);
  }
  EXPECT_LT(scaled_difference(f_q, dq), 1e-7);
  EXPECT_LT(scaled_difference(f_v, dv), 1e-7);
  EXPECT_GT(f.norm(), 1e-3);
}

TEST(DiscreteKernels, ForceBlocksAloneAreThoseOfTheWholeForce) {
  // A control through a q-dependent torque, Rayleigh dissipation, a nonlinear thrust.
  expect_force_blocks_match(systems::Acrobot{}, VecD<2>(1.0, -0.5), VecD<2>(0.7, -1.2), 0.3);
  systems::DampedHarmonicOscillator damped;
  damped.damping = 0.7;
  expect_force_blocks_match(damped, VecD<1>(0.6), VecD<1>(-0.4), 0.0);
  expect_force_blocks_match(systems::LowThrustSpacecraft{}, VecD<2>(1.1, 0.3), VecD<2>(0.2, 0.9), 1.5);
}

/// The rigid body supplies its midpoint rule in the closed form of 000 eq. 5.8 (on S³ the midpoint
/// rule of L): its motion follows the one the methods compose from L at the quaternions' midpoint.
TEST(DiscreteKernels, RigidBodyClosedFormFollowsTheComposedMidpointRule) {
  const systems::RigidBody body{};
  const auto supplied = kernel::ModelAdapter<systems::RigidBody>::kernels_with_discrete_rules(body);
  const auto composed = kernel::ModelAdapter<systems::RigidBody>::kernels(body);
  Vector q0(4), omega(4), qdot0(4);
  q0 << std::cos(0.3), std::sin(0.3) * 0.6, 0.0, std::sin(0.3) * 0.8;
  omega << 0.0, 0.5, 3.0, 4.0;
  const VecD<4> rate = 0.5 * systems::quaternion_product<double>(VecD<4>(q0), VecD<4>(omega));
  qdot0 = rate;
  KernelVariationalIntegrator a(*supplied, Rule::kMidpoint, 0.01), b(*composed, Rule::kMidpoint, 0.01);
  a.start_from_velocity(q0, qdot0);
  b.start_from_velocity(q0, qdot0);
  double largest = 0.0;
  for (int k = 0; k < 500; ++k) {
    a.step();
    b.step();
    largest = std::max(largest, (a.q() - b.q()).lpNorm<Eigen::Infinity>());
  }
  EXPECT_LT(largest, 1e-11);
  EXPECT_GT((a.q() - q0).norm(), 0.5);  // it moved
  EXPECT_NEAR(a.energy(), b.energy(), 1e-11);
}

/// q_previous() is the configuration one step back: q0 after 000's start procedure, then the q of
/// the state before each step. `reproduce rigid-body` reads the energy of the discrete motion from
/// it, ½ ω_dᵀ𝕀ω_d with ω_d = (2/h) vec(q̄_{k−1} ⋆ q_k) (000 eq. 5.7): against the exact energy of
/// 000's start (ω_b = (0, 3, 4), 33 J) its error falls at order 2, as 000 Table 1's does.
TEST(DiscreteKernels, PreviousConfigurationGivesTheSecondOrderStepEnergy) {
  const systems::RigidBody body{};
  const auto kernels = kernel::ModelAdapter<systems::RigidBody>::kernels_for_runs(body);
  const VecD<4> q0(1.0, 0.0, 0.0, 0.0);
  const VecD<3> omega0(0.0, 3.0, 4.0);
  const double exact = body.energy_of_rate(omega0);
  ASSERT_NEAR(exact, 33.0, 1e-12);
  const auto step_energy_error = [&](double h) {
    KernelVariationalIntegrator vi(*kernels, Rule::kMidpoint, h);
    vi.start_source_procedure(Vector(q0), Vector(systems::RigidBody::velocity_from_body_rate(q0, omega0)), h / 10);
    EXPECT_EQ(vi.q_previous(), Vector(q0));
    double largest = 0.0;
    for (int k = 0; k < std::lround(1.0 / h); ++k) {
      const Vector before = vi.q();
      vi.step();
      EXPECT_EQ(vi.q_previous(), before);
      const VecD<4> w = systems::quaternion_product<double>(systems::quaternion_conjugate<double>(VecD<4>(before)),
                                                            VecD<4>(vi.q()));
      largest = std::max(largest, std::abs(body.energy_of_rate((2.0 / h) * VecD<3>(w[1], w[2], w[3])) - exact));
    }
    return largest;
  };
  const double coarse = step_energy_error(2e-3), fine = step_energy_error(1e-3);
  EXPECT_GT(coarse, 1e-8);  // a real discretisation error, not round-off
  EXPECT_NEAR(std::log2(coarse / fine), 2.0, 0.2) << coarse << " " << fine;
}

/// Kepler's midpoint step in closed form, L = ½|v|² + μ/|q|: with w = (q1 − q0)/h and m = (q0 + q1)/2,
/// D1 Ld = −w − (hμ/2) m/|m|³ and D2 Ld = w − (hμ/2) m/|m|³. Solves p0 + D1 Ld(q0, q1) = 0 for q1 by
/// Newton to round-off and returns p1 = D2 Ld(q0, q1).
Eigen::Vector2d kepler_midpoint_step(double mu, double h, const Eigen::Vector2d& q0, const Eigen::Vector2d& p0,
                                     Eigen::Vector2d& q1) {
  const auto pull = [&](const Eigen::Vector2d& m) { return (0.5 * h * mu / std::pow(m.norm(), 3)) * m; };
  q1 = q0 + h * p0;
  for (int i = 0; i < 20; ++i) {
    const Eigen::Vector2d m = 0.5 * (q0 + q1), w = (q1 - q0) / h;
    const double r = m.norm();
    const Eigen::Vector2d residual = p0 - w - pull(m);
    const Eigen::Matrix2d jacobian = -Eigen::Matrix2d::Identity() / h -
                                     (0.25 * h * mu) * (Eigen::Matrix2d::Identity() / std::pow(r, 3) -
                                                        3.0 * m * m.transpose() / std::pow(r, 5));
    const Eigen::Vector2d update = jacobian.partialPivLu().solve(-residual);
    q1 += update;
    if (update.lpNorm<Eigen::Infinity>() <= 1e-17 * q1.lpNorm<Eigen::Infinity>()) break;
  }
  return (q1 - q0) / h - pull(0.5 * (q0 + q1));
}

/// On the built-in's supplied rule (Ld's derivatives by a jet of jets over (q0, q1), the step solved
/// by the model's own Newton) and on the rule composed by the methods from L's derivatives (solved by
/// the integrator's Newton), every step of the kernel integrator is the closed-form midpoint step of
/// Kepler from the same (q_k, p_k), over 3000 steps; and the midpoint rule keeps Kepler's angular
/// momentum exactly (Noether): to round-off on both.
TEST(DiscreteKernels, KernelStepsOnSuppliedAndComposedRulesAreTheClosedFormMidpointStep) {
  const systems::Kepler kepler{1.0};
  const auto supplied = kernel::ModelAdapter<systems::Kepler>::kernels_with_discrete_rules(kepler);
  const auto composed = kernel::ModelAdapter<systems::Kepler>::kernels(kepler);
  ASSERT_TRUE(supplied->supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  ASSERT_FALSE(composed->supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  VecD<2> q0, v0;
  systems::Kepler::pericentre_start(1.0, 1.0, 0.6, q0, v0);
  KernelVariationalIntegrator from_l(*composed, Rule::kMidpoint, 0.01);
  KernelVariationalIntegrator runtime(*supplied, Rule::kMidpoint, 0.01);
  from_l.start_from_velocity(q0, v0);
  runtime.start_from_velocity(q0, v0);
  const double j0 = runtime.momentum(0);
  double largest = 0.0, largest_p = 0.0;
  for (int k = 0; k < 3000; ++k) {
    for (KernelVariationalIntegrator* x : {&runtime, &from_l}) {
      const Eigen::Vector2d q_k = x->q(), p_k = x->p();
      Eigen::Vector2d q1;
      const Eigen::Vector2d p1 = kepler_midpoint_step(kepler.mu, 0.01, q_k, p_k, q1);
      x->step();
      largest = std::max(largest, (x->q() - q1).lpNorm<Eigen::Infinity>());
      largest_p = std::max(largest_p, (x->p() - p1).lpNorm<Eigen::Infinity>());
    }
  }
  EXPECT_LT(largest, 1e-13);
  EXPECT_LT(largest_p, 1e-13);
  EXPECT_NEAR(runtime.momentum(0), from_l.momentum(0), 1e-13);
  EXPECT_NEAR(runtime.momentum(0), j0, 1e-13);
  EXPECT_NEAR(from_l.momentum(0), j0, 1e-13);
  EXPECT_GT((runtime.q() - Vector(q0)).norm(), 0.1);  // it moved
}

/// A forced model of n ≤ 4 runs the kernel step at its compile-time size (kernel_variational_
/// integrator.hpp, step_sized<N>), the discrete forces of a step computed once for the energy balance
/// and the momentum. The acrobot (n = 2) under a time-dependent elbow torque, on the kernels its runs
/// get (kernels_for_runs: the supplied rules, solved by the model's own Newton), follows the same rule
/// composed from L's and f's derivatives (solved by the integrator's Newton at size 2), for every rule
/// and both forms.
void expect_acrobot_supplied_and_composed_rules_step_alike(const VecD<2>& q0, const VecD<2>& v0, Rule rule) {
  const systems::Acrobot acrobot{};
  const auto supplied = kernel::ModelAdapter<systems::Acrobot>::kernels_for_runs(acrobot);
  const auto composed = kernel::ModelAdapter<systems::Acrobot>::kernels(acrobot);
  ASSERT_TRUE(supplied->supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  ASSERT_FALSE(composed->supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  const auto torque = [](double t) { return 0.3 * std::sin(1.7 * t); };  // the acrobot's elbow
  for (DelForm form : {DelForm::kMomentum, DelForm::kPosition}) {
    SCOPED_TRACE(form == DelForm::kMomentum ? "momentum form" : "position form");
    KernelVariationalIntegrator from_l(*composed, rule, 0.01, {}, form);
    KernelVariationalIntegrator runtime(*supplied, rule, 0.01, {}, form);
    for (KernelVariationalIntegrator* x : {&from_l, &runtime}) {
      x->set_control_law([&](double t, Vector& u) { u[0] = torque(t); });
      x->start_from_velocity(q0, v0);
    }
    double largest = 0.0;
    for (int k = 0; k < 2000; ++k) {
      from_l.step();
      runtime.step();
      largest = std::max(largest, (runtime.q() - from_l.q()).lpNorm<Eigen::Infinity>());
    }
    // Round-off apart, amplified over the run; a wrong force or a stale f⁺ is O(h) apart (1.6 for f⁻
    // in place of f⁺).
    EXPECT_LT(largest, 1e-9);
    EXPECT_LT((runtime.p() - from_l.p()).lpNorm<Eigen::Infinity>(), 1e-9);
    EXPECT_GT((runtime.q() - Vector(q0)).norm(), 0.1);  // it moved
  }
}

/// The damped oscillator m q̈ = −k q − c q̇ (n = 1, Rayleigh dissipation, on the kernels its runs get:
/// the rules composed for its constant mass) against its discrete flow in closed form. With w =
/// (q1 − q0)/h, both rules' discrete forces are f⁻ = f⁺ = −(c/2)(q1 − q0), and
///   midpoint:  D1 Ld = −m w − (hk/4)(q0 + q1),  D2 Ld = m w − (hk/4)(q0 + q1);
///   trapezoid: D1 Ld = −m w − (hk/2) q0,         D2 Ld = m w − (hk/2) q1;
/// p0 + D1 Ld + f⁻ = 0 is linear in q1, and p1 = D2 Ld + f⁺.
void expect_damped_oscillator_steps_its_closed_form(Rule rule) {
  systems::DampedHarmonicOscillator oscillator{};
  oscillator.damping = 0.2;
  const double m = oscillator.mass, k = oscillator.stiffness, c = oscillator.damping, h = 0.01;
  const auto kernels = kernel::ModelAdapter<systems::DampedHarmonicOscillator>::kernels_for_runs(oscillator);
  ASSERT_TRUE(kernels->forced());
  for (DelForm form : {DelForm::kMomentum, DelForm::kPosition}) {
    SCOPED_TRACE(form == DelForm::kMomentum ? "momentum form" : "position form");
    KernelVariationalIntegrator runtime(*kernels, rule, h, {}, form);
    runtime.start_from_velocity(Vector::Constant(1, 1.0), Vector::Constant(1, 0.0));
    // p1 = D2 Ld(q0, q1) + f⁺.
    const auto momentum_after = [&](double q0, double q1) {
      const double potential = rule == Rule::kMidpoint ? (h * k / 4) * (q0 + q1) : (h * k / 2) * q1;
      return m * (q1 - q0) / h - potential - (c / 2) * (q1 - q0);
    };
    // The momentum form starts from p0 = m v0 = 0; the position form carries (q_{−1}, q0) from its
    // start, p0 = D2 Ld(q_{−1}, q0) + f⁺.
    double q = 1.0;
    double p = form == DelForm::kMomentum ? 0.0 : momentum_after(runtime.q_previous()[0], q);
    double largest = 0.0;
    for (int step = 0; step < 2000; ++step) {
      const double q1 = rule == Rule::kMidpoint ? (p + q * (m / h - h * k / 4 + c / 2)) / (m / h + h * k / 4 + c / 2)
                                                : q + (p - (h * k / 2) * q) / (m / h + c / 2);
      p = momentum_after(q, q1);
      q = q1;
      runtime.step();
      largest = std::max(largest, std::abs(runtime.q()[0] - q));
    }
    EXPECT_LT(largest, 1e-9);
    EXPECT_LT(std::abs(runtime.p()[0] - p), 1e-9);
    EXPECT_GT(std::abs(runtime.q()[0] - 1.0), 0.1);  // it moved
  }
}

TEST(DiscreteKernels, ForcedShortModelsStepTheirComposedRulesAndClosedForms) {
  const VecD<2> q0(1.0, 0.3), v0(0.0, 0.5);
  {
    SCOPED_TRACE("acrobot, midpoint");
    expect_acrobot_supplied_and_composed_rules_step_alike(q0, v0, Rule::kMidpoint);
  }
  {
    SCOPED_TRACE("acrobot, trapezoid");
    expect_acrobot_supplied_and_composed_rules_step_alike(q0, v0, Rule::kTrapezoid);
  }
  {
    SCOPED_TRACE("acrobot, first order");
    expect_acrobot_supplied_and_composed_rules_step_alike(q0, v0, Rule::kFirstOrder);
  }
  {
    SCOPED_TRACE("damped oscillator, midpoint");
    expect_damped_oscillator_steps_its_closed_form(Rule::kMidpoint);
  }
  {
    SCOPED_TRACE("damped oscillator, trapezoid");
    expect_damped_oscillator_steps_its_closed_form(Rule::kTrapezoid);
  }
}

// ---- the dispatch: a hand-made table whose supplied Ld is not L's ------------------------------

/// L = ½ v² − ½ q² (a unit oscillator); its supplied midpoint rule is that of L' = ½ v² − 2 q² (ω = 2).
int unit_oscillator(const void*, const double* q, const double* v, double* value, double* l_q, double* l_v,
                    double* l_qq, double* l_qv, double* l_vv) {
  if (value) *value = 0.5 * v[0] * v[0] - 0.5 * q[0] * q[0];
  if (l_q) l_q[0] = -q[0];
  if (l_v) l_v[0] = v[0];
  if (l_qq) l_qq[0] = -1.0;
  if (l_qv) l_qv[0] = 0.0;
  if (l_vv) l_vv[0] = 1.0;
  return MECHINT_KERNEL_OK;
}

/// Midpoint Ld = h [½ ((q1 − q0)/h)² − 2 ((q0 + q1)/2)²].
int stiffer_midpoint(const void*, int32_t rule, double h, const double* q0, const double* q1, double* d1, double* d2,
                     double* d12) {
  if (rule != MECHINT_RULE_MIDPOINT) return MECHINT_KERNEL_OUTSIDE_DOMAIN;
  const double v = (q1[0] - q0[0]) / h, mid = 0.5 * (q0[0] + q1[0]);
  if (d1) d1[0] = -v - h * 2.0 * mid;
  if (d2) d2[0] = v - h * 2.0 * mid;
  if (d12) d12[0] = -1.0 / h - h;
  return MECHINT_KERNEL_OK;
}

mechint_model_kernels oscillator_table() {
  mechint_model_kernels k{};
  k.abi_version = MECHINT_KERNEL_ABI_VERSION;
  k.struct_size = sizeof k;
  k.dim = 1;
  k.lagrangian = &unit_oscillator;
  return k;
}

TEST(DiscreteKernels, TheMethodsTakeTheRulesAModelSupplies) {
  mechint_model_kernels table = oscillator_table();
  table.discrete_rules = 1u << MECHINT_RULE_MIDPOINT;
  table.discrete_lagrangian = &stiffer_midpoint;
  const KernelModel model(table, nullptr);
  EXPECT_TRUE(model.supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  EXPECT_FALSE(model.supplies_discrete_rule(MECHINT_RULE_TRAPEZOID));
  const double h = 0.01, t_end = 3.0;
  const int steps = static_cast<int>(std::lround(t_end / h));
  Vector q0(1), v0(1);
  q0 << 1.0;
  v0 << 0.0;
  // The supplied midpoint rule: the motion of ω = 2 (its discrete flow's frequency, 2 + O(h²)).
  KernelVariationalIntegrator midpoint(model, Rule::kMidpoint, h);
  midpoint.start_from_two_points(Vector::Constant(1, std::cos(2.0 * h)), q0);
  for (int k = 0; k < steps; ++k) midpoint.step();
  EXPECT_NEAR(midpoint.q()[0], std::cos(2.0 * t_end), 1e-3);
  // The trapezoid rule, not supplied, is composed from L: the motion of ω = 1.
  KernelVariationalIntegrator trapezoid(model, Rule::kTrapezoid, h);
  trapezoid.start_from_two_points(Vector::Constant(1, std::cos(h)), q0);
  for (int k = 0; k < steps; ++k) trapezoid.step();
  EXPECT_NEAR(trapezoid.q()[0], std::cos(t_end), 1e-3);
}

/// A model that solves its rule's steps itself (model_kernels.h, discrete_step: the AD backend's full
/// Newton at the model's size, the discrete derivatives inlined, and in momentum form the step's end:
/// p_{k+1} and the discrete forces) steps bit for bit as the integrator's own Newton on the same table
/// without that member: configurations, momenta, the forces' work on the Noether momenta and Newton's
/// statistics, for every rule, in both forms, forced or not.
template <class M>
void expect_own_steps_are_the_integrators(const M& model, const VecD<M::kDim>& q0, const VecD<M::kDim>& v0,
                                          const Vector& u, double h) {
  const auto own = kernel::ModelAdapter<M>::kernels_with_discrete_rules(model);
  mechint_model_kernels table = own->table();
  ASSERT_NE(table.discrete_step, nullptr);
  table.discrete_step = nullptr;
  const KernelModel without(table, nullptr);  // the context stays `own`'s
  for (const DelForm form : {DelForm::kMomentum, DelForm::kPosition})
  for (const Rule rule : {Rule::kMidpoint, Rule::kTrapezoid, Rule::kFirstOrder}) {
    SCOPED_TRACE(static_cast<int>(rule));
    SCOPED_TRACE(form == DelForm::kMomentum ? "momentum form" : "position form");
    EXPECT_TRUE(DiscreteRule(*own, rule).steps_itself());
    EXPECT_FALSE(DiscreteRule(without, rule).steps_itself());
    KernelVariationalIntegrator a(*own, rule, h, {}, form), b(without, rule, h, {}, form);
    if (u.size() > 0) a.set_control(u), b.set_control(u);
    a.start_from_velocity(q0, v0);
    b.start_from_velocity(q0, v0);
    for (int i = 0; i < 200; ++i) {
      a.step();
      b.step();
      ASSERT_TRUE(a.q() == b.q()) << "step " << i;
      ASSERT_TRUE(a.p() == b.p()) << "step " << i;
      EXPECT_EQ(a.last_newton_stats().iterations, b.last_newton_stats().iterations);
      EXPECT_EQ(a.last_newton_stats().residual_norm, b.last_newton_stats().residual_norm);
      EXPECT_EQ(a.last_newton_stats().first_contraction, b.last_newton_stats().first_contraction);
      for (int j = 0; j < M::kNumSymmetries; ++j) ASSERT_EQ(a.discrete_work(j), b.discrete_work(j)) << "step " << i;
    }
    if constexpr (M::kNumSymmetries > 0 && ForcedModel<M>)
      if (u.size() > 0) { EXPECT_NE(a.discrete_work(0), 0.0); }  // the forces worked on the momentum
    EXPECT_EQ(a.confirmed_steps(), b.confirmed_steps());
    EXPECT_GT((a.q() - Vector(q0)).norm(), 1e-2);  // it moved
  }
}

TEST(DiscreteKernels, AModelsOwnStepsAreTheIntegratorsBitForBit) {
  expect_own_steps_are_the_integrators(systems::Kepler{1.0}, VecD<2>(1.0, 0.1), VecD<2>(-0.2, 1.3), Vector(), 0.05);
  expect_own_steps_are_the_integrators(systems::DampedHarmonicOscillator{.mass = 1.2, .stiffness = 2.0, .damping = 0.3},
                                       VecD<1>(1.0), VecD<1>(0.4), Vector(), 0.1);
  expect_own_steps_are_the_integrators(systems::Acrobot{}, VecD<2>(1.0, -0.5), VecD<2>(0.3, 0.2), Vector::Constant(1, 0.7),
                                       0.02);
  // Forced with a symmetry: the thrust's discrete forces enter the Noether balance.
  expect_own_steps_are_the_integrators(systems::LowThrustSpacecraft{}, VecD<2>(1.0, 0.0), VecD<2>(0.0, 1.1),
                                       Vector::Constant(2, 0.05), 0.05);
}

/// L = ½ q̇² − 1/q, defined for q > 0 only (a DomainError elsewhere, as a model file's `domain`).
struct HalfLineWell {
  static constexpr int kDim = 1;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  template <class T>
  T lagrangian(const Vec<T, 1>& q, const Vec<T, 1>& v) const {
    if (!(scalar_value(q[0]) > 0.0)) throw DomainError("q must be positive");
    return 0.5 * v[0] * v[0] + 1.0 / q[0];
  }
};

TEST(DiscreteKernels, AModelsOwnStepStopsWhereItsModelIsNotDefined) {
  {
    // Newton's first iterate (the extrapolated q_{k+1} = 2 q_k − q_{k−1}) is outside the half line.
    const auto own = kernel::ModelAdapter<HalfLineWell>::kernels_with_discrete_rules(HalfLineWell{});
    mechint_model_kernels table = own->table();
    table.discrete_step = nullptr;
    const KernelModel without(table, nullptr);
    std::string messages[2];
    const KernelModel* models[2] = {own.get(), &without};
    for (int i = 0; i < 2; ++i) {
      KernelVariationalIntegrator vi(*models[i], Rule::kMidpoint, 0.5);
      vi.start_from_velocity(Vector::Constant(1, 0.2), Vector::Constant(1, -1.0));
      try {
        vi.step();
      } catch (const NewtonFailure& e) {
        messages[i] = e.what();
      }
    }
    EXPECT_NE(messages[0].find("Newton"), std::string::npos) << messages[0];
    EXPECT_EQ(messages[0], messages[1]);
  }

  // Kepler from next to the centre with a step far too long: the step converges through the centre,
  // and the model's own check of the taken step refuses it.
  const auto own = kernel::ModelAdapter<systems::Kepler>::kernels_with_discrete_rules(systems::Kepler{1.0});
  mechint_model_kernels table = own->table();
  table.discrete_step = nullptr;
  KernelModel without(table, nullptr);
  // Kepler's own check of a taken step (its segment against the centre), which the table does not hold.
  without.set_step_check([&own](const Vector& before, const Vector& q, double t) { own->check_step(before, q, t); });
  std::string messages[2];
  const KernelModel* models[2] = {own.get(), &without};
  for (int i = 0; i < 2; ++i) {
    KernelVariationalIntegrator vi(*models[i], Rule::kMidpoint, 2.0);
    vi.start_from_velocity(Eigen::Vector2d(1e-3, 0.0), Eigen::Vector2d(-5.0, 0.0));
    try {
      vi.step();
    } catch (const std::exception& e) {  // the model's DomainError where Newton's last iterate left it
      messages[i] = e.what();
    }
  }
  EXPECT_FALSE(messages[0].empty());
  EXPECT_EQ(messages[0], messages[1]);
}

/// The step a model solves itself, made to report its end as not defined (p1 NaN, as model_kernels.h
/// says a model does when it is not defined at the converged q1) from the third call on.
int (*g_model_step)(const void*, int32_t, double, const double*, const double*, const double*, double,
                    const mechint_newton_settings*, double*, double*, double*, double*, mechint_newton_report*) = nullptr;
int g_defined_steps = 0;
int step_with_an_undefined_end(const void* context, int32_t rule, double h, const double* q0, const double* p0,
                               const double* u, double t0, const mechint_newton_settings* settings, double* q1,
                               double* p1, double* f_minus, double* f_plus, mechint_newton_report* report) {
  const int status = g_model_step(context, rule, h, q0, p0, u, t0, settings, q1, p1, f_minus, f_plus, report);
  if (p1 != nullptr && g_defined_steps-- <= 0) p1[0] = p1[1] = std::numeric_limits<double>::quiet_NaN();
  return status;
}

TEST(DiscreteKernels, AStepWhoseEndTheModelCannotGiveLeavesNoMomentumAndTheNextStepFails) {
  // The step is taken (q_{k+1} is the converged one) but its momentum is NaN, as on the integrator's
  // own path where D2 Ld is not defined there; the next step's Newton fails on it, at that step, and
  // leaves the state of the last step.
  const auto own = kernel::ModelAdapter<systems::Kepler>::kernels_with_discrete_rules(systems::Kepler{1.0});
  mechint_model_kernels table = own->table();
  g_model_step = table.discrete_step;
  table.discrete_step = step_with_an_undefined_end;
  const KernelModel patched(table, nullptr);  // the context stays `own`'s
  KernelVariationalIntegrator vi(patched, Rule::kMidpoint, 0.05), reference(*own, Rule::kMidpoint, 0.05);
  const Eigen::Vector2d q0(1.0, 0.1), v0(-0.2, 1.3);
  g_defined_steps = 2;
  vi.start_from_velocity(q0, v0);
  reference.start_from_velocity(q0, v0);
  for (int i = 0; i < 2; ++i) {
    vi.step();
    reference.step();
  }
  EXPECT_TRUE(vi.p() == reference.p());  // the model's own ends, as long as it gives them
  vi.step();
  reference.step();
  EXPECT_TRUE(vi.q() == reference.q());
  EXPECT_TRUE(vi.p().array().isNaN().all()) << vi.p().transpose();
  const Vector q_before = vi.q();
  try {
    vi.step();
    ADD_FAILURE() << "a step from a NaN momentum was taken";
  } catch (const NewtonFailure& e) {
    EXPECT_EQ(e.step_index(), 4) << e.what();
  }
  EXPECT_TRUE(vi.q() == q_before);
  EXPECT_EQ(vi.step_index(), 3);
}

TEST(DiscreteKernels, TheTableRefusesInconsistentDeclarations) {
  mechint_model_kernels table = oscillator_table();
  table.discrete_rules = 1u << MECHINT_RULE_MIDPOINT;  // declared, no function
  EXPECT_THROW(KernelModel(table, nullptr), std::invalid_argument);
  table.discrete_lagrangian = &stiffer_midpoint;
  EXPECT_NO_THROW(KernelModel(table, nullptr));
  table.discrete_rules = 1u << 7;  // a rule this version does not know
  EXPECT_THROW(KernelModel(table, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace mechint
