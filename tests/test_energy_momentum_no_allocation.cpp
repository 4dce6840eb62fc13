// Steps of the energy–momentum integrator (003 §5) and of the VI on the rigid body and the double
// spherical pendulum never touch the heap: global operator new is replaced by a counting version.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "mechint/integrate/energy_momentum.hpp"
#include "mechint/mechint.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/rigid_body.hpp"

#include "counting_allocator.hpp"

namespace mechint {
namespace {

template <class Integrator>
long allocations_during_steps(Integrator& integ, int steps) {
  integ.step();  // warm-up outside the count
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

TEST(NoAllocation, EnergyMomentumStep) {
  const systems::DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  EnergyMomentumIntegrator em(model, 0.01);
  em.start_from_velocity(st.q, st.v);
  EXPECT_EQ(allocations_during_steps(em, 500), 0);
}

TEST(NoAllocation, DoubleSphericalPendulumVariationalStep) {
  using systems::DoubleSphericalPendulum;
  const DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  VariationalIntegrator vi(DiscreteSystem<DoubleSphericalPendulum, MidpointRule>(model), 0.01);
  vi.start_from_velocity(st.q, st.v);
  EXPECT_EQ(allocations_during_steps(vi, 500), 0);
}

TEST(NoAllocation, RigidBodyStep) {
  using systems::RigidBody;
  const VecD<4> q0(1, 0, 0, 0);
  VariationalIntegrator vi(systems::RigidBodyQuaternionSystem{}, 0.01);
  vi.start_from_velocity(q0, RigidBody::velocity_from_body_rate(q0, VecD<3>(0, 3, 4)));
  EXPECT_EQ(allocations_during_steps(vi, 500), 0);
}

}  // namespace
}  // namespace mechint
