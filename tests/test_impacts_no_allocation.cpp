// Steps of the impact driver never touch the heap, with and without impacts, for every law and
// both integrators: global operator new is replaced by a counting version.
#include <gtest/gtest.h>

// Boost's exception cloning (pulled in by Boost.Math) uses new-expressions that GCC pairs with the
// replaced operator delete below and warns about; the replacement pair is consistent (malloc/free).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#include <atomic>
#include <cstdlib>
#include <new>

#include "mechint/integrate/impact_driver.hpp"
#include "mechint/integrate/stormer_verlet.hpp"
#include "mechint/integrate/trapezoid_flow.hpp"
#include "mechint/systems/double_pendulum.hpp"

#include "counting_allocator.hpp"

namespace mechint {
namespace {

using systems::DoublePendulum;

template <class Flow>
void check(ImpactLaw law) {
  ImpactOptions o;
  o.law = law;
  ImpactDriver<Flow> d(DoublePendulum{}, 0.058, o);
  d.start(VecD<2>(0.5647, 1.1106), VecD<2>(3.7270, 0.2415));
  const long before = g_allocations.load();
  for (int k = 0; k < 130; ++k) d.step();
  EXPECT_EQ(g_allocations.load() - before, 0) << impact_law_name(law);
  EXPECT_EQ(d.impacts().size(), 5u);  // the steps above did resolve impacts
}

TEST(ImpactsNoAllocation, CountingAllocatorSeesAnAllocation) {
  const long before = g_allocations.load();
  void* p = ::operator new(64);
  ::operator delete(p);
  EXPECT_EQ(g_allocations.load() - before, 1);
}

TEST(ImpactsNoAllocation, TrapezoidVi) {
  for (ImpactLaw law : {ImpactLaw::kDtec, ImpactLaw::kCtec, ImpactLaw::kMhc}) check<TrapezoidFlow<DoublePendulum>>(law);
}

TEST(ImpactsNoAllocation, StormerVerlet) {
  for (ImpactLaw law : {ImpactLaw::kDtec, ImpactLaw::kCtec, ImpactLaw::kMhc}) check<StormerVerletFlow<DoublePendulum>>(law);
}

}  // namespace
}  // namespace mechint
