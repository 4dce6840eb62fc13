// Pendulum chain: the hand-written O(N²) derivatives of L agree with automatic differentiation;
// the discrete derivatives the kernel engine builds from the chain's hand-derived kernels
// (kernel::pendulum_chain_model, what `mechint run pendulum-chain` runs) agree with AD of Ld formed
// from PendulumChain<N>'s Lagrangian for every rule; the chain keeps its energy bounded; one link is
// the simple pendulum. The integrators are the kernel engine's; the AD side is a kernel table whose
// L derivatives are jets of jets of the struct's Lagrangian.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <type_traits>

#include "kernel/chain_kernels.hpp"
#include "kernel/discrete_rules.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "mechint/core/autodiff.hpp"
#include "mechint/discrete/del_derivatives.hpp"
#include "mechint/discrete/discrete_lagrangians.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "vi_ad_chain.hpp"

namespace mechint {
namespace {

using kernel::DiscreteRule;
using kernel::KernelModel;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::RowMatrix;
using kernel::Vector;
using systems::PendulumChain;
using vi_test::ad_chain_model;
using vi_test::lagrangian_by_ad;

// The same chain without hand-written derivatives, for the fixed-size library's concept below.
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
    Mat<m, m> hess;
    VecD<m> grad;
    lagrangian_by_ad<N>(model, q, v, grad, hess);
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

template <int N>
void expect_discrete_derivatives_match_ad(Rule rule, const char* name) {
  std::mt19937 rng(11 + N);
  const PendulumChain<N> model{1.0, 1.0, 9.81};
  const KernelModel hand_kernels = kernel::pendulum_chain_model(N, 1.0, 1.0, 9.81);
  DiscreteRule hand(hand_kernels, rule);
  for (int trial = 0; trial < 3; ++trial) {
    VecD<N> q0, v;
    random_state<N>(rng, q0, v);
    const double h = 0.05;
    const VecD<N> q1 = q0 + h * v;
    Vector d1_hand(N), d2_hand(N);
    RowMatrix d12_hand(N, N);
    ASSERT_TRUE(hand.d1(Vector(q0), Vector(q1), h, d1_hand, &d12_hand)) << name;
    ASSERT_TRUE(hand.d2(Vector(q0), Vector(q1), h, d2_hand)) << name;
    // AD reference: the gradient and Hessian of Ld over z = (q0, q1).
    VecD<2 * N> grad;
    Mat<2 * N, 2 * N> hess;
    vi_test::discrete_derivatives_by_ad<N>(model, rule, h, q0, q1, grad, hess);
    const Mat<N, N> d12_ad = hess.template topRightCorner<N, N>();
    const double scale = d12_ad.cwiseAbs().maxCoeff();
    EXPECT_LE((VecD<N>(d1_hand) - grad.template head<N>()).cwiseAbs().maxCoeff(), 1e-12 * scale) << name;
    EXPECT_LE((Mat<N, N>(d12_hand) - d12_ad).cwiseAbs().maxCoeff(), 1e-12 * scale) << name;
    EXPECT_LE((VecD<N>(d2_hand) - grad.template tail<N>()).cwiseAbs().maxCoeff(), 1e-12 * scale) << name;
  }
}

TEST(PendulumChain, DiscreteDerivativesFromHandWrittenOnesMatchAutomaticDifferentiation) {
  expect_discrete_derivatives_match_ad<3>(Rule::kMidpoint, "midpoint");
  expect_discrete_derivatives_match_ad<3>(Rule::kTrapezoid, "trapezoid");
  expect_discrete_derivatives_match_ad<3>(Rule::kFirstOrder, "first order");
  expect_discrete_derivatives_match_ad<10>(Rule::kMidpoint, "midpoint");
}

TEST(PendulumChain, FixedSizeRulesTakeTheHandWrittenDerivativesOnlyWhenTheModelHasThem) {
  // The templated library's own dispatch (discrete/del_derivatives.hpp): a model with
  // `lagrangian_derivatives` has its discrete derivatives built from them, one without by AD.
  static_assert(HasHandWrittenDerivatives<DiscreteSystem<PendulumChain<3>, MidpointRule>>);
  static_assert(HasHandWrittenDerivatives<DiscreteSystem<PendulumChain<3>, TrapezoidRule>>);
  static_assert(HasHandWrittenDerivatives<DiscreteSystem<PendulumChain<3>, FirstOrderRule>>);
  static_assert(HasHandWrittenDerivatives<DiscreteSystem<PendulumChain<10>, MidpointRule>>);
  static_assert(!HasHandWrittenDerivatives<DiscreteSystem<AutoDiffChain<3>, MidpointRule>>);
  static_assert(!HasHandWrittenDerivatives<DiscreteSystem<AutoDiffChain<3>, TrapezoidRule>>);
  static_assert(!HasHandWrittenDerivatives<DiscreteSystem<AutoDiffChain<3>, FirstOrderRule>>);
  static_assert(!HasHandWrittenDerivatives<DiscreteSystem<AutoDiffChain<10>, MidpointRule>>);
}

TEST(PendulumChain, AutomaticJacobianMatchesCentralDifferences) {
  // The AD path itself against finite differences of the AD-computed D1 Ld (30-dimensional).
  constexpr int N = 30;
  const KernelModel ad_kernels = ad_chain_model<N>(PendulumChain<N>{});
  DiscreteRule ad(ad_kernels, Rule::kMidpoint);
  std::mt19937 rng(3);
  VecD<N> q0, v;
  random_state<N>(rng, q0, v);
  const double h = 0.01, eps = 1e-6;
  const Vector x0 = q0, q1 = q0 + h * v;
  Vector d1(N);
  RowMatrix d12(N, N);
  ASSERT_TRUE(ad.d1(x0, q1, h, d1, &d12));
  for (int j = 0; j < N; j += 7) {
    Vector qp = q1, qm = q1, d1p(N), d1m(N);
    qp[j] += eps;
    qm[j] -= eps;
    ASSERT_TRUE(ad.d1(x0, qp, h, d1p, nullptr));
    ASSERT_TRUE(ad.d1(x0, qm, h, d1m, nullptr));
    const Vector fd = (d1p - d1m) / (2 * eps);
    EXPECT_LE((fd - d12.col(j)).norm(), 1e-7 * d12.col(j).norm()) << "column " << j;
  }
}

TEST(PendulumChain, HandWrittenAndAutomaticTrajectoriesAgree) {
  constexpr int N = 4;
  const PendulumChain<N> model{};
  const KernelModel hand_kernels = kernel::pendulum_chain_model(N, model.mass, model.length, model.gravity);
  const KernelModel ad_kernels = ad_chain_model<N>(model);
  KernelVariationalIntegrator hand(hand_kernels, Rule::kMidpoint, 0.01);
  KernelVariationalIntegrator ad(ad_kernels, Rule::kMidpoint, 0.01);
  hand.start_from_velocity(PendulumChain<N>::peer_start(), Vector::Zero(N));
  ad.start_from_velocity(PendulumChain<N>::peer_start(), Vector::Zero(N));
  for (int k = 0; k < 200; ++k) {
    hand.step();
    ad.step();
  }
  // A chaotic system: agreement over 2 s to 1e-9 means both solve the same equations.
  EXPECT_LE((hand.q() - ad.q()).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(PendulumChain, EnergyStaysBoundedOverLongRuns) {
  constexpr int N = 3;
  const KernelModel chain = kernel::pendulum_chain_model(N, 1.0, 1.0, 9.81);
  KernelVariationalIntegrator vi(chain, Rule::kMidpoint, 0.005);
  vi.start_from_velocity(PendulumChain<N>::peer_start(), Vector::Zero(N));
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
  const KernelModel chain = kernel::pendulum_chain_model(1, 1.0, 2.0, 9.81);
  const double period = 2 * M_PI * std::sqrt(2.0 / 9.81) * (1 + 0.01 * 0.01 / 16);
  const int steps = 4000;
  KernelVariationalIntegrator vi(chain, Rule::kMidpoint, period / steps);
  vi.start_from_velocity(Vector::Constant(1, 0.01), Vector::Zero(1));
  for (int k = 0; k < steps; ++k) vi.step();
  EXPECT_NEAR(vi.q()[0], 0.01, 1e-7);
}

}  // namespace
}  // namespace mechint
