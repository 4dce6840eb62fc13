#pragma once
/// \file
/// Estimators of the critical angular velocity γ_c of a two-mass trace (003 Theorems 3–4), the
/// angular frequency F of the reduced motion, and the resonant rates of 003 eq. 4.1.
///
/// Take the inner azimuth φ1 as the cyclic coordinate and (r1, r2, θ) as the shape. The horizontal
/// kinetic energy ½m1(ṙ1² + r1²φ̇1²) + ½m2(ṙ2² + r2²(φ̇1 + θ̇)²) gives the locked inertia
/// I = m1 r1² + m2 r2², the coupling g_{θφ} = m2 r2² and Jz = I φ̇1 + m2 r2² θ̇. Eq. 2.2 / 2.4 read
///
///     γ_c = ⟨ Jz / I ⟩ − ⟨ m2 r2² θ̇ / I ⟩            (⟨·⟩ the time average),
///
/// whose integrand is φ̇1 itself, so γ_c is the mean rate of the unwrapped φ1. Choosing φ2 as the
/// cyclic coordinate instead changes the coupling to −m1 r1² θ̇ and the integrand to φ̇2; the two
/// means agree whenever θ stays bounded. The first term alone, ⟨Jz / I⟩, is the "locked angular
/// velocity" average; it differs from γ_c by the coupling average.

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "mechint/analysis/reduced_coordinates.hpp"

namespace mechint::analysis {

/// Masses of the two points (003 §4: m1 = 2.0, m2 = 3.5).
struct TwoMasses {
  double m1 = 2.0, m2 = 3.5;
};

/// Trapezoid time average of samples y over times t.
inline double time_average(const std::vector<double>& t, const std::vector<double>& y) {
  if (t.size() < 2) throw std::invalid_argument("time_average needs at least two samples");
  double s = 0.0;
  for (std::size_t i = 1; i < t.size(); ++i) s += 0.5 * (y[i] + y[i - 1]) * (t[i] - t[i - 1]);
  return s / (t.back() - t.front());
}

/// dy/dt by central differences (one-sided at the ends), for non-uniform t.
inline std::vector<double> time_derivative(const std::vector<double>& t, const std::vector<double>& y) {
  const std::size_t n = t.size();
  std::vector<double> d(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t a = i == 0 ? 0 : i - 1, b = i + 1 == n ? n - 1 : i + 1;
    d[i] = (y[b] - y[a]) / (t[b] - t[a]);
  }
  return d;
}

/// All estimators of γ_c over one window of a trace.
struct CriticalRateEstimates {
  double locked_average = 0.0;     ///< ⟨Jz / I⟩, the first term of eq. 2.2
  double reconstruction_inner = 0.0;  ///< eq. 2.2 with φ1 cyclic: ⟨(Jz − m2 r2² θ̇)/I⟩
  double reconstruction_outer = 0.0;  ///< eq. 2.2 with φ2 cyclic: ⟨(Jz + m1 r1² θ̇)/I⟩
  double azimuth_rate_inner = 0.0;    ///< (φ1(T) − φ1(0)) / T, φ1 unwrapped
  double azimuth_rate_outer = 0.0;    ///< (φ2(T) − φ2(0)) / T
  double r1_min = 0.0, r2_min = 0.0;  ///< smallest horizontal distances of the masses from the z axis

  /// The estimate used to predict resonant rates: the mean of the azimuth rates of the masses that
  /// stay at least `min_radius` from the z axis over the window (a mass passing near the axis has
  /// an azimuth that jumps by ±π and says nothing about the frame). Either azimuth is an allowed
  /// cyclic coordinate (Theorems 3–4); over a finite window they differ by (θ(T) − θ(0)) / T, and
  /// the mean splits that difference. Falls back to the locked average when neither mass qualifies.
  double critical_rate(double min_radius) const {
    const bool inner = r1_min >= min_radius, outer = r2_min >= min_radius;
    if (inner && outer) return 0.5 * (azimuth_rate_inner + azimuth_rate_outer);
    if (inner) return azimuth_rate_inner;
    if (outer) return azimuth_rate_outer;
    return locked_average;
  }
};

/// The estimators over the whole trace; `jz` is the (conserved) vertical angular momentum, θ̇
/// comes from the trace by central differences (sample finely: the error is O(Δt²)).
inline CriticalRateEstimates estimate_critical_rate(const TwoMassTrace& trace, TwoMasses m, double jz) {
  const ReducedTrace r = reduced_coordinates(trace);
  const std::size_t n = r.t.size();
  const std::vector<double> theta_dot = time_derivative(r.t, r.theta);
  std::vector<double> locked(n), inner(n), outer(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = m.m1 * r.r1[i] * r.r1[i], b = m.m2 * r.r2[i] * r.r2[i];
    locked[i] = jz / (a + b);
    inner[i] = (jz - b * theta_dot[i]) / (a + b);
    outer[i] = (jz + a * theta_dot[i]) / (a + b);
  }
  CriticalRateEstimates e;
  const double span = r.t.back() - r.t.front();
  e.locked_average = time_average(r.t, locked);
  e.reconstruction_inner = time_average(r.t, inner);
  e.reconstruction_outer = time_average(r.t, outer);
  e.azimuth_rate_inner = (r.phi1.back() - r.phi1.front()) / span;
  e.azimuth_rate_outer = (r.phi2.back() - r.phi2.front()) / span;
  e.r1_min = *std::min_element(r.r1.begin(), r.r1.end());
  e.r2_min = *std::min_element(r.r2.begin(), r.r2.end());
  return e;
}

/// Angular frequency (rad/s) of the largest spectral peak of y(t) in [omega_min, omega_max]:
/// the modulus of the Hann-windowed Fourier sum of the mean-free samples on a grid of `grid`
/// frequencies, refined by golden-section search around the best grid point. Samples need not be
/// uniform (the sum is weighted by the trapezoid rule).
inline double spectral_peak(const std::vector<double>& t, const std::vector<double>& y, double omega_min,
                            double omega_max, int grid = 2000) {
  const std::size_t n = t.size();
  if (n < 8) throw std::invalid_argument("spectral_peak needs at least eight samples");
  const double mean = time_average(t, y), t0 = t.front(), span = t.back() - t.front();
  std::vector<double> w(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double dt = 0.5 * ((i + 1 < n ? t[i + 1] : t[i]) - (i > 0 ? t[i - 1] : t[i]));
    w[i] = (y[i] - mean) * dt * 0.5 * (1.0 - std::cos(2.0 * M_PI * (t[i] - t0) / span));
  }
  auto power = [&](double omega) {
    double c = 0.0, s = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      c += w[i] * std::cos(omega * (t[i] - t0));
      s += w[i] * std::sin(omega * (t[i] - t0));
    }
    return c * c + s * s;
  };
  const double step = (omega_max - omega_min) / grid;
  int best = 0;
  double best_p = -1.0;
  for (int j = 0; j <= grid; ++j) {
    const double p = power(omega_min + j * step);
    if (p > best_p) best_p = p, best = j;
  }
  double a = omega_min + std::max(0, best - 1) * step, b = omega_min + std::min(grid, best + 1) * step;
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  double c = b - g * (b - a), d = a + g * (b - a), pc = power(c), pd = power(d);
  for (int it = 0; it < 60 && b - a > 1e-12; ++it) {
    if (pc > pd) {
      b = d, d = c, pd = pc, c = b - g * (b - a), pc = power(c);
    } else {
      a = c, c = d, pc = pd, d = a + g * (b - a), pd = power(d);
    }
  }
  return 0.5 * (a + b);
}

/// A resonant rate predicted by 003 eq. 4.1, |γ_c − γ_n| = (m/n) F.
struct ResonantRate {
  int n = 0;  ///< D_n
  int m = 0;
  double gamma = 0.0;
};

/// γ_c ± (m/n) F for n in `ns` and m = 1..m_max with gcd(m, n) = 1, γ in (0, gamma_max].
inline std::vector<ResonantRate> resonant_rates(double gamma_c, double f, const std::vector<int>& ns, int m_max,
                                                double gamma_max) {
  std::vector<ResonantRate> out;
  for (int n : ns)
    for (int m = 1; m <= m_max; ++m) {
      if (std::gcd(m, n) != 1) continue;
      for (double sign : {-1.0, 1.0}) {
        const double g = gamma_c + sign * m * f / n;
        if (g > 0.0 && g <= gamma_max) out.push_back({n, m, g});
      }
    }
  return out;
}

}  // namespace mechint::analysis
