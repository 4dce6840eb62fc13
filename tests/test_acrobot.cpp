// The acrobot (systems/acrobot.hpp) on the kernel engine (its AD kernels as a run uses them, compiled
// once in the library) against the textbook equations of Spong (1995) and Tedrake's Underactuated
// Robotics, written here independently of the model's Lagrangian: the closed-form mass matrix M(q),
// Coriolis term C(q, q̇) q̇ and gravity G(q). Checked: the kernels' ∂²L/∂q̇² is that M(q), symmetric
// positive definite, and their energy and Euler–Lagrange equations are the textbook ones; unforced,
// the kernel midpoint VI keeps the energy within O(h²) over a long run; with an elbow torque it
// converges at order 2 to Boost.Odeint's rk78 at tolerance 1e-13 on M q̈ + C q̇ + G = (0, u), and its
// energy changes by the torque's work ∫ u θ̇2 dt up to O(h²).
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "kernel/kernel_runge_kutta.hpp"
#include "kernel/kernel_variational_integrator.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/model/forces.hpp"
#include "mechint/systems/acrobot.hpp"

namespace mechint {
namespace {

using kernel::KernelModel;
using kernel::KernelVariationalIntegrator;
using kernel::Rule;
using kernel::Vector;
using systems::Acrobot;

/// Unequal links, so that a term with the wrong link's parameter cannot pass.
const Acrobot kUneven{.m1 = 1.3, .m2 = 0.7, .l1 = 1.1, .l2 = 0.9, .lc1 = 0.45, .lc2 = 0.6,
                      .i1 = 0.11, .i2 = 0.07, .gravity = 9.81};

static_assert(HasGeneralizedForces<Acrobot> && kModelNumControls<Acrobot> == 1);
static_assert(!HasRayleighDissipation<Acrobot>);

std::shared_ptr<const KernelModel> kernels_of(const Acrobot& a) {
  return kernel::ModelAdapter<Acrobot>::kernels_for_runs(a);
}

const KernelModel& uneven_kernels() {
  static const std::shared_ptr<const KernelModel> k = kernels_of(kUneven);
  return *k;
}

// ---- the textbook equations (Spong 1995, θ1 from the downward vertical as in Tedrake) --------

Mat<2, 2> textbook_mass_matrix(const Acrobot& a, double th2) {
  const double c2 = std::cos(th2);
  Mat<2, 2> m;
  m(0, 0) = a.i1 + a.i2 + a.m2 * a.l1 * a.l1 + a.m1 * a.lc1 * a.lc1 + a.m2 * a.lc2 * a.lc2 +
            2.0 * a.m2 * a.l1 * a.lc2 * c2;
  m(0, 1) = m(1, 0) = a.i2 + a.m2 * a.lc2 * a.lc2 + a.m2 * a.l1 * a.lc2 * c2;
  m(1, 1) = a.i2 + a.m2 * a.lc2 * a.lc2;
  return m;
}

/// C(q, q̇) q̇: h = m2 l1 lc2 sin θ2.
VecD<2> textbook_coriolis(const Acrobot& a, const VecD<2>& q, const VecD<2>& v) {
  const double h = a.m2 * a.l1 * a.lc2 * std::sin(q[1]);
  return VecD<2>(-h * (2.0 * v[0] * v[1] + v[1] * v[1]), h * v[0] * v[0]);
}

/// G(q) = ∂V/∂q.
VecD<2> textbook_gravity(const Acrobot& a, const VecD<2>& q) {
  const double s12 = std::sin(q[0] + q[1]);
  return VecD<2>(a.gravity * (a.m1 * a.lc1 + a.m2 * a.l1) * std::sin(q[0]) + a.m2 * a.gravity * a.lc2 * s12,
                 a.m2 * a.gravity * a.lc2 * s12);
}

double textbook_energy(const Acrobot& a, const VecD<2>& q, const VecD<2>& v) {
  const double potential = -a.m1 * a.gravity * a.lc1 * std::cos(q[0]) -
                           a.m2 * a.gravity * (a.l1 * std::cos(q[0]) + a.lc2 * std::cos(q[0] + q[1]));
  return 0.5 * v.dot(textbook_mass_matrix(a, q[1]) * v) + potential;
}

/// The state (θ1, θ2, θ̇1, θ̇2, W) with W' = u(t) θ̇2, the work of the elbow torque.
using RefState = std::array<double, 5>;

struct TextbookOde {
  Acrobot a;
  std::function<double(double)> u;
  void operator()(const RefState& x, RefState& dx, double t) const {
    const VecD<2> q(x[0], x[1]), v(x[2], x[3]);
    const double torque = u(t);
    const VecD<2> rhs = VecD<2>(0.0, torque) - textbook_coriolis(a, q, v) - textbook_gravity(a, q);
    const VecD<2> acc = textbook_mass_matrix(a, q[1]).llt().solve(rhs);
    dx = {v[0], v[1], acc[0], acc[1], torque * v[1]};
  }
};

/// rk78 at rtol = atol = 1e-13 from (q0, v0, W = 0) to t_end.
RefState reference(const Acrobot& a, std::function<double(double)> u, const VecD<2>& q0, const VecD<2>& v0,
                   double t_end) {
  namespace odeint = boost::numeric::odeint;
  RefState x{q0[0], q0[1], v0[0], v0[1], 0.0};
  // As in integrate/odeint_baselines.hpp: GCC takes Odeint's copy of its unset scratch arrays, when
  // the controller is built, for a use of uninitialized values; each is written before it is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
  auto stepper = odeint::make_controlled(1e-13, 1e-13, odeint::runge_kutta_fehlberg78<RefState>());
#pragma GCC diagnostic pop
  odeint::integrate_adaptive(stepper, TextbookOde{a, std::move(u)}, x, 0.0, t_end, 1e-3);
  return x;
}

// ---- (a) the Lagrangian is the textbook one; unforced energy ---------------------------------

TEST(Acrobot, MassMatrixByAdIsTheTextbookOneAndPositiveDefinite) {
  double worst = 0.0, worst_asym = 0.0, smallest_eigenvalue = 1e300;
  for (const Acrobot& a : {Acrobot{}, kUneven}) {
    const auto kernels = kernels_of(a);
    // One control, the elbow torque, and no dissipation: what the static_asserts above say of the
    // model, as its kernels declare it.
    EXPECT_TRUE(kernels->forced());
    EXPECT_EQ(kernels->num_controls(), 1);
    EXPECT_EQ(kernels->dim(), 2);
    kernel::LagrangianValues l(2);
    Vector l_v(2);
    for (double th1 : {-2.5, -0.3, 0.0, 1.0, M_PI}) {
      for (double th2 : {-3.0, -1.2, 0.0, 0.4, M_PI / 2, 2.9}) {
        const VecD<2> q(th1, th2), v(0.7 * th2 - 0.2, 1.3 - th1);
        ASSERT_TRUE(kernels->lagrangian(q, v, l));
        const Mat<2, 2> ad = l.vv;
        worst = std::max(worst, (ad - textbook_mass_matrix(a, th2)).cwiseAbs().maxCoeff());
        worst_asym = std::max(worst_asym, std::abs(ad(0, 1) - ad(1, 0)));
        EXPECT_EQ(ad.llt().info(), Eigen::Success) << th1 << " " << th2;
        // computeDirect: Eigen's closed form for a small symmetric matrix (its iterative solver
        // cost about 9 of this file's compile CPU-seconds).
        smallest_eigenvalue = std::min(
            smallest_eigenvalue,
            Eigen::SelfAdjointEigenSolver<Mat<2, 2>>().computeDirect(ad, Eigen::EigenvaluesOnly).eigenvalues()[0]);
        // The energy by AD (∂L/∂q̇·q̇ − L) is the textbook ½ q̇ᵀMq̇ + V.
        double e = 0.0, size = 0.0;
        ASSERT_TRUE(kernels->energy(q, v, e, size, l_v));
        EXPECT_NEAR(e, textbook_energy(a, q, v), 1e-13);
      }
    }
  }
  std::printf("|L_vv - M_textbook| <= %.2e, |L_vv - L_vv^T| <= %.2e, smallest eigenvalue %.4f\n", worst, worst_asym,
              smallest_eigenvalue);
  EXPECT_LE(worst, 1e-13);
  EXPECT_LE(worst_asym, 1e-13);
  EXPECT_GT(smallest_eigenvalue, 0.0);
}

TEST(Acrobot, EulerLagrangeEquationsAreTheTextbookOnes) {
  // L_vv q̈ = L_q − L_qvᵀ q̇ + f by AD — the Runge–Kutta methods' ODE on the kernels — against
  // M⁻¹((0, u) − C q̇ − G) at u = 0.
  const kernel::KernelEulerLagrangeOde ode(uneven_kernels(), [](double, Vector& u) { u.setZero(); });
  for (double th1 : {-1.0, 0.2, 2.5}) {
    for (double th2 : {-2.0, 0.3, 1.7}) {
      const VecD<2> q(th1, th2), v(1.1 - th2, 0.4 * th1 + 0.3);
      const kernel::KernelEulerLagrangeOde::State x{q[0], q[1], v[0], v[1]};
      kernel::KernelEulerLagrangeOde::State dxdt(4);
      ode(x, dxdt, 0.0);
      EXPECT_EQ(dxdt[0], v[0]);
      EXPECT_EQ(dxdt[1], v[1]);
      const VecD<2> ad(dxdt[2], dxdt[3]);
      const VecD<2> textbook = textbook_mass_matrix(kUneven, th2).llt().solve(
          -textbook_coriolis(kUneven, q, v) - textbook_gravity(kUneven, q));
      EXPECT_LT((ad - textbook).norm(), 1e-12) << th1 << " " << th2;
    }
  }
}

/// max_k |E_k − E_0| of the unforced midpoint VI over [0, t_end], and the same over the first and the
/// last tenth of the run.
struct EnergyError {
  double whole = 0.0, first = 0.0, last = 0.0;
};

EnergyError unforced_energy_error(const Acrobot& a, double h, double t_end) {
  const auto kernels = kernels_of(a);
  KernelVariationalIntegrator integ(*kernels, Rule::kMidpoint, h);
  integ.set_control(Vector::Zero(1));
  integ.start_from_velocity(VecD<2>(1.0, 0.0), VecD<2>(0.0, 0.0));
  const double e0 = integ.energy();
  const long n = std::lround(t_end / h);
  EnergyError e;
  for (long s = 1; s <= n; ++s) {
    integ.step();
    const double d = std::abs(integ.energy() - e0);
    e.whole = std::max(e.whole, d);
    if (s <= n / 10) e.first = std::max(e.first, d);
    if (s > n - n / 10) e.last = std::max(e.last, d);
  }
  return e;
}

TEST(Acrobot, UnforcedMidpointEnergyStaysWithinOrderHSquared) {
  const double t_end = 200.0;
  const EnergyError coarse = unforced_energy_error(kUneven, 0.01, t_end);
  const EnergyError fine = unforced_energy_error(kUneven, 0.005, t_end);
  std::printf("unforced, t = %g: max|E - E0| h = 0.01: %.3e (first tenth %.3e, last tenth %.3e); "
              "h = 0.005: %.3e (first %.3e, last %.3e); log2 ratio %.3f\n",
              t_end, coarse.whole, coarse.first, coarse.last, fine.whole, fine.first, fine.last,
              std::log2(coarse.whole / fine.whole));
  EXPECT_NEAR(std::log2(coarse.whole / fine.whole), 2.0, 0.3);
  // Bounded, not drifting: the worst error of the last tenth of the run is within twice that of the
  // first tenth (measured: equal to 3 digits, both the bound of the whole run).
  for (const EnergyError& e : {coarse, fine}) EXPECT_LE(e.last, 2.0 * e.first);
}

// ---- (b) order 2 under a constant elbow torque ------------------------------------------------

TEST(Acrobot, ForcedMidpointConvergesAtOrderTwo) {
  // Final-time position error. (At t = 5 this start happens to give an error near zero crossing at
  // h = 0.04: log2 ratios 0.30, 1.37, 1.95, 1.99 there; at t = 2, 3 and other starts and torques they
  // are 2.00 ± 0.08 from h = 0.04 on.)
  const double u = 1.5, t_end = 3.0;
  const VecD<2> q0(1.0, 0.0), v0(0.0, 0.0);
  const RefState ref = reference(kUneven, [u](double) { return u; }, q0, v0, t_end);
  std::vector<double> errors;
  for (double h : {0.04, 0.02, 0.01, 0.005, 0.0025}) {
    KernelVariationalIntegrator integ(uneven_kernels(), Rule::kMidpoint, h);
    integ.set_control(Vector::Constant(1, u));
    integ.start_from_velocity(q0, v0);
    for (long s = 0, n = std::lround(t_end / h); s < n; ++s) integ.step();
    errors.push_back((integ.q() - VecD<2>(ref[0], ref[1])).norm());
  }
  std::printf("constant torque u = %g, t = %g, h = 0.04 ... 0.0025: errors", u, t_end);
  for (double e : errors) std::printf(" %.3e", e);
  std::printf(", log2 ratios");
  for (std::size_t i = 0; i + 1 < errors.size(); ++i) std::printf(" %.3f", std::log2(errors[i] / errors[i + 1]));
  std::printf("\n");
  for (std::size_t i = 0; i + 1 < errors.size(); ++i) EXPECT_NEAR(std::log2(errors[i] / errors[i + 1]), 2.0, 0.2) << i;
}

// ---- (c) energy balance E(T) − E(0) = ∫ u θ̇2 dt -----------------------------------------------

TEST(Acrobot, EnergyChangesByTheWorkOfTheElbowTorque) {
  const auto law = [](double t) { return 2.0 * std::sin(1.7 * t) + 0.5; };
  const double t_end = 5.0;
  const VecD<2> q0(1.0, 0.0), v0(0.0, 0.0);
  const RefState ref = reference(kUneven, law, q0, v0, t_end);
  const double e0 = textbook_energy(kUneven, q0, v0);
  const double ref_balance = textbook_energy(kUneven, VecD<2>(ref[0], ref[1]), VecD<2>(ref[2], ref[3])) - e0 - ref[4];
  std::printf("reference: E(T) - E(0) = %.6f, work %.6f, balance %.2e\n", ref[4] + ref_balance, ref[4], ref_balance);
  // The textbook equations and the textbook energy agree: dE/dt = u θ̇2 along their solution.
  EXPECT_LT(std::abs(ref_balance), 1e-9);
  EXPECT_GT(std::abs(ref[4]), 1.0);  // not vacuous

  std::vector<double> against_reference, against_discrete_work;
  for (double h : {0.02, 0.01, 0.005}) {
    KernelVariationalIntegrator integ(uneven_kernels(), Rule::kMidpoint, h);
    integ.set_control_law([&](double t, Vector& control) { control[0] = law(t); });
    integ.start_from_velocity(q0, v0);
    EXPECT_NEAR(integ.energy(), e0, 1e-13);
    // Σ u_k (θ2_{k+1} − θ2_k): the work of the step's torque on the discrete path.
    double discrete_work = 0.0;
    for (long s = 0, n = std::lround(t_end / h); s < n; ++s) {
      const double th2 = integ.q()[1];
      integ.step();
      discrete_work += integ.control()[0] * (integ.q()[1] - th2);
    }
    against_reference.push_back(std::abs(integ.energy() - e0 - ref[4]));
    against_discrete_work.push_back(std::abs(integ.energy() - e0 - discrete_work));
  }
  const auto& r = against_reference;
  const auto& d = against_discrete_work;
  std::printf("|E(T) - E(0) - W_ref|: %.3e %.3e %.3e (log2 ratios %.3f %.3f); "
              "|E(T) - E(0) - sum u_k dth2_k|: %.3e %.3e %.3e (log2 ratios %.3f %.3f)\n",
              r[0], r[1], r[2], std::log2(r[0] / r[1]), std::log2(r[1] / r[2]), d[0], d[1], d[2],
              std::log2(d[0] / d[1]), std::log2(d[1] / d[2]));
  for (std::size_t i = 0; i + 1 < r.size(); ++i) {
    EXPECT_NEAR(std::log2(r[i] / r[i + 1]), 2.0, 0.3) << i;
    EXPECT_NEAR(std::log2(d[i] / d[i + 1]), 2.0, 0.3) << i;
  }
}

}  // namespace
}  // namespace mechint
