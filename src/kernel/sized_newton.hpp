#pragma once
/// \file
/// The one Newton solver (solve/newton.hpp) at the size of a short system: 1 to 4 unknowns in
/// fixed-size storage with a fixed-size LU, where the runtime-sized solver's per-call overhead is
/// most of a step's cost, and runtime-sized above (docs/performance-history.md, "A fast path for short
/// chains"). A method keeps one and visits it once per solve: `std::visit([&]<int N>(NewtonSolver<N>&
/// newton) { ... }, solver)`. `at_short_size` gives other short computations the same cut.

#include <variant>

#include "mechint/solve/newton.hpp"

namespace mechint::kernel {

using SizedNewton = std::variant<NewtonSolver<Eigen::Dynamic>, NewtonSolver<1>, NewtonSolver<2>, NewtonSolver<3>,
                                 NewtonSolver<4>>;

/// A solver of `unknowns` unknowns, fixed-size for 1 to 4. Constructed in place: a fixed-size
/// solver's storage is uninitialized until its first solve, and moving it into the variant copied
/// that (GCC's -Wmaybe-uninitialized in every source that made one).
inline SizedNewton sized_newton(int unknowns) {
  switch (unknowns) {
    case 1: return SizedNewton(std::in_place_type<NewtonSolver<1>>);
    case 2: return SizedNewton(std::in_place_type<NewtonSolver<2>>);
    case 3: return SizedNewton(std::in_place_type<NewtonSolver<3>>);
    case 4: return SizedNewton(std::in_place_type<NewtonSolver<4>>);
    default: return SizedNewton(std::in_place_type<NewtonSolver<Eigen::Dynamic>>, unknowns);
  }
}

/// `f.template operator()<N>()` with N = n for 1 ≤ n ≤ 4 and N = Eigen::Dynamic above: Eigen's
/// fixed-size code (through Maps of the runtime-sized storage) where its runtime-sized overhead would
/// be most of the work, the cut sized_newton makes.
template <class F>
decltype(auto) at_short_size(int n, F&& f) {
  switch (n) {
    case 1: return f.template operator()<1>();
    case 2: return f.template operator()<2>();
    case 3: return f.template operator()<3>();
    case 4: return f.template operator()<4>();
    default: return f.template operator()<Eigen::Dynamic>();
  }
}

}  // namespace mechint::kernel
