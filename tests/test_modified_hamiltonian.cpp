// Truncated modified Hamiltonians (004 §III-A): each integrator keeps its own H̃ to O(h⁴) on the
// double pendulum (configuration-dependent mass matrix), while H and the other method's H̃ vary as
// O(h²); for a constant mass matrix the two formulas coincide with the textbook expression.
// The flows are the kernel engine's (kernel/kernel_flows.hpp: vi-trapezoid and stormer-verlet on
// the double pendulum's kernels, compiled once in the library); H and both H̃ along them are the
// closed forms of analysis/modified_hamiltonian.hpp on the fixed-size model, independent of the
// kernels' own Hamiltonian.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string_view>
#include <vector>

#include "kernel/kernel_flows.hpp"
#include "kernel/model_adapter.hpp"  // the built-ins' kernels are instantiated in the library, linked to
#include "mechint/analysis/error_measures.hpp"
#include "mechint/analysis/modified_hamiltonian.hpp"
#include "mechint/systems/double_pendulum.hpp"

namespace {
/// The impact flow a method's name chooses (as the registry's rows do, src/methods/impact_flows.cpp).
[[maybe_unused]] mechint::kernel::Flow flow_of(std::string_view method) {
  return method == "stormer-verlet" ? mechint::kernel::Flow::kStormerVerlet : mechint::kernel::Flow::kTrapezoid;
}
}  // namespace


namespace mechint {
namespace {

using systems::DoublePendulum;

/// The double pendulum's kernels without its wall: what `mechint run double-pendulum` steps.
const kernel::KernelModel& pendulum_kernels() {
  static const std::shared_ptr<const kernel::KernelModel> k =
      kernel::ModelAdapter<DoublePendulum>::kernels_for_runs(DoublePendulum{});
  return *k;
}

struct Variation {
  double energy = 0, htilde_sv = 0, htilde_trap = 0;
};

Variation variation(kernel::KernelFlow& flow, const VecD<2>& q0, const VecD<2>& p0, double h, double t_end) {
  const DoublePendulum m{};
  VecD<2> q = q0, p = p0;
  kernel::Vector qk = q0, pk = p0, q1(2), p1(2);
  const double e0 = hamiltonian(m, q, p), s0 = modified_hamiltonian_stormer_verlet(m, q, p, h),
               t0 = modified_hamiltonian_trapezoid(m, q, p, h);
  Variation v;
  for (long k = 0; k < std::lround(t_end / h); ++k) {
    EXPECT_TRUE(flow.step(qk, pk, h, q1, p1).converged);
    qk = q1, pk = p1;
    q = qk, p = pk;
    v.energy = std::max(v.energy, std::abs(hamiltonian(m, q, p) - e0));
    v.htilde_sv = std::max(v.htilde_sv, std::abs(modified_hamiltonian_stormer_verlet(m, q, p, h) - s0));
    v.htilde_trap = std::max(v.htilde_trap, std::abs(modified_hamiltonian_trapezoid(m, q, p, h) - t0));
  }
  return v;
}

struct Slopes {
  double energy, own, other;
};

/// `method` is "vi-trapezoid" or "stormer-verlet"; its own H̃ is the kind the flow names.
Slopes slopes(std::string_view method, const systems::DoublePendulumStart& s) {
  const auto flow = kernel::make_kernel_flow(flow_of(method), pendulum_kernels());
  const std::vector<double> hs = {0.04, 0.02, 0.01, 0.005};
  std::vector<double> e, sv, tr;
  for (double h : hs) {
    const Variation v = variation(*flow, VecD<2>(s.th1, s.th2), VecD<2>(s.p1, s.p2), h, 5.0);
    e.push_back(v.energy), sv.push_back(v.htilde_sv), tr.push_back(v.htilde_trap);
  }
  const bool is_sv = flow->modified_hamiltonian_kind() == ModifiedHamiltonianKind::kStormerVerlet;
  return {convergence_order(hs, e), convergence_order(hs, is_sv ? sv : tr), convergence_order(hs, is_sv ? tr : sv)};
}

class ModifiedHamiltonianSlopes : public ::testing::TestWithParam<int> {};

TEST_P(ModifiedHamiltonianSlopes, TrapezoidViKeepsItsOwnHtildeToFourthOrder) {
  const Slopes s = slopes("vi-trapezoid", systems::kDoublePendulumStarts[GetParam()]);
  EXPECT_GE(s.own, 3.5);
  EXPECT_NEAR(s.energy, 2.0, 0.3);
  EXPECT_NEAR(s.other, 2.0, 0.3);  // 004's printed H̃ along the trapezoid VI: only h²
}

TEST_P(ModifiedHamiltonianSlopes, StormerVerletKeepsThePrintedHtildeToFourthOrder) {
  const Slopes s = slopes("stormer-verlet", systems::kDoublePendulumStarts[GetParam()]);
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
