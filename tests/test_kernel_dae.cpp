// The DAE baseline on derivative kernels (src/kernel/kernel_dae.hpp) against the fixed-size one
// (integrate/ida_dae.hpp) on the same constrained models: the same GGL residual (from the kernels
// there, from AD of the model here) and the same IDA settings, so at every output time the two agree
// to the level of IDA's Newton convergence test. Besides, what the method must keep itself: both constraint
// levels and, to its tolerance, the energy and the Noether momentum.
#include <gtest/gtest.h>

#include "kernel/kernel_dae.hpp"
#include "kernel/model_adapter.hpp"
#include "mechint/integrate/ida_dae.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

template <class M>
void expect_same_motion(const M& model, const VecD<M::kDim>& q0, const VecD<M::kDim>& v0, double t_end) {
  const DaeTolerances tolerances{1e-10, 1e-12};
  DaeStepper<M> fixed(model, 1e-3, tolerances);
  const auto kernels = kernel::ModelAdapter<M>::kernels(model);
  kernel::KernelDaeStepper on_kernels(*kernels, 1e-3, {tolerances.rtol, tolerances.atol});
  fixed.start_from_velocity(q0, v0);
  on_kernels.start_from_velocity(q0, v0);
  const double e0 = on_kernels.energy();
  double worst_q = 0.0, worst_v = 0.0, worst_g = 0.0, worst_e = 0.0;
  for (int i = 1; i <= 20; ++i) {
    const double t = t_end * i / 20;
    fixed.step_toward(t);
    on_kernels.step_toward(t);
    ASSERT_DOUBLE_EQ(on_kernels.time(), t);
    worst_q = std::max(worst_q, (on_kernels.q() - fixed.q()).template lpNorm<Eigen::Infinity>());
    worst_v = std::max(worst_v, (on_kernels.velocity() - fixed.velocity()).template lpNorm<Eigen::Infinity>());
    worst_g = std::max(worst_g, on_kernels.constraint_residual().template lpNorm<Eigen::Infinity>());
    worst_e = std::max(worst_e, std::abs(on_kernels.energy() - e0) / (1.0 + std::abs(e0)));
  }
  // The same residual up to round-off; IDA's Newton (a difference-quotient Jacobian, a convergence
  // test at its own tolerance) then stops at iterates that differ at that test's level, not at
  // round-off: measured 1.4e-9 in q on the double spherical pendulum over 1 s.
  EXPECT_LE(worst_q, 1e-8);
  EXPECT_LE(worst_v, 1e-7);
  EXPECT_LE(worst_g, 1e-10);  // the position constraint is one of the equations IDA solves
  EXPECT_LE(worst_e, 1e-6);   // energy is not kept by the method: to its tolerance over the run
  EXPECT_GT(on_kernels.step_index(), 20);
  EXPECT_EQ(on_kernels.lambda().size(), M::kNumConstraints);
}

TEST(KernelDae, SphericalPendulumFollowsTheFixedSizeDae) {
  const systems::SphericalPendulum model;
  const VecD<3> q0(0.6, 0.0, -0.8), v0(0.0, 1.5, 0.0);
  expect_same_motion(model, q0, v0, 5.0);
  // J_z = m (x ẏ − y ẋ) is kept to IDA's tolerance.
  const auto kernels = kernel::ModelAdapter<systems::SphericalPendulum>::kernels(model);
  kernel::KernelDaeStepper dae(*kernels, 1e-3, {1e-10, 1e-12});
  dae.start_from_velocity(q0, v0);
  dae.step_toward(5.0);
  EXPECT_NEAR(dae.momentum(0), 0.6 * 1.5, 1e-7);
}

TEST(KernelDae, DoubleSphericalPendulumFollowsTheFixedSizeDae) {
  const systems::DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  expect_same_motion(model, st.q, st.v, 1.0);
}

TEST(KernelDae, RefusesAStartOffTheConstraintsAndAnUnconstrainedModel) {
  const auto kernels = kernel::ModelAdapter<systems::SphericalPendulum>::kernels(systems::SphericalPendulum{});
  kernel::KernelDaeStepper dae(*kernels, 1e-3, {});
  EXPECT_THROW(dae.start_from_velocity(Eigen::Vector3d(0.6, 0.0, -0.7), Eigen::Vector3d(0.0, 1.0, 0.0)), InvalidStart);
  EXPECT_THROW(dae.start_from_velocity(Eigen::Vector3d(0.6, 0.0, -0.8), Eigen::Vector3d(1.0, 0.0, 0.0)), InvalidStart);
}

}  // namespace
}  // namespace mechint
