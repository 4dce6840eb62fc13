// SecondOrderJet (core/second_order_jet.hpp): value, gradient and Hessian in one forward pass.
// Checked against an independent AD (ceres' jet of jets, the library's earlier Hessian) on every
// elementary function and on the Lagrangian of every built-in model, and against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "mechint/core/autodiff.hpp"
#include "mechint/core/second_order_jet.hpp"
#include "mechint/model/lagrangian_calculus.hpp"
#include "mechint/systems/acrobot.hpp"
#include "mechint/systems/cart_pole.hpp"
#include "mechint/systems/damped_harmonic_oscillator.hpp"
#include "mechint/systems/damped_pendulum.hpp"
#include "mechint/systems/double_pendulum.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/harmonic_oscillator.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/low_thrust_spacecraft.hpp"
#include "mechint/systems/point_mass_wall.hpp"
#include "mechint/systems/rigid_body.hpp"
#include "mechint/systems/spherical_pendulum.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint {
namespace {

constexpr int kN = 3;
using S = SecondOrderJet<kN>;
using J = Jet2<kN>;

// A function of three variables through every operation of the type, written once for any scalar.
template <class T>
T every_operation(const T& x, const T& y, const T& z) {
  using std::acos, std::asin, std::atan, std::atan2, std::cos, std::cosh, std::exp, std::log, std::pow, std::sin,
      std::sinh, std::sqrt, std::tan, std::tanh, std::abs, std::hypot;
  T r = sin(x) * cos(y) + tan(0.3 * z) - sqrt(x * x + 2.0) / (1.5 + y * y);
  r += exp(0.2 * z) * log(2.0 + x * x) + sinh(0.5 * y) - cosh(0.3 * x) * tanh(z);
  r += asin(0.4 * x) + acos(0.3 * y) + atan(z * x) + atan2(y, x - 3.0);
  r -= pow(1.0 + z * z, 1.7) + 2.0 / (3.0 + x * y) + abs(y - 2.0) * 0.5;
  r += pow(1.5 + x * x, 0.5 + 0.1 * y) + 1.0 - x / 4.0 + (3.0 - y) * (z - 1.0);
  // ceres has neither hypot nor pow(double, jet) for a jet of jets: the same functions written out.
  if constexpr (!std::is_same_v<T, J>) r += hypot(x, y + 1.0) - pow(2.0, 0.3 * z);
  else r += sqrt(x * x + (y + 1.0) * (y + 1.0)) - exp(0.3 * z * std::log(2.0));
  return r;
}

TEST(SecondOrderJet, EveryOperationMatchesAJetOfJets) {
  for (const auto& point : {Eigen::Vector3d(0.3, -0.7, 0.4), Eigen::Vector3d(-1.1, 0.2, 1.3),
                            Eigen::Vector3d(0.9, 1.4, -0.6)}) {
    const S s = every_operation(S(point[0], 0), S(point[1], 1), S(point[2], 2));
    const J j = every_operation(J(Jet<kN>(point[0], 0), 0), J(Jet<kN>(point[1], 1), 1), J(Jet<kN>(point[2], 2), 2));
    const double scale = 1.0 + std::abs(j.a.a);
    EXPECT_NEAR(s.a, j.a.a, 1e-15 * scale);
    for (int a = 0; a < kN; ++a) {
      EXPECT_NEAR(s.g[a], j.a.v[a], 1e-13 * scale) << "gradient " << a;
      for (int b = 0; b < kN; ++b) EXPECT_NEAR(s.hessian(a, b), j.v[a].v[b], 1e-12 * scale) << a << ", " << b;
    }
  }
}

TEST(SecondOrderJet, ClosedFormOfAProductAndAQuotient) {
  // f = x²y/z: ∇f = (2xy/z, x²/z, −x²y/z²), ∂²f/∂x∂z = −2xy/z², ∂²f/∂z² = 2x²y/z³.
  const double x = 1.3, y = -0.4, z = 2.2;
  const S f = S(x, 0) * S(x, 0) * S(y, 1) / S(z, 2);
  EXPECT_DOUBLE_EQ(f.a, x * x * y / z);
  EXPECT_DOUBLE_EQ(f.g[0], 2 * x * y / z);
  EXPECT_DOUBLE_EQ(f.g[1], x * x / z);
  EXPECT_DOUBLE_EQ(f.g[2], -x * x * y / (z * z));
  EXPECT_DOUBLE_EQ(f.hessian(0, 0), 2 * y / z);
  EXPECT_DOUBLE_EQ(f.hessian(0, 1), 2 * x / z);
  EXPECT_DOUBLE_EQ(f.hessian(1, 0), 2 * x / z);
  EXPECT_DOUBLE_EQ(f.hessian(1, 1), 0.0);
  EXPECT_DOUBLE_EQ(f.hessian(0, 2), -2 * x * y / (z * z));
  EXPECT_DOUBLE_EQ(f.hessian(2, 2), 2 * x * x * y / (z * z * z));
  // Packed storage: row by row over the upper triangle.
  EXPECT_EQ(S::packed_index(0, 0), 0);
  EXPECT_EQ(S::packed_index(0, 2), 2);
  EXPECT_EQ(S::packed_index(1, 1), 3);
  EXPECT_EQ(S::packed_index(2, 2), 5);
}

TEST(SecondOrderJet, AConstantHasNoDerivativesAndComparesByValue) {
  const S c(2.5), x(1.0, 1);
  for (double g : c.g) EXPECT_EQ(g, 0.0);
  for (double h : c.h) EXPECT_EQ(h, 0.0);
  EXPECT_TRUE(x < c && c > 1.0 && 3.0 > c && x == 1.0 && x != c);
  EXPECT_TRUE(isfinite(x));
  EXPECT_FALSE(isfinite(S(1.0, 0) / S(0.0)));
}

// The library's earlier Hessian of L: one jet of jets over (q, v).
template <class M, int n = M::kDim>
LagrangianDerivatives<n> jet_of_jets_derivatives(const M& model, const VecD<n>& q, const VecD<n>& v) {
  constexpr int m = 2 * n;
  Vec<Jet2<m>, n> qj, vj;
  for (int i = 0; i < n; ++i) qj[i] = Jet2<m>(Jet<m>(q[i], i), i), vj[i] = Jet2<m>(Jet<m>(v[i], n + i), n + i);
  const Jet2<m> l = model.template lagrangian<Jet2<m>>(qj, vj);
  LagrangianDerivatives<n> d;
  for (int i = 0; i < n; ++i) {
    d.q[i] = l.v[i].a, d.v[i] = l.v[n + i].a;
    for (int j = 0; j < n; ++j)
      d.qq(i, j) = l.v[i].v[j], d.qv(i, j) = l.v[i].v[n + j], d.vv(i, j) = l.v[n + i].v[n + j];
  }
  return d;
}

template <class M>
void expect_same_derivatives(const M& model, const char* name) {
  constexpr int n = M::kDim;
  for (int trial = 0; trial < 4; ++trial) {
    VecD<n> q, v;
    for (int i = 0; i < n; ++i) q[i] = 0.3 + 0.17 * i + 0.11 * trial, v[i] = -0.4 + 0.23 * i - 0.07 * trial;
    const LagrangianDerivatives<n> a = lagrangian_second_derivatives(model, q, v);
    const LagrangianDerivatives<n> b = jet_of_jets_derivatives(model, q, v);
    const auto close = [](const auto& x, const auto& y) {
      return (x - y).template lpNorm<Eigen::Infinity>() <= 1e-13 * (1.0 + y.template lpNorm<Eigen::Infinity>());
    };
    EXPECT_TRUE(close(a.q, b.q)) << name;
    EXPECT_TRUE(close(a.v, b.v)) << name;
    EXPECT_TRUE(close(a.qq, b.qq)) << name << "\n" << a.qq << "\n" << b.qq;
    EXPECT_TRUE(close(a.qv, b.qv)) << name << "\n" << a.qv << "\n" << b.qv;
    EXPECT_TRUE(close(a.vv, b.vv)) << name << "\n" << a.vv << "\n" << b.vv;
    // A Hessian is symmetric by construction here, not by round-off.
    EXPECT_EQ(a.qq, a.qq.transpose()) << name;
    EXPECT_EQ(a.vv, a.vv.transpose()) << name;
  }
}

// The Hessian over the first H variables only: the entries it keeps are the full jet's, bit for bit.
TEST(SecondOrderJet, PartialHessianKeepsTheFullJetsNumbersExactly) {
  using P = SecondOrderJet<kN, 2>;
  for (const auto& point : {Eigen::Vector3d(0.3, -0.7, 0.4), Eigen::Vector3d(-1.1, 0.2, 1.3)}) {
    const S full = every_operation(S(point[0], 0), S(point[1], 1), S(point[2], 2));
    const P part = every_operation(P(point[0], 0), P(point[1], 1), P(point[2], 2));
    EXPECT_EQ(part.a, full.a);
    for (int a = 0; a < kN; ++a) EXPECT_EQ(part.g[a], full.g[a]) << a;
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) EXPECT_EQ(part.hessian(a, b), full.hessian(a, b)) << a << ", " << b;
  }
}

template <class M>
void expect_position_hessian_exact(const M& model, const char* name) {
  constexpr int n = M::kDim, w = 2 * n;
  VecD<w> x;
  for (int i = 0; i < n; ++i) x[i] = 0.3 + 0.17 * i, x[n + i] = -0.4 + 0.23 * i;
  const auto lagrangian = [&](const auto& y) {
    using T = typename std::decay_t<decltype(y)>::Scalar;
    const Vec<T, n> q = y.template head<n>(), v = y.template tail<n>();
    return model.template lagrangian<T>(q, v);
  };
  const auto full = second_order_expansion<w>(lagrangian, x);
  const auto part = second_order_expansion<w, n>(lagrangian, x);
  EXPECT_EQ(gradient_of(part), gradient_of(full)) << name;
  const Mat<n, n> position_block = hessian_of(full).template topLeftCorner<n, n>();
  EXPECT_EQ(hessian_of(part), position_block) << name;
}

TEST(SecondOrderJet, PositionHessianOfEveryBuiltInModelIsTheFullJetsBlock) {
  expect_position_hessian_exact(systems::HarmonicOscillator{}, "harmonic-oscillator");
  expect_position_hessian_exact(systems::Kepler{}, "kepler");
  expect_position_hessian_exact(systems::ThreeBody{}, "three-body");
  expect_position_hessian_exact(systems::DoublePendulum{}, "double-pendulum");
  expect_position_hessian_exact(systems::SphericalPendulum{}, "spherical-pendulum");
  expect_position_hessian_exact(systems::DoubleSphericalPendulum{}, "double-spherical-pendulum");
  expect_position_hessian_exact(systems::RigidBody{}, "rigid-body");
  expect_position_hessian_exact(systems::Acrobot{}, "acrobot");
  expect_position_hessian_exact(systems::CartPole{}, "cart-pole");
  expect_position_hessian_exact(systems::LowThrustSpacecraft{}, "low-thrust-spacecraft");
  expect_position_hessian_exact(systems::PointMassWall{}, "point-mass-wall");
}

TEST(SecondOrderJet, LagrangianDerivativesOfEveryBuiltInModelMatchAJetOfJets) {
  expect_same_derivatives(systems::HarmonicOscillator{}, "harmonic-oscillator");
  expect_same_derivatives(systems::Kepler{}, "kepler");
  expect_same_derivatives(systems::ThreeBody{}, "three-body");
  expect_same_derivatives(systems::DoublePendulum{}, "double-pendulum");
  expect_same_derivatives(systems::SphericalPendulum{}, "spherical-pendulum");
  expect_same_derivatives(systems::DoubleSphericalPendulum{}, "double-spherical-pendulum");
  expect_same_derivatives(systems::RigidBody{}, "rigid-body");
  expect_same_derivatives(systems::Acrobot{}, "acrobot");
  expect_same_derivatives(systems::CartPole{}, "cart-pole");
  expect_same_derivatives(systems::DampedHarmonicOscillator{}, "damped-oscillator");
  expect_same_derivatives(systems::DampedPendulum{}, "damped-pendulum");
  expect_same_derivatives(systems::LowThrustSpacecraft{}, "low-thrust-spacecraft");
  expect_same_derivatives(systems::PointMassWall{}, "point-mass-wall");
}

}  // namespace
}  // namespace mechint
