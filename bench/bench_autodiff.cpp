// The choice of automatic-differentiation library (docs/autodiff.md): the cost of the nested second
// derivatives D12 Ld(q0, q1) that the DEL Jacobian needs, with ceres::Jet (jet of jets) and with
// Eigen's AutoDiffScalar (nested, fixed-size derivative vectors), on the midpoint discrete
// Lagrangian of Kepler (n = 2) and of the planar pendulum chain with n = 10 and n = 30.
// BM_HessianJetOfJets / BM_HessianSecondOrderJet: the gradient and Hessian of L over (q, q̇) that the
// kernels of a built-in model need (kernel/model_adapter.hpp), by a jet of jets over the 2n variables
// and by core/second_order_jet.hpp, on Kepler, the three-body problem, the double pendulum and the
// double spherical pendulum (n = 6).
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>

#include "mechint/core/autodiff.hpp"
#include "mechint/core/second_order_jet.hpp"
#include "mechint/systems/double_pendulum.hpp"
#include "mechint/systems/double_spherical_pendulum.hpp"
#include "mechint/systems/kepler.hpp"
#include "mechint/systems/pendulum_chain.hpp"
#include "mechint/systems/three_body.hpp"

namespace {

using namespace mechint;

template <int N>
using EigenAd1 = Eigen::AutoDiffScalar<Eigen::Matrix<double, N, 1>>;
template <int N>
using EigenAd2 = Eigen::AutoDiffScalar<Eigen::Matrix<EigenAd1<N>, N, 1>>;

// Both libraries evaluate the same midpoint Ld through the same model code.
template <class Model, class T>
T midpoint_ld(const Model& model, const Vec<T, Model::kDim>& q0, const Vec<T, Model::kDim>& q1, double h) {
  Vec<T, Model::kDim> qm, v;
  for (int i = 0; i < Model::kDim; ++i) {
    qm[i] = 0.5 * (q0[i] + q1[i]);
    v[i] = (q1[i] - q0[i]) * (1.0 / h);
  }
  return h * model.template lagrangian<T>(qm, v);
}

template <class Model>
void BM_CeresJet(benchmark::State& state, Model model, VecD<Model::kDim> q0, VecD<Model::kDim> q1) {
  constexpr int n = Model::kDim;
  double sink = 0;
  for (auto _ : state) {
    const Jet2<n> ld = midpoint_ld<Model, Jet2<n>>(model, seed_outer<n>(q0), seed_inner<n>(q1), 0.01);
    sink += ld.v[n - 1].v[0];
    benchmark::DoNotOptimize(sink);
  }
}

template <class Model>
void BM_EigenAutoDiff(benchmark::State& state, Model model, VecD<Model::kDim> q0, VecD<Model::kDim> q1) {
  constexpr int n = Model::kDim;
  using A1 = EigenAd1<n>;
  using A2 = EigenAd2<n>;
  double sink = 0;
  for (auto _ : state) {
    Vec<A2, n> a, b;
    for (int i = 0; i < n; ++i) {
      a[i].value() = A1(q0[i], Eigen::Matrix<double, n, 1>::Zero());
      a[i].derivatives().setConstant(A1(0.0, Eigen::Matrix<double, n, 1>::Zero()));
      a[i].derivatives()[i] = A1(1.0, Eigen::Matrix<double, n, 1>::Zero());
      b[i].value() = A1(q1[i], n, i);
      b[i].derivatives().setConstant(A1(0.0, Eigen::Matrix<double, n, 1>::Zero()));
    }
    const A2 ld = midpoint_ld<Model, A2>(model, a, b, 0.01);
    sink += ld.derivatives()[n - 1].derivatives()[0];
    benchmark::DoNotOptimize(sink);
  }
}

template <int N>
VecD<N> ramp(double scale) {
  VecD<N> x;
  for (int i = 0; i < N; ++i) x[i] = scale * (i + 1);
  return x;
}

const systems::Kepler kKepler{1.0};
BENCHMARK_CAPTURE(BM_CeresJet, kepler_n2, kKepler, VecD<2>(0.7, 0.2), VecD<2>(0.69, 0.21));
BENCHMARK_CAPTURE(BM_EigenAutoDiff, kepler_n2, kKepler, VecD<2>(0.7, 0.2), VecD<2>(0.69, 0.21));
BENCHMARK_CAPTURE(BM_CeresJet, chain_n10, systems::PendulumChain<10>{}, ramp<10>(0.01), ramp<10>(0.011));
BENCHMARK_CAPTURE(BM_EigenAutoDiff, chain_n10, systems::PendulumChain<10>{}, ramp<10>(0.01), ramp<10>(0.011));
BENCHMARK_CAPTURE(BM_CeresJet, chain_n30, systems::PendulumChain<30>{}, ramp<30>(0.01), ramp<30>(0.011));
BENCHMARK_CAPTURE(BM_EigenAutoDiff, chain_n30, systems::PendulumChain<30>{}, ramp<30>(0.01), ramp<30>(0.011));

// The Hessian of L over the 2n variables (q, v), read out as a model's kernels do.
template <class Model>
void BM_HessianJetOfJets(benchmark::State& state, Model model, VecD<Model::kDim> q, VecD<Model::kDim> v) {
  constexpr int n = Model::kDim, m = 2 * n;
  double sink = 0;
  for (auto _ : state) {
    Vec<Jet2<m>, n> qj, vj;
    for (int i = 0; i < n; ++i) qj[i] = Jet2<m>(Jet<m>(q[i], i), i), vj[i] = Jet2<m>(Jet<m>(v[i], n + i), n + i);
    const Jet2<m> l = model.template lagrangian<Jet2<m>>(qj, vj);
    sink += l.v[0].v[m - 1] + l.v[n].a;
    benchmark::DoNotOptimize(sink);
  }
}

template <class Model>
void BM_HessianSecondOrderJet(benchmark::State& state, Model model, VecD<Model::kDim> q, VecD<Model::kDim> v) {
  constexpr int n = Model::kDim, m = 2 * n;
  using S = SecondOrderJet<m>;
  double sink = 0;
  for (auto _ : state) {
    Vec<S, n> qj, vj;
    for (int i = 0; i < n; ++i) qj[i] = S(q[i], i), vj[i] = S(v[i], n + i);
    const S l = model.template lagrangian<S>(qj, vj);
    sink += l.hessian(0, m - 1) + l.g[n];
    benchmark::DoNotOptimize(sink);
  }
}

#define MECHINT_HESSIAN_BENCHMARKS(NAME, ...)                   \
  BENCHMARK_CAPTURE(BM_HessianJetOfJets, NAME, __VA_ARGS__);    \
  BENCHMARK_CAPTURE(BM_HessianSecondOrderJet, NAME, __VA_ARGS__)
MECHINT_HESSIAN_BENCHMARKS(kepler, kKepler, VecD<2>(0.7, 0.2), VecD<2>(-0.3, 1.1));
MECHINT_HESSIAN_BENCHMARKS(three_body, systems::ThreeBody{}, VecD<2>(0.7, 0.2), VecD<2>(-0.3, 1.1));
MECHINT_HESSIAN_BENCHMARKS(double_pendulum, systems::DoublePendulum{}, VecD<2>(0.7, 0.2), VecD<2>(-0.3, 1.1));
MECHINT_HESSIAN_BENCHMARKS(double_spherical_pendulum, systems::DoubleSphericalPendulum{}, ramp<6>(0.1), ramp<6>(-0.2));
#undef MECHINT_HESSIAN_BENCHMARKS

}  // namespace
