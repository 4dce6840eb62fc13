// The energy–momentum integrator composed (compose=yoshida4|suzuki4|kahan-li6|kahan-li8, DESIGN §10):
// the higher-order energy–momentum integrators of 003 §6, on the model's kernels as the command line
// runs them (kernel/energy_momentum_integrator.hpp). What is asserted, each against something
// independent:
//   - the observed order (log-ratios over three step sizes) of every composition on the Kepler
//     problem (against its closed-form orbit), the planar double pendulum in Cartesian coordinates,
//     the spherical pendulum in Cartesian coordinates and the double spherical pendulum (quadratic
//     constraints; against Lobatto IIIA–IIIB rules of order 6 or 8 at a fine step: another method
//     computed here);
//   - energy and the Noether momentum at every step to round-off, composed as plain;
//   - the other way round, the orders of vi-lobatto4/6 on the double spherical pendulum against the
//     energy–momentum method composed with kahan-li6;
//   - a composed step allocates nothing, its confirmation by half steps included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "constant_mass_models.hpp"
#include "counting_allocator.hpp"
#include "kernel/energy_momentum_integrator.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/galerkin_tableau.hpp"
#include "kernel/builtin_model_kernels.hpp"  // the built-ins' kernels, linked to
#include "kernel/model_adapter.txx"
#include "mechint/core/linear_algebra.hpp"
#include "mechint/integrate/step_check.hpp"
#include "mechint/solve/newton_options.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/kepler.hpp"

namespace mechint {
namespace {

using systems::DoubleSphericalPendulum;
using testing::CartesianDoublePendulum;
using testing::CartesianKepler;
using testing::CartesianSphericalPendulum;

template <class M>
struct Case {
  M model;
  VecD<M::kDim> q0, v0;
  double t_end;
  std::vector<VecD<M::kDim>> reference;  ///< q at t_end·k/K, k = 1..K (K = 4 unless said)
};

Case<CartesianKepler> kepler_case() {
  Case<CartesianKepler> c;
  systems::Kepler::pericentre_start(1.0, 1.0, 0.5, c.q0, c.v0);
  c.t_end = 10.0;
  for (int k = 1; k <= 4; ++k) c.reference.push_back(systems::Kepler::exact_position(1.0, 1.0, 0.5, c.t_end * k / 4));
  return c;
}

/// q at t_end·k/K, k = 1..K, by the Lobatto IIIA–IIIB rule of `stages` stages (order 2·stages − 2) at
/// `steps` steps on the model's kernels.
template <class M>
std::vector<VecD<M::kDim>> lobatto_solution(const Case<M>& c, int steps, int checkpoints, int stages = 4) {
  const auto kernels = kernel::ModelAdapter<M>::kernels(c.model);
  kernel::KernelGalerkinIntegrator vi(*kernels, kernel::lobatto_tableau(stages), c.t_end / steps, {},
                                      NewtonOptions{.step_tolerance = 1e-15});
  vi.start_from_velocity(c.q0, c.v0);
  std::vector<VecD<M::kDim>> out;
  for (int k = 0; k < checkpoints; ++k) {
    for (int i = 0; i < steps / checkpoints; ++i) vi.step();
    out.push_back(vi.q());
  }
  return out;
}

template <class M>
void lobatto_reference(Case<M>& c, int steps, int checkpoints = 4) {
  c.reference = lobatto_solution(c, steps, checkpoints);
}

/// The reference of an order-8 measurement: the 5-stage Lobatto rule (order 8) at 4 000 steps, whose
/// few steps keep its round-off low, at `checkpoints` times. Returns its own error, against half as
/// many steps (256 times its error, if not at round-off), for the caller to compare with the errors
/// it measures.
template <class M>
double eighth_order_reference(Case<M>& c, int checkpoints) {
  c.reference = lobatto_solution(c, 4000, checkpoints, 5);
  const auto coarser = lobatto_solution(c, 2000, checkpoints, 5);
  double error = 0.0;
  for (int k = 0; k < checkpoints; ++k) error = std::max(error, (coarser[k] - c.reference[k]).template lpNorm<Eigen::Infinity>());
  return error;
}

Case<CartesianDoublePendulum> double_pendulum_case() {
  Case<CartesianDoublePendulum> c;
  CartesianDoublePendulum::start(0.3, 0.75, 0.2, -0.2, c.q0, c.v0);
  c.t_end = 5.0;
  lobatto_reference(c, 8000);
  return c;
}

Case<DoubleSphericalPendulum> dsp_case() {
  Case<DoubleSphericalPendulum> c;
  const auto st = systems::complete_dsp_start(c.model, systems::named_dsp_start("pattern-1"));
  c.q0 = st.q, c.v0 = st.v;
  c.t_end = 2.0;
  lobatto_reference(c, 8000);
  return c;
}

/// The energy–momentum integrator composed by `scheme`, on the model's kernels: what `mechint run
/// --method energy-momentum compose=SCHEME` steps (tests/test_kernel_energy_momentum.cpp holds it to
/// its conservation laws and to independent solutions in angles).
struct Composed {
  std::shared_ptr<const kernel::KernelModel> kernels;  // what `em` reads, alive as long as it
  kernel::KernelEnergyMomentumIntegrator em;
  Composed(std::shared_ptr<const kernel::KernelModel> model, double h, const std::string& scheme)
      : kernels(std::move(model)),
        em(*kernels, h, NewtonOptions{.step_tolerance = 1e-14}, StepCheckOptions{},
           scheme == "none" ? std::vector<double>{} : kernel::composition_named(scheme).gammas) {}
};

template <class M>
Composed composed(const M& model, double h, const std::string& scheme) {
  return Composed(kernel::ModelAdapter<M>::kernels(model), h, scheme);
}

/// The largest error at the reference's times.
template <class M>
double error_over_run(const Case<M>& c, const std::string& scheme, int steps) {
  const int checkpoints = static_cast<int>(c.reference.size());
  auto run = composed(c.model, c.t_end / steps, scheme);
  auto& em = run.em;
  em.start_from_velocity(c.q0, c.v0);
  double worst = 0.0;
  for (int k = 0; k < checkpoints; ++k) {
    for (int i = 0; i < steps / checkpoints; ++i) em.step();
    worst = std::max(worst, (em.q() - c.reference[k]).template lpNorm<Eigen::Infinity>());
  }
  return worst;
}

struct Scheme {
  const char* name;
  int order;
};
constexpr Scheme kSchemes[] = {{"none", 2}, {"yoshida4", 4}, {"suzuki4", 4}, {"kahan-li6", 6}, {"kahan-li8", 8}};

/// The observed order over N, 1.5 N and 2.25 N steps: both log-ratios within ±0.2 of the stated
/// order, the finest error far above the reference's. N per problem and scheme inside the asymptotic
/// range (found by a scan over step counts, docs/methods.md). N = 0 leaves the scheme out.
template <class M>
void expect_order(const Case<M>& c, const std::vector<int>& coarsest, const char* problem,
                  const std::vector<int>& orders = {}) {
  ASSERT_EQ(coarsest.size(), std::size(kSchemes));
  for (std::size_t k = 0; k < coarsest.size(); ++k) {
    Scheme s = kSchemes[k];
    if (!orders.empty()) s.order = orders[k];
    const int n = coarsest[k];
    if (n == 0) continue;  // not measured on this problem (said where it is called)
    ASSERT_EQ(n % 16, 0);
    const int steps[3] = {n, n * 3 / 2, n * 9 / 4};
    double e[3];
    for (int i = 0; i < 3; ++i) e[i] = error_over_run(c, s.name, steps[i]);
    const double p1 = std::log(e[0] / e[1]) / std::log(1.5), p2 = std::log(e[1] / e[2]) / std::log(1.5);
    std::printf("%s %s: N = %d, errors %.2e %.2e %.2e, observed orders %.2f %.2f\n", problem, s.name, n, e[0], e[1],
                e[2], p1, p2);
    EXPECT_GT(e[2], 5e-12) << problem << " " << s.name << ": the finest error is too close to the reference's";
    EXPECT_NEAR(p1, s.order, 0.2) << problem << " " << s.name << " errors " << e[0] << " " << e[1] << " " << e[2];
    EXPECT_NEAR(p2, s.order, 0.2) << problem << " " << s.name << " errors " << e[0] << " " << e[1] << " " << e[2];
  }
}

// The coarsest step counts, in kSchemes' order: none, yoshida4, suzuki4, kahan-li6, kahan-li8.
TEST(EnergyMomentumComposeOrder, Kepler) { expect_order(kepler_case(), {256, 400, 272, 128, 128}, "kepler"); }

// With constraints the step flips p's component off the hidden constraint, and the compositions are
// of pairs of half sub-steps (integrate/energy_momentum_composition.hpp); composed of single steps
// kahan-li6 and kahan-li8 measured 4.0 on both problems at every step count tried. kahan-li8 is
// measured by the next test, over a longer run. On the double spherical pendulum its finest error is
// at the reference's: with constraints kahan-li8 is measured on the double pendulum and the spherical
// pendulum.
TEST(EnergyMomentumComposeOrder, CartesianDoublePendulum) {
  expect_order(double_pendulum_case(), {256, 256, 256, 64, 0}, "double pendulum");
}

// kahan-li8 with constraints. Its error over t ≤ 5 at four times gave log-ratios from 5.6 to 12 (the
// largest of four errors changes time from one step count to the next, and near the start of the
// asymptotic range the leading term of one of them changes sign); the largest error over twenty times
// up to t = 20 falls smoothly, its local slopes 7.7–8.1 from N = 300 to 460 (a scan over every
// twentieth N, docs/methods.md), before the round-off of both integrations (~1e−14) is reached. The
// three step counts are N, 1.25 N, 1.5625 N there.
TEST(EnergyMomentumComposeOrder, KahanLi8OnTheCartesianDoublePendulum) {
  Case<CartesianDoublePendulum> c;
  CartesianDoublePendulum::start(0.3, 0.75, 0.2, -0.2, c.q0, c.v0);
  c.t_end = 20.0;
  constexpr int kCheckpoints = 20;
  const double reference_error = eighth_order_reference(c, kCheckpoints);
  const int steps[3] = {320, 400, 500};
  double e[3];
  for (int i = 0; i < 3; ++i) e[i] = error_over_run(c, "kahan-li8", steps[i]);
  const double p1 = std::log(e[0] / e[1]) / std::log(1.25), p2 = std::log(e[1] / e[2]) / std::log(1.25);
  std::printf("double pendulum kahan-li8, t = 20: errors %.3e %.3e %.3e  observed orders %.2f %.2f  reference %.1e\n",
              e[0], e[1], e[2], p1, p2, reference_error);
  EXPECT_LT(reference_error, 0.1 * e[2]);
  EXPECT_NEAR(p1, 8.0, 0.2) << "errors " << e[0] << " " << e[1] << " " << e[2];
  EXPECT_NEAR(p2, 8.0, 0.2) << "errors " << e[0] << " " << e[1] << " " << e[2];
}

// The third problem of every composition with constraints, kahan-li8 included: the spherical
// pendulum in Cartesian coordinates (one quadratic constraint), released at 1.2 rad from the
// downward vertical with a sideways speed of 2, to t = 20 (about six swings), the largest error at
// sixteen times. The reference is the 5-stage Lobatto rule (order 8) at 4 000 steps; its own error,
// against 2 000 steps, is asserted to be below a tenth of the finest error measured. A scan of
// kahan-li8 over every twentieth N from 100 to 600 gave local slopes 7.80–8.0 from N = 100 to 320,
// before round-off (about 1e−13) from N ≈ 440; the same three step counts from three other starts
// (0.9 rad and speed 1.5, 1.5 and 3, 2.0 and 1) measured 7.88–7.97.
TEST(EnergyMomentumComposeOrder, CartesianSphericalPendulum) {
  Case<CartesianSphericalPendulum> c;
  CartesianSphericalPendulum::start(1.2, 2.0, c.q0, c.v0);
  c.t_end = 20.0;
  constexpr int kCheckpoints = 16;
  const double reference_error = eighth_order_reference(c, kCheckpoints);
  std::printf("spherical pendulum: the reference's own error %.1e\n", reference_error);
  EXPECT_LT(reference_error, 0.1 * error_over_run(c, "kahan-li8", 128 * 9 / 4));
  expect_order(c, {512, 256, 128, 128, 128}, "spherical pendulum");
}

TEST(EnergyMomentumComposeOrder, DoubleSphericalPendulum) {
  expect_order(dsp_case(), {256, 256, 128, 32, 0}, "double spherical pendulum", {2, 4, 4, 6, 0});
}

// The other way round: vi-lobatto4 and vi-lobatto6 (Lobatto IIIA–IIIB with the constraints at every
// node) reach their orders on the double spherical pendulum against the energy–momentum method
// composed with kahan-li6 at a fine step, an independent formulation (a discrete gradient, no stages).
TEST(LobattoConstrainedOrder, DoubleSphericalPendulumAgainstTheEnergyMomentumMethod) {
  Case<DoubleSphericalPendulum> c;
  const auto st = systems::complete_dsp_start(c.model, systems::named_dsp_start("pattern-1"));
  c.q0 = st.q, c.v0 = st.v;
  c.t_end = 2.0;
  const auto energy_momentum = [&](int steps) {
    auto run = composed(c.model, c.t_end / steps, "kahan-li6");
    auto& em = run.em;
    em.start_from_velocity(c.q0, c.v0);
    std::vector<VecD<6>> q;
    for (int k = 0; k < 4; ++k) {
      for (int i = 0; i < steps / 4; ++i) em.step();
      q.push_back(em.q());
    }
    return q;
  };
  c.reference = energy_momentum(1024);
  // The reference against half its steps and against the 5-stage Lobatto rule at 8 000 steps.
  const auto coarser = energy_momentum(512);
  const auto lobatto = lobatto_solution(c, 8000, 4, 5);
  double reference_error = 0.0;
  for (int k = 0; k < 4; ++k)
    reference_error = std::max({reference_error, (coarser[k] - c.reference[k]).lpNorm<Eigen::Infinity>(),
                                (lobatto[k] - c.reference[k]).lpNorm<Eigen::Infinity>()});
  EXPECT_LT(reference_error, 1e-12);
  for (auto [stages, order] : {std::pair{3, 4}, std::pair{4, 6}}) {
    double e[3];
    const int steps[3] = {64, 96, 144};
    for (int i = 0; i < 3; ++i) {
      const auto q = lobatto_solution(c, steps[i], 4, stages);
      e[i] = 0.0;
      for (int k = 0; k < 4; ++k) e[i] = std::max(e[i], (q[k] - c.reference[k]).lpNorm<Eigen::Infinity>());
    }
    const double p1 = std::log(e[0] / e[1]) / std::log(1.5), p2 = std::log(e[1] / e[2]) / std::log(1.5);
    std::printf("double spherical pendulum lobatto s=%d: errors %.2e %.2e %.2e, observed orders %.2f %.2f\n", stages,
                e[0], e[1], e[2], p1, p2);
    EXPECT_GT(e[2], 100 * reference_error) << stages;
    EXPECT_NEAR(p1, order, 0.2) << "s=" << stages << " errors " << e[0] << " " << e[1] << " " << e[2];
    EXPECT_NEAR(p2, order, 0.2) << "s=" << stages << " errors " << e[0] << " " << e[1] << " " << e[2];
  }
}

TEST(EnergyMomentumCompose, EnergyAndMomentumAtEveryStepToRoundOff) {
  // The double spherical pendulum (pattern I), h = 0.01, 1000 steps: H and J_z against their start
  // values at every step, relative to the size of their terms (kinetic energy ~ 1e3 J here).
  const DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  for (const Scheme& s : kSchemes) {
    auto run = composed(model, 0.01, s.name);
    auto& em = run.em;
    em.start_from_velocity(st.q, st.v);
    const double e0 = em.energy(), j0 = em.momentum(0);
    const double e_scale = 0.5 * em.p().dot(em.velocity()) + std::abs(model.potential<double>(em.q()));
    double worst_e = 0.0, worst_j = 0.0;
    for (int i = 0; i < 1000; ++i) {
      em.step();
      worst_e = std::max(worst_e, std::abs(em.energy() - e0) / e_scale);
      worst_j = std::max(worst_j, std::abs(em.momentum(0) - j0) / std::abs(j0));
    }
    EXPECT_LE(worst_e, 1e-12) << s.name;
    EXPECT_LE(worst_j, 1e-12) << s.name;
    EXPECT_LE(em.constraint_residual().lpNorm<Eigen::Infinity>(), 1e-10) << s.name;
  }
}

TEST(EnergyMomentumCompose, ComposedStepsAllocateNothing) {
  const DoubleSphericalPendulum model;
  const auto st = systems::complete_dsp_start(model, systems::named_dsp_start("pattern-1"));
  auto run = composed(model, 0.01, "kahan-li8");  // the step check on: each step confirmed by half steps
  auto& em = run.em;
  em.start_from_velocity(st.q, st.v);
  em.step();
  const long before = g_allocations.load();
  for (int i = 0; i < 300; ++i) em.step();
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_GT(em.confirmed_steps(), 1);
}

}  // namespace
}  // namespace mechint
