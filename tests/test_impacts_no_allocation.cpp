// Steps of the kernel engine's impact driver (kernel/kernel_impact_driver.hpp) never touch the heap,
// impacts included, for every law and both flows: global operator new and malloc are replaced by
// counting versions. On the double pendulum's table that `mechint run double-pendulum wall=1` takes
// (kernels_for_runs with its wall, compiled once in the library), whose trapezoid rule's discrete
// derivatives the kernels supply by AD. The same steps on L's kernels alone (the rules composed by
// the methods), on a separable model and above four coordinates are counted in
// tests/test_kernel_impacts.cpp.
#include <gtest/gtest.h>

#include <string>

#include "counting_allocator.hpp"
#include "kernel/kernel_impact_driver.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/systems/double_pendulum.hpp"

namespace {
/// The impact flow a method's name chooses (as the registry's rows do, src/methods/impact_flows.cpp).
[[maybe_unused]] mechint::kernel::Flow flow_of(std::string_view method) {
  return method == "stormer-verlet" ? mechint::kernel::Flow::kStormerVerlet : mechint::kernel::Flow::kTrapezoid;
}
}  // namespace


namespace mechint {
namespace {

using kernel::KernelImpactDriver;
using kernel::Vector;
using systems::DoublePendulum;

/// From 004 Fig. 2's start at h = 0.058 the first 130 steps resolve five impacts; every step is
/// counted, the first included.
void expect_no_allocation(const std::string& method, ImpactLaw law) {
  const auto kernels = kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(DoublePendulum{}, /*with_walls=*/true);
  ASSERT_TRUE(kernels->supplies_discrete_rule(MECHINT_RULE_TRAPEZOID));
  ImpactOptions o;
  o.law = law;
  KernelImpactDriver d(*kernels, flow_of(method), 0.058, o);
  d.start(Vector(VecD<2>(0.5647, 1.1106)), Vector(VecD<2>(3.7270, 0.2415)));
  const long before = g_allocations.load();
  for (int k = 0; k < 130; ++k) d.step();
  EXPECT_EQ(g_allocations.load() - before, 0) << method << " " << impact_law_name(law);
  EXPECT_EQ(d.impact_count(), 5) << method << " " << impact_law_name(law);  // the steps did resolve impacts
}

TEST(ImpactsNoAllocation, CountingAllocatorSeesAnAllocation) {
  const long before = g_allocations.load();
  void* p = ::operator new(64);
  ::operator delete(p);
  EXPECT_EQ(g_allocations.load() - before, 1);
}

TEST(ImpactsNoAllocation, TrapezoidVi) {
  for (ImpactLaw law : {ImpactLaw::kDtec, ImpactLaw::kCtec, ImpactLaw::kMhc}) expect_no_allocation("vi-trapezoid", law);
}

TEST(ImpactsNoAllocation, StormerVerlet) {
  for (ImpactLaw law : {ImpactLaw::kDtec, ImpactLaw::kCtec, ImpactLaw::kMhc}) expect_no_allocation("stormer-verlet", law);
}

}  // namespace
}  // namespace mechint
