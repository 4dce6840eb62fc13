// Symplecticity of the one-step map: zero defect (round-off) for every variational integrator on
// Kepler and on the spherical pendulum in angles, while explicit RK4 at the same large step shows a
// defect at least 1000 times larger, so the check can fail.
#include <gtest/gtest.h>

#include <cmath>

#include "mechint/mechint.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using systems::Kepler;
using systems::SphericalAnglesChart;
using systems::SphericalPendulum;

// Explicit RK4 for a Hamiltonian ż = Ω ∇H(z), templated on the scalar so that its Jacobian comes
// exactly from jets. `grad` returns ∇H.
template <class T, int n, class Grad>
Vec<T, 2 * n> rk4_step(const Vec<T, 2 * n>& z, double h, Grad grad) {
  auto f = [&](const Vec<T, 2 * n>& y) {
    const Vec<T, 2 * n> g = grad(y);
    Vec<T, 2 * n> out;
    for (int i = 0; i < n; ++i) {
      out[i] = g[n + i];
      out[n + i] = -g[i];
    }
    return out;
  };
  const Vec<T, 2 * n> k1 = f(z);
  Vec<T, 2 * n> y;
  for (int i = 0; i < 2 * n; ++i) y[i] = z[i] + (0.5 * h) * k1[i];
  const Vec<T, 2 * n> k2 = f(y);
  for (int i = 0; i < 2 * n; ++i) y[i] = z[i] + (0.5 * h) * k2[i];
  const Vec<T, 2 * n> k3 = f(y);
  for (int i = 0; i < 2 * n; ++i) y[i] = z[i] + h * k3[i];
  const Vec<T, 2 * n> k4 = f(y);
  Vec<T, 2 * n> out;
  for (int i = 0; i < 2 * n; ++i) out[i] = z[i] + (h / 6.0) * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  return out;
}

template <int n, class Grad>
double rk4_defect(const VecD<2 * n>& z, double h, Grad grad) {
  constexpr int m = 2 * n;
  const Vec<Jet<m>, m> out = rk4_step<Jet<m>, n>(seed_gradient<m>(z), h, grad);
  Mat<m, m> a;
  for (int i = 0; i < m; ++i) a.row(i) = out[i].v.transpose();
  return symplecticity_defect<n>(a);
}

// ∇H for Kepler, H = |p|²/2 − 1/|q|.
struct KeplerGradient {
  template <class T>
  Vec<T, 4> operator()(const Vec<T, 4>& z) const {
    using std::sqrt;
    const T r2 = z[0] * z[0] + z[1] * z[1];
    const T r3 = r2 * sqrt(r2);
    return Vec<T, 4>(z[0] / r3, z[1] / r3, z[2], z[3]);
  }
};

// ∇H for the spherical pendulum in (θ, φ): H = p_θ²/(2ml²) + p_φ²/(2ml² sin²θ) − m g l cos θ.
struct PendulumAnglesGradient {
  double m, l, g;
  template <class T>
  Vec<T, 4> operator()(const Vec<T, 4>& z) const {
    using std::cos;
    using std::sin;
    const double i = m * l * l;
    const T s = sin(z[0]), c = cos(z[0]);
    const T dh_dtheta = -(z[3] * z[3]) * c / (i * s * s * s) + m * g * l * s;
    return Vec<T, 4>(dh_dtheta, z[0] * 0.0, z[2] / i, z[3] / (i * s * s));
  }
};

template <class S>
double vi_defect(const S& system, const VecD<S::kDim>& q0, const VecD<S::kDim>& v0, double h) {
  VariationalIntegrator integ(system, h);
  integ.start_from_velocity(q0, v0);
  double worst = 0.0;
  for (int k = 0; k < 20; ++k) {  // along one period at 20 steps per period
    const VecD<S::kDim> q_before = integ.q();
    integ.step();
    worst = std::max(worst, symplecticity_defect<S::kDim>(one_step_map_jacobian(system, q_before, integ.q(), h)));
  }
  return worst;
}

TEST(Symplecticity, KeplerVariationalIntegratorsAreSymplecticAndRk4IsNot) {
  const double h = 2 * M_PI / 20;
  VecD<2> q0, v0;
  Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  const double midpoint = vi_defect(DiscreteSystem<Kepler, MidpointRule>(Kepler{1.0}), q0, v0, h);
  const double trapezoid = vi_defect(DiscreteSystem<Kepler, TrapezoidRule>(Kepler{1.0}), q0, v0, h);
  const double first = vi_defect(DiscreteSystem<Kepler, FirstOrderRule>(Kepler{1.0}), q0, v0, h);
  EXPECT_LE(midpoint, 1e-9);
  EXPECT_LE(trapezoid, 1e-9);
  EXPECT_LE(first, 1e-9);
  VecD<4> z;
  z << q0, v0;
  const double rk4 = rk4_defect<2>(z, h, KeplerGradient{});
  EXPECT_GE(rk4, 1000 * std::max({midpoint, trapezoid, first, 1e-12})) << "rk4 defect " << rk4;
  RecordProperty("vi_defect", std::to_string(std::max({midpoint, trapezoid, first})));
  RecordProperty("rk4_defect", std::to_string(rk4));
}

TEST(Symplecticity, SphericalPendulumInAnglesIsSymplecticAndRk4IsNot) {
  const SphericalPendulum model{1.0, 1.0, 9.81};
  const double period = 2 * M_PI / std::sqrt(model.gravity / model.length), h = period / 20;
  const VecD<2> a0(1.0, 0.2), ad0(0.3, 1.5);
  double worst = 0.0;
  worst = std::max(worst, vi_defect(ChartedDiscreteSystem<SphericalPendulum, SphericalAnglesChart, MidpointRule>(
                                        model, SphericalAnglesChart{1.0}), a0, ad0, h));
  worst = std::max(worst, vi_defect(ChartedDiscreteSystem<SphericalPendulum, SphericalAnglesChart, TrapezoidRule>(
                                        model, SphericalAnglesChart{1.0}), a0, ad0, h));
  worst = std::max(worst, vi_defect(ChartedDiscreteSystem<SphericalPendulum, SphericalAnglesChart, FirstOrderRule>(
                                        model, SphericalAnglesChart{1.0}), a0, ad0, h));
  EXPECT_LE(worst, 1e-9);
  const double s = std::sin(a0[0]);
  VecD<4> z(a0[0], a0[1], ad0[0], s * s * ad0[1]);  // p_θ = m l² θ̇, p_φ = m l² sin²θ φ̇
  const double rk4 = rk4_defect<2>(z, h, PendulumAnglesGradient{1.0, 1.0, 9.81});
  EXPECT_GE(rk4, 1000 * std::max(worst, 1e-12)) << "rk4 defect " << rk4;
}

TEST(Symplecticity, DefectDetectsANonSymplecticMatrix) {
  Mat<4, 4> a = Mat<4, 4>::Identity();
  EXPECT_EQ(symplecticity_defect<2>(a), 0.0);
  a(0, 0) = 1.1;  // stretches q without compressing p
  EXPECT_NEAR(symplecticity_defect<2>(a), 0.1, 1e-15);
}

}  // namespace
}  // namespace mechint
