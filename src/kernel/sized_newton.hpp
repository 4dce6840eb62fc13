#pragma once
/// \file
/// The one Newton solver (solve/newton.hpp) at the size of a short system: 1 to 4 unknowns in
/// fixed-size storage with a fixed-size LU, where the runtime-sized solver's per-call overhead is
/// most of a step's cost, and runtime-sized above (docs/performance.md, "A fast path for short
/// chains"). A method keeps one and visits it once per solve: `std::visit([&]<int N>(NewtonSolver<N>&
/// newton) { ... }, solver)`.

#include <variant>

#include "mechint/solve/newton.hpp"

namespace mechint::kernel {

using SizedNewton = std::variant<NewtonSolver<Eigen::Dynamic>, NewtonSolver<1>, NewtonSolver<2>, NewtonSolver<3>,
                                 NewtonSolver<4>>;

/// A solver of `unknowns` unknowns, fixed-size for 1 to 4.
inline SizedNewton sized_newton(int unknowns) {
  switch (unknowns) {
    case 1: return NewtonSolver<1>();
    case 2: return NewtonSolver<2>();
    case 3: return NewtonSolver<3>();
    case 4: return NewtonSolver<4>();
    default: return NewtonSolver<Eigen::Dynamic>(unknowns);
  }
}

}  // namespace mechint::kernel
