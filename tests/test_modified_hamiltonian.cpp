// Truncated modified Hamiltonians (004 §III-A): each integrator keeps its own H̃ to O(h⁴) on the
// double pendulum (configuration-dependent mass matrix), while H and the other method's H̃ vary as
// O(h²); for a constant mass matrix the two formulas coincide with the textbook expression.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mechint/analysis/error_measures.hpp"
#include "mechint/integrate/stormer_verlet.hpp"
#include "mechint/integrate/trapezoid_flow.hpp"
#include "mechint/systems/double_pendulum.hpp"

namespace mechint {
namespace {

using systems::DoublePendulum;

struct Variation {
  double energy = 0, htilde_sv = 0, htilde_trap = 0;
};

template <class Flow>
Variation variation(const VecD<2>& q0, const VecD<2>& p0, double h, double t_end) {
  Flow flow{DoublePendulum{}};
  VecD<2> q = q0, p = p0, q1, p1;
  const DoublePendulum& m = flow.model();
  const double e0 = hamiltonian(m, q, p), s0 = modified_hamiltonian_stormer_verlet(m, q, p, h),
               t0 = modified_hamiltonian_trapezoid(m, q, p, h);
  Variation v;
  for (long k = 0; k < std::lround(t_end / h); ++k) {
    EXPECT_TRUE(flow.step(q, p, h, q1, p1).converged);
    q = q1, p = p1;
    v.energy = std::max(v.energy, std::abs(hamiltonian(m, q, p) - e0));
    v.htilde_sv = std::max(v.htilde_sv, std::abs(modified_hamiltonian_stormer_verlet(m, q, p, h) - s0));
    v.htilde_trap = std::max(v.htilde_trap, std::abs(modified_hamiltonian_trapezoid(m, q, p, h) - t0));
  }
  return v;
}

struct Slopes {
  double energy, own, other;
};

template <class Flow>
Slopes slopes(const systems::DoublePendulumStart& s) {
  const std::vector<double> hs = {0.04, 0.02, 0.01, 0.005};
  std::vector<double> e, sv, tr;
  for (double h : hs) {
    const Variation v = variation<Flow>(VecD<2>(s.th1, s.th2), VecD<2>(s.p1, s.p2), h, 5.0);
    e.push_back(v.energy), sv.push_back(v.htilde_sv), tr.push_back(v.htilde_trap);
  }
  const bool is_sv = Flow::kModifiedHamiltonian == ModifiedHamiltonianKind::kStormerVerlet;
  return {convergence_order(hs, e), convergence_order(hs, is_sv ? sv : tr), convergence_order(hs, is_sv ? tr : sv)};
}

class ModifiedHamiltonianSlopes : public ::testing::TestWithParam<int> {};

TEST_P(ModifiedHamiltonianSlopes, TrapezoidViKeepsItsOwnHtildeToFourthOrder) {
  const Slopes s = slopes<TrapezoidFlow<DoublePendulum>>(systems::kDoublePendulumStarts[GetParam()]);
  EXPECT_GE(s.own, 3.5);
  EXPECT_NEAR(s.energy, 2.0, 0.3);
  EXPECT_NEAR(s.other, 2.0, 0.3);  // 004's printed H̃ along the trapezoid VI: only h²
}

TEST_P(ModifiedHamiltonianSlopes, StormerVerletKeepsThePrintedHtildeToFourthOrder) {
  const Slopes s = slopes<StormerVerletFlow<DoublePendulum>>(systems::kDoublePendulumStarts[GetParam()]);
  EXPECT_GE(s.own, 3.5);
  EXPECT_NEAR(s.energy, 2.0, 0.3);
  EXPECT_NEAR(s.other, 2.0, 0.3);
}

INSTANTIATE_TEST_SUITE_P(AllStartsOf004, ModifiedHamiltonianSlopes, ::testing::Values(0, 1, 2));

/// L = ½ vᵀAv − V(q) with constant A.
struct ConstantMass {
  static constexpr int kDim = 2;
  static constexpr int kNumConstraints = 0;
  static constexpr int kNumSymmetries = 0;
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::cos;
    return 0.5 * (2.0 * v[0] * v[0] + 2.0 * 0.5 * v[0] * v[1] + v[1] * v[1]) - (1.0 - cos(q[0]) + q[0] * q[1] * q[1]);
  }
};

TEST(ModifiedHamiltonian, BothFormulasReduceToTheTextbookOneForConstantMass) {
  // Störmer–Verlet with M constant: H̃ = H + h²(V''(v, v)/12 − V'ᵀM⁻¹V'/24) (004, HLW 2003).
  const ConstantMass m;
  Mat<2, 2> a;
  a << 2.0, 0.5, 0.5, 1.0;
  const double h = 0.1;
  for (const auto& [q, p] : {std::pair{VecD<2>(0.3, -0.7), VecD<2>(1.0, 0.4)},
                             std::pair{VecD<2>(-1.2, 0.5), VecD<2>(-0.2, 2.0)}}) {
    const VecD<2> v = a.inverse() * p;
    const VecD<2> dv(std::sin(q[0]) + q[1] * q[1], 2.0 * q[0] * q[1]);
    Mat<2, 2> ddv;
    ddv << std::cos(q[0]), 2.0 * q[1], 2.0 * q[1], 2.0 * q[0];
    const double hh = 0.5 * p.dot(v) + 1.0 - std::cos(q[0]) + q[0] * q[1] * q[1];
    const double expected = hh + h * h * (v.dot(ddv * v) / 12.0 - dv.dot(a.inverse() * dv) / 24.0);
    EXPECT_NEAR(modified_hamiltonian_stormer_verlet(m, q, p, h), expected, 1e-13);
    EXPECT_NEAR(modified_hamiltonian_trapezoid(m, q, p, h), expected, 1e-13);
  }
}

}  // namespace
}  // namespace mechint
