// The discrete Lagrange–d'Alembert integrator (kernel/nonholonomic_integrator.hpp) on the two
// nonholonomic built-ins, in process: the discrete constraint at every step (recomputed here from the
// constraint's formula, not read from the integrator), steps that do not allocate, energy over 1e6
// steps, order 2 against references that share nothing with the integrator (the sleigh's reduced
// equations integrated by Boost.Odeint's rk78 at tight tolerance; the rolling disk's closed-form
// motion), and the rolling disk's first integrals.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include <boost/numeric/odeint.hpp>

#include "counting_allocator.hpp"
#include "kernel/nonholonomic_integrator.hpp"
#include "kernel/nonholonomic_kernels.hpp"
#include "mechint/core/errors.hpp"

namespace mechint {
namespace {

using kernel::KernelModel;
using kernel::NonholonomicIntegrator;
using kernel::Rule;
using kernel::Vector;

// ---- the Chaplygin sleigh and its reference ---------------------------------------------------

struct Sleigh {
  double m = 1.0, inertia = 1.0, a = 0.5;
  double v0 = 1.0, omega0 = 1.0;  // forward speed and turning rate at the start (θ0 = 0)
  KernelModel model() const { return kernel::chaplygin_sleigh_model(m, inertia, a); }
  Vector q0() const { return Vector::Zero(3); }
  Vector qdot0() const { return Vector(Eigen::Vector3d(v0, a * omega0, omega0)); }
};

/// The sleigh's motion in body velocities (Bloch, Nonholonomic Mechanics and Control §1.7), derived
/// apart from the integrator: v̇ = a ω², ω̇ = −m a v ω / (I + m a²), and the centre of mass moves
/// with v along the heading and a ω across it; the constraint force is μ = m (v ω + a ω̇).
struct SleighReference {
  using State = std::array<double, 5>;  // x, y, θ, v, ω
  Sleigh s;
  void operator()(const State& z, State& dz, double) const {
    const double c = std::cos(z[2]), sn = std::sin(z[2]);
    dz[0] = z[3] * c - s.a * z[4] * sn;
    dz[1] = z[3] * sn + s.a * z[4] * c;
    dz[2] = z[4];
    dz[3] = s.a * z[4] * z[4];
    dz[4] = -s.m * s.a * z[3] * z[4] / (s.inertia + s.m * s.a * s.a);
  }
  State at(double t) const {
    namespace odeint = boost::numeric::odeint;
    State z{0.0, 0.0, 0.0, s.v0, s.omega0};
    if (t > 0.0)
      odeint::integrate_adaptive(odeint::make_controlled(1e-14, 1e-14, odeint::runge_kutta_fehlberg78<State>()), *this,
                                 z, 0.0, t, 1e-3);
    return z;
  }
  double multiplier(double t) const {
    const State z = at(t);
    const double omega_dot = -s.m * s.a * z[3] * z[4] / (s.inertia + s.m * s.a * s.a);
    return s.m * (z[3] * z[4] + s.a * omega_dot);
  }
};

// ---- the rolling disk and its closed-form motion ---------------------------------------------

struct Disk {
  double m = 1.0, r = 1.0, inertia = 0.25, axle = 0.5;
  double theta_dot = 1.0, phi_dot = 2.0;  // from x = y = θ = φ = 0
  KernelModel model() const { return kernel::rolling_disk_model(m, r, inertia, axle); }
  Vector q0() const { return Vector::Zero(4); }
  Vector qdot0() const { return Vector(Eigen::Vector4d(r * phi_dot, 0.0, theta_dot, phi_dot)); }
  /// θ̇ and φ̇ are constant (Bloch §1.4): θ = θ̇ t, φ = φ̇ t, and the contact point runs on a circle
  /// of radius R φ̇ / θ̇: x = R φ̇/θ̇ sin θ, y = R φ̇/θ̇ (1 − cos θ).
  Eigen::Vector4d at(double t) const {
    const double theta = theta_dot * t, radius = r * phi_dot / theta_dot;
    return {radius * std::sin(theta), radius * (1.0 - std::cos(theta)), theta, phi_dot * t};
  }
  double energy() const {
    return 0.5 * (m * r * r + axle) * phi_dot * phi_dot + 0.5 * inertia * theta_dot * theta_dot;
  }
};

/// The discrete constraint of the step q0 → q1 written out from the constraint's formula (not by the
/// kernels): the midpoint rule evaluates A at (q0 + q1)/2, the trapezoid rule averages A(q0), A(q1).
double sleigh_constraint(Rule rule, double a, const Vector& q0, const Vector& q1, double h) {
  const Vector d = (q1 - q0) / h;
  const auto row = [&](double theta) { return -std::sin(theta) * d[0] + std::cos(theta) * d[1] - a * d[2]; };
  return rule == Rule::kMidpoint ? row(0.5 * (q0[2] + q1[2])) : 0.5 * (row(q0[2]) + row(q1[2]));
}

double disk_constraint(Rule rule, double r, const Vector& q0, const Vector& q1, double h) {
  const Vector d = (q1 - q0) / h;
  const auto rows = [&](double theta) {
    return std::max(std::abs(d[0] - r * std::cos(theta) * d[3]), std::abs(d[1] - r * std::sin(theta) * d[3]));
  };
  if (rule == Rule::kMidpoint) return rows(0.5 * (q0[2] + q1[2]));
  const double c = 0.5 * (std::cos(q0[2]) + std::cos(q1[2])), s = 0.5 * (std::sin(q0[2]) + std::sin(q1[2]));
  return std::max(std::abs(d[0] - r * c * d[3]), std::abs(d[1] - r * s * d[3]));
}

TEST(Nonholonomic, DiscreteConstraintHoldsAtEveryStep) {
  const Sleigh sleigh;
  const Disk disk;
  const KernelModel sleigh_model = sleigh.model(), disk_model = disk.model();
  const double h = 0.05;
  for (Rule rule : {Rule::kMidpoint, Rule::kTrapezoid}) {
    NonholonomicIntegrator s(sleigh_model, rule, h), d(disk_model, rule, h);
    s.start_from_velocity(sleigh.q0(), sleigh.qdot0());
    d.start_from_velocity(disk.q0(), disk.qdot0());
    double worst_sleigh = 0.0, worst_disk = 0.0, worst_reported = 0.0;
    for (int k = 0; k < 4000; ++k) {
      const Vector qs = s.q(), qd = d.q();
      s.step();
      d.step();
      worst_sleigh = std::max(worst_sleigh, std::abs(sleigh_constraint(rule, sleigh.a, qs, s.q(), h)));
      worst_disk = std::max(worst_disk, disk_constraint(rule, disk.r, qd, d.q(), h));
      worst_reported = std::max({worst_reported, s.nonholonomic_residual(), d.nonholonomic_residual()});
    }
    // Velocities are O(1): round-off of the difference quotient is ~1e-16 / h per step.
    EXPECT_LT(worst_sleigh, 1e-12);
    EXPECT_LT(worst_disk, 1e-12);
    EXPECT_LT(worst_reported, 1e-12);
  }
}

TEST(Nonholonomic, StepsDoNotAllocate) {
  const Sleigh sleigh;
  const Disk disk;
  const KernelModel sleigh_model = sleigh.model(), disk_model = disk.model();
  for (Rule rule : {Rule::kMidpoint, Rule::kTrapezoid}) {
    for (NewtonVariant variant : {NewtonVariant::kFull, NewtonVariant::kSimplified}) {
      NewtonOptions options;
      options.variant = variant;
      NonholonomicIntegrator s(sleigh_model, rule, 0.01, options), d(disk_model, rule, 0.01, options);
      s.start_from_velocity(sleigh.q0(), sleigh.qdot0());
      d.start_from_velocity(disk.q0(), disk.qdot0());
      s.step();
      d.step();
      const long before = g_allocations.load();
      for (int k = 0; k < 300; ++k) {
        s.step();
        d.step();
      }
      EXPECT_EQ(g_allocations.load() - before, 0);
    }
  }
}

/// Largest |E_k − E_0| / E_0 sampled every 1000 of `steps` steps.
template <class System>
double energy_drift(const System& system, Rule rule, double h, long steps) {
  const KernelModel model = system.model();
  NonholonomicIntegrator vi(model, rule, h);
  vi.start_from_velocity(system.q0(), system.qdot0());
  const double e0 = vi.energy();
  double worst = 0.0;
  for (long k = 1; k <= steps; ++k) {
    vi.step();
    if (k % 1000 == 0) worst = std::max(worst, std::abs(vi.energy() - e0) / e0);
  }
  return worst;
}

TEST(Nonholonomic, EnergyStaysBoundedOverAMillionSteps) {
  // h = 0.05: 1e6 steps reach t = 5e4, hundreds of thousands of the disk's turns. The error of a
  // second-order method at this h is ~h² = 2.5e-3 relative; bounded means it does not grow with t:
  // the drift over 1e6 steps stays at the level of the first 1e4.
  for (Rule rule : {Rule::kMidpoint, Rule::kTrapezoid}) {
    const double sleigh_short = energy_drift(Sleigh{}, rule, 0.05, 10000);
    const double sleigh_long = energy_drift(Sleigh{}, rule, 0.05, 1000000);
    const double disk_short = energy_drift(Disk{}, rule, 0.05, 10000);
    const double disk_long = energy_drift(Disk{}, rule, 0.05, 1000000);
    RecordProperty(rule == Rule::kMidpoint ? "midpoint" : "trapezoid",
                   "sleigh " + std::to_string(sleigh_long) + " disk " + std::to_string(disk_long));
    EXPECT_LT(sleigh_long, 1e-2);
    EXPECT_LT(disk_long, 1e-2);
    EXPECT_LE(sleigh_long, 1.5 * sleigh_short + 1e-12);
    EXPECT_LE(disk_long, 1.5 * disk_short + 1e-12);
  }
}

/// Max-norm error of q at t = T of the sleigh against its reference, and of the last step's μ against
/// the reference's at the step's midpoint.
std::pair<double, double> sleigh_errors(Rule rule, double h, double t_end) {
  const Sleigh sleigh;
  const KernelModel model = sleigh.model();
  NonholonomicIntegrator vi(model, rule, h);
  vi.start_from_velocity(sleigh.q0(), sleigh.qdot0());
  const long steps = std::lround(t_end / h);
  for (long k = 0; k < steps; ++k) vi.step();
  const SleighReference ref{sleigh};
  const auto z = ref.at(t_end);
  const double q_error =
      std::max({std::abs(vi.q()[0] - z[0]), std::abs(vi.q()[1] - z[1]), std::abs(vi.q()[2] - z[2])});
  return {q_error, std::abs(vi.mu()[0] - ref.multiplier(t_end - 0.5 * h))};
}

TEST(Nonholonomic, SleighConvergesWithOrderTwoToTheReference) {
  for (Rule rule : {Rule::kMidpoint, Rule::kTrapezoid}) {
    const auto [q1, mu1] = sleigh_errors(rule, 0.04, 4.0);
    const auto [q2, mu2] = sleigh_errors(rule, 0.02, 4.0);
    const auto [q3, mu3] = sleigh_errors(rule, 0.01, 4.0);
    const double order_q = std::log2(q2 / q3), order_mu = std::log2(mu2 / mu3);
    EXPECT_NEAR(std::log2(q1 / q2), 2.0, 0.15);
    EXPECT_NEAR(order_q, 2.0, 0.15);
    EXPECT_NEAR(order_mu, 2.0, 0.2);
    EXPECT_LT(q3, 1e-3);
  }
}

TEST(Nonholonomic, RollingDiskFollowsItsClosedFormWithOrderTwo) {
  const Disk disk;
  const KernelModel model = disk.model();
  const double t_end = 5.0;
  for (Rule rule : {Rule::kMidpoint, Rule::kTrapezoid}) {
    std::vector<double> errors;
    for (double h : {0.04, 0.02, 0.01}) {
      NonholonomicIntegrator vi(model, rule, h);
      vi.start_from_velocity(disk.q0(), disk.qdot0());
      const long steps = std::lround(t_end / h);
      for (long k = 0; k < steps; ++k) vi.step();
      errors.push_back((Eigen::Vector4d(vi.q()) - disk.at(t_end)).lpNorm<Eigen::Infinity>());
    }
    EXPECT_NEAR(std::log2(errors[0] / errors[1]), 2.0, 0.15);
    EXPECT_NEAR(std::log2(errors[1] / errors[2]), 2.0, 0.15);
  }
}

TEST(Nonholonomic, RollingDiskFirstIntegrals) {
  // Continuous (Bloch §1.4): θ̇, φ̇ and E = ½(m R² + J) φ̇² + ½ I θ̇² are constant. The discrete scheme
  // keeps the heading rate exactly: no constraint force acts on θ and L does not depend on θ, so the
  // momentum I Δθ/h is the same at every step (the nonholonomic momentum of ξ = ∂/∂θ, A ξ = 0).
  // φ̇ and E are kept up to an O(h²) oscillation that does not grow.
  const Disk disk;
  const KernelModel model = disk.model();
  const double h = 0.05;
  for (Rule rule : {Rule::kMidpoint, Rule::kTrapezoid}) {
    NonholonomicIntegrator vi(model, rule, h);
    vi.start_from_velocity(disk.q0(), disk.qdot0());
    double worst_theta_rate = 0.0, worst_momentum = 0.0, worst_phi_rate = 0.0, worst_energy = 0.0;
    for (int k = 1; k <= 20000; ++k) {
      const Vector q_before = vi.q();
      vi.step();
      worst_theta_rate = std::max(worst_theta_rate, std::abs((vi.q()[2] - q_before[2]) / h - disk.theta_dot));
      worst_momentum = std::max(worst_momentum, std::abs(vi.momentum(0) - disk.inertia * disk.theta_dot));
      if (k % 100 == 0) {
        const Vector v = vi.velocity();
        worst_phi_rate = std::max(worst_phi_rate, std::abs(v[3] - disk.phi_dot) / disk.phi_dot);
        worst_energy = std::max(worst_energy, std::abs(vi.energy() - disk.energy()) / disk.energy());
      }
    }
    EXPECT_LT(worst_theta_rate, 1e-9);  // the round-off of θ_k ~ 1e3 divided by h
    EXPECT_LT(worst_momentum, 1e-12);
    EXPECT_LT(worst_phi_rate, 10 * h * h);
    EXPECT_LT(worst_energy, 10 * h * h);
    RecordProperty(rule == Rule::kMidpoint ? "midpoint" : "trapezoid",
                   "phi_dot " + std::to_string(worst_phi_rate) + " energy " + std::to_string(worst_energy));
  }
}

TEST(Nonholonomic, RefusesWhatItDoesNotIntegrate) {
  const Sleigh sleigh;
  const KernelModel model = sleigh.model();
  EXPECT_THROW(NonholonomicIntegrator(model, Rule::kFirstOrder, 0.01), InvalidInput);
  EXPECT_THROW(NonholonomicIntegrator(model, Rule::kMidpoint, 0.0), InvalidInput);
  EXPECT_THROW(NonholonomicIntegrator(model, Rule::kMidpoint, std::nan("")), InvalidInput);
  NonholonomicIntegrator vi(model, Rule::kMidpoint, 0.01);
  // Sideways speed of the centre of mass other than a ω: off the distribution.
  EXPECT_THROW(vi.start_from_velocity(sleigh.q0(), Vector(Eigen::Vector3d(1.0, 0.3, 1.0))), InvalidStart);
  EXPECT_THROW(vi.start_from_velocity(sleigh.q0(), Vector(Eigen::Vector3d(1.0, NAN, 1.0))), InvalidStart);
}

}  // namespace
}  // namespace mechint
