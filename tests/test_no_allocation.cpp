// A step of the kernel engine's variational integrator (kernel/kernel_variational_integrator.hpp)
// never touches the heap: global operator new and malloc are replaced by counting versions and the
// count must not change across many steps. On the tables a run takes (kernels_for_runs of the
// built-ins, compiled once in the library; the pendulum chain's hand-derived kernels): Kepler by the
// model's own Newton step, the constrained spherical pendulum, its chart in position form with the
// chart's wrap, a ten-link chain by the midpoint rule, a forced model under a control law, and a
// constrained, dissipative model in position form (the spherical pendulum's kernels with a drag).
// The chain by the trapezoid rule and the hand-derived driven spherical pendulum are counted in
// tests/test_kernel_integrators.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "counting_allocator.hpp"
#include "kernel/chain_kernels.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/discrete/chart.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/low_thrust_spacecraft.hpp"
#include "mechint/systems/spherical_pendulum.hpp"

namespace mechint {
namespace {

using kernel::KernelModel;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::Vector;
using systems::SphericalAnglesChart;
using systems::SphericalPendulum;
using SphericalPendulumInAngles = ChartModel<SphericalPendulum, SphericalAnglesChart>;

/// Heap allocations during `steps` steps, after a few outside the count: the first steps may still
/// settle what a step reuses (a simplified Newton's factorization, the step check's first balance).
long allocations_during_steps(KernelVariationalIntegrator& integ, int steps) {
  for (int k = 0; k < 3; ++k) integ.step();
  const long before = g_allocations.load();
  for (int k = 0; k < steps; ++k) integ.step();
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
  // Unconstrained and unforced: full Newton is the model's own step (model_kernels.h, discrete_step),
  // and the model checks every step (validate_configuration through the KernelModel).
  const auto kernels = kernel::ModelAdapter<systems::Kepler>::kernels_for_runs(systems::Kepler{});
  KernelVariationalIntegrator integ(*kernels, Rule::kMidpoint, 0.05);
  integ.start_from_velocity(Vector(VecD<2>(1, 0)), Vector(VecD<2>(0, 1.2)));
  EXPECT_EQ(allocations_during_steps(integ, 1000), 0);
}

TEST(NoAllocation, ConstrainedSphericalPendulumStep) {
  const auto kernels = kernel::ModelAdapter<SphericalPendulum>::kernels_for_runs(SphericalPendulum{});
  KernelVariationalIntegrator integ(*kernels, Rule::kTrapezoid, 0.01);
  integ.start_from_velocity(Vector(VecD<3>(0.6, 0, -0.8)), Vector(VecD<3>(0, 1.0, 0)));
  EXPECT_EQ(allocations_during_steps(integ, 1000), 0);
}

TEST(NoAllocation, ChartAndPositionFormStep) {
  // The restricted discrete Lagrangian of the chart's angles, supplied by the kernels, with the
  // chart's wrap of φ after each step, as a run in the chart takes them (app/builtin_kernels.hpp).
  const SphericalAnglesChart chart{1.0};
  const auto kernels = kernel::ModelAdapter<SphericalPendulumInAngles>::kernels_for_runs(
      SphericalPendulumInAngles(SphericalPendulum{}, chart));
  KernelVariationalIntegrator integ(*kernels, Rule::kMidpoint, 0.01, {}, DelForm::kPosition);
  integ.set_periodic_wrap([chart](Vector& previous, Vector& current) {
    VecD<2> a = previous, b = current;
    chart.wrap_periodic(a, b);
    previous = a, current = b;
  });
  integ.start_from_velocity(Vector(VecD<2>(1.0, 0.0)), Vector(VecD<2>(0.0, 2.0)));
  EXPECT_EQ(allocations_during_steps(integ, 1000), 0);
}

TEST(NoAllocation, TenLinkChainStep) {
  // Above six links the chain's kernels keep their scratch in their context, sized once.
  const KernelModel chain = kernel::pendulum_chain_model(10, 1.0, 1.0, 9.81);
  KernelVariationalIntegrator integ(chain, Rule::kMidpoint, 0.01);
  Vector q0 = Vector::Zero(10);
  q0[0] = M_PI / 4;
  integ.start_from_velocity(q0, Vector::Zero(10));
  EXPECT_EQ(allocations_during_steps(integ, 100), 0);
}

TEST(NoAllocation, ForcedStepUnderAControlLaw) {
  const auto kernels = kernel::ModelAdapter<systems::LowThrustSpacecraft>::kernels_for_runs(systems::LowThrustSpacecraft{});
  KernelVariationalIntegrator integ(*kernels, Rule::kMidpoint, 0.05);
  integ.set_control_law([](double t, Vector& u) {  // set before the count
    u[0] = 1e-3 * std::cos(t);
    u[1] = 1e-3;
  });
  integ.start_from_velocity(Vector(VecD<2>(1, 0)), Vector(VecD<2>(0, 1.1)));
  EXPECT_EQ(allocations_during_steps(integ, 1000), 0);
}

/// The drag of R = ½ c|q̇|² with c = 0.1: f = −c q̇, ∂f/∂q = 0, ∂f/∂q̇ = −c I (model_kernels.h, forces).
constexpr double kDrag = 0.1;
int drag_forces(const void*, const double*, const double* v, const double*, double, double* f, double* f_q,
                double* f_v) {
  for (int i = 0; i < 3; ++i) {
    f[i] = -kDrag * v[i];
    for (int j = 0; j < 3; ++j) {
      if (f_q) f_q[3 * i + j] = 0.0;
      if (f_v) f_v[3 * i + j] = i == j ? -kDrag : 0.0;
    }
  }
  return MECHINT_KERNEL_OK;
}

/// The Cartesian spherical pendulum with that drag: the built-in's AD kernels (L, the constraint, the
/// symmetry; no discrete rules, so the methods compose the rules and discrete forces) plus the force.
KernelModel damped_spherical_pendulum() {
  const std::shared_ptr<const KernelModel> base = kernel::ModelAdapter<SphericalPendulum>::kernels(SphericalPendulum{});
  mechint_model_kernels table = base->table();
  table.has_forces = 1;
  table.forces = &drag_forces;
  return KernelModel(table, base);  // `base` owns the table's context
}

TEST(NoAllocation, ForcedConstrainedPositionFormStep) {
  const KernelModel model = damped_spherical_pendulum();
  KernelVariationalIntegrator integ(model, Rule::kTrapezoid, 0.01, {}, DelForm::kPosition);
  integ.start_from_velocity(Vector(VecD<3>(0.6, 0, -0.8)), Vector(VecD<3>(0, 1.0, 0)));
  EXPECT_EQ(allocations_during_steps(integ, 1000), 0);
  EXPECT_NE(integ.discrete_work(0), 0.0);  // the drag did act on J_z
}

}  // namespace
}  // namespace mechint
