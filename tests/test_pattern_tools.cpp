// Pattern tools (003 §2–4) on traces with known answers: a synthetic two-mass trace built from a
// chosen critical rate γ_c and reduced frequency F, one whose azimuth obeys Jz = I φ̇1 + m2 r2² θ̇
// exactly, and a spherical-pendulum run (a rigid two-mass trace, θ ≡ 0) by the midpoint VI on the
// built-in's kernels, as `mechint run spherical-pendulum` runs it.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "experiments/patterns/critical_rate.hpp"
#include "experiments/patterns/pattern_score.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/analysis/reduced_coordinates.hpp"
#include "mechint/analysis/rotating_frame.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint::analysis {
namespace {

constexpr double kGammaC = 1.3, kF = 2.2;

// Shape: r1, r2 even in t, θ odd; azimuth φ1 = γ_c t + 0.15 sin(F t). Symmetric under t ↦ −t with
// y ↦ −y, so the trace in a resonant frame has a reflection axis as well as the rotation.
TwoMassTrace synthetic_trace(double t_end, double dt) {
  TwoMassTrace tr;
  for (double t = 0.0; t <= t_end + 1e-12; t += dt) {
    const double r1 = 3.0 + 0.3 * std::cos(kF * t), r2 = 5.5 + 0.5 * std::cos(kF * t);
    const double theta = 0.25 * std::sin(kF * t), phi1 = kGammaC * t + 0.15 * std::sin(kF * t);
    tr.push_back(t, {r1 * std::cos(phi1), r1 * std::sin(phi1), -2.0},
                 {r2 * std::cos(phi1 + theta), r2 * std::sin(phi1 + theta), -4.0});
  }
  return tr;
}

TEST(PatternTools, RotatingFrameUndoesAUniformRotation) {
  TwoMassTrace tr;
  const Eigen::Vector3d a(1.0, 0.5, -0.3), b(2.0, -1.0, -1.2);
  for (int i = 0; i <= 100; ++i) {
    const double t = 0.1 * i;
    tr.push_back(t, rotate_about_z(a, 0.7 * t), rotate_about_z(b, 0.7 * t));
  }
  const TwoMassTrace f = to_rotating_frame(tr, 0.7);
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_LT((f.q1[i] - a).norm(), 1e-13);
    EXPECT_LT((f.q2[i] - b).norm(), 1e-13);
  }
}

TEST(PatternTools, ReducedCoordinatesOfTheSyntheticTrace) {
  const ReducedTrace r = reduced_coordinates(synthetic_trace(20.0, 0.01));
  for (std::size_t i = 0; i < r.t.size(); i += 97) {
    const double t = r.t[i];
    EXPECT_NEAR(r.r1[i], 3.0 + 0.3 * std::cos(kF * t), 1e-12);
    EXPECT_NEAR(r.r2[i], 5.5 + 0.5 * std::cos(kF * t), 1e-12);
    EXPECT_NEAR(r.theta[i], 0.25 * std::sin(kF * t), 1e-12);
    EXPECT_NEAR(r.phi1[i], kGammaC * t + 0.15 * std::sin(kF * t), 1e-10);  // unwrapped
  }
}

TEST(PatternTools, SpectralPeakFindsTheReducedFrequency) {
  const ReducedTrace r = reduced_coordinates(synthetic_trace(300.0, 0.02));
  EXPECT_NEAR(spectral_peak(r.t, r.r1, 0.3, 6.0), kF, 1e-4);
}

TEST(PatternTools, ReconstructionFormulaIsTheMeanAzimuthRate) {
  // Jz fixed; φ1 from φ̇1 = (Jz − m2 r2² θ̇)/(m1 r1² + m2 r2²) (eq. 2.2's integrand) by
  // fine Simpson quadrature; the mean of φ̇1 is then known independently of the estimators.
  const TwoMasses m{2.0, 3.5};
  const double jz = 150.0, t_end = 200.0, dt = 0.005;
  auto r1 = [](double t) { return 3.0 + 0.3 * std::cos(kF * t); };
  auto r2 = [](double t) { return 5.5 + 0.5 * std::cos(kF * t); };
  auto theta = [](double t) { return 0.25 * std::sin(kF * t); };
  auto theta_dot = [](double t) { return 0.25 * kF * std::cos(kF * t); };
  auto i_lock = [&](double t) { return m.m1 * r1(t) * r1(t) + m.m2 * r2(t) * r2(t); };
  auto phi_dot = [&](double t) { return (jz - m.m2 * r2(t) * r2(t) * theta_dot(t)) / i_lock(t); };
  auto coupling = [&](double t) { return m.m2 * r2(t) * r2(t) * theta_dot(t) / i_lock(t); };
  TwoMassTrace tr;
  double phi = 0.0, coupling_integral = 0.0;
  const int sub = 8;
  for (long k = 0;; ++k) {
    const double t = k * dt;
    tr.push_back(t, {r1(t) * std::cos(phi), r1(t) * std::sin(phi), -1.0},
                 {r2(t) * std::cos(phi + theta(t)), r2(t) * std::sin(phi + theta(t)), -3.0});
    if (t >= t_end - 1e-9) break;
    const double hs = dt / sub;
    for (int j = 0; j < sub; ++j) {
      const double a = t + j * hs;
      phi += hs / 6.0 * (phi_dot(a) + 4.0 * phi_dot(a + 0.5 * hs) + phi_dot(a + hs));
      coupling_integral += hs / 6.0 * (coupling(a) + 4.0 * coupling(a + 0.5 * hs) + coupling(a + hs));
    }
  }
  const double true_rate = phi / t_end;
  const CriticalRateEstimates e = estimate_critical_rate(tr, m, jz);
  EXPECT_NEAR(e.azimuth_rate_inner, true_rate, 1e-12);
  EXPECT_NEAR(e.reconstruction_inner, true_rate, 1e-5 * true_rate);
  // θ is bounded: the outer choice of cyclic coordinate has the same mean up to θ's range / T.
  EXPECT_NEAR(e.reconstruction_outer, true_rate, 0.5 / t_end);
  EXPECT_NEAR(e.azimuth_rate_outer, true_rate, 0.5 / t_end);
  // The locked average misses the coupling term, a visible amount here.
  EXPECT_NEAR(e.locked_average - true_rate, coupling_integral / t_end, 1e-5 * true_rate);
  EXPECT_GT(std::abs(e.locked_average - true_rate), 2e-4);
}

TEST(PatternTools, CriticalRateUsesTheAzimuthsOfMassesAwayFromTheAxis) {
  // Synthetic trace: r1 ∈ [2.7, 3.3], r2 ∈ [5.0, 6.0]; both azimuths have the mean rate γ_c.
  const CriticalRateEstimates e = estimate_critical_rate(synthetic_trace(40.0, 0.01), TwoMasses{}, 150.0);
  EXPECT_NEAR(e.r1_min, 2.7, 1e-3);
  EXPECT_NEAR(e.r2_min, 5.0, 1e-3);
  EXPECT_DOUBLE_EQ(e.critical_rate(1.0), 0.5 * (e.azimuth_rate_inner + e.azimuth_rate_outer));
  // φ1 = γ_c t + 0.15 sin(F t), φ2 = φ1 + 0.25 sin(F t): the mean of their rates over 40 s is within
  // (0.15 + 0.25/2) / 40 of γ_c.
  EXPECT_NEAR(e.critical_rate(1.0), kGammaC, (0.15 + 0.125) / 40.0 + 1e-12);
  EXPECT_DOUBLE_EQ(e.critical_rate(4.0), e.azimuth_rate_outer);  // mass 1 too near the axis
  EXPECT_DOUBLE_EQ(e.critical_rate(10.0), e.locked_average);     // neither qualifies
}

TEST(PatternTools, ResonantRatesFollowEquation41) {
  for (const ResonantRate& r : resonant_rates(kGammaC, kF, {2, 3, 4}, 3, 10.0))
    EXPECT_NEAR(std::abs(kGammaC - r.gamma), static_cast<double>(r.m) / r.n * kF, 1e-14);
}

TEST(PatternTools, ClosedSymmetricTracesAtTheResonantRates) {
  const TwoMassTrace tr = synthetic_trace(40.0, 0.02);
  // In the critical frame the trace is periodic (closed); off it, it winds on.
  EXPECT_GT(pattern_score(tr, kGammaC, 2).closedness, pattern_score(tr, kGammaC + 0.137, 2).closedness + 0.05);
  for (int n : {2, 3, 4}) {
    const double predicted = kGammaC - kF / n;
    const RateSearchResult found = search_pattern_rate(tr, predicted + 0.01, 0.03, n, 61);
    EXPECT_NEAR(found.gamma, predicted, 1.5e-3) << "D" << n;
    EXPECT_GT(found.score.rotation, 0.9) << "D" << n;
    EXPECT_GT(found.score.reflection, 0.9) << "D" << n;
    // A frame between resonances scores clearly lower.
    EXPECT_LT(pattern_score(tr, predicted + 0.05, n).score, 0.8 * found.score.score) << "D" << n;
  }
}

TEST(PatternTools, LockedAverageIsTheAzimuthRateOfARigidSphericalPendulumTrace) {
  // A spherical-pendulum run as a two-mass trace with q2 = 1.75 q1 (θ ≡ 0, so the coupling
  // vanishes): the locked average of Jz/I and the mean azimuth rates must agree.
  const systems::SphericalPendulum model{1.0, 1.0, 9.81};
  const std::shared_ptr<const kernel::KernelModel> kernels =
      kernel::ModelAdapter<systems::SphericalPendulum>::kernels_for_runs(model);
  kernel::KernelVariationalIntegrator vi(*kernels, kernel::Rule::kMidpoint, 1e-3);
  const double th = 1.0;
  vi.start_from_velocity(VecD<3>(std::sin(th), 0.0, -std::cos(th)), VecD<3>(0.0, 1.7 * std::sin(th), 0.0));
  const TwoMasses m{2.0, 3.5};
  const double scale = (m.m1 + m.m2 * 1.75 * 1.75) / model.mass;
  TwoMassTrace tr;
  tr.push_back(0.0, vi.q(), 1.75 * vi.q());
  while (vi.time() < 20.0 - 1e-9) {
    vi.step();
    tr.push_back(vi.time(), vi.q(), 1.75 * vi.q());
  }
  const CriticalRateEstimates e = estimate_critical_rate(tr, m, scale * vi.momentum(0));
  EXPECT_NEAR(e.locked_average, e.azimuth_rate_inner, 1e-5 * e.azimuth_rate_inner);
  EXPECT_NEAR(e.azimuth_rate_outer, e.azimuth_rate_inner, 1e-12);
  EXPECT_NEAR(e.reconstruction_inner, e.locked_average, 1e-12);
}

}  // namespace
}  // namespace mechint::analysis
