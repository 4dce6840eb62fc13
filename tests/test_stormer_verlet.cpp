// The two Störmer–Verlet integrators in momentum form (004 §III-A) on kernels, the flows of the
// impact driver (kernel/kernel_flows.hpp: "stormer-verlet", "vi-trapezoid"): the Hamiltonian from the
// Legendre transform (kernel/kernel_hamiltonian.hpp) against its closed form, the generalized
// Störmer–Verlet method against the trapezoid VI (equal for a constant mass matrix, O(h³) apart per
// step otherwise), the trapezoid flow against the variational integrator of the trapezoid rule,
// symmetry, and second order against an adaptive reference.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

// The double pendulum's kernels are linked to; ConstantMassModel's are instantiated here from
// kernel/model_adapter.txx, which this includes: no built-in has a constant mass matrix that is not diagonal.
#include "kernel/builtin_model_kernels.hpp"
#include "kernel/kernel_flows.hpp"
#include "kernel/kernel_hamiltonian.hpp"
#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "mechint/analysis/error_measures.hpp"
#include "mechint/systems/double_pendulum.hpp"

namespace {
/// The impact flow a method's name chooses (as the registry's rows do, src/methods/impact_flows.cpp).
[[maybe_unused]] mechint::kernel::Flow flow_of(std::string_view method) {
  return method == "stormer-verlet" ? mechint::kernel::Flow::kStormerVerlet : mechint::kernel::Flow::kTrapezoid;
}
}  // namespace


namespace mechint {
namespace {

using kernel::Vector;
using systems::DoublePendulum;

/// Constant, non-diagonal mass matrix and a non-quadratic potential: both methods coincide.
struct ConstantMassModel {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::cos;
    return 0.5 * (2.0 * v[0] * v[0] + 2.0 * 0.5 * v[0] * v[1] + v[1] * v[1]) -
           (1.0 - cos(q[0]) + 0.3 * q[0] * q[1] * q[1] + 0.5 * q[1] * q[1]);
  }
};

/// The double pendulum's kernels as its runs take them (no walls: the smooth flows).
const kernel::KernelModel& double_pendulum_kernels() {
  static const std::shared_ptr<const kernel::KernelModel> kernels =
      kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(DoublePendulum{});
  return *kernels;
}

/// One step of `flow` from (q, p), asserted to converge, into (q, p).
void step_in_place(kernel::KernelFlow& flow, Vector& q, Vector& p, double h) {
  Vector q1(q.size()), p1(p.size());
  ASSERT_TRUE(flow.step(q, p, h, q1, p1).converged) << flow.name();
  q = q1, p = p1;
}

double closed_form_h(const DoublePendulum& m, const VecD<2>& q, const VecD<2>& p) {
  const double v = m.m1 * m.gravity * m.l1 * (1 - std::cos(q[0])) +
                   m.m2 * m.gravity * (m.l1 * (1 - std::cos(q[0])) + m.l2 * (1 - std::cos(q[0] + q[1])));
  return 0.5 * p.dot(m.mass_matrix(q).inverse() * p) + v;
}

TEST(Hamiltonian, LegendreTransformMatchesClosedFormAndFiniteDifferences) {
  const DoublePendulum m;
  const VecD<2> q(0.5647, 1.1106), p(3.7270, 0.2415);
  kernel::KernelHamiltonian d(double_pendulum_kernels());
  ASSERT_TRUE(d.derivatives(Vector(q), Vector(p), d.zero()));
  EXPECT_NEAR(d.h(), closed_form_h(m, q, p), 1e-13);
  EXPECT_LT((d.v() - m.mass_matrix(q).inverse() * p).norm(), 1e-13);
  EXPECT_LT((d.hpp() - m.mass_matrix(q).inverse()).norm(), 1e-13);
  // Second derivatives against central differences of the closed form (finite differences are the
  // test oracle only).
  const double e = 1e-4;
  for (int i = 0; i < 2; ++i) {
    VecD<2> dq = VecD<2>::Zero(), dp = VecD<2>::Zero();
    dq[i] = e, dp[i] = e;
    EXPECT_NEAR(d.hq()[i], (closed_form_h(m, q + dq, p) - closed_form_h(m, q - dq, p)) / (2 * e), 1e-6);
    for (int k = 0; k < 2; ++k) {
      VecD<2> ek = VecD<2>::Zero();
      ek[k] = e;
      const double hqq = (closed_form_h(m, q + dq + ek, p) - closed_form_h(m, q + dq - ek, p) -
                          closed_form_h(m, q - dq + ek, p) + closed_form_h(m, q - dq - ek, p)) / (4 * e * e);
      const double hqp = (closed_form_h(m, q + dq, p + ek) - closed_form_h(m, q + dq, p - ek) -
                          closed_form_h(m, q - dq, p + ek) + closed_form_h(m, q - dq, p - ek)) / (4 * e * e);
      EXPECT_NEAR(d.hqq()(i, k), hqq, 1e-5);
      EXPECT_NEAR(d.hqp()(i, k), hqp, 1e-5);
    }
  }
}

TEST(StormerVerlet, CoincidesWithTrapezoidViForConstantMassMatrix) {
  // Both flows by Newton (no separable kinetics given: the implicit methods themselves).
  const auto kernels = kernel::ModelAdapter<ConstantMassModel>::kernels(ConstantMassModel{});
  const auto sv = kernel::make_kernel_flow(mechint::kernel::Flow::kStormerVerlet, *kernels);
  const auto tr = kernel::make_kernel_flow(mechint::kernel::Flow::kTrapezoid, *kernels);
  Vector qa = Vector(VecD<2>(0.7, -0.4)), pa = Vector(VecD<2>(0.3, 1.1)), qb = qa, pb = pa;
  for (int k = 0; k < 200; ++k) {
    step_in_place(*sv, qa, pa, 0.05);
    step_in_place(*tr, qb, pb, 0.05);
    if (HasFatalFailure()) return;
  }
  EXPECT_LT((qa - qb).norm(), 1e-12);
  EXPECT_LT((pa - pb).norm(), 1e-12);
}

TEST(StormerVerlet, DiffersFromTrapezoidViAtThirdOrderPerStepForTheDoublePendulum) {
  // Configuration-dependent M: one step of each from the same state differs by O(h³).
  const auto sv = kernel::make_kernel_flow(mechint::kernel::Flow::kStormerVerlet, double_pendulum_kernels());
  const auto tr = kernel::make_kernel_flow(mechint::kernel::Flow::kTrapezoid, double_pendulum_kernels());
  const Vector q = Vector(VecD<2>(0.2, -1.5)), p = Vector(VecD<2>(3.0, -1.8));
  std::vector<double> hs, diffs;
  for (double h : {0.04, 0.02, 0.01, 0.005}) {
    Vector qa(2), pa(2), qb(2), pb(2);
    ASSERT_TRUE(sv->step(q, p, h, qa, pa).converged);
    ASSERT_TRUE(tr->step(q, p, h, qb, pb).converged);
    hs.push_back(h);
    diffs.push_back((qa - qb).norm() + (pa - pb).norm());
  }
  EXPECT_GT(diffs.back(), 1e-9);  // they are different methods
  EXPECT_NEAR(convergence_order(hs, diffs), 3.0, 0.2);
}

TEST(TrapezoidFlow, MatchesTheVariationalIntegrator) {
  // The flow (Newton on D1 Ld composed from L's derivatives) against the VI of the trapezoid rule
  // (the rule's discrete derivatives supplied by AD of Ld): two formulations of one map.
  const Vector q0 = Vector(VecD<2>(0.5647, 1.1106)), p0 = Vector(VecD<2>(3.7270, 0.2415));
  const double h = 0.02;
  kernel::KernelVariationalIntegrator vi(double_pendulum_kernels(), kernel::Rule::kTrapezoid, h);
  vi.start_from_momentum(q0, p0);
  const auto flow = kernel::make_kernel_flow(mechint::kernel::Flow::kTrapezoid, double_pendulum_kernels());
  Vector q = q0, p = p0;
  for (int k = 0; k < 300; ++k) {
    vi.step();
    step_in_place(*flow, q, p, h);
    if (HasFatalFailure()) return;
  }
  EXPECT_LT((vi.q() - q).norm(), 1e-11);
  EXPECT_LT((vi.p() - p).norm(), 1e-11);
}

TEST(StormerVerlet, IsSymmetric) {
  // Lobatto IIIA–IIIB is symmetric: Φ_{−h} ∘ Φ_h = id.
  const auto sv = kernel::make_kernel_flow(mechint::kernel::Flow::kStormerVerlet, double_pendulum_kernels());
  const Vector q = Vector(VecD<2>(0.2, -1.5)), p = Vector(VecD<2>(3.0, -1.8));
  Vector q1(2), p1(2), q2(2), p2(2);
  ASSERT_TRUE(sv->step(q, p, 0.05, q1, p1).converged);
  ASSERT_TRUE(sv->step(q1, p1, -0.05, q2, p2).converged);
  EXPECT_LT((q2 - q).norm() + (p2 - p).norm(), 1e-12);
}

double final_error(const std::string& method, double h, const Vector& reference, double t_end) {
  const auto flow = kernel::make_kernel_flow(flow_of(method), double_pendulum_kernels());
  Vector q = Vector(VecD<2>(0.2, -1.5)), p = Vector(VecD<2>(3.0, -1.8)), q1(2), p1(2);
  for (long k = 0; k < std::lround(t_end / h); ++k) {
    EXPECT_TRUE(flow->step(q, p, h, q1, p1).converged);
    q = q1, p = p1;
  }
  Vector x(4);
  x << q, p;
  return (x - reference).norm();
}

TEST(StormerVerlet, BothIntegratorsAreSecondOrderAgainstAnAdaptiveReference) {
  // The reference: rk78 at tolerance 1e-13 on the Euler–Lagrange equations (no walls in the table:
  // the smooth dynamics the flows integrate), p = ∂L/∂v at its end.
  const kernel::KernelModel& kernels = double_pendulum_kernels();
  ASSERT_EQ(kernels.num_unilateral(), 0);
  const double t_end = 2.0;
  const VecD<2> q0(0.2, -1.5), p0(3.0, -1.8);
  kernel::KernelRk78 ref(kernel::KernelEulerLagrangeOde(kernels, nullptr), 1e-3, {1e-13, 1e-13});
  ref.start_from_velocity(Vector(q0), Vector(DoublePendulum{}.mass_matrix(q0).inverse() * p0));
  while (ref.time() < t_end) ref.step_toward(t_end);
  Vector p_end(2);
  ASSERT_TRUE(kernels.gradient(ref.q(), ref.velocity(), nullptr, nullptr, &p_end));
  Vector x(4);
  x << ref.q(), p_end;
  const std::vector<double> hs = {0.02, 0.01, 0.005, 0.0025};
  std::vector<double> e_sv, e_tr;
  for (double h : hs) {
    e_sv.push_back(final_error("stormer-verlet", h, x, t_end));
    e_tr.push_back(final_error("vi-trapezoid", h, x, t_end));
  }
  EXPECT_NEAR(convergence_order(hs, e_sv), 2.0, 0.15);
  EXPECT_NEAR(convergence_order(hs, e_tr), 2.0, 0.15);
}

}  // namespace
}  // namespace mechint
