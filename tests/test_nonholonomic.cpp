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

/// The sleigh's motion in body velocities (Bloch, Nonholonomic Mechanics and Control, ch. 1), derived
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
  /// θ̇ and φ̇ are constant (Bloch ch. 1): θ = θ̇ t, φ = φ̇ t, and the contact point runs on a circle
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
    // Round-off of a difference quotient: ~1e-16 |q| / h; allowed 100 times that.
    const auto roundoff = [h](const Vector& q) { return 1e-14 * (1.0 + q.lpNorm<Eigen::Infinity>()) / h; };
    for (int k = 0; k < 4000; ++k) {
      const Vector qs = s.q(), qd = d.q();
      s.step();
      d.step();
      ASSERT_LT(std::abs(sleigh_constraint(rule, sleigh.a, qs, s.q(), h)), roundoff(s.q())) << k;
      ASSERT_LT(disk_constraint(rule, disk.r, qd, d.q(), h), roundoff(d.q())) << k;
      ASSERT_LT(s.nonholonomic_residual(), roundoff(s.q())) << k;
      ASSERT_LT(d.nonholonomic_residual(), roundoff(d.q())) << k;
    }
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
  // h = 0.05: 1e6 steps reach t = 5e4, about 8000 turns of the disk. Bounded: the largest error over
  // 1e6 steps is that of the first 1e4 (up to the round-off that 1e6 steps accumulate). Measured
  // (docs/nonholonomic.md): midpoint 8.8e-9 (sleigh) and 8.4e-8 (disk); the trapezoid rule keeps the
  // energy of these two systems to round-off (2e-11, 2e-10).
  for (Rule rule : {Rule::kMidpoint, Rule::kTrapezoid}) {
    const double bound = rule == Rule::kMidpoint ? 1e-6 : 1e-9;
    const double sleigh_short = energy_drift(Sleigh{}, rule, 0.05, 10000);
    const double sleigh_long = energy_drift(Sleigh{}, rule, 0.05, 1000000);
    const double disk_short = energy_drift(Disk{}, rule, 0.05, 10000);
    const double disk_long = energy_drift(Disk{}, rule, 0.05, 1000000);
    EXPECT_LT(sleigh_long, bound);
    EXPECT_LT(disk_long, bound);
    EXPECT_LE(sleigh_long, 1.5 * sleigh_short + 1e-9);
    EXPECT_LE(disk_long, 1.5 * disk_short + 1e-9);
  }
}

/// Errors of the sleigh at t = T against its reference: q (max norm), the multiplier at the state
/// (the mu1 column), the node average of the step multipliers (μ_{N−2} + μ_{N−1})/2 at t_{N−1}, and
/// the last step multiplier μ_{N−1} alone at t_{N−½}.
struct SleighErrors {
  double q, multiplier, node_average, step;
};

SleighErrors sleigh_errors(Rule rule, double h, double t_end) {
  const Sleigh sleigh;
  const KernelModel model = sleigh.model();
  NonholonomicIntegrator vi(model, rule, h);
  vi.start_from_velocity(sleigh.q0(), sleigh.qdot0());
  const long steps = std::lround(t_end / h);
  double mu_before = 0.0;
  for (long k = 0; k < steps; ++k) {
    mu_before = vi.mu()[0];
    vi.step();
  }
  const SleighReference ref{sleigh};
  const auto z = ref.at(t_end);
  SleighErrors e;
  e.q = std::max({std::abs(vi.q()[0] - z[0]), std::abs(vi.q()[1] - z[1]), std::abs(vi.q()[2] - z[2])});
  e.multiplier = std::abs(vi.multiplier()[0] - ref.multiplier(t_end));
  e.node_average = std::abs(0.5 * (mu_before + vi.mu()[0]) - ref.multiplier(t_end - h));
  e.step = std::abs(vi.mu()[0] - ref.multiplier(t_end - 0.5 * h));
  return e;
}

TEST(Nonholonomic, SleighConvergesWithOrderTwoToTheReference) {
  for (Rule rule : {Rule::kMidpoint, Rule::kTrapezoid}) {
    const SleighErrors e1 = sleigh_errors(rule, 0.04, 4.0), e2 = sleigh_errors(rule, 0.02, 4.0),
                       e3 = sleigh_errors(rule, 0.01, 4.0);
    EXPECT_NEAR(std::log2(e1.q / e2.q), 2.0, 0.15);
    EXPECT_NEAR(std::log2(e2.q / e3.q), 2.0, 0.15);
    EXPECT_LT(e3.q, 1e-3);
    EXPECT_NEAR(std::log2(e2.multiplier / e3.multiplier), 2.0, 0.2);
    EXPECT_NEAR(std::log2(e2.node_average / e3.node_average), 2.0, 0.2);
    // The midpoint rule's step multipliers alone carry the O(h) alternating component of mu()'s
    // comment; the trapezoid rule's approximate μ(t_{k+½}) to O(h²).
    EXPECT_NEAR(std::log2(e2.step / e3.step), rule == Rule::kMidpoint ? 1.0 : 2.0, 0.2);
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

/// The largest deviations of the rolling disk's first integrals over 20000 steps of h.
struct DiskIntegrals {
  double theta_rate = 0.0, momentum = 0.0, phi_rate = 0.0, energy = 0.0;
};

DiskIntegrals disk_integrals(Rule rule, double h) {
  const Disk disk;
  const KernelModel model = disk.model();
  NonholonomicIntegrator vi(model, rule, h);
  vi.start_from_velocity(disk.q0(), disk.qdot0());
  DiskIntegrals worst;
  for (int k = 1; k <= 20000; ++k) {
    const Vector q_before = vi.q();
    vi.step();
    worst.theta_rate = std::max(worst.theta_rate, std::abs((vi.q()[2] - q_before[2]) / h - disk.theta_dot));
    worst.momentum = std::max(worst.momentum, std::abs(vi.momentum(0) - disk.inertia * disk.theta_dot));
    if (k % 100 == 0) {
      worst.phi_rate = std::max(worst.phi_rate, std::abs(vi.velocity()[3] - disk.phi_dot) / disk.phi_dot);
      worst.energy = std::max(worst.energy, std::abs(vi.energy() - disk.energy()) / disk.energy());
    }
  }
  return worst;
}

TEST(Nonholonomic, RollingDiskFirstIntegrals) {
  // Continuous (Bloch ch. 1): θ̇, φ̇ and E = ½(m R² + J) φ̇² + ½ I θ̇² are constant. Both rules keep the
  // heading rate exactly: no constraint force acts on θ and L does not depend on θ, so the momentum
  // I Δθ/h is the same at every step (the nonholonomic momentum of ξ = ∂/∂θ, A ξ = 0). The trapezoid
  // rule keeps φ̇ and E to round-off as well; the midpoint rule to O(h⁴) (measured, docs/nonholonomic.md).
  for (Rule rule : {Rule::kMidpoint, Rule::kTrapezoid}) {
    const DiskIntegrals coarse = disk_integrals(rule, 0.1), fine = disk_integrals(rule, 0.05);
    for (const DiskIntegrals& w : {coarse, fine}) {
      EXPECT_LT(w.theta_rate, 1e-10);  // round-off of θ_k ≤ 2000 divided by h
      EXPECT_LT(w.momentum, 1e-12);
    }
    if (rule == Rule::kTrapezoid) {
      EXPECT_LT(fine.phi_rate, 1e-11);
      EXPECT_LT(fine.energy, 1e-11);
    } else {
      EXPECT_LT(fine.phi_rate, 1e-6);
      EXPECT_LT(fine.energy, 1e-6);
      EXPECT_GT(fine.energy, 1e-12);  // not kept exactly: the ratio below measures a rate, not noise
      EXPECT_GT(coarse.energy / fine.energy, 8.0);  // faster than h³ (measured: h⁴)
      EXPECT_GT(coarse.phi_rate / fine.phi_rate, 8.0);
    }
  }
}

/// Both placements of the constraint force are symmetric: for L even in q̇ a step is reversible under
/// (q, p) → (q, −p). N steps forward, p reversed, N steps more: back at the start to round-off.
template <class System>
void expect_reversible(const System& system, Rule rule) {
  const KernelModel model = system.model();
  const double h = 0.05;
  NonholonomicIntegrator forward(model, rule, h);
  forward.start_from_velocity(system.q0(), system.qdot0());
  const Vector p0 = forward.p();
  for (int k = 0; k < 200; ++k) forward.step();
  const Vector travelled = forward.q() - system.q0();
  ASSERT_GT(travelled.norm(), 1.0);  // it went somewhere
  NonholonomicIntegrator back(model, rule, h);
  back.start_from_momentum(forward.q(), -forward.p());
  for (int k = 0; k < 200; ++k) back.step();
  const Vector q_error = back.q() - system.q0(), p_error = back.p() + p0;
  EXPECT_LT(q_error.lpNorm<Eigen::Infinity>(), 1e-10);
  EXPECT_LT(p_error.lpNorm<Eigen::Infinity>(), 1e-10);
}

TEST(Nonholonomic, StepsAreReversible) {
  for (Rule rule : {Rule::kMidpoint, Rule::kTrapezoid}) {
    SCOPED_TRACE(rule == Rule::kMidpoint ? "midpoint" : "trapezoid");
    expect_reversible(Sleigh{}, rule);
    expect_reversible(Disk{}, rule);
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
