// Steps of the kernel engine's variational integrator (kernel/kernel_variational_integrator.hpp) on
// the double spherical pendulum and on the rigid body in quaternions never touch the heap: global
// operator new and malloc are replaced by counting versions. On the tables their runs take
// (kernels_for_runs, compiled once in the library): the pendulum's midpoint rule composed from its
// constant-mass kernels, the rigid body's supplied as its own discrete Lagrangian (000 eq. 5.8). The
// energy–momentum integrator's steps on the double spherical pendulum (003 §5, plain and composed)
// are counted with its energy and momentum in tests/test_kernel_energy_momentum.cpp.
#include <gtest/gtest.h>

#include <memory>

#include "counting_allocator.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/rigid_body.hpp"

namespace mechint {
namespace {

using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::Vector;

/// Heap allocations during `steps` steps, after a few outside the count.
long allocations_during_steps(KernelVariationalIntegrator& integ, int steps) {
  for (int k = 0; k < 3; ++k) integ.step();
  const long before = g_allocations.load();
  for (int k = 0; k < steps; ++k) integ.step();
  return g_allocations.load() - before;
}

TEST(NoAllocation, CountingAllocatorSeesAnAllocation) {
  const long before = g_allocations.load();
  void* p = ::operator new(64);
  ::operator delete(p);
  EXPECT_EQ(g_allocations.load() - before, 1);
}

TEST(NoAllocation, DoubleSphericalPendulumVariationalStep) {
  using systems::DoubleSphericalPendulum;
  const DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  const auto kernels = kernel::ModelAdapter<DoubleSphericalPendulum>::kernels_for_runs(model);
  KernelVariationalIntegrator vi(*kernels, Rule::kMidpoint, 0.01);
  vi.start_from_velocity(Vector(st.q), Vector(st.v));
  EXPECT_EQ(allocations_during_steps(vi, 500), 0);
}

TEST(NoAllocation, RigidBodyStep) {
  using systems::RigidBody;
  const VecD<4> q0(1, 0, 0, 0);
  const auto kernels = kernel::ModelAdapter<RigidBody>::kernels_for_runs(RigidBody{});
  ASSERT_TRUE(kernels->supplies_own_discrete_rule(MECHINT_RULE_MIDPOINT));  // 000 eq. 5.8, not L's quadrature
  KernelVariationalIntegrator vi(*kernels, Rule::kMidpoint, 0.01);
  vi.start_from_velocity(Vector(q0), Vector(RigidBody::velocity_from_body_rate(q0, VecD<3>(0, 3, 4))));
  EXPECT_EQ(allocations_during_steps(vi, 500), 0);
}

}  // namespace
}  // namespace mechint
