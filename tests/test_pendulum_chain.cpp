// Pendulum chain: the hand-written O(N²) derivatives of L agree with automatic differentiation;
// the discrete derivatives built from them agree with AD of Ld for every rule; the chain keeps
// its energy bounded; one link is the simple pendulum.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "mechint/mechint.hpp"
#include "mechint/systems/pendulum_chain.hpp"

namespace mechint {
namespace {

using systems::PendulumChain;

// The same chain without hand-written derivatives: every derivative by AD.
template <int N>
struct AutoDiffChain {
  static constexpr int kDim = N, kNumConstraints = 0, kNumSymmetries = 0;
  PendulumChain<N> chain;
  template <class T>
  T lagrangian(const Vec<T, N>& q, const Vec<T, N>& v) const {
    return chain.template lagrangian<T>(q, v);
  }
};

template <int N>
void random_state(std::mt19937& rng, VecD<N>& q, VecD<N>& v) {
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  for (int i = 0; i < N; ++i) {
    q[i] = u(rng);
    v[i] = 2 * u(rng);
  }
}

template <int N>
void expect_lagrangian_derivatives_match_ad() {
  std::mt19937 rng(7 + N);
  const PendulumChain<N> model{1.3, 0.7, 9.81};
  for (int trial = 0; trial < 5; ++trial) {
    VecD<N> q, v;
    random_state<N>(rng, q, v);
    LagrangianDerivatives<N> d;
    model.lagrangian_derivatives(q, v, d);
    // AD reference: the Hessian of L over z = (q, v).
    constexpr int m = 2 * N;
    Vec<Jet2<m>, N> qj, vj;
    for (int i = 0; i < N; ++i) {
      qj[i] = Jet2<m>(Jet<m>(q[i], i), i);
      vj[i] = Jet2<m>(Jet<m>(v[i], N + i), N + i);
    }
    const Jet2<m> l = model.template lagrangian<Jet2<m>>(qj, vj);
    Mat<m, m> hess;
    VecD<m> grad;
    for (int i = 0; i < m; ++i) {
      grad[i] = l.v[i].a;
      hess.row(i) = l.v[i].v.transpose();
    }
    const double scale = 1.0 + hess.cwiseAbs().maxCoeff();
    EXPECT_LE((d.q - grad.template head<N>()).cwiseAbs().maxCoeff(), 1e-12 * scale);
    EXPECT_LE((d.v - grad.template tail<N>()).cwiseAbs().maxCoeff(), 1e-12 * scale);
    EXPECT_LE((d.qq - hess.template topLeftCorner<N, N>()).cwiseAbs().maxCoeff(), 1e-12 * scale);
    EXPECT_LE((d.qv - hess.template topRightCorner<N, N>()).cwiseAbs().maxCoeff(), 1e-12 * scale);
    EXPECT_LE((d.vv - hess.template bottomRightCorner<N, N>()).cwiseAbs().maxCoeff(), 1e-12 * scale);
  }
}

TEST(PendulumChain, HandWrittenDerivativesMatchAutomaticDifferentiation) {
  expect_lagrangian_derivatives_match_ad<1>();
  expect_lagrangian_derivatives_match_ad<2>();
  expect_lagrangian_derivatives_match_ad<5>();
  expect_lagrangian_derivatives_match_ad<10>();
}

template <class Rule, int N>
void expect_discrete_derivatives_match_ad() {
  std::mt19937 rng(11 + N);
  const PendulumChain<N> model{1.0, 1.0, 9.81};
  const DiscreteSystem<PendulumChain<N>, Rule> hand(model);
  const DiscreteSystem<AutoDiffChain<N>, Rule> ad(AutoDiffChain<N>{model});
  static_assert(HasHandWrittenDerivatives<decltype(hand)>);
  static_assert(!HasHandWrittenDerivatives<decltype(ad)>);
  for (int trial = 0; trial < 3; ++trial) {
    VecD<N> q0, v;
    random_state<N>(rng, q0, v);
    const double h = 0.05;
    const VecD<N> q1 = q0 + h * v;
    VecD<N> d1_hand, d1_ad;
    Mat<N, N> d12_hand, d12_ad;
    discrete_lagrangian_d1_d12(hand, q0, q1, h, d1_hand, d12_hand);
    discrete_lagrangian_d1_d12(ad, q0, q1, h, d1_ad, d12_ad);
    const double scale = d12_ad.cwiseAbs().maxCoeff();
    EXPECT_LE((d1_hand - d1_ad).cwiseAbs().maxCoeff(), 1e-12 * scale) << Rule::kName;
    EXPECT_LE((d12_hand - d12_ad).cwiseAbs().maxCoeff(), 1e-12 * scale) << Rule::kName;
    EXPECT_LE((discrete_lagrangian_d2(hand, q0, q1, h) - discrete_lagrangian_d2(ad, q0, q1, h)).cwiseAbs().maxCoeff(),
              1e-12 * scale)
        << Rule::kName;
  }
}

TEST(PendulumChain, DiscreteDerivativesFromHandWrittenOnesMatchAutomaticDifferentiation) {
  expect_discrete_derivatives_match_ad<MidpointRule, 3>();
  expect_discrete_derivatives_match_ad<TrapezoidRule, 3>();
  expect_discrete_derivatives_match_ad<FirstOrderRule, 3>();
  expect_discrete_derivatives_match_ad<MidpointRule, 10>();
}

TEST(PendulumChain, AutomaticJacobianMatchesCentralDifferences) {
  // The AD path itself against finite differences of the AD-computed D1 Ld (30-dimensional).
  constexpr int N = 30;
  const DiscreteSystem<AutoDiffChain<N>, MidpointRule> ad(AutoDiffChain<N>{});
  std::mt19937 rng(3);
  VecD<N> q0, v;
  random_state<N>(rng, q0, v);
  const double h = 0.01, eps = 1e-6;
  const VecD<N> q1 = q0 + h * v;
  VecD<N> d1;
  Mat<N, N> d12;
  discrete_lagrangian_d1_d12(ad, q0, q1, h, d1, d12);
  for (int j = 0; j < N; j += 7) {
    VecD<N> qp = q1, qm = q1;
    qp[j] += eps;
    qm[j] -= eps;
    const VecD<N> fd = (discrete_lagrangian_d1(ad, q0, qp, h) - discrete_lagrangian_d1(ad, q0, qm, h)) / (2 * eps);
    EXPECT_LE((fd - d12.col(j)).norm(), 1e-7 * d12.col(j).norm()) << "column " << j;
  }
}

TEST(PendulumChain, HandWrittenAndAutomaticTrajectoriesAgree) {
  constexpr int N = 4;
  const PendulumChain<N> model{};
  VariationalIntegrator hand(DiscreteSystem<PendulumChain<N>, MidpointRule>(model), 0.01);
  VariationalIntegrator ad(DiscreteSystem<AutoDiffChain<N>, MidpointRule>(AutoDiffChain<N>{model}), 0.01);
  hand.start_from_velocity(PendulumChain<N>::peer_start(), VecD<N>::Zero());
  ad.start_from_velocity(PendulumChain<N>::peer_start(), VecD<N>::Zero());
  for (int k = 0; k < 200; ++k) {
    hand.step();
    ad.step();
  }
  // A chaotic system: agreement over 2 s to 1e-9 means both solve the same equations.
  EXPECT_LE((hand.q() - ad.q()).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(PendulumChain, EnergyStaysBoundedOverLongRuns) {
  constexpr int N = 3;
  VariationalIntegrator vi(DiscreteSystem<PendulumChain<N>, MidpointRule>(PendulumChain<N>{}), 0.005);
  vi.start_from_velocity(PendulumChain<N>::peer_start(), VecD<N>::Zero());
  const double e0 = vi.energy();
  double worst = 0;
  for (int k = 0; k < 40000; ++k) {
    vi.step();
    worst = std::max(worst, std::abs(vi.energy() - e0));
  }
  EXPECT_LE(worst / std::abs(e0), 1e-3);
}

TEST(PendulumChain, OneLinkIsTheSimplePendulum) {
  // Small oscillations: period 2π√(l/g) to O(θ0²): θ0 = 0.01 gives a relative correction θ0²/16.
  const PendulumChain<1> model{1.0, 2.0, 9.81};
  const double period = 2 * M_PI * std::sqrt(2.0 / 9.81) * (1 + 0.01 * 0.01 / 16);
  const int steps = 4000;
  VariationalIntegrator vi(DiscreteSystem<PendulumChain<1>, MidpointRule>(model), period / steps);
  vi.start_from_velocity(VecD<1>(0.01), VecD<1>(0.0));
  for (int k = 0; k < steps; ++k) vi.step();
  EXPECT_NEAR(vi.q()[0], 0.01, 1e-7);
}

}  // namespace
}  // namespace mechint
