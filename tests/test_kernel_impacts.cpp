// The impact driver on derivative kernels (src/kernel/kernel_impact_driver.hpp, walls in
// model_kernels.h) against independent things: two formulations of the double pendulum's hybrid flow
// (the trapezoid rule composed from L's derivatives vs its discrete derivatives by AD of Ld, the
// table of a run), the smooth kernel variational integrator where the walls are off or not reached,
// 004's closed forms for a bounce of the point mass on its floor (CTEC eq. 27, DTEC §III-C), and the
// exact bouncing motion over many bounces. On a separable model the explicit flows and the Hamiltonian
// without Newton against the Newton ones. Besides: a step never allocates, impacts included; a start
// behind a wall is refused. The runs against the hybrid reference: tests/test_impacts_reference.cpp.
#include <gtest/gtest.h>

// Boost's exception cloning (pulled in by Boost.Math) uses new-expressions that GCC pairs with the
// replaced operator delete below and warns about; the replacement pair is consistent (malloc/free).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>

#include "counting_allocator.hpp"
#include "kernel/kernel_hamiltonian.hpp"
#include "kernel/kernel_impact_driver.hpp"
#include "kernel/separable.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.txx"
#include "mechint/core/errors.hpp"
#include "mechint/systems/double_pendulum.hpp"
#include "mechint/systems/point_mass_wall.hpp"

// The built-ins' kernels are compiled once in the library (src/systems/*.cpp); this file instantiates
// only its own models' (kernel/builtin_model_kernels.hpp declares them all, at the price of parsing
// every system's header).
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::DoublePendulum);
MECHINT_DECLARE_MODEL_KERNELS(mechint::systems::PointMassWall);

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
using systems::PointMassWall;

ImpactOptions with_law(ImpactLaw law) {
  ImpactOptions o;
  o.law = law;
  o.record_impacts = false;
  return o;
}

double relative(const Vector& a, const Vector& b) {
  return (a - b).lpNorm<Eigen::Infinity>() / (1.0 + b.lpNorm<Eigen::Infinity>());
}

/// Two formulations of the double pendulum's hybrid flow on one driver: the table of L's derivatives
/// alone (kernels: the trapezoid rule's D1, D2, D12 Ld composed from them, kernel/discrete_rules.hpp)
/// and the table `mechint run double-pendulum` takes (kernels_for_runs: the rule's discrete
/// derivatives by nested AD of Ld itself). From 004 Fig. 2's start (five impacts at h = 0.058), after
/// every step q, p, H, H̃ and the impact count agree, and so do the last impact's α and λ.
void expect_the_run_table_steps_as_the_lagrangian_one(kernel::Flow flow, ImpactLaw law, double h, int steps,
                                                      double tolerance) {
  const DoublePendulum model;
  const VecD<2> q0(0.5647, 1.1106), p0(3.7270, 0.2415);
  const ImpactOptions options = with_law(law);
  const auto lagrangian = kernel::ModelAdapter<DoublePendulum>::kernels(model, /*with_walls=*/true);
  const auto for_runs = kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(model, /*with_walls=*/true);
  KernelImpactDriver composed(*lagrangian, flow, h, options), supplied(*for_runs, flow, h, options);
  composed.start(Vector(q0), Vector(p0));
  supplied.start(Vector(q0), Vector(p0));
  const std::string what = std::string(flow == kernel::Flow::kTrapezoid ? "vi-trapezoid " : "stormer-verlet ") +
                           std::string(impact_law_name(law));
  double worst = 0.0;
  for (int i = 0; i < steps; ++i) {
    composed.step();
    supplied.step();
    ASSERT_EQ(supplied.impact_count(), composed.impact_count()) << what << " step " << i;
    worst = std::max({worst, relative(supplied.q(), composed.q()), relative(supplied.p(), composed.p()),
                      std::abs(supplied.energy() - composed.energy()) / (1.0 + std::abs(composed.energy())),
                      std::abs(supplied.htilde() - composed.htilde()) / (1.0 + std::abs(composed.htilde()))});
  }
  EXPECT_GE(composed.impact_count(), 5) << "the run did not reach the wall";
  EXPECT_LE(worst, tolerance) << what;
  EXPECT_NEAR(supplied.last_impact().alpha, composed.last_impact().alpha, 1e-8) << what;
  EXPECT_NEAR(supplied.last_impact().lambda, composed.last_impact().lambda,
              1e-8 * (1.0 + std::abs(composed.last_impact().lambda)))
      << what;
  std::printf("%s: %ld impacts, largest relative difference %.1e\n", what.c_str(), composed.impact_count(), worst);
}

// The trapezoid VI and Störmer–Verlet runs of 004 Fig. 2 against the independent reference (the
// hybrid automaton by Dormand–Prince with event location, at 1e-13): tests/test_impacts_reference.cpp,
// Fig2Run (the five impacts met at h = 0.058 and below, end state, last impact's time and impulse at
// second order, CTEC's energy).

TEST(KernelImpacts, TheKernelsOfARunStepAsTheLagrangianTableImpactsIncluded) {
  for (ImpactLaw law : {ImpactLaw::kCtec, ImpactLaw::kDtec, ImpactLaw::kMhc}) {
    expect_the_run_table_steps_as_the_lagrangian_one(kernel::Flow::kTrapezoid, law, 0.058, 130, 1e-9);
    expect_the_run_table_steps_as_the_lagrangian_one(kernel::Flow::kStormerVerlet, law, 0.058, 130, 1e-9);
  }
}

/// With the walls off (the double pendulum without wall=1: the run table without walls, impacts
/// disabled), the trapezoid driver is the smooth variational integrator: KernelVariationalIntegrator
/// with the trapezoid rule (the DEL equations in momentum form, solved by the integrators' Newton) on
/// the other table, step for step — through where the wall would be. With the walls on, the driver
/// steps the same until the first step that would cross the wall, and counts an impact there.
TEST(KernelImpacts, WithTheWallsOffTheTrapezoidDriverStepsTheKernelVi) {
  const DoublePendulum model;
  const VecD<2> q0(0.5647, 1.1106), p0(3.7270, 0.2415);
  const double h = 0.058;
  const auto smooth_table = kernel::ModelAdapter<DoublePendulum>::kernels(model, /*with_walls=*/false);
  kernel::KernelVariationalIntegrator vi(*smooth_table, kernel::Rule::kTrapezoid, h);
  vi.start_from_momentum(Vector(q0), Vector(p0));
  ImpactOptions off = with_law(ImpactLaw::kCtec);
  off.enabled = false;
  const auto runs_without_walls = kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(model, /*walls=*/false);
  const auto runs_with_walls = kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(model, /*walls=*/true);
  KernelImpactDriver walls_off(*runs_without_walls, kernel::Flow::kTrapezoid, h, off);
  KernelImpactDriver walls_on(*runs_with_walls, kernel::Flow::kTrapezoid, h, with_law(ImpactLaw::kCtec));
  walls_off.start(Vector(q0), Vector(p0));
  walls_on.start(Vector(q0), Vector(p0));
  double worst = 0.0, worst_before_the_wall = 0.0, lowest_phi = model.unilateral<double>(q0)[0];
  int smooth_steps = 0;
  bool crossed = false;
  for (int i = 0; i < 130; ++i) {
    vi.step();
    walls_off.step();
    walls_on.step();
    const double phi = model.unilateral<double>(VecD<2>(vi.q()))[0];
    lowest_phi = std::min(lowest_phi, phi);
    worst = std::max({worst, relative(walls_off.q(), vi.q()), relative(walls_off.p(), vi.p()),
                      std::abs(walls_off.energy() - vi.energy()) / (1.0 + std::abs(vi.energy()))});
    if (!crossed && phi >= 0.0) {
      ASSERT_EQ(walls_on.impact_count(), 0) << "step " << i;
      worst_before_the_wall = std::max({worst_before_the_wall, relative(walls_on.q(), vi.q()),
                                        relative(walls_on.p(), vi.p())});
      ++smooth_steps;
    } else if (!crossed) {
      crossed = true;
      EXPECT_EQ(walls_on.impact_count(), 1) << "step " << i;
      EXPECT_GE(model.unilateral<double>(VecD<2>(walls_on.q()))[0], 0.0) << "step " << i;
    }
  }
  EXPECT_EQ(walls_off.impact_count(), 0);
  EXPECT_LT(lowest_phi, 0.0) << "the run without walls did not pass where the wall would be";
  EXPECT_TRUE(crossed);
  EXPECT_GE(smooth_steps, 5);
  EXPECT_GE(walls_on.impact_count(), 5);
  EXPECT_LE(worst, 1e-9);
  EXPECT_LE(worst_before_the_wall, 1e-9);
  std::printf("walls off: largest relative difference to the kernel VI %.1e; walls on, %d steps before the wall: %.1e\n",
              worst, smooth_steps, worst_before_the_wall);
}

/// Störmer–Verlet with the walls off: the driver's steps are the flow's (kernel_flows.hpp) stepped alone,
/// exactly, through where the wall would be; with the walls on the driver steps the same until the first
/// step that would cross the wall. (The flow itself against the reference: tests/test_impacts_reference.cpp,
/// SmoothRun.)
TEST(KernelImpacts, WithTheWallsOffTheStormerVerletDriverStepsItsFlow) {
  const DoublePendulum model;
  const double h = 0.058;
  const auto runs_without_walls = kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(model, /*walls=*/false);
  const auto runs_with_walls = kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(model, /*walls=*/true);
  ImpactOptions off = with_law(ImpactLaw::kCtec);
  off.enabled = false;
  KernelImpactDriver walls_off(*runs_without_walls, kernel::Flow::kStormerVerlet, h, off);
  KernelImpactDriver walls_on(*runs_with_walls, kernel::Flow::kStormerVerlet, h, with_law(ImpactLaw::kCtec));
  const auto flow = kernel::make_kernel_flow(kernel::Flow::kStormerVerlet, *runs_without_walls);
  Vector q = VecD<2>(0.5647, 1.1106), p = VecD<2>(3.7270, 0.2415), q1(2), p1(2);
  walls_off.start(q, p);
  walls_on.start(q, p);
  double lowest_phi = model.unilateral<double>(VecD<2>(q))[0];
  int smooth_steps = 0;
  bool crossed = false;
  for (int i = 0; i < 130; ++i) {
    walls_off.step();
    walls_on.step();
    ASSERT_TRUE(flow->step(q, p, h, q1, p1).converged);
    q = q1, p = p1;
    const double phi = model.unilateral<double>(VecD<2>(q))[0];
    lowest_phi = std::min(lowest_phi, phi);
    ASSERT_EQ((walls_off.q() - q).norm(), 0.0) << "step " << i;
    ASSERT_EQ((walls_off.p() - p).norm(), 0.0) << "step " << i;
    if (!crossed && phi >= 0.0) {
      ASSERT_EQ(walls_on.impact_count(), 0) << "step " << i;
      EXPECT_LE(relative(walls_on.q(), q), 1e-9) << "step " << i;
      EXPECT_LE(relative(walls_on.p(), p), 1e-9) << "step " << i;
      ++smooth_steps;
    } else if (!crossed) {
      crossed = true;
      EXPECT_EQ(walls_on.impact_count(), 1) << "step " << i;
    }
  }
  EXPECT_EQ(walls_off.impact_count(), 0);
  EXPECT_LT(lowest_phi, 0.0) << "the run without walls did not pass where the wall would be";
  EXPECT_TRUE(crossed);
  EXPECT_GE(smooth_steps, 5);
  EXPECT_GE(walls_on.impact_count(), 5);
}

// ---- the point mass L = ½q̇² − q on the floor φ = q: closed forms (tests/test_impacts_point_mass.cpp) ----

/// Time to the floor from (q, p) under the exact flow q(s) = q + s p − s²/2, without cancellation.
double time_to_floor(double q, double p) {
  const double r = std::sqrt(p * p + 2.0 * q);
  return p < 0.0 ? 2.0 * q / (r - p) : p + r;
}

struct Bounce {
  double q1, p1;
};

/// 004 eq. 27 (CTEC): the exact reset, then the exact flow of a linear potential.
Bounce ctec_closed_form(double q, double p, double h) {
  const double s = time_to_floor(q, p), tau = h - s, speed = std::abs(p - s);
  return {tau * speed - 0.5 * tau * tau, speed - tau};
}

/// 004 §III-C (DTEC, trapezoid rule): the rest step's discrete energy equals the partial step's.
Bounce dtec_closed_form(double q, double p, double h) {
  const double s = time_to_floor(q, p), tau = h - s, v = -q / s;
  const double minus_d3 = 0.5 * v * v + 0.5 * q;
  const double q1 = tau * tau * (-0.5 + std::sqrt(0.25 + 2.0 * minus_d3 / (tau * tau)));
  return {q1, q1 / tau - 0.5 * tau};
}

TEST(KernelImpacts, PointMassBouncesAsTheClosedForms) {
  const auto kernels = kernel::ModelAdapter<PointMassWall>::kernels(PointMassWall{}, /*with_walls=*/true);
  for (const std::string method : {"vi-trapezoid", "stormer-verlet"}) {
    for (const auto& [q, p, h] : {std::tuple{0.01, -0.5, 0.1}, std::tuple{0.5, -1.0, 0.5}, std::tuple{1e-4, -2.0, 0.01}}) {
      const Bounce c = ctec_closed_form(q, p, h), d = dtec_closed_form(q, p, h);
      ASSERT_GT(c.q1, 0.0);
      for (ImpactLaw law : {ImpactLaw::kCtec, ImpactLaw::kMhc, ImpactLaw::kDtec}) {
        KernelImpactDriver driver(*kernels, flow_of(method), h, with_law(law));
        driver.start(Vector::Constant(1, q), Vector::Constant(1, p));
        driver.step();
        const Bounce expected = law == ImpactLaw::kDtec ? d : c;
        ASSERT_EQ(driver.impact_count(), 1);
        EXPECT_NEAR(driver.q()[0], expected.q1, 1e-12) << method << " " << impact_law_name(law);
        EXPECT_NEAR(driver.p()[0], expected.p1, 1e-12) << method << " " << impact_law_name(law);
        EXPECT_NEAR(driver.last_impact().alpha, time_to_floor(q, p) / h, 1e-12);
      }
      EXPECT_GT(std::abs(d.q1 - c.q1), 1e-8);  // the two laws really differ here
    }
  }
}

/// Two coordinates over the floor φ = q₂, no constraints, no symmetries: the models below add their
/// Lagrangian.
struct OverTheFloorOfTheSecondCoordinate {
  static constexpr int kDim = 2, kNumConstraints = 0, kNumSymmetries = 0, kNumUnilateral = 1;
  template <class T>
  Vec<T, 0> constraints(const Vec<T, 2>&) const {
    return {};
  }
  template <class T>
  Vec<T, 1> unilateral(const Vec<T, 2>& q) const {
    return Vec<T, 1>(q[1]);
  }
};

/// A point mass in the plane over the floor φ = y: L = ½(ẋ² + ẏ²) − y. Its x moves uniformly
/// whatever the bounces, so a contact at |x| = 1 tests that a partial step keeps the digits of a
/// coordinate far larger than its move.
struct PlanarPointMassFloor : OverTheFloorOfTheSecondCoordinate {
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    return 0.5 * (v[0] * v[0] + v[1] * v[1]) - q[1];
  }
};

/// The floor reached 5e-13 after the start, at x = 1: the partial step moves x by 5e-13, which
/// (q1 − q0)/αh would know to four digits only (it gave p_x off by 1e-3 before the trapezoid flow
/// solved a short step's velocity from its DEL equation). Every law, both flows, both drivers:
/// x and p_x exactly those of the uniform motion, y and p_y the closed forms.
TEST(KernelImpacts, AContactJustAfterAGridPointKeepsTheDigitsOfTheOtherCoordinates) {
  const double h = 0.1, y0 = 5e-13, py0 = -1.0;
  const VecD<2> q0(1.0, y0), p0(1.0, py0);
  const auto kernels = kernel::ModelAdapter<PlanarPointMassFloor>::kernels(PlanarPointMassFloor{}, /*with_walls=*/true);
  for (ImpactLaw law : {ImpactLaw::kCtec, ImpactLaw::kMhc, ImpactLaw::kDtec}) {
    const Bounce expected = law == ImpactLaw::kDtec ? dtec_closed_form(y0, py0, h) : ctec_closed_form(y0, py0, h);
    const auto check = [&](const auto& q, const auto& p, long impacts, const std::string& what) {
      EXPECT_EQ(impacts, 1) << what;
      EXPECT_NEAR(q[0], 1.0 + h, 1e-14) << what;
      EXPECT_NEAR(p[0], 1.0, 1e-12) << what;
      EXPECT_NEAR(q[1], expected.q1, 1e-12) << what;
      EXPECT_NEAR(p[1], expected.p1, 1e-12) << what;
    };
    const std::string name(impact_law_name(law));
    for (const std::string method : {"vi-trapezoid", "stormer-verlet"}) {
      KernelImpactDriver driver(*kernels, flow_of(method), h, with_law(law));
      driver.start(Vector(q0), Vector(p0));
      driver.step();
      check(driver.q(), driver.p(), driver.impact_count(), "kernels " + method + " " + name);
    }
  }
}

/// The exact bouncing motion from (q, p), energy E = q + p²/2: the first impact at time_to_floor,
/// then one every 2√(2E) (up and down at the floor speed √(2E)).
struct ExactBounces {
  double first, period;
  ExactBounces(double q, double p) : first(time_to_floor(q, p)), period(2.0 * std::sqrt(2.0 * (q + 0.5 * p * p))) {}
  long by(double t) const { return 1 + static_cast<long>((t - first) / period); }
};

TEST(KernelImpacts, CtecFollowsTheExactBouncingMotionOverManyBounces) {
  const auto kernels = kernel::ModelAdapter<PointMassWall>::kernels(PointMassWall{}, /*with_walls=*/true);
  KernelImpactDriver driver(*kernels, mechint::kernel::Flow::kStormerVerlet, 0.037, with_law(ImpactLaw::kCtec));
  driver.start(Vector::Constant(1, 1.0), Vector::Constant(1, 0.3));
  const double e0 = driver.energy();
  for (int k = 0; k < 3000; ++k) {
    driver.step();
    ASSERT_GE(driver.q()[0], 0.0);
  }
  EXPECT_NEAR(driver.energy(), e0, 1e-11);
  const double t_end = 3000 * 0.037;
  const ExactBounces exact(1.0, 0.3);
  EXPECT_EQ(driver.impact_count(), exact.by(t_end));
  // The exact motion at t_end: the last bounce at first + (count − 1)·period, then free flight.
  const double since = t_end - (exact.first + static_cast<double>(driver.impact_count() - 1) * exact.period);
  const double u = std::sqrt(2.0 * e0);
  EXPECT_NEAR(driver.q()[0], u * since - 0.5 * since * since, 1e-9);
  EXPECT_NEAR(driver.p()[0], u - since, 1e-9);
}

TEST(KernelImpacts, AStepAllocatesNothingImpactsIncluded) {
  const auto kernels = kernel::ModelAdapter<DoublePendulum>::kernels(DoublePendulum{}, /*with_walls=*/true);
  for (const std::string method : {"vi-trapezoid", "stormer-verlet"}) {
    for (ImpactLaw law : {ImpactLaw::kDtec, ImpactLaw::kCtec, ImpactLaw::kMhc}) {
      KernelImpactDriver driver(*kernels, flow_of(method), 0.058, with_law(law));
      driver.start(Vector(VecD<2>(0.5647, 1.1106)), Vector(VecD<2>(3.7270, 0.2415)));
      const long before = g_allocations.load();
      for (int k = 0; k < 130; ++k) driver.step();
      EXPECT_EQ(g_allocations.load() - before, 0) << method << " " << impact_law_name(law);
      EXPECT_EQ(driver.impact_count(), 5) << method << " " << impact_law_name(law);
    }
  }
}

// ---- a separable model: the explicit flows and the Hamiltonian without Newton (kernel_flows.hpp) ----

/// L = ½ vᵀM v + b·v − V(q) with a full constant M, a constant b and an anharmonic V, over the floor
/// φ = q₂: every term of the explicit step (M⁻¹, b, L_q) matters.
struct SkewSeparableFloor : OverTheFloorOfTheSecondCoordinate {
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    const T kinetic = 0.5 * (2.0 * v[0] * v[0] + v[0] * v[1] + v[1] * v[1]) + 0.3 * v[0] - 0.2 * v[1];
    const T d = q[0] - q[1];
    return kinetic - (q[1] + 0.5 * d * d + 0.1 * q[0] * q[0] * q[0] * q[0]);
  }
};

/// The same flow stepped explicitly and by Newton (the separable kinetics withheld) agree to round-off
/// from several states, for full, tiny and negative steps; the explicit one takes no Newton iteration.
/// The Hamiltonian's value, derivatives and both truncated modified Hamiltonians agree the same way.
TEST(KernelImpacts, ASeparableModelStepsExplicitlyWhereNewtonLands) {
  const auto kernels = kernel::ModelAdapter<SkewSeparableFloor>::kernels(SkewSeparableFloor{}, /*with_walls=*/true);
  const Vector q0 = Vector(VecD<2>(0.4, 0.7)), v0 = Vector(VecD<2>(-0.3, 0.5));
  const auto kinetics = kernel::separable_kinetics(*kernels, q0, v0);
  ASSERT_TRUE(kinetics.has_value());
  EXPECT_LE((kinetics->mass - Eigen::Matrix2d{{2.0, 0.5}, {0.5, 1.0}}).norm(), 1e-15);
  EXPECT_LE((kinetics->linear - Eigen::Vector2d(0.3, -0.2)).norm(), 1e-15);
  for (const std::string method : {"vi-trapezoid", "stormer-verlet"}) {
    const auto explicit_flow = kernel::make_kernel_flow(flow_of(method), *kernels), newton = kernel::make_kernel_flow(flow_of(method), *kernels);
    explicit_flow->set_separable(kinetics);
    for (const auto& [q, p] : {std::pair{VecD<2>(0.4, 0.7), VecD<2>(-0.5, 1.2)}, std::pair{VecD<2>(-1.3, 0.01), VecD<2>(2.0, -3.0)}})
      for (double h : {0.1, -0.05, 1e-9}) {
        Vector q1(2), p1(2), q1_newton(2), p1_newton(2);
        const StepResult r = explicit_flow->step(Vector(q), Vector(p), h, q1, p1);
        const StepResult r_newton = newton->step(Vector(q), Vector(p), h, q1_newton, p1_newton);
        ASSERT_TRUE(r.converged && r_newton.converged) << method << " h = " << h;
        EXPECT_EQ(r.iterations, 0) << method;
        if (h == 0.1) { EXPECT_GE(r_newton.iterations, 1) << method; }  // a tiny step starts on the root
        EXPECT_LE(relative(q1, q1_newton), 1e-14) << method << " h = " << h;
        EXPECT_LE(relative(p1, p1_newton), 1e-13) << method << " h = " << h;
        EXPECT_NEAR(r.discrete_energy, r_newton.discrete_energy, 1e-13 * (1.0 + std::abs(r_newton.discrete_energy)));
      }
  }
  kernel::KernelHamiltonian with_kinetics(*kernels), by_newton(*kernels);
  with_kinetics.set_separable(kinetics);
  for (const Vector& p : {Vector(VecD<2>(-0.5, 1.2)), Vector(VecD<2>(2.0, -3.0))}) {
    EXPECT_NEAR(with_kinetics.value(q0, p), by_newton.value(q0, p), 1e-13);
    for (ModifiedHamiltonianKind kind : {ModifiedHamiltonianKind::kTrapezoidVi, ModifiedHamiltonianKind::kStormerVerlet})
      EXPECT_NEAR(with_kinetics.modified(kind, q0, p, 0.1), by_newton.modified(kind, q0, p, 0.1), 1e-13);
    ASSERT_TRUE(with_kinetics.derivatives(q0, p, with_kinetics.zero()) && by_newton.derivatives(q0, p, by_newton.zero()));
    EXPECT_LE((with_kinetics.hpp() - by_newton.hpp()).norm(), 1e-14);
    EXPECT_LE((with_kinetics.hqq() - by_newton.hqq()).norm(), 1e-13);
    EXPECT_LE(relative(with_kinetics.hq(), by_newton.hq()), 1e-14);
    EXPECT_LE(relative(with_kinetics.v(), by_newton.v()), 1e-14);
  }
}

/// The drift's short forms (kernel/separable.hpp): M⁻¹ applied as its diagonal, and with M = I and
/// b = 0 as v = p + h/2 f, give the matrix product's numbers bit for bit, at the fixed size and above
/// it; separable_kinetics marks a full M as neither.
TEST(KernelImpacts, TheDriftsShortFormsAreTheMatrixProductBitForBit) {
  const auto full = kernel::ModelAdapter<SkewSeparableFloor>::kernels(SkewSeparableFloor{}, /*with_walls=*/true);
  const auto kinetics = kernel::separable_kinetics(*full, Vector(VecD<2>(0.4, 0.7)), Vector(VecD<2>(-0.3, 0.5)));
  ASSERT_TRUE(kinetics.has_value());
  EXPECT_FALSE(kinetics->diagonal);
  EXPECT_FALSE(kinetics->unit);
  const auto drift = [](const kernel::SeparableKinetics& k, auto size, const Vector& q0, const Vector& p0,
                        const Vector& f0, double h) {
    Vector mv(2), v(2), q1(2);
    kernel::separable_drift<decltype(size)::value>(k, q0, p0, f0, h, mv, v, q1);
    return std::array<Vector, 3>{mv, v, q1};
  };
  using Fixed = std::integral_constant<int, 2>;
  using Dynamic = std::integral_constant<int, Eigen::Dynamic>;
  for (const Eigen::Vector2d& masses : {Eigen::Vector2d(1.0, 1.0), Eigen::Vector2d(3.0, 0.7)}) {
    kernel::SeparableKinetics as_matrix;
    as_matrix.mass = masses.asDiagonal();
    as_matrix.mass_inverse = masses.cwiseInverse().asDiagonal();
    as_matrix.linear = Vector::Zero(2);
    as_matrix.inverse_diagonal = masses.cwiseInverse();
    kernel::SeparableKinetics short_form = as_matrix;
    short_form.diagonal = true;
    short_form.unit = masses == Eigen::Vector2d(1.0, 1.0);
    const Vector q0 = Vector(VecD<2>(0.3, -1.7)), p0 = Vector(VecD<2>(-0.61, 2.3)), f0 = Vector(VecD<2>(1.9, -0.37));
    for (double h : {0.1, 0.0123}) {
      const auto want = drift(as_matrix, Fixed{}, q0, p0, f0, h);
      for (const auto& got : {drift(short_form, Fixed{}, q0, p0, f0, h), drift(short_form, Dynamic{}, q0, p0, f0, h),
                              drift(as_matrix, Dynamic{}, q0, p0, f0, h)})
        for (int i = 0; i < 3; ++i) EXPECT_TRUE(got[i] == want[i]) << masses.transpose() << " h = " << h << " output " << i;
      // And the drift itself: v = M⁻¹(p + h/2 f), q1 = q0 + h v.
      EXPECT_LE(relative(want[1], masses.cwiseInverse().cwiseProduct(p0 + 0.5 * h * f0)), 1e-15);
      EXPECT_LE(relative(want[2], q0 + h * want[1]), 1e-15);
    }
  }
}

/// The driver probes the model at its start: on the point mass (separable) an MHC run bounces as the
/// exact motion does and allocates nothing, the explicit flow included; a model whose mass varies is
/// left to Newton (the double pendulum's runs above).
TEST(KernelImpacts, TheDriverStepsASeparableModelExplicitlyWithoutAllocating) {
  const auto kernels = kernel::ModelAdapter<PointMassWall>::kernels(PointMassWall{}, /*with_walls=*/true);
  EXPECT_TRUE(kernel::separable_kinetics(*kernels, Vector::Constant(1, 1.0), Vector::Zero(1)).has_value());
  const auto pendulum = kernel::ModelAdapter<DoublePendulum>::kernels(DoublePendulum{}, /*with_walls=*/true);
  EXPECT_FALSE(kernel::separable_kinetics(*pendulum, Vector(VecD<2>(0.5647, 1.1106)), Vector::Zero(2)).has_value());
  for (const std::string method : {"vi-trapezoid", "stormer-verlet"}) {
    KernelImpactDriver driver(*kernels, flow_of(method), 0.037, with_law(ImpactLaw::kMhc));
    driver.start(Vector::Constant(1, 1.0), Vector::Constant(1, 0.3));
    const double e0 = driver.energy();
    const long before = g_allocations.load();
    for (int k = 0; k < 3000; ++k) driver.step();
    EXPECT_EQ(g_allocations.load() - before, 0) << method;
    EXPECT_EQ(driver.impact_count(), ExactBounces(1.0, 0.3).by(3000 * 0.037)) << method;
    EXPECT_NEAR(driver.energy(), e0, 1e-6) << method;  // MHC: the energy of the windowed medians
  }
}

/// Five masses over their floors, φ_i = q_i: above four coordinates the driver's runtime-sized paths
/// run (kernel/sized_newton.hpp's cut). kVaryingMass: a mass 1 + 0.1 q_i² (not separable, Newton), else 1
/// (separable, the explicit flows).
template <bool kVaryingMass>
struct FiveMassesOverTheFloor {
  static constexpr int kDim = 5, kNumConstraints = 0, kNumSymmetries = 0, kNumUnilateral = 5;
  template <class T>
  T lagrangian(const Vec<T, 5>& q, const Vec<T, 5>& v) const {
    T l = T(0.0);
    for (int i = 0; i < 5; ++i) l += 0.5 * (kVaryingMass ? 1.0 + 0.1 * q[i] * q[i] : T(1.0)) * v[i] * v[i] - q[i];
    return l;
  }
  template <class T>
  Vec<T, 0> constraints(const Vec<T, 5>&) const {
    return {};
  }
  template <class T>
  Vec<T, 5> unilateral(const Vec<T, 5>& q) const {
    return q;
  }
};

/// Runtime-sized state allocates nothing in a step either, impacts and H̃ included, whether the flows
/// are explicit (separable) or by Newton.
template <bool kVaryingMass>
void expect_no_allocation_above_four_coordinates() {
  const auto kernels =
      kernel::ModelAdapter<FiveMassesOverTheFloor<kVaryingMass>>::kernels(FiveMassesOverTheFloor<kVaryingMass>{}, true);
  const Vector q0 = Vector(VecD<5>(0.3, 0.7, 1.1, 0.05, 1.6)), v0 = Vector::Zero(5);
  EXPECT_EQ(kernel::separable_kinetics(*kernels, q0, v0).has_value(), !kVaryingMass);
  for (const std::string method : {"vi-trapezoid", "stormer-verlet"}) {
    for (ImpactLaw law : {ImpactLaw::kDtec, ImpactLaw::kCtec, ImpactLaw::kMhc}) {
      KernelImpactDriver driver(*kernels, flow_of(method), 0.05, with_law(law));
      driver.start(q0, Vector::Zero(5));
      driver.step();  // the first step sizes nothing, but is kept out of the count as the others are
      const long before = g_allocations.load();
      for (int k = 0; k < 200; ++k) driver.step();
      EXPECT_EQ(g_allocations.load() - before, 0) << method << " " << impact_law_name(law);
      EXPECT_GE(driver.impact_count(), 5) << method << " " << impact_law_name(law);
    }
  }
}

TEST(KernelImpacts, AStepAllocatesNothingAboveFourCoordinates) {
  expect_no_allocation_above_four_coordinates<false>();
  expect_no_allocation_above_four_coordinates<true>();
}

TEST(KernelImpacts, AStartBehindAWallIsRefused) {
  const auto kernels = kernel::ModelAdapter<PointMassWall>::kernels(PointMassWall{}, /*with_walls=*/true);
  KernelImpactDriver driver(*kernels, mechint::kernel::Flow::kTrapezoid, 0.1, with_law(ImpactLaw::kCtec));
  EXPECT_THROW(driver.start(Vector::Constant(1, -0.1), Vector::Constant(1, 0.0)), InvalidStart);
  ImpactOptions composed = with_law(ImpactLaw::kCtec);
  composed.composition = {0.5, 0.5};
  EXPECT_THROW(KernelImpactDriver(*kernels, mechint::kernel::Flow::kTrapezoid, 0.1, composed), InvalidInput);
}

}  // namespace
}  // namespace mechint
