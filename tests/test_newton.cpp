// The generic Newton solver (solve/newton.hpp) on problems with known roots: convergence to the
// root, quadratic convergence of full Newton, linear convergence and Jacobian reuse of simplified
// Newton, failures reported, and no allocation; the runtime-sized LU (solve/runtime_lu.hpp) against
// Eigen's PartialPivLU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "mechint/solve/newton.hpp"
#include "mechint/solve/runtime_lu.hpp"

#include "counting_allocator.hpp"

namespace mechint {
namespace {

/// R(x, y) = [x² + y² − 4, x − y eᵃ] with a = 0: the circle of radius 2 meets the line y = x at
/// (√2, √2). `errors` records ‖x − x*‖∞ after every update (when given a vector to fill).
struct CircleAndLine {
  VecD<2> x{1.0, 0.5};
  double tolerance = 1e-14;
  NewtonVariant variant = NewtonVariant::kFull;
  std::vector<double>* errors = nullptr;

  static VecD<2> root() { return VecD<2>::Constant(std::sqrt(2.0)); }

  void assemble(VecD<2>& r, Mat<2, 2>* j) const {
    r << x[0] * x[0] + x[1] * x[1] - 4.0, x[0] - x[1];
    if (j) *j << 2.0 * x[0], 2.0 * x[1], 1.0, -1.0;
  }
  double update(const VecD<2>& delta) {
    x -= delta;
    if (errors) errors->push_back((x - root()).lpNorm<Eigen::Infinity>());
    return delta.lpNorm<Eigen::Infinity>();
  }
  bool converged_on_update(const NewtonIterate& state) const {
    return update_converged(state, variant, tolerance, 1.0 + x.lpNorm<Eigen::Infinity>());
  }
};

TEST(Newton, FullNewtonFindsTheClosedFormRoot) {
  CircleAndLine p;
  NewtonSolver<2> newton;
  const NewtonStats stats = newton.solve(p);
  EXPECT_TRUE(stats.converged);
  EXPECT_EQ(newton.last_stop(), NewtonStop::kConverged);
  EXPECT_NEAR(p.x[0], std::sqrt(2.0), 4e-16);
  EXPECT_NEAR(p.x[1], std::sqrt(2.0), 4e-16);
  EXPECT_EQ(stats.jacobian_evaluations, stats.iterations);  // one per update
  EXPECT_LE(stats.iterations, 8);
  EXPECT_FALSE(newton.has_factorization());  // full Newton keeps nothing
}

TEST(Newton, FullNewtonConvergesQuadratically) {
  std::vector<double> errors;
  CircleAndLine p;
  p.errors = &errors;
  NewtonSolver<2> newton;
  ASSERT_TRUE(newton.solve(p).converged);
  // e_{i+1} ≤ C e_i² with a moderate C while the errors are above round-off; the exponent of the
  // last such pair is close to 2.
  int pairs = 0;
  double last_order = 0.0;
  for (std::size_t i = 0; i + 1 < errors.size(); ++i) {
    if (errors[i] < 1e-7 || errors[i + 1] < 1e-14) continue;
    EXPECT_LE(errors[i + 1], 2.0 * errors[i] * errors[i]) << "update " << i + 1;
    if (i > 0 && errors[i - 1] < 1.0) last_order = std::log(errors[i + 1]) / std::log(errors[i]);
    ++pairs;
  }
  EXPECT_GE(pairs, 2);
  EXPECT_NEAR(last_order, 2.0, 0.3);
}

TEST(Newton, SimplifiedNewtonConvergesLinearlyWithOneJacobian) {
  std::vector<double> errors;
  CircleAndLine p;
  p.x = VecD<2>(1.3, 1.5);  // close enough for the first Jacobian to stay good
  p.variant = NewtonVariant::kSimplified;
  p.errors = &errors;
  NewtonSolver<2> newton;
  NewtonPolicy policy;
  policy.variant = NewtonVariant::kSimplified;
  policy.refresh_contraction = 0.9;
  const NewtonStats stats = newton.solve(p, policy);
  ASSERT_TRUE(stats.converged);
  EXPECT_EQ(stats.jacobian_evaluations, 1);
  EXPECT_GT(stats.iterations, 5);  // linear, so more updates than full Newton's handful
  EXPECT_NEAR(p.x[0], std::sqrt(2.0), 4e-16);  // to round-off, as full Newton
  EXPECT_NEAR(p.x[1], std::sqrt(2.0), 4e-16);
  // A roughly constant ratio of successive errors, well inside (0, 1).
  std::vector<double> ratios;
  for (std::size_t i = 1; i < errors.size(); ++i)
    if (errors[i - 1] > 1e-12) ratios.push_back(errors[i] / errors[i - 1]);
  ASSERT_GE(ratios.size(), 4u);
  for (std::size_t i = 1; i < ratios.size(); ++i) {
    EXPECT_GT(ratios[i], 0.01);
    EXPECT_LT(ratios[i], 0.5);
    EXPECT_NEAR(ratios[i], ratios.back(), 0.5 * ratios.back());
  }
  // The converged simplified solve keeps its factorization: from a nearby guess the next solve
  // evaluates no Jacobian at all.
  EXPECT_TRUE(newton.has_factorization());
  p.x = CircleAndLine::root() + VecD<2>(1e-3, -2e-3);
  p.errors = nullptr;
  const NewtonStats again = newton.solve(p, policy);
  EXPECT_TRUE(again.converged);
  EXPECT_EQ(again.jacobian_evaluations, 0);
  newton.discard_factorization();
  EXPECT_FALSE(newton.has_factorization());
}

TEST(Newton, SimplifiedNewtonRefreshesWhenContractionIsSlow) {
  CircleAndLine p;
  p.variant = NewtonVariant::kSimplified;
  NewtonSolver<2> newton;
  NewtonPolicy policy;
  policy.variant = NewtonVariant::kSimplified;
  policy.refresh_contraction = 0.01;
  const NewtonStats stats = newton.solve(p, policy);
  ASSERT_TRUE(stats.converged);
  EXPECT_GT(stats.jacobian_evaluations, 1);
  EXPECT_LT(stats.jacobian_evaluations, stats.iterations);
  EXPECT_NEAR(p.x[0], std::sqrt(2.0), 1e-13);
}

/// R(x) = x² + 1 has no real root: Newton wanders (x ← (x − 1/x)/2) and must report failure.
struct NoRoot {
  VecD<1> x{0.7};
  void assemble(VecD<1>& r, Mat<1, 1>* j) const {
    r[0] = x[0] * x[0] + 1.0;
    if (j) (*j)(0, 0) = 2.0 * x[0];
  }
  double update(const VecD<1>& delta) {
    x -= delta;
    return std::abs(delta[0]);
  }
  bool converged_on_residual(const NewtonIterate& state) const { return state.residual_norm <= 1e-12; }
  bool converged_on_update(const NewtonIterate& state) const { return update_below(state, 1e-12, std::abs(x[0])); }
};

TEST(Newton, NoRootIsReportedAsNotConverged) {
  NoRoot p;
  NewtonSolver<1> newton;
  NewtonPolicy policy;
  policy.max_iterations = 40;
  const NewtonStats stats = newton.solve(p, policy);
  EXPECT_FALSE(stats.converged);
  EXPECT_EQ(newton.last_stop(), NewtonStop::kMaxIterations);
  EXPECT_EQ(stats.iterations, 40);
  EXPECT_GE(stats.residual_norm, 1.0);  // x² + 1 ≥ 1 everywhere
}

/// R(x) = log x from x = 3: the first update lands at x < 0, where the residual is NaN.
struct LeavesTheDomain {
  VecD<1> x{3.0};
  void assemble(VecD<1>& r, Mat<1, 1>* j) const {
    r[0] = std::log(x[0]);
    if (j) (*j)(0, 0) = 1.0 / x[0];
  }
  double update(const VecD<1>& delta) {
    x -= delta;
    return std::abs(delta[0]);
  }
  bool converged_on_update(const NewtonIterate& state) const { return update_below(state, 1e-12, std::abs(x[0])); }
};

TEST(Newton, ResidualOutsideTheDomainStopsTheSolve) {
  LeavesTheDomain p;
  NewtonSolver<1> newton;
  const NewtonStats stats = newton.solve(p);
  EXPECT_FALSE(stats.converged);
  EXPECT_EQ(newton.last_stop(), NewtonStop::kNonFinite);
  EXPECT_EQ(stats.iterations, 1);
  EXPECT_LT(p.x[0], 0.0);
}

/// A singular Jacobian (two parallel lines, no intersection) gives a non-finite update.
struct ParallelLines {
  VecD<2> x{0.0, 0.0};
  void assemble(VecD<2>& r, Mat<2, 2>* j) const {
    r << x[0] + x[1] - 1.0, x[0] + x[1] + 1.0;
    if (j) *j << 1.0, 1.0, 1.0, 1.0;
  }
  double update(const VecD<2>& delta) {
    x -= delta;
    return delta.lpNorm<Eigen::Infinity>();
  }
  bool converged_on_update(const NewtonIterate& state) const { return state.update_norm <= 1e-12; }
};

TEST(Newton, SingularJacobianStopsTheSolve) {
  ParallelLines p;
  NewtonSolver<2> newton;
  const NewtonStats stats = newton.solve(p);
  EXPECT_FALSE(stats.converged);
  EXPECT_EQ(newton.last_stop(), NewtonStop::kNonFinite);
  EXPECT_EQ(stats.iterations, 0);
  EXPECT_EQ(p.x, VecD<2>(0.0, 0.0));  // the non-finite update is not applied
}

TEST(Newton, ResidualTestStopsBeforeAnUpdate) {
  struct AtRoot : CircleAndLine {
    bool converged_on_residual(const NewtonIterate& state) const { return state.residual_norm <= 1e-15; }
  } p;
  p.x = CircleAndLine::root();
  NewtonSolver<2> newton;
  const NewtonStats stats = newton.solve(p);
  EXPECT_TRUE(stats.converged);
  EXPECT_EQ(stats.iterations, 0);
  EXPECT_EQ(stats.jacobian_evaluations, 0);
  EXPECT_EQ(p.x, CircleAndLine::root());
}

TEST(Newton, ConvergenceTests) {
  NewtonIterate s;
  s.iteration = 0;
  s.update_norm = 1e-11;
  s.fresh_jacobian = true;
  EXPECT_TRUE(update_below(s, 1e-10, 0.0));
  EXPECT_FALSE(update_below(s, 1e-12, 5.0));
  EXPECT_TRUE(update_converged(s, NewtonVariant::kFull, 1e-10));
  EXPECT_TRUE(update_converged(s, NewtonVariant::kSimplified, 1e-10));
  s.fresh_jacobian = false;  // an update from an old Jacobian says nothing about the error yet
  EXPECT_FALSE(update_converged(s, NewtonVariant::kSimplified, 1e-10));
  EXPECT_FALSE(contraction_estimate_below(s, 1.0));  // needs two updates
  s.iteration = 2;
  s.previous_update_norm = 1e-10;  // θ = 0.1: distance ≈ θ/(1 − θ)·‖Δ‖ ≈ 1.1e-12
  EXPECT_TRUE(contraction_estimate_below(s, 1.2e-12));
  EXPECT_FALSE(contraction_estimate_below(s, 1.0e-12));
  s.previous_update_norm = 0.9e-11;  // θ > 1: diverging, never converged
  EXPECT_FALSE(contraction_estimate_below(s, 1.0));
  // Round-off stall: updates not shrinking (θ > 1/4) and below the absolute tolerance.
  EXPECT_TRUE(stalled_at_roundoff(s, 1e-10));
  EXPECT_FALSE(stalled_at_roundoff(s, 1e-12));
  s.previous_update_norm = 1e-9;  // still contracting fast: not a stall
  EXPECT_FALSE(stalled_at_roundoff(s, 1e-10));
  s.iteration = 0;
  EXPECT_FALSE(stalled_at_roundoff(s, 1.0));
  // Simplified Newton's update test goes on to round-off: updates still shrinking (θ = 0.1) go on,
  // however small; one that stops halving below a thousandth of the tolerance is rounding noise.
  s.iteration = 3;
  s.fresh_jacobian = false;
  s.previous_update_norm = 1e-11;
  s.update_norm = 1e-12;
  EXPECT_FALSE(update_converged(s, NewtonVariant::kSimplified, 1e-10, 2.0));
  s.previous_update_norm = 1e-14;
  s.update_norm = 1e-15;
  EXPECT_FALSE(update_converged(s, NewtonVariant::kSimplified, 1e-10, 2.0));
  s.previous_update_norm = 1.5e-14;
  s.update_norm = 1e-14;
  EXPECT_TRUE(update_converged(s, NewtonVariant::kSimplified, 1e-10, 2.0));
  s.previous_update_norm = 1.5e-11;  // the same ratio far above round-off is slow convergence
  s.update_norm = 1e-11;
  EXPECT_FALSE(update_converged(s, NewtonVariant::kSimplified, 1e-10, 2.0));
  // The noise band never goes below 16ε, whatever the tolerance asked; a zero update is converged.
  s.previous_update_norm = 3e-16;
  s.update_norm = 2e-16;
  EXPECT_TRUE(update_converged(s, NewtonVariant::kSimplified, 1e-14, 2.0));
  s.update_norm = 0.0;
  EXPECT_TRUE(update_converged(s, NewtonVariant::kSimplified, 1e-14, 2.0));
  // After a Newton step from a fresh Jacobian the full-Newton test applies.
  s.fresh_jacobian = true;
  s.update_norm = 1e-11;
  EXPECT_TRUE(update_converged(s, NewtonVariant::kSimplified, 1e-10, 2.0));
}

/// A 6-dimensional system with a known root x* = (1, 2, …, 6): R_i = x_i³ − x*_i³ + c·Σ_j (x_j − x*_j).
struct Cubic6 {
  VecD<6> x = VecD<6>::Constant(3.0);
  static VecD<6> root() { return VecD<6>(1, 2, 3, 4, 5, 6); }
  void assemble(VecD<6>& r, Mat<6, 6>* j) const {
    const double s = 0.1 * (x - root()).sum();
    for (int i = 0; i < 6; ++i) r[i] = x[i] * x[i] * x[i] - std::pow(root()[i], 3) + s;
    if (j) {
      j->setConstant(0.1);
      for (int i = 0; i < 6; ++i) (*j)(i, i) += 3.0 * x[i] * x[i];
    }
  }
  double update(const VecD<6>& delta) {
    x -= delta;
    return delta.lpNorm<Eigen::Infinity>();
  }
  bool converged_on_update(const NewtonIterate& state) const {
    return update_below(state, 1e-13, x.lpNorm<Eigen::Infinity>());
  }
};

TEST(Newton, SolvesWithoutAllocating) {
  NewtonSolver<6> newton;
  NewtonPolicy simplified;
  simplified.variant = NewtonVariant::kSimplified;
  Cubic6 p;
  ASSERT_TRUE(newton.solve(p).converged);  // warm-up outside the count
  EXPECT_LT((p.x - Cubic6::root()).lpNorm<Eigen::Infinity>(), 1e-13);
  const long before = g_allocations.load();
  bool all_converged = true;
  for (int k = 0; k < 100; ++k) {
    Cubic6 q;
    q.x += VecD<6>::Constant(0.01 * k);
    all_converged = newton.solve(q).converged && all_converged;
    Cubic6 r;
    all_converged = newton.solve(r, simplified).converged && all_converged;
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_TRUE(all_converged);
}

// ---- RuntimeLu ----------------------------------------------------------------------------------

/// A matrix whose partial pivoting interchanges rows (uniform entries in [−1, 1], no dominant diagonal).
Eigen::MatrixXd pivoting_matrix(int n, unsigned seed) {
  std::srand(seed);
  return Eigen::MatrixXd::Random(n, n);
}

TEST(RuntimeLu, IsPartialPivLuBitForBitUpTo16Unknowns) {
  // Up to 16 unknowns PartialPivLU runs the same unblocked factorisation.
  for (int n = 1; n <= 16; ++n) {
    const Eigen::MatrixXd a = pivoting_matrix(n, 100 + n);
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
    RuntimeLu lu(n);
    lu.compute(a);
    Eigen::VectorXd x(n);
    lu.solve(b, x);
    const Eigen::VectorXd reference = Eigen::PartialPivLU<Eigen::MatrixXd>(a).solve(b);
    for (int i = 0; i < n; ++i) EXPECT_EQ(x[i], reference[i]) << "n = " << n << ", i = " << i;
  }
}

TEST(RuntimeLu, IsPartialPivLuBitForBitOnManyMatricesUpTo8Unknowns) {
  // Up to 8 unknowns RuntimeLu runs its own loops (solve/runtime_lu.hpp): they must be Eigen's
  // arithmetic exactly — the pivot chosen among equal magnitudes (small integer entries give ties),
  // exactly zero pivots, zero entries of the right-hand side (which Eigen's substitutions skip).
  std::mt19937 random(2024);
  std::uniform_int_distribution<int> small_integer(-2, 2);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  long compared = 0;
  for (int n = 1; n <= 8; ++n) {
    RuntimeLu lu(n);
    Eigen::VectorXd x(n);
    for (int trial = 0; trial < 300; ++trial) {
      const bool ties = trial % 2 == 0;
      Eigen::MatrixXd a(n, n);
      Eigen::VectorXd b(n);
      for (int i = 0; i < n; ++i) {
        b[i] = trial % 3 == 0 ? small_integer(random) : real(random);
        for (int j = 0; j < n; ++j) a(i, j) = ties ? small_integer(random) : real(random);
      }
      lu.compute(a);
      lu.solve(b, x);
      const Eigen::VectorXd reference = Eigen::PartialPivLU<Eigen::MatrixXd>(a).solve(b);
      for (int i = 0; i < n; ++i) {
        // Singular integer matrices give the same NaN or infinity as Eigen: compare the bits.
        EXPECT_EQ(std::memcmp(&x[i], &reference[i], sizeof(double)), 0)
            << "n = " << n << ", trial " << trial << ", i = " << i << ": " << x[i] << " vs " << reference[i];
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 300L * 36);
}

TEST(RuntimeLu, SolvesLargerSystemsToRoundOff) {
  // Backward error ‖A x − b‖ / (‖A‖ ‖x‖) at round-off, and the same solution as the blocked
  // PartialPivLU up to the conditioning of A.
  for (int n : {17, 24, 50, 120}) {
    const Eigen::MatrixXd a = pivoting_matrix(n, n);
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
    RuntimeLu lu(n);
    lu.compute(a);
    Eigen::VectorXd x(n);
    lu.solve(b, x);
    const double norm_a = a.lpNorm<Eigen::Infinity>();
    EXPECT_LE((a * x - b).lpNorm<Eigen::Infinity>() / (norm_a * x.lpNorm<Eigen::Infinity>()), 50 * n * 1.1e-16) << n;
    const Eigen::PartialPivLU<Eigen::MatrixXd> blocked(a);
    const double condition = norm_a * blocked.inverse().lpNorm<Eigen::Infinity>();
    const Eigen::VectorXd reference = blocked.solve(b);
    EXPECT_LE((x - reference).lpNorm<Eigen::Infinity>() / reference.lpNorm<Eigen::Infinity>(), 50 * n * condition * 1.1e-16)
        << n;
    // In place: the right-hand side overwritten by the solution.
    Eigen::VectorXd in_place = b;
    lu.solve(in_place, in_place);
    EXPECT_EQ(in_place, x) << n;
  }
}

TEST(RuntimeLu, AZeroPivotGivesANonFiniteSolution) {
  // What Newton tests for (a singular Jacobian): a zero column leaves an exactly zero pivot.
  for (int n : {5, 30}) {
    Eigen::MatrixXd a = pivoting_matrix(n, 3);
    a.col(n / 2).setZero();
    RuntimeLu lu(n);
    lu.compute(a);
    Eigen::VectorXd x(n);
    lu.solve(Eigen::VectorXd::Ones(n), x);
    EXPECT_FALSE(x.allFinite()) << n;
  }
}

TEST(RuntimeLu, FactorsAndSolvesWithoutAllocating) {
  for (int n : {8, 40}) {
    const Eigen::MatrixXd a = pivoting_matrix(n, 11);
    const Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
    RuntimeLu lu(n);
    Eigen::VectorXd x(n);
    const long before = g_allocations.load();
    for (int k = 0; k < 10; ++k) {
      lu.compute(a);
      lu.solve(b, x);
    }
    EXPECT_EQ(g_allocations.load() - before, 0) << n;
    EXPECT_TRUE(x.allFinite());
  }
}

}  // namespace
}  // namespace mechint
