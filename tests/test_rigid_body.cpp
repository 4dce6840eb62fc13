// Free rigid body in unit quaternions (000 §5.1) on its kernels, as `mechint run rigid-body` integrates
// it: the discrete Lagrangian of eq. 5.8 (the kernels' own midpoint rule, kernels_for_runs) against
// the midpoint rule of L composed from L's kernels, order 2 against a tight reference integration of
// Euler's equations, exact discrete momentum and unit norm, and Table 1's error measure falling as h².
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "kernel/builtin_model_kernels.hpp"  // the rigid body's kernels, compiled once in the library
#include "kernel/kernel_variational_integrator.hpp"
#include "mechint/analysis/error_measures.hpp"
#include "mechint/core/linear_algebra.hpp"
#include "mechint/integrate/odeint_baselines.hpp"  // the rk78 reference of Euler's equations
#include "mechint/systems/rigid_body.hpp"

namespace mechint {
namespace {

using kernel::KernelVariationalIntegrator;
using kernel::Vector;
using systems::RigidBody;

const VecD<4> kQ0(1.0, 0.0, 0.0, 0.0);
const VecD<3> kOmega0(0.0, 3.0, 4.0);  // 000 eq. 5.9: energy 33

/// The kernels of the runs: their midpoint rule is eq. 5.8 (the model's own discrete Lagrangian,
/// DiscreteSystemFor<RigidBody, MidpointRule>), supplied by AD.
const kernel::KernelModel& eq58_kernels() {
  static const std::shared_ptr<const kernel::KernelModel> kernels =
      kernel::ModelAdapter<RigidBody>::kernels_for_runs(RigidBody{});
  return *kernels;
}

/// L's kernels alone: the methods compose the midpoint rule of L from them.
const kernel::KernelModel& lagrangian_kernels() {
  static const std::shared_ptr<const kernel::KernelModel> kernels = kernel::ModelAdapter<RigidBody>::kernels(RigidBody{});
  return *kernels;
}

/// Euler's equations 𝕀ω̇ = 𝕀ω × ω with q̇ = ½ q ⋆ (0, ω), integrated by Boost.Odeint's rk78 at a
/// tight tolerance: an independent reference (no Lagrangian, no constraint).
struct EulerEquations {
  using State = std::array<double, 7>;
  RigidBody body;
  void operator()(const State& s, State& d, double) const {
    const VecD<4> q(s[0], s[1], s[2], s[3]);
    const VecD<3> w(s[4], s[5], s[6]);
    const VecD<4> qd = RigidBody::velocity_from_body_rate(q, w);
    const VecD<3> iw = body.inertia.cwiseProduct(w);
    const VecD<3> cross(iw[1] * w[2] - iw[2] * w[1], iw[2] * w[0] - iw[0] * w[2], iw[0] * w[1] - iw[1] * w[0]);
    const VecD<3> wd = cross.cwiseQuotient(body.inertia);
    for (int i = 0; i < 4; ++i) d[i] = qd[i];
    for (int i = 0; i < 3; ++i) d[4 + i] = wd[i];
  }
};

VecD<4> reference_quaternion(double t_end) {
  EulerEquations::State s = {kQ0[0], kQ0[1], kQ0[2], kQ0[3], kOmega0[0], kOmega0[1], kOmega0[2]};
  integrate_runge_kutta(EulerEquations{}, RungeKuttaMethod::kRk78, s, 0.0, 1e-4, t_end, 1, {1e-14, 1e-14},
                        [](const auto&, double) {});
  return VecD<4>(s[0], s[1], s[2], s[3]);
}

/// The midpoint VI on `kernels` at step h, started from (q0, q̇0) (the integrator is not copyable).
std::unique_ptr<KernelVariationalIntegrator> started(const kernel::KernelModel& kernels, double h) {
  auto vi = std::make_unique<KernelVariationalIntegrator>(kernels, kernel::Rule::kMidpoint, h);
  vi->start_from_velocity(Vector(kQ0), Vector(RigidBody::velocity_from_body_rate(kQ0, kOmega0)));
  return vi;
}

TEST(RigidBody, NoetherMomentaAreTheSpatialAngularMomentum) {
  // ⟨∂L/∂v, ξ_i⟩ from the kernels (what the integrators' Noether momenta read) against the closed
  // forms π = R(q) 𝕀 ω_b and ½ ω_bᵀ 𝕀 ω_b.
  const RigidBody body;
  const kernel::KernelModel& kernels = eq58_kernels();
  const VecD<4> q = VecD<4>(0.3, -0.5, 0.7, 0.2).normalized();
  const VecD<3> w(0.4, -1.1, 2.3);
  const VecD<4> v = RigidBody::velocity_from_body_rate(q, w);
  double l = 0.0;
  Vector p(4), xi(4);
  ASSERT_TRUE(kernels.gradient(Vector(q), Vector(v), &l, nullptr, &p));
  const VecD<3> pi = body.spatial_momentum(q, w);
  ASSERT_EQ(kernels.num_symmetries(), 3);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(kernels.symmetry(i, Vector(q), xi));
    EXPECT_NEAR(p.dot(xi), pi[i], 1e-12);
  }
  EXPECT_NEAR(l, body.energy_of_rate(w), 1e-12);
  EXPECT_NEAR((RigidBody::body_rate(q, v) - w).norm(), 0.0, 1e-14);
}

TEST(RigidBody, Equation58GivesTheMidpointMotion) {
  // On S³ × S³ eq. 5.8 equals the midpoint rule of L (000 eqs. 5.4–5.7): same trajectory. The two
  // tables are two discrete Lagrangians: eq. 5.8 supplied as the model's own rule, and the rule's
  // quadrature of L composed by the methods.
  ASSERT_TRUE(eq58_kernels().supplies_own_discrete_rule(MECHINT_RULE_MIDPOINT));
  ASSERT_FALSE(lagrangian_kernels().supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  auto a = started(eq58_kernels(), 0.01);
  auto b = started(lagrangian_kernels(), 0.01);
  double worst = 0;
  for (int s = 0; s < 1000; ++s) {
    a->step();
    b->step();
    worst = std::max(worst, (a->q() - b->q()).lpNorm<Eigen::Infinity>());
  }
  EXPECT_LT(worst, 1e-10);
}

TEST(RigidBody, SecondOrderAgainstEulersEquations) {
  const double t_end = 5.0;
  const VecD<4> ref = reference_quaternion(t_end);
  EXPECT_NEAR(ref.norm(), 1.0, 1e-11);
  std::vector<double> hs, errors;
  for (double h : {0.01, 0.005, 0.0025}) {
    auto vi = started(eq58_kernels(), h);
    for (long s = 0; s < std::lround(t_end / h); ++s) vi->step();
    hs.push_back(h);
    errors.push_back((vi->q() - Vector(ref)).norm());
  }
  EXPECT_NEAR(convergence_order(hs, errors), 2.0, 0.1);
  EXPECT_LT(errors.front(), 1e-2);
}

TEST(RigidBody, MomentumAndNormKeptOverTheTableRun) {
  // Table 1's run at h = 1e-2: 30 s from 000's start procedure.
  KernelVariationalIntegrator vi(eq58_kernels(), kernel::Rule::kMidpoint, 0.01);
  vi.start_source_procedure(Vector(kQ0), Vector(RigidBody::velocity_from_body_rate(kQ0, kOmega0)), 1e-5);
  VecD<3> j0;
  for (int i = 0; i < 3; ++i) j0[i] = vi.momentum(i);
  double drift = 0, norm_error = 0;
  while (vi.time() < 30.0 - 1e-9) {
    vi.step();
    VecD<3> j;
    for (int i = 0; i < 3; ++i) j[i] = vi.momentum(i);
    drift = std::max(drift, (j - j0).norm() / j0.norm());
    norm_error = std::max(norm_error, std::abs(vi.q().norm() - 1.0));
  }
  std::cout << "relative momentum drift " << drift << ", max | |q| - 1 | " << norm_error << "\n";
  EXPECT_LT(drift, 1e-11);
  EXPECT_LE(norm_error, 1e-12);
}

/// Samples every 0.1 s of a 30 s run: quaternion, energy, spatial momentum (discrete Noether).
struct Samples {
  std::vector<Eigen::VectorXd> q, energy, momentum;
};

Samples table_run(double h) {
  KernelVariationalIntegrator vi(eq58_kernels(), kernel::Rule::kMidpoint, h);
  vi.start_source_procedure(Vector(kQ0), Vector(RigidBody::velocity_from_body_rate(kQ0, kOmega0)), 1e-5);
  Samples s;
  const long stride = std::lround(0.1 / h);
  for (long k = 1; k <= std::lround(30.0 / h); ++k) {
    if (k > 1) vi.step();  // the start procedure leaves the state at step 1
    if (k % stride == 0) {
      s.q.push_back(vi.q());
      s.energy.push_back(Eigen::VectorXd::Constant(1, vi.energy()));
      Eigen::VectorXd j(3);
      for (int i = 0; i < 3; ++i) j[i] = vi.momentum(i);
      s.momentum.push_back(j);
    }
  }
  return s;
}

TEST(RigidBody, TableErrorsFallAsHSquared) {
  // 000 eq. 5.10 on samples every 0.1 s: quaternions against the h = 1e-4 run, energy and
  // momentum against their exact initial values (33 J and R(q0) 𝕀 ω0).
  const RigidBody body;
  const Samples standard = table_run(1e-4);
  const Eigen::VectorXd e0 = Eigen::VectorXd::Constant(1, body.energy_of_rate(kOmega0));
  const Eigen::VectorXd j0 = body.spatial_momentum(kQ0, kOmega0);
  std::vector<double> hs, eq, ee, em;
  for (double h : {1e-2, 5e-3, 2.5e-3}) {
    const Samples s = table_run(h);
    ASSERT_EQ(s.q.size(), standard.q.size());
    hs.push_back(h);
    eq.push_back(sampled_error(s.q, standard.q));
    ee.push_back(sampled_error(s.energy, std::vector<Eigen::VectorXd>(s.energy.size(), e0)));
    em.push_back(sampled_error(s.momentum, std::vector<Eigen::VectorXd>(s.momentum.size(), j0)));
  }
  std::cout << "h = 1e-2: quaternion " << eq[0] << ", energy " << ee[0] << ", momentum " << em[0]
            << " (000 Table 1: 4.0e-4, 6.3e-3, 1.7e-3)\n";
  EXPECT_NEAR(convergence_order(hs, eq), 2.0, 0.2);
  EXPECT_NEAR(convergence_order(hs, ee), 2.0, 0.2);
  EXPECT_NEAR(convergence_order(hs, em), 2.0, 0.2);
}

}  // namespace
}  // namespace mechint
