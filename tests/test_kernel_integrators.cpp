// The runtime-sized methods on derivative kernels (src/kernel/), each model written two ways: the
// pendulum chain's hand-derived kernels against AD of PendulumChain<N>'s Lagrangian (and its
// Euler–Lagrange ODE against the fixed-size Boost.Odeint baseline), and a constrained, forced,
// symmetric model whose kernels are derived by hand here against the AD kernels of its templated
// struct (kernel/model_adapter.txx, with the rules' discrete derivatives and forces by AD of Ld).
// Two formulations of one discrete flow: the trajectories agree to round-off, and every chain step
// solves the discrete Euler–Lagrange equations of AD's Ld. Plus what only the runtime path can do:
// chains of any length, with bounded energy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>

#include <Eigen/Geometry>

#include "counting_allocator.hpp"
#include "kernel/chain_kernels.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.txx"  // the AD kernels of this file's own model (DrivenSphericalPendulum)
#include "mechint/core/linear_algebra.hpp"
#include "mechint/integrate/euler_lagrange_ode.hpp"
#include "mechint/integrate/odeint_baselines.hpp"  // the fixed-size Runge–Kutta baseline of the chain
#include "mechint/model/lagrangian_derivatives.hpp"
#include "mechint/solve/newton_options.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "vi_ad_chain.hpp"

namespace mechint {
namespace {

using kernel::KernelModel;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;

// ---- a constrained, forced model with a symmetry, both ways -------------------------------------

/// A point mass on a sphere |q| = l under gravity −z, viscous drag −c v and a torque u about z along
/// the rotation generator ξ = (−y, x, 0): L = ½ m |v|² − m g z, g(q) = ½(|q|² − l²).
struct DrivenSphericalPendulum {
  static constexpr int kDim = 3;
  static constexpr int kNumConstraints = 1;
  static constexpr int kNumSymmetries = 1;
  static constexpr int kNumControls = 1;
  double m = 1.3, l = 0.9, g = 9.81, c = 0.2;

  template <class T>
  T lagrangian(const Vec<T, 3>& q, const Vec<T, 3>& v) const {
    return 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - m * g * q[2];
  }
  template <class T>
  Vec<T, 1> constraints(const Vec<T, 3>& q) const {
    Vec<T, 1> r;
    r[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - l * l);
    return r;
  }
  VecD<3> symmetry_generator(int, const VecD<3>& q) const { return VecD<3>(-q[1], q[0], 0.0); }
  template <class T>
  Vec<T, 3> generalized_force(const Vec<T, 3>& q, const Vec<T, 3>& v, const Vec<T, 1>& u, double) const {
    Vec<T, 3> f;
    f[0] = -c * v[0] - u[0] * q[1];
    f[1] = -c * v[1] + u[0] * q[0];
    f[2] = -c * v[2];
    return f;
  }
};

/// The same model's kernels, derived by hand.
int driven_lagrangian(const void* ctx, const double* q, const double* v, double* value, double* l_q, double* l_v,
                      double* l_qq, double* l_qv, double* l_vv) {
  const auto& p = *static_cast<const DrivenSphericalPendulum*>(ctx);
  if (value) *value = 0.5 * p.m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - p.m * p.g * q[2];
  for (int i = 0; i < 3; ++i) {
    if (l_q) l_q[i] = i == 2 ? -p.m * p.g : 0.0;
    if (l_v) l_v[i] = p.m * v[i];
    for (int j = 0; j < 3; ++j) {
      if (l_qq) l_qq[3 * i + j] = 0.0;
      if (l_qv) l_qv[3 * i + j] = 0.0;
      if (l_vv) l_vv[3 * i + j] = i == j ? p.m : 0.0;
    }
  }
  return MECHINT_KERNEL_OK;
}
int driven_constraints(const void* ctx, const double* q, double* g, double* dg) {
  const auto& p = *static_cast<const DrivenSphericalPendulum*>(ctx);
  if (g) g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - p.l * p.l);
  if (dg)
    for (int i = 0; i < 3; ++i) dg[i] = q[i];
  return MECHINT_KERNEL_OK;
}
int driven_symmetry(const void*, int32_t, const double* q, double* xi) {
  xi[0] = -q[1], xi[1] = q[0], xi[2] = 0.0;
  return MECHINT_KERNEL_OK;
}
int driven_forces(const void* ctx, const double* q, const double* v, const double* u, double, double* f, double* f_q,
                  double* f_v) {
  const auto& p = *static_cast<const DrivenSphericalPendulum*>(ctx);
  f[0] = -p.c * v[0] - u[0] * q[1];
  f[1] = -p.c * v[1] + u[0] * q[0];
  f[2] = -p.c * v[2];
  if (f_q) {
    for (int i = 0; i < 9; ++i) f_q[i] = 0.0;
    f_q[1] = -u[0];  // ∂f_x/∂y
    f_q[3] = u[0];   // ∂f_y/∂x
  }
  if (f_v)
    for (int i = 0; i < 9; ++i) f_v[i] = i % 4 == 0 ? -p.c : 0.0;
  return MECHINT_KERNEL_OK;
}

KernelModel driven_kernels(const DrivenSphericalPendulum& model) {
  auto owner = std::make_shared<DrivenSphericalPendulum>(model);
  mechint_model_kernels k{};
  k.abi_version = MECHINT_KERNEL_ABI_VERSION;
  k.struct_size = sizeof k;
  k.dim = 3;
  k.num_constraints = 1;
  k.num_symmetries = 1;
  k.num_controls = 1;
  k.has_forces = 1;
  k.context = owner.get();
  k.lagrangian = &driven_lagrangian;
  k.constraints = &driven_constraints;
  k.symmetry = &driven_symmetry;
  k.forces = &driven_forces;
  return KernelModel(k, owner);
}

double control_at(double t) { return 0.8 * std::sin(1.7 * t); }

constexpr Rule kRules[] = {Rule::kMidpoint, Rule::kTrapezoid, Rule::kFirstOrder};

/// Constraint, forces with a control law, a symmetry and its discrete work: every output of the two
/// formulations agrees step by step, for every rule in both forms. The hand-derived kernels' rules are
/// composed by the methods from L's and f's derivatives (kernel/discrete_rules.hpp); the struct's AD
/// kernels supply them, D1, D2, D12 Ld and f⁻, f⁺ by nested AD of each rule's Ld and discrete forces.
TEST(HandDerivedVersusAdKernels, ConstrainedForcedSymmetricModelFollowsTheSameFlow) {
  const DrivenSphericalPendulum model;
  const KernelModel kernels = driven_kernels(model);
  const auto ad = kernel::ModelAdapter<DrivenSphericalPendulum>::kernels_with_discrete_rules(model);
  ASSERT_FALSE(kernels.supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  ASSERT_TRUE(ad->supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  const VecD<3> q0(0.5, 0.2, -std::sqrt(0.81 - 0.25 - 0.04));
  const VecD<3> v0 = VecD<3>(-0.2, 1.1, 0.0).cross(q0) * 0.7;  // tangent: ⟂ q0
  for (Rule rule : kRules)
  for (DelForm form : {DelForm::kMomentum, DelForm::kPosition}) {
    SCOPED_TRACE("rule " + std::to_string(static_cast<int>(rule)) +
                 (form == DelForm::kMomentum ? ", momentum form" : ", position form"));
    KernelVariationalIntegrator automatic(*ad, rule, 0.01, {}, form);
    KernelVariationalIntegrator runtime(kernels, rule, 0.01, {}, form);
    for (KernelVariationalIntegrator* x : {&automatic, &runtime}) {
      x->set_control_law([](double t, kernel::Vector& u) { u[0] = control_at(t); });
      x->start_from_velocity(q0, v0);
    }
    const double j0 = runtime.momentum(0);
    for (int k = 0; k < 400; ++k) {
      automatic.step();
      runtime.step();
    }
    const auto close = [](const auto& a, const auto& b) { return (VecD<3>(a) - VecD<3>(b)).norm(); };
    EXPECT_LT(close(automatic.q(), runtime.q()), 1e-12);
    EXPECT_LT(close(automatic.p(), runtime.p()), 1e-11);
    EXPECT_NEAR(automatic.lambda()[0], runtime.lambda()[0], 1e-10);
    EXPECT_NEAR(automatic.energy(), runtime.energy(), 1e-11);
    EXPECT_NEAR(automatic.momentum(0), runtime.momentum(0), 1e-12);
    EXPECT_NEAR(automatic.discrete_work(0), runtime.discrete_work(0), 1e-12);
    EXPECT_NEAR(automatic.control()[0], runtime.control()[0], 0.0);
    // The forced Noether theorem closes on the runtime path too: J(k) − J(0) = the discrete work
    // (J(0) = ⟨∂L/∂v, ξ⟩ of the start in momentum form; the work is far from zero here).
    if (form == DelForm::kMomentum) {
      EXPECT_GT(std::abs(runtime.discrete_work(0)), 1e-2);
      EXPECT_NEAR(runtime.momentum(0) - j0, runtime.discrete_work(0), 1e-12);
    }
    EXPECT_LT(std::abs(runtime.constraint_residual()[0]), 1e-13);
  }
}

/// The chain's hand-derived kernels are PendulumChain<N>'s value and derivatives.
template <int N>
void expect_chain_kernels_match(std::mt19937& random) {
  const systems::PendulumChain<N> chain{1.3, 0.7, 9.81};
  const KernelModel kernels = kernel::pendulum_chain_model(N, 1.3, 0.7, 9.81);
  std::uniform_real_distribution<double> angle(-3.0, 3.0);
  for (int trial = 0; trial < 5; ++trial) {
    VecD<N> q, v;
    for (int i = 0; i < N; ++i) q[i] = angle(random), v[i] = angle(random);
    LagrangianDerivatives<N> expected;
    chain.lagrangian_derivatives(q, v, expected);
    kernel::LagrangianValues got(N);
    ASSERT_TRUE(kernels.lagrangian(q, v, got, /*with_value=*/true));
    const double scale = 1.0 + expected.vv.norm() + expected.qq.norm();
    EXPECT_NEAR(got.value, chain.template lagrangian<double>(q, v), 1e-13 * scale);
    EXPECT_LT((got.q - expected.q).norm(), 1e-13 * scale);
    EXPECT_LT((got.v - expected.v).norm(), 1e-13 * scale);
    EXPECT_LT((Mat<N, N>(got.qq) - expected.qq).norm(), 1e-13 * scale);
    EXPECT_LT((Mat<N, N>(got.qv) - expected.qv).norm(), 1e-13 * scale);
    EXPECT_LT((Mat<N, N>(got.vv) - expected.vv).norm(), 1e-13 * scale);
  }
}

TEST(ChainKernels, AreTheFixedSizeChainsDerivatives) {
  std::mt19937 random(7);
  expect_chain_kernels_match<1>(random);
  expect_chain_kernels_match<2>(random);
  expect_chain_kernels_match<3>(random);
  expect_chain_kernels_match<4>(random);
  expect_chain_kernels_match<5>(random);
  // Up to 6 links the kernels are compiled for the length, from 7 on the length is read at run time
  // (kernel/chain_kernels.hpp): both sides of the boundary.
  expect_chain_kernels_match<6>(random);
  expect_chain_kernels_match<7>(random);
  expect_chain_kernels_match<12>(random);
}

/// The chain's hand-derived kernels and AD of PendulumChain<N>'s Lagrangian (vi_ad_chain.hpp) on the
/// same rule: the same trajectory, energy and step confirmations; and every step of the hand-derived
/// side solves the discrete Euler–Lagrange equations of the rule's Ld differentiated by AD,
/// p_k + D1 Ld(q_k, q_{k+1}) = 0 and p_{k+1} = D2 Ld(q_k, q_{k+1}), to Newton's tolerance.
template <int N>
void expect_same_chain_trajectory(Rule rule, NewtonVariant variant) {
  SCOPED_TRACE(std::to_string(N) + " links, rule " + std::to_string(static_cast<int>(rule)));
  const systems::PendulumChain<N> chain{};
  const KernelModel kernels = kernel::pendulum_chain_model(N, 1.0, 1.0, 9.81);
  const KernelModel ad_kernels = vi_test::ad_chain_model<N>(chain);
  NewtonOptions options;
  options.variant = variant;
  const double h = 0.01;
  KernelVariationalIntegrator automatic(ad_kernels, rule, h, options);
  KernelVariationalIntegrator runtime(kernels, rule, h, options);
  const VecD<N> q0 = systems::PendulumChain<N>::peer_start();
  automatic.start_from_velocity(q0, VecD<N>::Zero());
  runtime.start_from_velocity(q0, VecD<N>::Zero());
  double worst_d1 = 0.0, worst_d2 = 0.0;
  for (int k = 0; k < 500; ++k) {
    const VecD<N> q_k = runtime.q(), p_k = runtime.p();
    automatic.step();
    runtime.step();
    VecD<2 * N> grad;
    Mat<2 * N, 2 * N> hess;
    vi_test::discrete_derivatives_by_ad<N>(chain, rule, h, q_k, VecD<N>(runtime.q()), grad, hess);
    // Newton stops once its update is below step_tolerance (1 + |q|∞): the residual left is at most
    // the Jacobian D12 Ld times that update (and round-off of the momenta).
    const double d12 = hess.template topRightCorner<N, N>().cwiseAbs().rowwise().sum().maxCoeff();
    const double p_size = 1.0 + std::max(p_k.cwiseAbs().maxCoeff(), VecD<N>(runtime.p()).cwiseAbs().maxCoeff());
    const double tolerance = d12 * options.step_tolerance * (1.0 + runtime.q().cwiseAbs().maxCoeff()) + 1e-13 * p_size;
    worst_d1 = std::max(worst_d1, (p_k + grad.template head<N>()).cwiseAbs().maxCoeff() / tolerance);
    worst_d2 = std::max(worst_d2, (VecD<N>(runtime.p()) - grad.template tail<N>()).cwiseAbs().maxCoeff() / (1e-13 * p_size));
  }
  EXPECT_LT((VecD<N>(runtime.q()) - VecD<N>(automatic.q())).norm(), 1e-11);
  EXPECT_NEAR(runtime.energy(), automatic.energy(), 1e-10);
  EXPECT_EQ(runtime.confirmed_steps(), automatic.confirmed_steps());
  EXPECT_LE(worst_d1, 1.0);
  EXPECT_LE(worst_d2, 1.0);
  EXPECT_GT((VecD<N>(runtime.q()) - q0).norm(), 0.1);  // it moved
}

TEST(KernelChain, HandDerivedAndAutomaticChainsStepAlikeAndSolveTheDelEquations) {
  // 1–4 links: the step's compile-time-size path (n ≤ 4, no constraints, no forces), each of its four
  // instantiations; 7: the runtime-sized one.
  expect_same_chain_trajectory<1>(Rule::kMidpoint, NewtonVariant::kSimplified);
  expect_same_chain_trajectory<2>(Rule::kMidpoint, NewtonVariant::kFull);
  expect_same_chain_trajectory<3>(Rule::kMidpoint, NewtonVariant::kFull);
  expect_same_chain_trajectory<4>(Rule::kFirstOrder, NewtonVariant::kSimplified);
  expect_same_chain_trajectory<3>(Rule::kTrapezoid, NewtonVariant::kSimplified);
  expect_same_chain_trajectory<7>(Rule::kMidpoint, NewtonVariant::kSimplified);
  expect_same_chain_trajectory<7>(Rule::kFirstOrder, NewtonVariant::kFull);
}

TEST(KernelChain, RungeKuttaFollowsTheFixedSizeBaseline) {
  constexpr int N = 4;
  const systems::PendulumChain<N> chain{};
  const KernelModel kernels = kernel::pendulum_chain_model(N, 1.0, 1.0, 9.81);
  RungeKutta4Stepper<systems::PendulumChain<N>> fixed(EulerLagrangeOde<systems::PendulumChain<N>>(chain), 0.002);
  kernel::KernelRk4 runtime(kernel::KernelEulerLagrangeOde(kernels, nullptr), 0.002);
  const VecD<N> q0 = systems::PendulumChain<N>::peer_start();
  fixed.start_from_velocity(q0, VecD<N>::Zero());
  runtime.start_from_velocity(q0, VecD<N>::Zero());
  for (int k = 0; k < 1000; ++k) {
    fixed.step();
    runtime.step();
  }
  EXPECT_LT((VecD<N>(runtime.q()) - fixed.q()).norm(), 1e-10);
  EXPECT_NEAR(runtime.energy(), fixed.energy(), 1e-9);
}

/// What the fixed-size chain could not do: 31, 50 and 100 links. The energy error of the midpoint VI
/// stays bounded over a long run at a fixed step: a few 1e-6 of the energy at most (a drift would grow).
TEST(KernelChain, LongChainsKeepTheirEnergyBounded) {
  for (int links : {31, 50, 100}) {
    const KernelModel kernels = kernel::pendulum_chain_model(links, 1.0, 1.0, 9.81);
    KernelVariationalIntegrator vi(kernels, Rule::kMidpoint, 0.005);
    kernel::Vector q0 = kernel::Vector::Zero(links);
    q0[0] = M_PI / 4;
    vi.start_from_velocity(q0, kernel::Vector::Zero(links));
    const double e0 = vi.energy();
    double largest = 0.0;
    for (int k = 1; k <= 4000; ++k) {  // t = 20: the chain falls, folds and swings back
      vi.step();
      if (k % 100 == 0) largest = std::max(largest, std::abs(vi.energy() - e0));
    }
    // Measured: 3e-7 to 3e-6 of |E0| (0.026 of 8844 at 50 links), with no trend over the run.
    EXPECT_LT(largest, 1e-5 * std::abs(e0)) << links;
  }
}

TEST(KernelNoAllocation, StepsOfChainAndOfConstrainedForcedModel) {
  // 20 links: a Newton system above 16 unknowns, where Eigen's PartialPivLU would take its blocked,
  // allocating path (solve/runtime_lu.hpp); 2 links: the short chain's kernels and RuntimeLu's loops
  // for at most 8 unknowns.
  for (int links : {2, 10, 20}) {
    const KernelModel chain = kernel::pendulum_chain_model(links, 1.0, 1.0, 9.81);
    for (NewtonVariant variant : {NewtonVariant::kFull, NewtonVariant::kSimplified}) {
      NewtonOptions options;
      options.variant = variant;
      KernelVariationalIntegrator vi(chain, Rule::kTrapezoid, 0.01, options);
      kernel::Vector q0 = kernel::Vector::Zero(links);
      q0[0] = M_PI / 4;
      vi.start_from_velocity(q0, kernel::Vector::Zero(links));
      vi.step();
      const long before = g_allocations.load();
      for (int k = 0; k < 300; ++k) vi.step();  // includes confirmed steps (1, 2, 4, …, every 64)
      EXPECT_EQ(g_allocations.load() - before, 0) << links << " links";
    }
  }
  const DrivenSphericalPendulum model;
  const KernelModel driven = driven_kernels(model);
  KernelVariationalIntegrator vi(driven, Rule::kMidpoint, 0.01);
  vi.set_control(kernel::Vector::Constant(1, 0.3));
  vi.start_from_velocity(kernel::Vector(VecD<3>(0.0, 0.0, -0.9)), kernel::Vector(VecD<3>(0.5, 0.2, 0.0)));
  vi.step();
  const long before = g_allocations.load();
  for (int k = 0; k < 300; ++k) vi.step();
  EXPECT_EQ(g_allocations.load() - before, 0);
}

/// An output row's p (position form) and velocity are kept per state (the integrator's
/// diagnostics): after every step they are those of a second integrator that took the same steps
/// and was never asked before, and asking for them again, with the energy and momentum, allocates
/// nothing.
TEST(KernelDiagnostics, FollowTheStateAndAllocateNothing) {
  const DrivenSphericalPendulum model;
  const KernelModel driven = driven_kernels(model);
  const kernel::Vector q_prev(VecD<3>(0.0, 0.0, -0.9));
  const kernel::Vector q0(VecD<3>(0.9 * std::sin(0.01), 0.0, -0.9 * std::cos(0.01)));
  KernelVariationalIntegrator vi(driven, Rule::kMidpoint, 0.01, {}, DelForm::kPosition);
  KernelVariationalIntegrator fresh(driven, Rule::kMidpoint, 0.01, {}, DelForm::kPosition);
  for (KernelVariationalIntegrator* x : {&vi, &fresh}) {
    x->set_control(kernel::Vector::Constant(1, 0.3));
    x->start_from_two_points(q_prev, q0);
  }
  const kernel::Vector p_start = vi.p(), v_start = vi.velocity();
  // A new control acts from the next step; p of the start is the start's (as the fixed-size
  // integrator's).
  for (KernelVariationalIntegrator* x : {&vi, &fresh}) x->set_control(kernel::Vector::Constant(1, -0.7));
  EXPECT_EQ(vi.p(), p_start);
  EXPECT_EQ(vi.velocity(), v_start);
  for (int k = 0; k < 5; ++k) {
    const kernel::Vector p_last = vi.p();
    vi.step();
    fresh.step();
    EXPECT_GT((vi.p() - p_last).norm(), 1e-6);
    // Both in the state just reached: vi had kept the previous state's values.
    EXPECT_EQ(vi.p(), fresh.p());
    EXPECT_EQ(vi.velocity(), fresh.velocity());
    EXPECT_EQ(vi.energy(), fresh.energy());
    EXPECT_EQ(vi.momentum(0), fresh.momentum(0));
  }
  const long before = g_allocations.load();
  double sum = 0.0;
  for (int k = 0; k < 50; ++k) {
    vi.step();
    sum += vi.p()[0] + vi.velocity()[0] + vi.energy() + vi.momentum(0);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_TRUE(std::isfinite(sum));
}

TEST(KernelNoAllocation, RungeKuttaSteps) {
  // 20 links: the mass-matrix solve of the Euler–Lagrange ODE is above 16 unknowns.
  const KernelModel chain = kernel::pendulum_chain_model(20, 1.0, 1.0, 9.81);
  kernel::Vector q0 = kernel::Vector::Zero(20);
  q0[0] = M_PI / 4;
  kernel::KernelRk4 rk4(kernel::KernelEulerLagrangeOde(chain, nullptr), 0.01);
  rk4.start_from_velocity(q0, kernel::Vector::Zero(20));
  rk4.step();  // Odeint sizes its stages at the first step
  long before = g_allocations.load();
  for (int k = 0; k < 300; ++k) rk4.step();
  EXPECT_EQ(g_allocations.load() - before, 0);
  kernel::KernelRk78 rk78(kernel::KernelEulerLagrangeOde(chain, nullptr), 0.01, RungeKuttaTolerances{});
  rk78.start_from_velocity(q0, kernel::Vector::Zero(20));
  rk78.step_toward(0.01);
  before = g_allocations.load();
  for (int k = 2; k < 300; ++k) rk78.step_toward(0.01 * k);
  EXPECT_EQ(g_allocations.load() - before, 0);
}

TEST(KernelModelTable, RefusesTablesItCannotUse) {
  mechint_model_kernels k{};
  k.abi_version = MECHINT_KERNEL_ABI_VERSION + 1;
  k.struct_size = sizeof k;
  k.dim = 2;
  k.lagrangian = &driven_lagrangian;
  EXPECT_THROW(KernelModel(k, nullptr), std::invalid_argument);
  k.abi_version = MECHINT_KERNEL_ABI_VERSION;
  k.struct_size = offsetof(mechint_model_kernels, discrete_rules) - 8;  // shorter than the first table
  EXPECT_THROW(KernelModel(k, nullptr), std::invalid_argument);
  k.struct_size = sizeof k + 8;  // longer than this header's
  EXPECT_THROW(KernelModel(k, nullptr), std::invalid_argument);
  {
    // A filler of the first table (it ended with `unilateral`) knows no discrete rules: whatever the
    // memory behind its table holds, none are read.
    mechint_model_kernels older = k;
    older.struct_size = offsetof(mechint_model_kernels, discrete_rules);
    older.discrete_rules = 0xffffffffu;
    const KernelModel model(older, nullptr);
    EXPECT_FALSE(model.supplies_discrete_rule(MECHINT_RULE_MIDPOINT));
  }
  k.struct_size = sizeof k;
  k.num_constraints = 1;  // no constraint function
  EXPECT_THROW(KernelModel(k, nullptr), std::invalid_argument);
  k.num_constraints = 0;
  k.num_controls = 1;  // controls without forces
  EXPECT_THROW(KernelModel(k, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace mechint
