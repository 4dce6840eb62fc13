// The energy–momentum integrator on derivative kernels (src/kernel/energy_momentum_integrator.hpp)
// against the fixed-size one (integrate/energy_momentum.hpp) on the same models, plain and composed:
// two formulations of one discrete flow (M, ∇V, ∇²V and the constraints' curvature from the kernels
// there, from the model's potential and jets of jets here), so the trajectories agree step for step
// to round-off. Besides: energy and momentum at every step (the method's own law), no allocation in
// a step, and a model whose structure does not admit the method refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "constant_mass_models.hpp"
#include "counting_allocator.hpp"
#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/galerkin_tableau.hpp"
#include "kernel/kernel_legendre.hpp"
#include "kernel/builtin_model_kernels.hpp"  // the built-ins' kernels, linked to
#include "kernel/model_adapter.txx"
#include "mechint/core/errors.hpp"
#include "mechint/integrate/energy_momentum.hpp"
#include "mechint/systems/double_pendulum.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/three_body.hpp"

namespace mechint {
namespace {

using kernel::KernelEnergyMomentumIntegrator;
using systems::DoubleSphericalPendulum;
using testing::CartesianDoublePendulum;
using testing::CartesianKepler;

std::vector<double> gammas(const std::string& scheme) {
  return scheme == "none" ? std::vector<double>{} : kernel::composition_named(scheme).gammas;
}

/// Both integrators from (q0, v0) for `steps` steps of h: after every step q, p, λ, energy and the
/// Noether momenta agree to `tolerance` relative to their size.
template <class M>
void expect_same_flow(const M& model, const VecD<M::kDim>& q0, const VecD<M::kDim>& v0, double h, int steps,
                      const std::string& scheme, double tolerance) {
  const NewtonOptions newton{.step_tolerance = 1e-14};
  EnergyMomentumIntegrator<M> fixed(model, h, newton, StepCheckOptions{}, gammas(scheme));
  const auto kernels = kernel::ModelAdapter<M>::kernels(model);
  KernelEnergyMomentumIntegrator on_kernels(*kernels, h, newton, StepCheckOptions{}, gammas(scheme));
  fixed.start_from_velocity(q0, v0);
  on_kernels.start_from_velocity(q0, v0);
  const auto relative = [](const auto& a, const auto& b) {
    return (a - b).template lpNorm<Eigen::Infinity>() / (1.0 + b.template lpNorm<Eigen::Infinity>());
  };
  double worst = 0.0, worst_lambda = 0.0;
  for (int i = 0; i < steps; ++i) {
    fixed.step();
    on_kernels.step();
    worst = std::max({worst, relative(on_kernels.q(), fixed.q()), relative(on_kernels.p(), fixed.p()),
                      std::abs(on_kernels.energy() - fixed.energy()) / (1.0 + std::abs(fixed.energy()))});
    if constexpr (M::kNumConstraints > 0) worst_lambda = std::max(worst_lambda, relative(on_kernels.lambda(), fixed.lambda()));
    for (int s = 0; s < M::kNumSymmetries; ++s)
      worst = std::max(worst, std::abs(on_kernels.momentum(s) - fixed.momentum(s)) / (1.0 + std::abs(fixed.momentum(s))));
  }
  EXPECT_LE(worst, tolerance) << scheme;
  // λ = 2μ/h² is solved to Newton's tolerance on μ: where the two Newton runs stop apart, λ differs
  // by that tolerance over h², far above round-off (it does not feed back into q and p beyond it).
  EXPECT_LE(worst_lambda, 1e2 * tolerance) << scheme;
  std::printf("%s: q, p, energy, momenta %.1e, lambda %.1e\n", scheme.c_str(), worst, worst_lambda);
  EXPECT_EQ(on_kernels.step_index(), steps);
  EXPECT_DOUBLE_EQ(on_kernels.time(), fixed.time());
  EXPECT_EQ(on_kernels.confirmed_steps(), fixed.confirmed_steps());
}

// Kepler (e = 0.5, Gonzalez's discrete gradient): not chaotic, so rounding differences stay at
// round-off over a period and more.
/// The kernel of a model with a constant mass matrix and a potential (L = ½ vᵀ M v − V, its Hessian
/// from a jet over q alone: kernel/model_adapter.hpp) against one second-order jet over (q, v) of
/// the model's L (model/lagrangian_calculus.hpp), at `points` pseudo-random states near (q0, v0):
/// value, gradient and the three Hessian blocks, also when only the gradient is asked for.
template <class M>
void expect_constant_mass_kernel_matches_the_jet(const M& model, const VecD<M::kDim>& q0, const VecD<M::kDim>& v0) {
  constexpr int n = M::kDim;
  const auto kernels = kernel::ModelAdapter<M>::kernels(model);
  kernel::LagrangianValues values(n);
  kernel::Vector l_q(n), l_v(n);
  double value = 0.0, worst = 0.0;
  const auto relative = [](const auto& a, const auto& b) {
    return (a - b).template lpNorm<Eigen::Infinity>() / (1.0 + b.template lpNorm<Eigen::Infinity>());
  };
  for (int point = 0; point < 5; ++point) {
    const VecD<n> q = q0 + 0.1 * VecD<n>::Random(), v = v0 + VecD<n>::Random();
    const LagrangianDerivatives<n> d = lagrangian_second_derivatives(model, q, v);
    ASSERT_TRUE(kernels->lagrangian(q, v, values, true));
    worst = std::max({worst, std::abs(values.value - model.template lagrangian<double>(q, v)), relative(values.q, d.q),
                      relative(values.v, d.v), relative(kernel::RowMatrix(values.qq), kernel::RowMatrix(d.qq)),
                      relative(kernel::RowMatrix(values.qv), kernel::RowMatrix(d.qv)),
                      relative(kernel::RowMatrix(values.vv), kernel::RowMatrix(d.vv))});
    ASSERT_TRUE(kernels->gradient(q, v, &value, &l_q, &l_v));
    worst = std::max({worst, relative(l_q, d.q), relative(l_v, d.v)});
  }
  EXPECT_LE(worst, 1e-14);
}

TEST(ModelAdapter, ConstantMassKernelsMatchOneJetOverPositionsAndVelocities) {
  VecD<2> kq, kv;
  systems::Kepler::pericentre_start(1.0, 1.0, 0.5, kq, kv);
  expect_constant_mass_kernel_matches_the_jet(CartesianKepler{}, kq, kv);  // V = −1/|q|: a Hessian to get right
  VecD<4> dq, dv;
  CartesianDoublePendulum::start(0.3, 0.75, 0.2, -0.2, dq, dv);
  expect_constant_mass_kernel_matches_the_jet(CartesianDoublePendulum{}, dq, dv);
  VecD<3> sq, sv;
  testing::CartesianSphericalPendulum::start(1.2, 2.0, sq, sv);
  expect_constant_mass_kernel_matches_the_jet(testing::CartesianSphericalPendulum{}, sq, sv);
  const DoubleSphericalPendulum dsp;  // unequal masses: M is not the identity
  const auto st = systems::complete_dsp_start(dsp, systems::named_dsp_start("pattern-1"));
  expect_constant_mass_kernel_matches_the_jet(dsp, VecD<6>(st.q), VecD<6>(st.v));
}

/// The velocity blocks alone (KernelModel::velocity_derivatives, what the inverse Legendre transform
/// asks for: a jet over v with q constant, or M for a constant-mass model) against the same one jet
/// over (q, v), and the kernels' velocity from a momentum against the fixed-size transform.
template <class M>
void expect_velocity_blocks_match_the_jet(const M& model, const VecD<M::kDim>& q0, const VecD<M::kDim>& v0) {
  constexpr int n = M::kDim;
  const auto kernels = kernel::ModelAdapter<M>::kernels(model);
  kernel::Vector l_v(n);
  kernel::RowMatrix l_vv(n, n);
  double worst = 0.0;
  for (int point = 0; point < 5; ++point) {
    const VecD<n> q = q0 + 0.1 * VecD<n>::Random(), v = v0 + VecD<n>::Random();
    const LagrangianDerivatives<n> d = lagrangian_second_derivatives(model, q, v);
    ASSERT_TRUE(kernels->velocity_derivatives(q, v, l_v, l_vv));
    worst = std::max({worst, (l_v - d.v).template lpNorm<Eigen::Infinity>() / (1.0 + d.v.template lpNorm<Eigen::Infinity>()),
                      (l_vv - kernel::RowMatrix(d.vv)).template lpNorm<Eigen::Infinity>() /
                          (1.0 + d.vv.template lpNorm<Eigen::Infinity>())});
    if constexpr (M::kNumConstraints == 0) {
      const VecD<n> p = d.v;  // the momentum of (q, v): the transform must give v back
      const kernel::Vector back = kernel::tangent_velocity(*kernels, q, p, v + 0.1 * VecD<n>::Random());
      worst = std::max(worst, (back - v).template lpNorm<Eigen::Infinity>() / (1.0 + v.template lpNorm<Eigen::Infinity>()));
    }
  }
  EXPECT_LE(worst, 1e-14);
}

TEST(ModelAdapter, VelocityBlocksMatchOneJetOverPositionsAndVelocities) {
  VecD<2> kq, kv;
  systems::Kepler::pericentre_start(1.0, 1.0, 0.5, kq, kv);
  expect_velocity_blocks_match_the_jet(systems::Kepler{}, kq, kv);
  expect_velocity_blocks_match_the_jet(CartesianKepler{}, kq, kv);
  // A velocity Hessian that depends on q: the double pendulum's mass matrix.
  expect_velocity_blocks_match_the_jet(systems::DoublePendulum{}, VecD<2>(0.3, 0.75), VecD<2>(0.2, -0.2));
  // Gyroscopic terms (linear in v, depending on q): the rotating frame of the three-body problem.
  expect_velocity_blocks_match_the_jet(systems::ThreeBody{}, VecD<2>(0.5, 0.1), VecD<2>(0.1, 0.8));
  const DoubleSphericalPendulum dsp;
  const auto st = systems::complete_dsp_start(dsp, systems::named_dsp_start("pattern-1"));
  expect_velocity_blocks_match_the_jet(dsp, VecD<6>(st.q), VecD<6>(st.v));
}

TEST(KernelEnergyMomentum, KeplerFollowsTheFixedSizeIntegrator) {
  VecD<2> q0, v0;
  systems::Kepler::pericentre_start(1.0, 1.0, 0.5, q0, v0);
  for (const std::string scheme : {"none", "yoshida4", "kahan-li8"})
    expect_same_flow(CartesianKepler{}, q0, v0, 0.01, 1000, scheme, 1e-11);
}

// Two quadratic constraints, a linear potential (the midpoint gradient).
TEST(KernelEnergyMomentum, CartesianDoublePendulumFollowsTheFixedSizeIntegrator) {
  VecD<4> q0, v0;
  CartesianDoublePendulum::start(0.3, 0.75, 0.2, -0.2, q0, v0);
  for (const std::string scheme : {"none", "suzuki4"})
    expect_same_flow(CartesianDoublePendulum{}, q0, v0, 0.01, 300, scheme, 1e-11);
}

// The built-in double spherical pendulum (6 coordinates, 2 constraints, a symmetry). Its motion is
// chaotic (DESIGN §5): over 200 steps of 0.01 s round-off grows by far less than the tolerance.
TEST(KernelEnergyMomentum, DoubleSphericalPendulumFollowsTheFixedSizeIntegrator) {
  const DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  for (const std::string scheme : {"none", "yoshida4"}) expect_same_flow(model, st.q, st.v, 0.01, 200, scheme, 1e-10);
}

TEST(KernelEnergyMomentum, KeepsEnergyAndMomentumAtEveryStepAndAllocatesNothing) {
  const DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  const auto kernels = kernel::ModelAdapter<DoubleSphericalPendulum>::kernels(model);
  for (const std::string scheme : {"none", "kahan-li6"}) {
    KernelEnergyMomentumIntegrator em(*kernels, 0.01, NewtonOptions{.step_tolerance = 1e-14}, StepCheckOptions{},
                                      gammas(scheme));
    em.start_from_velocity(st.q, st.v);
    const double e0 = em.energy(), j0 = em.momentum(0);
    const double e_scale = 0.5 * em.p().dot(em.velocity()) + std::abs(model.potential<double>(em.q()));
    double worst_e = 0.0, worst_j = 0.0;
    for (int i = 0; i < 500; ++i) {
      em.step();
      worst_e = std::max(worst_e, std::abs(em.energy() - e0));
      worst_j = std::max(worst_j, std::abs(em.momentum(0) - j0));
    }
    // The steps alone (energy() is a diagnostic outside them); steps 512 and 576 are confirmed by
    // two half steps, which allocate nothing either.
    const long before = g_allocations.load();
    for (int i = 0; i < 100; ++i) em.step();
    EXPECT_EQ(g_allocations.load() - before, 0) << scheme;
    // A control: the counter sees Eigen's runtime-sized storage (std::malloc, not operator new).
    const long before_control = g_allocations.load();
    const Eigen::VectorXd control = em.q() + em.p();
    EXPECT_GT(g_allocations.load() - before_control, 0);
    EXPECT_TRUE(control.allFinite());
    EXPECT_LE(worst_e, 1e-12 * e_scale) << scheme;
    EXPECT_LE(worst_j, 1e-12 * (1.0 + std::abs(j0))) << scheme;
    EXPECT_LE(em.constraint_residual().lpNorm<Eigen::Infinity>(), 1e-12) << scheme;
  }
}

TEST(KernelEnergyMomentum, RefusesAModelWithoutTheStructure) {
  // The same Kepler problem, its structure not declared (as a model whose mass depends on q).
  const auto kernels = kernel::ModelAdapter<CartesianKepler>::kernels(CartesianKepler{});
  kernel::KernelModel undeclared = *kernels;
  undeclared.set_structure({});
  EXPECT_THROW(KernelEnergyMomentumIntegrator(undeclared, 0.01), InvalidInput);
  EXPECT_NO_THROW(KernelEnergyMomentumIntegrator(*kernels, 0.01));
}

}  // namespace
}  // namespace mechint
