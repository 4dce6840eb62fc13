// The DAE baseline (SUNDIALS IDA on the GGL formulation) on the kernel engine
// (kernel::KernelDaeStepper on the built-ins' kernels, as `--method dae` runs it), on the spherical
// pendulum and the double spherical pendulum: a consistent start (the multiplier against its closed
// form), agreement at every output time with an independent reference (rk78 at tight tolerance on
// the unconstrained equations in spherical angles, Lagrangians written in tests/em_angle_models.hpp),
// the multiplier against its closed form along the run, both constraint levels kept, energy and the
// Noether momentum to the tolerance, error falling with the tolerance, agreement with the kernel
// midpoint VI at small h, and starts off the constraints refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "kernel/builtin_model_kernels.hpp"  // the built-ins' kernels, linked to
#include "kernel/kernel_dae.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.txx"  // the kernels of the references' own models (em_angle_models.hpp)
#include "em_angle_models.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using kernel::KernelDaeStepper;
using kernel::KernelModel;
using kernel::RowMatrix;
using kernel::Vector;
using systems::SphericalAnglesChart;
using systems::SphericalPendulum;
using testing::AnglesDoubleSphericalPendulum;
using testing::AnglesPendulum;

const SphericalPendulum kModel{1.3, 0.9, 9.81};
const SphericalAnglesChart kChart{0.9};
// Start: θ = 1.1 from the downward vertical, φ = 0.2, θ̇ = 0.4, φ̇ = 2.1.
const VecD<2> kAngles0(1.1, 0.2), kAngleRates0(0.4, 2.1);

VecD<3> start_position() { return kChart.embed<double>(kAngles0); }
VecD<3> start_velocity() { return kChart.embed_velocity<double>(kAngles0, kAngleRates0); }

/// The pendulum's kernels as a run of the built-in uses them.
const KernelModel& pendulum_kernels() {
  static const std::shared_ptr<const KernelModel> k = kernel::ModelAdapter<SphericalPendulum>::kernels_for_runs(kModel);
  return *k;
}

/// Position at t from rk78 at rtol = atol = 1e-13 on the angle equations (em_angle_models.hpp).
VecD<3> reference_position(double t) {
  static const std::shared_ptr<const KernelModel> angles =
      kernel::ModelAdapter<AnglesPendulum>::kernels(AnglesPendulum{kModel.mass, kModel.length, kModel.gravity});
  return kChart.embed<double>(VecD<2>(testing::rk78_reference(*angles, kAngles0, kAngleRates0, {t})[0].first));
}

double dae_error(double t, KernelDaeStepper::Tolerances tol) {
  KernelDaeStepper ida(pendulum_kernels(), 1e-3, tol);
  ida.start_from_velocity(start_position(), start_velocity());
  ida.step_toward(t);
  return (ida.q() - reference_position(t)).norm();
}

TEST(Dae, ConsistentStartSatisfiesTheAccelerationConstraint) {
  KernelDaeStepper ida(pendulum_kernels(), 1e-3, {1e-10, 1e-12});
  ida.start_from_velocity(start_position(), start_velocity());
  const VecD<3> q = ida.q(), v = ida.velocity();
  EXPECT_EQ(q, start_position());
  EXPECT_EQ(v, start_velocity());
  // The residual's constraint rows: g(q) and G v = 2 q·v.
  EXPECT_LT(std::abs(ida.constraint_residual()[0]), 1e-12);
  EXPECT_LT(std::abs(2.0 * q.dot(v)), 1e-12);
  // The stepper keeps ẏ inside; its start's multiplier gives it by the Euler–Lagrange row,
  // m q̈ + m g e_z = 2 λ q. Then q·q̈ + |q̇|² = 0 (second derivative of |q|² − l²).
  const VecD<3> qddot = 2.0 * ida.lambda()[0] * q / kModel.mass - VecD<3>(0.0, 0.0, kModel.gravity);
  EXPECT_NEAR(q.dot(qddot) + v.squaredNorm(), 0.0, 1e-12);
  // The start's multiplier against its closed form: m q̈ + m g e_z = 2 λ q and q·q̈ = −|q̇|² give
  // λ = m (g z − |q̇|²) / (2 l²).
  const double l2 = kModel.length * kModel.length;
  const double lambda0 = kModel.mass * (kModel.gravity * q[2] - v.squaredNorm()) / (2.0 * l2);
  EXPECT_NEAR(ida.lambda()[0], lambda0, 1e-12 * std::abs(lambda0));
  // The whole GGL residual F(y, ẏ) at the consistent start (q̇ − v − Gᵀμ, the Euler–Lagrange rows
  // with the start's acceleration and λ, g, G v): zero to round-off.
  const Vector f = ida.dae_residual();
  ASSERT_EQ(f.size(), 2 * 3 + 2 * 1);
  EXPECT_LT(f.lpNorm<Eigen::Infinity>(), 1e-12);
}

TEST(Dae, TheResidualAtAnOutputTimeIsWithinTheTolerances) {
  // IDA's interpolated y, ẏ at an output time satisfy F to the order of its tolerances, and to
  // round-off in the constraint rows' scale: a check that the residual reads the current state.
  KernelDaeStepper ida(pendulum_kernels(), 1e-3, {1e-10, 1e-12});
  ida.start_from_velocity(start_position(), start_velocity());
  ida.step_toward(1.0);
  const Vector f = ida.dae_residual();
  EXPECT_LT(f.segment(6, 2).lpNorm<Eigen::Infinity>(), 1e-8);  // g and G v, as the run's bounds
  EXPECT_LT(f.lpNorm<Eigen::Infinity>(), 1e-4);
  EXPECT_GT(f.lpNorm<Eigen::Infinity>(), 0.0);  // not the start's exact zero: IDA's interpolant
}

TEST(Dae, AgreesWithAnIndependentReferenceAndKeepsBothConstraints) {
  const double t_end = 5.0;
  KernelDaeStepper ida(pendulum_kernels(), 1e-3, {1e-10, 1e-12});
  ida.start_from_velocity(start_position(), start_velocity());
  const double l2 = kModel.length * kModel.length;
  double max_g = 0.0, max_gv = 0.0, max_lambda_error = 0.0;
  for (int s = 1; s <= 100; ++s) {
    ida.step_toward(s * t_end / 100);
    const VecD<3> q = ida.q(), v = ida.velocity();
    max_g = std::max(max_g, std::abs(q.squaredNorm() - l2));
    max_gv = std::max(max_gv, std::abs(2.0 * q.dot(v)));
    // Closed form of the multiplier: m q̈ + m g e_z = 2 λ q and q·q̈ = −|q̇|² give
    // λ = m (g z − |q̇|²) / (2 l²).
    const double lambda = kModel.mass * (kModel.gravity * q[2] - v.squaredNorm()) / (2.0 * l2);
    max_lambda_error = std::max(max_lambda_error, std::abs(ida.lambda()[0] - lambda) / std::abs(lambda));
  }
  EXPECT_LT((ida.q() - reference_position(t_end)).norm(), 1e-6);
  EXPECT_LT(max_g, 1e-9);
  EXPECT_LT(max_gv, 1e-8);
  EXPECT_LT(max_lambda_error, 1e-5);
}

TEST(Dae, ErrorFallsWithTheTolerance) {
  const double t = 5.0;
  const double loose = dae_error(t, {1e-6, 1e-8}), tight = dae_error(t, {1e-9, 1e-11});
  EXPECT_GT(loose, 0.0);
  // A thousandfold tighter tolerance: the error falls by more than 50 (BDF error is roughly
  // proportional to the tolerance; a factor 20 of slack).
  EXPECT_LT(tight, loose / 50.0);
  EXPECT_LT(loose, 1e-2);
}

TEST(Dae, AgreesWithTheMidpointVariationalIntegratorAtSmallStep) {
  // The midpoint VI is second order: at h = 1e-3 it sits within O(h²) of the DAE solution, and
  // halving h brings it about four times closer.
  const double t = 2.0;
  KernelDaeStepper ida(pendulum_kernels(), 1e-3, {1e-11, 1e-13});
  ida.start_from_velocity(start_position(), start_velocity());
  ida.step_toward(t);
  std::vector<double> gaps;
  for (double h : {2e-3, 1e-3}) {
    kernel::KernelVariationalIntegrator vi(pendulum_kernels(), kernel::Rule::kMidpoint, h);
    vi.start_from_velocity(start_position(), start_velocity());
    while (vi.time() < t - 0.5 * h) vi.step();
    gaps.push_back((vi.q() - ida.q()).norm());
  }
  EXPECT_LT(gaps[1], 1e-4);
  EXPECT_NEAR(gaps[0] / gaps[1], 4.0, 0.6);
}

/// The DAE at rtol 1e-10, atol 1e-12 on the Cartesian model against the angle formulation integrated
/// by rk78 (`reference`: the Cartesian (q, q̇) at t_end·i/20, i = 1..20), at those 20 output times:
/// q and q̇, both constraint levels kept, energy to the tolerance over the run.
void expect_agreement_at_every_output(const KernelModel& kernels, const Vector& q0, const Vector& v0, double t_end,
                                      const std::vector<std::pair<Vector, Vector>>& reference) {
  KernelDaeStepper dae(kernels, 1e-3, {1e-10, 1e-12});
  dae.start_from_velocity(q0, v0);
  const double e0 = dae.energy();
  double worst_q = 0.0, worst_v = 0.0, worst_g = 0.0, worst_gv = 0.0, worst_e = 0.0;
  for (int i = 1; i <= 20; ++i) {
    const double t = t_end * i / 20;
    dae.step_toward(t);
    ASSERT_DOUBLE_EQ(dae.time(), t);
    worst_q = std::max(worst_q, (dae.q() - reference[i - 1].first).lpNorm<Eigen::Infinity>());
    worst_v = std::max(worst_v, (dae.velocity() - reference[i - 1].second).lpNorm<Eigen::Infinity>());
    worst_g = std::max(worst_g, dae.constraint_residual().lpNorm<Eigen::Infinity>());
    RowMatrix dg(kernels.num_constraints(), kernels.dim());
    ASSERT_TRUE(kernels.constraints(dae.q(), nullptr, &dg));
    worst_gv = std::max(worst_gv, (dg * dae.velocity()).lpNorm<Eigen::Infinity>());
    worst_e = std::max(worst_e, std::abs(dae.energy() - e0) / (1.0 + std::abs(e0)));
  }
  std::printf("DAE against the angle formulation: q %.1e, v %.1e, g %.1e, Dg v %.1e, energy %.1e\n", worst_q, worst_v,
              worst_g, worst_gv, worst_e);
  EXPECT_LE(worst_q, 1e-8);
  EXPECT_LE(worst_v, 1e-7);
  EXPECT_LE(worst_g, 1e-10);  // the position constraint is one of the equations IDA solves
  EXPECT_LE(worst_gv, 1e-8);  // so is the velocity constraint (the bound of AgreesWithAnIndependentReference...)
  EXPECT_LE(worst_e, 1e-6);   // energy is not kept by the method: to its tolerance over the run
  EXPECT_GT(dae.step_index(), 20);
  EXPECT_EQ(dae.lambda().size(), kernels.num_constraints());
}

std::vector<double> output_times(double t_end) {
  std::vector<double> times;
  for (int i = 1; i <= 20; ++i) times.push_back(t_end * i / 20);
  return times;
}

TEST(Dae, SphericalPendulumAgreesWithTheAngleFormulationAtEveryOutput) {
  const SphericalPendulum model;  // m = l = 1
  const VecD<3> q0(0.6, 0.0, -0.8), v0(0.0, 1.5, 0.0);
  const auto kernels = kernel::ModelAdapter<SphericalPendulum>::kernels(model);
  // θ = acos 0.8, φ = 0, θ̇ = 0, φ̇ = |v| / (l sin θ) = 1.5 / 0.6.
  const auto angles = kernel::ModelAdapter<AnglesPendulum>::kernels(AnglesPendulum{model.mass, model.length, model.gravity});
  const SphericalAnglesChart chart{model.length};
  std::vector<std::pair<Vector, Vector>> reference;
  for (const auto& [a, ad] : testing::rk78_reference(*angles, VecD<2>(std::acos(0.8), 0.0), VecD<2>(0.0, 2.5), output_times(5.0)))
    reference.emplace_back(chart.embed<double>(VecD<2>(a)), chart.embed_velocity<double>(VecD<2>(a), VecD<2>(ad)));
  expect_agreement_at_every_output(*kernels, q0, v0, 5.0, reference);
  // J_z = m (x ẏ − y ẋ) is kept to IDA's tolerance.
  KernelDaeStepper dae(*kernels, 1e-3, {1e-10, 1e-12});
  dae.start_from_velocity(q0, v0);
  dae.step_toward(5.0);
  EXPECT_NEAR(dae.momentum(0), 0.6 * 1.5, 1e-7);
}

TEST(Dae, DoubleSphericalPendulumAgreesWithTheAngleFormulationAtEveryOutput) {
  const systems::DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  const AnglesDoubleSphericalPendulum in_angles{model.m1, model.m2, model.l1, model.l2, model.gravity};
  VecD<4> a0, ad0;
  AnglesDoubleSphericalPendulum::angles_of(st.q, st.v, a0, ad0);
  const auto angles = kernel::ModelAdapter<AnglesDoubleSphericalPendulum>::kernels(in_angles);
  std::vector<std::pair<Vector, Vector>> reference;
  for (const auto& [a, ad] : testing::rk78_reference(*angles, a0, ad0, output_times(1.0))) {
    VecD<6> q, v;
    in_angles.embed(VecD<4>(a), VecD<4>(ad), q, v);
    reference.emplace_back(q, v);
  }
  expect_agreement_at_every_output(*kernel::ModelAdapter<systems::DoubleSphericalPendulum>::kernels(model), st.q, st.v,
                                   1.0, reference);
}

TEST(Dae, RefusesAStartOffTheConstraints) {
  const auto kernels = kernel::ModelAdapter<SphericalPendulum>::kernels(SphericalPendulum{});
  KernelDaeStepper dae(*kernels, 1e-3, {});
  EXPECT_THROW(dae.start_from_velocity(Eigen::Vector3d(0.6, 0.0, -0.7), Eigen::Vector3d(0.0, 1.0, 0.0)), InvalidStart);
  EXPECT_THROW(dae.start_from_velocity(Eigen::Vector3d(0.6, 0.0, -0.8), Eigen::Vector3d(1.0, 0.0, 0.0)), InvalidStart);
}

}  // namespace
}  // namespace mechint
