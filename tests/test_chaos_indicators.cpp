// Chaos indicators from the exact tangent map (kernel/chaos_indicators.hpp,
// docs/chaos-indicators.md). What is asserted, each against something independent:
//   - the accumulator against closed forms: exponential growth e^{λτ} gives Y = λτ and ⟨Y⟩ = λτ/2
//     exactly (the discrete sums telescope), linear growth gives ⟨Y⟩ → 2;
//   - MEGNO of the theory (Cincotta & Simó 2000): ⟨Y⟩ → 0 for the harmonic oscillator, → 2 within
//     0.05 for quasi-periodic motion (Kepler, a regular Hénon–Heiles orbit), and growing linearly with
//     slope λ/2 for a chaotic Hénon–Heiles orbit;
//   - the Lyapunov estimate of that orbit against one computed here by an independent method: the
//     variational equations of the Euler–Lagrange ODE (the Jacobian written by hand) integrated by
//     Boost.Odeint's adaptive Runge–Kutta–Fehlberg 7(8), within 10 %;
//   - the indicators converge with the step size at the quadrature's order (2).
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include <boost/numeric/odeint.hpp>

#include "kernel/chaos_indicators.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/systems/harmonic_oscillator.hpp"
#include "mechint/systems/kepler.hpp"

namespace mechint {
namespace {

using kernel::ChaosIndicators;
using kernel::KernelGalerkinIntegrator;
using kernel::Vector;

/// Hénon & Heiles (1964): L = ½|v|² − ½(x² + y²) − x²y + y³/3.
struct HenonHeiles {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    return 0.5 * (v[0] * v[0] + v[1] * v[1]) - 0.5 * (q[0] * q[0] + q[1] * q[1]) - q[0] * q[0] * q[1] +
           q[1] * q[1] * q[1] / 3.0;
  }
};

/// The start (x = 0, y, ẏ) on the energy surface E, with ẋ > 0.
Vector henon_heiles_velocity(double energy, double y, double y_dot) {
  const double potential = 0.5 * y * y - y * y * y / 3.0;
  Vector v(2);
  v << std::sqrt(2.0 * (energy - potential) - y_dot * y_dot), y_dot;
  return v;
}

/// ⟨Y⟩ and the Lyapunov estimate of a run of the Gauss rule with s stages, sampled every `every` steps.
struct IndicatorRun {
  std::vector<double> t, megno;
  double lyapunov = 0.0, fli = 0.0;
};

IndicatorRun run_indicators(const kernel::KernelModel& model, const Vector& q0, const Vector& v0, int stages,
                            double h, long steps, long every) {
  KernelGalerkinIntegrator vi(model, kernel::gauss_tableau(stages), h);
  vi.start_from_velocity(q0, v0);
  vi.track_deviation(kernel::initial_deviation(2 * model.dim()));
  IndicatorRun run;
  for (long i = 1; i <= steps; ++i) {
    vi.step();
    if (i % every == 0) {
      run.t.push_back(vi.time());
      run.megno.push_back(vi.indicators().megno());
    }
  }
  run.lyapunov = vi.indicators().lyapunov();
  run.fli = vi.indicators().fli();
  return run;
}

// ---- the accumulator ---------------------------------------------------------------------------------

TEST(ChaosIndicators, ExponentialGrowthGivesLambdaTauOverTwo) {
  ChaosIndicators c;
  c.restart(3.0);
  const double lambda = 0.37, h = 0.01;
  for (int k = 1; k <= 5000; ++k) c.add_step(3.0 + k * h, lambda * h);
  const double tau = 5000 * h;
  EXPECT_NEAR(c.megno(), lambda * tau / 2, 1e-12 * tau);
  EXPECT_NEAR(c.lyapunov(), lambda, 1e-13);
  EXPECT_NEAR(c.fli(), lambda * tau, 1e-11);  // ℓ grows monotonically: its last value
}

TEST(ChaosIndicators, LinearGrowthTendsToTwoAndBoundedGrowthToZero) {
  ChaosIndicators linear, bounded;
  linear.restart(0.0);
  bounded.restart(0.0);
  const double h = 0.01;
  for (int k = 1; k <= 1000000; ++k) {
    const double t0 = (k - 1) * h, t1 = k * h;
    linear.add_step(t1, std::log((1.0 + t1) / (1.0 + t0)));
    bounded.add_step(t1, std::log((2.0 + std::sin(t1)) / (2.0 + std::sin(t0))));
  }
  // |δ| = 1 + τ: Y = 2 − 2 ln(1+τ)/τ, ⟨Y⟩ = 2 + 2 Li₂(−τ)/τ = 2 − (ln²τ + π²/3)/τ + O(1/τ²) (1.9912 at
  // τ = 1e4); bounded |δ|: ⟨Y⟩ = O(1/τ).
  const double tau = 1e4;
  EXPECT_NEAR(linear.megno(), 2.0 - (std::log(tau) * std::log(tau) + M_PI * M_PI / 3) / tau, 1e-5);
  EXPECT_NEAR(bounded.megno(), 0.0, 1e-3);
  // FLI: the largest ℓ, ln(3/2) for |δ| = 2 + sin τ from |δ(0)| = 2; ln(1 + τ) for linear growth.
  EXPECT_NEAR(bounded.fli(), std::log(1.5), 1e-8);
  EXPECT_NEAR(linear.fli(), std::log(1.0 + tau), 1e-12);
  EXPECT_EQ(ChaosIndicators{}.megno(), 0.0);
}

TEST(ChaosIndicators, InitialDeviationIsAFixedUnitVector) {
  const Vector a = kernel::initial_deviation(6), b = kernel::initial_deviation(6);
  EXPECT_EQ(a, b);
  EXPECT_NEAR(a.norm(), 1.0, 1e-15);
  for (int i = 0; i < 6; ++i) EXPECT_GT(std::abs(a[i]), 1e-3) << "every direction present";
}

// ---- MEGNO of regular and linear motion -----------------------------------------------------------------

TEST(Megno, HarmonicOscillatorTendsToZero) {
  const auto model = kernel::ModelAdapter<systems::HarmonicOscillator>::kernels(systems::HarmonicOscillator{1.0, 4.0});
  const IndicatorRun run = run_indicators(*model, Vector::Constant(1, 1.0), Vector::Constant(1, 0.5), 1, 0.01, 200000, 200000);
  EXPECT_NEAR(run.megno.back(), 0.0, 0.05);
  EXPECT_NEAR(run.lyapunov, 0.0, 1e-3);
}

TEST(Megno, KeplerTendsToTwo) {
  const auto model = kernel::ModelAdapter<systems::Kepler>::kernels(systems::Kepler{1.0});
  VecD<2> q0, v0;
  systems::Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  // 1000 orbits (period 2π) at 100 steps per orbit, the order 4 rule.
  const IndicatorRun run = run_indicators(*model, q0, v0, 2, 2 * M_PI / 100, 100000, 100000);
  EXPECT_NEAR(run.megno.back(), 2.0, 0.05);
}

TEST(Megno, RegularHenonHeilesOrbitTendsToTwo) {
  const auto model = kernel::ModelAdapter<HenonHeiles>::kernels(HenonHeiles{});
  // E = 1/12, below the chaotic sea: the orbit through the origin is quasi-periodic. ⟨Y⟩ approaches
  // 2 from below as O(1/τ) (as the linear growth above): sampled at τ = 1e4 and 4e4.
  const Vector q0 = Eigen::Vector2d(0.0, 0.0);
  const IndicatorRun run = run_indicators(*model, q0, henon_heiles_velocity(1.0 / 12, 0.0, 0.0), 3, 0.1, 400000, 100000);
  EXPECT_NEAR(run.megno.back(), 2.0, 0.05);
  EXPECT_LT(2.0 - run.megno.back(), 0.5 * (2.0 - run.megno.front())) << "converging as 1/τ";
}

// ---- chaotic motion: linear growth, the Lyapunov exponent against the variational ODE ------------------------

/// (x, y, ẋ, ẏ, δx, δy, δẋ, δẏ): the Hénon–Heiles equations and their linearisation, by hand.
using OdeState = std::array<double, 8>;
struct HenonHeilesVariational {
  void operator()(const OdeState& s, OdeState& ds, double) const {
    const double x = s[0], y = s[1];
    ds[0] = s[2], ds[1] = s[3];
    ds[2] = -x - 2 * x * y;
    ds[3] = -y - x * x + y * y;
    ds[4] = s[6], ds[5] = s[7];
    ds[6] = -(1 + 2 * y) * s[4] - 2 * x * s[5];
    ds[7] = -2 * x * s[4] + (-1 + 2 * y) * s[5];
  }
};

/// The Lyapunov estimate ln|δ(T)|/T from δ(0) = δ0, renormalised every unit of time.
double ode_lyapunov(const Vector& q0, const Vector& v0, const Vector& delta0, double t_end) {
  namespace odeint = boost::numeric::odeint;
  OdeState s{q0[0], q0[1], v0[0], v0[1], delta0[0], delta0[1], delta0[2], delta0[3]};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
  auto stepper = odeint::make_controlled(1e-12, 1e-12, odeint::runge_kutta_fehlberg78<OdeState>());
#pragma GCC diagnostic pop
  double log_growth = 0.0;
  for (double t = 0.0; t < t_end; t += 1.0) {
    odeint::integrate_adaptive(stepper, HenonHeilesVariational{}, s, t, t + 1.0, 1e-2);
    const double norm = std::sqrt(s[4] * s[4] + s[5] * s[5] + s[6] * s[6] + s[7] * s[7]);
    log_growth += std::log(norm);
    for (int i = 4; i < 8; ++i) s[i] /= norm;
  }
  return log_growth / t_end;
}

/// Least-squares slope of y against t.
double slope(const std::vector<double>& t, const std::vector<double>& y) {
  const std::size_t n = t.size();
  double st = 0, sy = 0, stt = 0, sty = 0;
  for (std::size_t i = 0; i < n; ++i) st += t[i], sy += y[i], stt += t[i] * t[i], sty += t[i] * y[i];
  return (n * sty - st * sy) / (n * stt - st * st);
}

TEST(Megno, ChaoticHenonHeilesGrowsLinearlyWithHalfTheLyapunovExponent) {
  const auto model = kernel::ModelAdapter<HenonHeiles>::kernels(HenonHeiles{});
  // E = 1/6, in the chaotic sea.
  const Vector q0 = Eigen::Vector2d(0.0, -0.1), v0 = henon_heiles_velocity(1.0 / 6, -0.1, 0.0);
  const double h = 0.02, t_end = 20000.0;
  const IndicatorRun run = run_indicators(*model, q0, v0, 2, h, static_cast<long>(t_end / h), 5000);
  const double reference = ode_lyapunov(q0, v0, kernel::initial_deviation(4), t_end);
  std::printf("Lyapunov estimate: tangent map %.5f, variational ODE %.5f; final <Y> %.1f\n", run.lyapunov, reference,
              run.megno.back());
  EXPECT_GT(reference, 0.02) << "the orbit is chaotic";
  EXPECT_NEAR(run.lyapunov, reference, 0.1 * reference);
  // ⟨Y⟩ ≈ λτ/2 (+ a constant): its slope over the second half of the run.
  const std::size_t half = run.t.size() / 2;
  const double growth = slope({run.t.begin() + half, run.t.end()}, {run.megno.begin() + half, run.megno.end()});
  EXPECT_NEAR(growth, run.lyapunov / 2, 0.15 * run.lyapunov / 2);
  // The FLI of a chaotic orbit grows as λτ (it is ℓ's running maximum): at least ℓ = λτ at the end.
  EXPECT_GE(run.fli, run.lyapunov * t_end * (1 - 1e-12));
}

TEST(Megno, ConvergesWithTheStepSizeAtSecondOrder) {
  const auto model = kernel::ModelAdapter<HenonHeiles>::kernels(HenonHeiles{});
  const Vector q0 = Eigen::Vector2d(0.0, 0.1), v0 = henon_heiles_velocity(1.0 / 12, 0.1, 0.05);
  // ⟨Y⟩ at τ = 100 with h, h/2, h/4 (the order 6 rule: the orbit's own error is far below the
  // quadrature's of the indicators).
  double y[3];
  for (int i = 0; i < 3; ++i) {
    const long steps = 1000L << i;
    y[i] = run_indicators(*model, q0, v0, 3, 100.0 / steps, steps, steps).megno.back();
  }
  const double ratio = (y[0] - y[1]) / (y[1] - y[2]);
  std::printf("<Y>(100) at h = 0.1, 0.05, 0.025: %.10f %.10f %.10f, ratio %.2f\n", y[0], y[1], y[2], ratio);
  EXPECT_NEAR(std::log2(ratio), 2.0, 0.2);
}

}  // namespace
}  // namespace mechint
