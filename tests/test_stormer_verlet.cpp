// The two Störmer–Verlet integrators in momentum form (004 §III-A): the Hamiltonian from the
// Legendre transform against its closed form, the generalized Störmer–Verlet method against the
// trapezoid VI (equal for a constant mass matrix, O(h³) apart per step otherwise), the trapezoid
// flow against the core's variational integrator, symmetry, and second order against an adaptive
// reference.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mechint/analysis/error_measures.hpp"
#include "mechint/integrate/hybrid_reference.hpp"
#include "mechint/integrate/stormer_verlet.hpp"
#include "mechint/integrate/trapezoid_flow.hpp"
#include "mechint/integrate/variational_integrator.hpp"
#include "mechint/systems/double_pendulum.hpp"

namespace mechint {
namespace {

using systems::DoublePendulum;

/// Constant, non-diagonal mass matrix and a non-quadratic potential: both methods coincide.
struct ConstantMassModel {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::cos;
    return 0.5 * (2.0 * v[0] * v[0] + 2.0 * 0.5 * v[0] * v[1] + v[1] * v[1]) -
           (1.0 - cos(q[0]) + 0.3 * q[0] * q[1] * q[1] + 0.5 * q[1] * q[1]);
  }
};

double closed_form_h(const DoublePendulum& m, const VecD<2>& q, const VecD<2>& p) {
  const double v = m.m1 * m.gravity * m.l1 * (1 - std::cos(q[0])) +
                   m.m2 * m.gravity * (m.l1 * (1 - std::cos(q[0])) + m.l2 * (1 - std::cos(q[0] + q[1])));
  return 0.5 * p.dot(m.mass_matrix(q).inverse() * p) + v;
}

TEST(Hamiltonian, LegendreTransformMatchesClosedFormAndFiniteDifferences) {
  const DoublePendulum m;
  const VecD<2> q(0.5647, 1.1106), p(3.7270, 0.2415);
  const auto d = hamiltonian_derivatives(m, q, p);
  EXPECT_NEAR(d.value, closed_form_h(m, q, p), 1e-13);
  EXPECT_LT((d.hp - m.mass_matrix(q).inverse() * p).norm(), 1e-13);
  EXPECT_LT((d.hpp - m.mass_matrix(q).inverse()).norm(), 1e-13);
  // Second derivatives against central differences of the closed form (finite differences are the
  // test oracle only).
  const double e = 1e-4;
  for (int i = 0; i < 2; ++i) {
    VecD<2> dq = VecD<2>::Zero(), dp = VecD<2>::Zero();
    dq[i] = e, dp[i] = e;
    EXPECT_NEAR(d.hq[i], (closed_form_h(m, q + dq, p) - closed_form_h(m, q - dq, p)) / (2 * e), 1e-6);
    for (int k = 0; k < 2; ++k) {
      VecD<2> ek = VecD<2>::Zero();
      ek[k] = e;
      const double hqq = (closed_form_h(m, q + dq + ek, p) - closed_form_h(m, q + dq - ek, p) -
                          closed_form_h(m, q - dq + ek, p) + closed_form_h(m, q - dq - ek, p)) / (4 * e * e);
      const double hqp = (closed_form_h(m, q + dq, p + ek) - closed_form_h(m, q + dq, p - ek) -
                          closed_form_h(m, q - dq, p + ek) + closed_form_h(m, q - dq, p - ek)) / (4 * e * e);
      EXPECT_NEAR(d.hqq(i, k), hqq, 1e-5);
      EXPECT_NEAR(d.hqp(i, k), hqp, 1e-5);
    }
  }
}

TEST(StormerVerlet, CoincidesWithTrapezoidViForConstantMassMatrix) {
  StormerVerletFlow<ConstantMassModel> sv{ConstantMassModel{}};
  TrapezoidFlow<ConstantMassModel> tr{ConstantMassModel{}};
  VecD<2> qa(0.7, -0.4), pa(0.3, 1.1), qb = qa, pb = pa, q1, p1;
  for (int k = 0; k < 200; ++k) {
    ASSERT_TRUE(sv.step(qa, pa, 0.05, q1, p1).converged);
    qa = q1, pa = p1;
    ASSERT_TRUE(tr.step(qb, pb, 0.05, q1, p1).converged);
    qb = q1, pb = p1;
  }
  EXPECT_LT((qa - qb).norm(), 1e-12);
  EXPECT_LT((pa - pb).norm(), 1e-12);
}

TEST(StormerVerlet, DiffersFromTrapezoidViAtThirdOrderPerStepForTheDoublePendulum) {
  // Configuration-dependent M: one step of each from the same state differs by O(h³).
  StormerVerletFlow<DoublePendulum> sv{DoublePendulum{}};
  TrapezoidFlow<DoublePendulum> tr{DoublePendulum{}};
  const VecD<2> q(0.2, -1.5), p(3.0, -1.8);
  std::vector<double> hs, diffs;
  for (double h : {0.04, 0.02, 0.01, 0.005}) {
    VecD<2> qa, pa, qb, pb;
    ASSERT_TRUE(sv.step(q, p, h, qa, pa).converged);
    ASSERT_TRUE(tr.step(q, p, h, qb, pb).converged);
    hs.push_back(h);
    diffs.push_back((qa - qb).norm() + (pa - pb).norm());
  }
  EXPECT_GT(diffs.back(), 1e-9);  // they are different methods
  EXPECT_NEAR(convergence_order(hs, diffs), 3.0, 0.2);
}

TEST(TrapezoidFlow, MatchesTheCoreVariationalIntegrator) {
  const VecD<2> q0(0.5647, 1.1106), p0(3.7270, 0.2415);
  const double h = 0.02;
  VariationalIntegrator<DiscreteSystem<DoublePendulum, TrapezoidRule>> vi(
      DiscreteSystem<DoublePendulum, TrapezoidRule>(DoublePendulum{}), h);
  vi.start_from_momentum(q0, p0);
  TrapezoidFlow<DoublePendulum> flow{DoublePendulum{}};
  VecD<2> q = q0, p = p0, q1, p1;
  for (int k = 0; k < 300; ++k) {
    vi.step();
    ASSERT_TRUE(flow.step(q, p, h, q1, p1).converged);
    q = q1, p = p1;
  }
  EXPECT_LT((vi.q() - q).norm(), 1e-11);
  EXPECT_LT((vi.p() - p).norm(), 1e-11);
}

TEST(StormerVerlet, IsSymmetric) {
  // Lobatto IIIA–IIIB is symmetric: Φ_{−h} ∘ Φ_h = id.
  StormerVerletFlow<DoublePendulum> sv{DoublePendulum{}};
  const VecD<2> q(0.2, -1.5), p(3.0, -1.8);
  VecD<2> q1, p1, q2, p2;
  ASSERT_TRUE(sv.step(q, p, 0.05, q1, p1).converged);
  ASSERT_TRUE(sv.step(q1, p1, -0.05, q2, p2).converged);
  EXPECT_LT((q2 - q).norm() + (p2 - p).norm(), 1e-12);
}

template <class Flow>
double final_error(double h, const VecD<4>& reference, double t_end) {
  Flow flow{DoublePendulum{}};
  VecD<2> q(0.2, -1.5), p(3.0, -1.8), q1, p1;
  for (long k = 0; k < std::lround(t_end / h); ++k) {
    EXPECT_TRUE(flow.step(q, p, h, q1, p1).converged);
    q = q1, p = p1;
  }
  VecD<4> x;
  x << q, p;
  return (x - reference).norm();
}

TEST(StormerVerlet, BothIntegratorsAreSecondOrderAgainstAnAdaptiveReference) {
  DoublePendulum far_wall;
  far_wall.wall_offset = 10.0;  // unreachable: the reference integrates the smooth dynamics
  std::vector<HybridReference<DoublePendulum>::Event> events;
  const double t_end = 2.0;
  const auto ref = HybridReference<DoublePendulum>(far_wall, 1e-13)
                       .run(VecD<2>(0.2, -1.5), VecD<2>(3.0, -1.8), 0.0, t_end, {t_end}, events);
  ASSERT_TRUE(events.empty());
  VecD<4> x;
  x << ref[0].q, ref[0].p;
  const std::vector<double> hs = {0.02, 0.01, 0.005, 0.0025};
  std::vector<double> e_sv, e_tr;
  for (double h : hs) {
    e_sv.push_back(final_error<StormerVerletFlow<DoublePendulum>>(h, x, t_end));
    e_tr.push_back(final_error<TrapezoidFlow<DoublePendulum>>(h, x, t_end));
  }
  EXPECT_NEAR(convergence_order(hs, e_sv), 2.0, 0.15);
  EXPECT_NEAR(convergence_order(hs, e_tr), 2.0, 0.15);
}

}  // namespace
}  // namespace mechint
