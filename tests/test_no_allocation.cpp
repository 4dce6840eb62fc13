// A step of the variational integrator never touches the heap: global operator new is replaced by
// a counting version and the count must not change across many steps.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "mechint/mechint.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/low_thrust_spacecraft.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

#include "counting_allocator.hpp"

namespace mechint {
namespace {

template <class Integrator>
long allocations_during_steps(Integrator& integ, int steps) {
  integ.step();  // warm-up outside the count
  const long before = g_allocations.load();
  for (int k = 0; k < steps; ++k) {
    integ.step();
  }
  return g_allocations.load() - before;
}

TEST(NoAllocation, CountingAllocatorSeesAnAllocation) {
  const long before = g_allocations.load();
  // A direct call of the allocation function cannot be elided, unlike a new-expression.
  void* p = ::operator new(64);
  ::operator delete(p);
  EXPECT_EQ(g_allocations.load() - before, 1);
}

TEST(NoAllocation, KeplerStep) {
  VariationalIntegrator integ(DiscreteSystem<systems::Kepler, MidpointRule>(systems::Kepler{}), 0.05);
  integ.start_from_velocity(VecD<2>(1, 0), VecD<2>(0, 1.2));
  EXPECT_EQ(allocations_during_steps(integ, 1000), 0);
}

TEST(NoAllocation, ConstrainedSphericalPendulumStep) {
  using systems::SphericalPendulum;
  VariationalIntegrator integ(DiscreteSystem<SphericalPendulum, TrapezoidRule>(SphericalPendulum{}), 0.01);
  integ.start_from_velocity(VecD<3>(0.6, 0, -0.8), VecD<3>(0, 1.0, 0));
  EXPECT_EQ(allocations_during_steps(integ, 1000), 0);
}

TEST(NoAllocation, ChartAndPositionFormStep) {
  using namespace systems;
  using S = ChartedDiscreteSystem<SphericalPendulum, SphericalAnglesChart, MidpointRule>;
  VariationalIntegrator integ(S(SphericalPendulum{}, SphericalAnglesChart{1.0}), 0.01, {}, DelForm::kPosition);
  integ.start_from_velocity(VecD<2>(1.0, 0.0), VecD<2>(0.0, 2.0));
  EXPECT_EQ(allocations_during_steps(integ, 1000), 0);
}

TEST(NoAllocation, TenLinkChainStep) {
  using Chain = systems::PendulumChain<10>;
  VariationalIntegrator integ(DiscreteSystem<Chain, MidpointRule>(Chain{}), 0.01);
  integ.start_from_velocity(Chain::peer_start(), VecD<10>::Zero());
  EXPECT_EQ(allocations_during_steps(integ, 100), 0);
}

TEST(NoAllocation, ForcedStepUnderAControlLaw) {
  using systems::LowThrustSpacecraft;
  VariationalIntegrator integ(DiscreteSystem<LowThrustSpacecraft, MidpointRule>(LowThrustSpacecraft{}), 0.05);
  integ.set_control_law([](double t) { return VecD<2>(1e-3 * std::cos(t), 1e-3); });  // set before the count
  integ.start_from_velocity(VecD<2>(1, 0), VecD<2>(0, 1.1));
  EXPECT_EQ(allocations_during_steps(integ, 1000), 0);
}

/// The Cartesian spherical pendulum with drag R = ½ c|q̇|²: constraint, Rayleigh force, position form.
struct DampedSphericalPendulum : systems::SphericalPendulum {
  template <class T>
  T rayleigh_dissipation(const Vec<T, 3>&, const Vec<T, 3>& v) const {
    return 0.05 * squared_norm(v);
  }
};

TEST(NoAllocation, ForcedConstrainedPositionFormStep) {
  VariationalIntegrator integ(DiscreteSystem<DampedSphericalPendulum, TrapezoidRule>(DampedSphericalPendulum{}), 0.01,
                              {}, DelForm::kPosition);
  integ.start_from_velocity(VecD<3>(0.6, 0, -0.8), VecD<3>(0, 1.0, 0));
  EXPECT_EQ(allocations_during_steps(integ, 1000), 0);
  EXPECT_NE(integ.discrete_work(0), 0.0);
}

}  // namespace
}  // namespace mechint
