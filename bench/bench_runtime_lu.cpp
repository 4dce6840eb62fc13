// RuntimeLu (include/mechint/solve/runtime_lu.hpp: Eigen's unblocked partial-pivoting LU at every
// size, no allocation) against Eigen::PartialPivLU<MatrixXd> (blocked above 16 unknowns, whose
// products allocate their workspace under EIGEN_STACK_ALLOCATION_LIMIT=0): one factorisation and one
// solve, as a Newton iteration does, on the sizes of the steps (a chain of n links has n unknowns; a
// Galerkin rule of s stages on n degrees of freedom s·n). The matrix is diagonally dominant with
// random off-diagonal entries, so the pivoting is that of a Newton Jacobian near convergence.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>

#include "mechint/solve/runtime_lu.hpp"

namespace {

Eigen::MatrixXd newton_like_matrix(int n) {
  std::srand(7);
  Eigen::MatrixXd a = Eigen::MatrixXd::Random(n, n);
  a.diagonal().array() += n;
  return a;
}

void BM_PartialPivLu(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Eigen::MatrixXd a = newton_like_matrix(n);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 1.0);
  Eigen::PartialPivLU<Eigen::MatrixXd> lu(n);
  Eigen::VectorXd x(n);
  for (auto _ : state) {
    lu.compute(a);
    x.noalias() = lu.solve(b);
    benchmark::DoNotOptimize(x.data());
  }
}

void BM_RuntimeLu(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Eigen::MatrixXd a = newton_like_matrix(n);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 1.0);
  mechint::RuntimeLu lu(n);
  Eigen::VectorXd x(n);
  for (auto _ : state) {
    lu.compute(a);
    lu.solve(b, x);
    benchmark::DoNotOptimize(x.data());
  }
}

}  // namespace

BENCHMARK(BM_PartialPivLu)->Arg(6)->Arg(16)->Arg(20)->Arg(30)->Arg(50)->Arg(100)->Arg(200);
BENCHMARK(BM_RuntimeLu)->Arg(6)->Arg(16)->Arg(20)->Arg(30)->Arg(50)->Arg(100)->Arg(200);
